"""A ``--language`` site in Pyodide: the page's one wheel carries the Snowball stemmers, and a
German and French collection answers there exactly as in CPython (adr/0045).

CPython ingests 20 known-item paragraphs with ``--language de,fr`` and builds the site; Pyodide
gets the site's own wheel only (no other package), and runs the known-item queries over the
SQLite file and over the site's static index. Only ``tox run -e pyodide`` runs this.
"""

from __future__ import annotations

import json
import shutil
import sys
from typing import Any

import pytest
from test_cross_runtime import (
    QUERIES,
    REPO_ROOT,
    RUNNER,
    comparable,
    differences,
    run_checked,
    without_roots,
)

pytestmark = pytest.mark.subprocess
pytest.importorskip("snowballstemmer", reason='the pyodide env installs ".[languages]"')
sys.path.insert(0, str(REPO_ROOT / "tests" / "core"))
from language_corpus import FRENCH, GERMAN  # noqa: E402  (tests/core is not a package)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the Pyodide side needs Node.js >= 20")
    work = tmp_path_factory.mktemp("language-site")
    corpus = work / "corpus"
    queries = []
    for code, items in (("de", GERMAN), ("fr", FRENCH)):
        (corpus / code).mkdir(parents=True)
        for name, text, query in items:
            page = f"---\nlang: {code}\n---\n\n{text}\n"
            (corpus / code / name).write_text(page, encoding="utf-8")
            queries.append([query, 3, None])
    (work / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    index, site = work / "index", work / "site"
    language = ["--language", "de,fr"]
    groundkit = [sys.executable, "-m", "groundkit"]
    ingest = ["ingest", str(corpus), "--index-dir", str(index), *language, "--calibrate"]
    run_checked([*groundkit, *ingest], 300)  # calibrated as build-site calibrates (adr/0069)
    run_checked([*groundkit, "build-site", str(corpus), "-o", str(site), *language], 300)
    listed = ["--queries", str(work / "queries.json")]
    run_checked(
        [sys.executable, str(QUERIES), str(index), str(work / "cpython.json"), *listed], 300
    )
    run_checked(
        [
            node,
            str(RUNNER),
            "--wheels",
            str(site),  # the site's wheel, and nothing else: what the page installs
            "--mount",
            str(work),
            "--script",
            str(QUERIES),
            "--",
            str(index),
            str(work / "pyodide.json"),
            "--site",
            str(site),
            str(work / "pyodide-site.json"),
            *listed,
        ],
        600,
    )
    return {
        name: json.loads((work / f"{name}.json").read_text(encoding="utf-8"))
        for name in ("cpython", "pyodide", "pyodide-site")
    }


def test_known_items_rank_first_in_their_own_language(answers: dict[str, Any]) -> None:
    expected = [name for items in (GERMAN, FRENCH) for name, _, _ in items]
    firsts = [
        a["results"][0]["citation"]["source"] if a["results"] else None
        for a in answers["cpython"]["answers"]
    ]
    hits = sum(
        first is not None and first.endswith(name)
        for first, name in zip(firsts, expected, strict=True)
    )
    assert hits >= 19, firsts


@pytest.mark.parametrize("side", ["pyodide", "pyodide-site"])
def test_pyodide_with_the_sites_wheel_answers_exactly_as_cpython(
    answers: dict[str, Any], side: str
) -> None:
    assert answers[side]["runtime"]["platform"] == "emscripten"
    # a site records its sources' root as "sources/", not the builder's path (issue 38.5)
    cpython, other = answers["cpython"], answers[side]
    if side == "pyodide-site":
        cpython, other = without_roots(cpython), without_roots(other)
    found = differences(cpython, other)
    assert not found, f"{side} answered differently:\n" + "\n".join(found[:60])
    assert comparable(cpython) == comparable(other)
