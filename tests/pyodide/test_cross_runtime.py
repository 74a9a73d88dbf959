"""One collection, two runtimes: a collection built by CPython answers identically in Pyodide.

CPython ingests the bundled sample corpus (``python -m groundkit ingest sample --calibrate``); then
``queries.py`` runs the same queries over that same SQLite file, once in CPython and once inside
Pyodide (``web/pyodide/run.mjs``, Node.js). Rankings, scores (bit for bit), cited text, offsets,
lines and verification verdicts must be equal, and the file must be left as it was.

The same queries also run in Pyodide over ``groundkit build-site sample``'s static index
(``index/``, the browser's format, ADR 0018), which must answer exactly as the SQLite file.

Only ``tox run -e pyodide`` runs this (tests/conftest.py leaves tests/pyodide out of a plain
``pytest``); it needs ``bash web/pyodide/setup.sh`` to have been run first.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import groundkit

pytestmark = pytest.mark.subprocess

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
QUERIES = HERE / "queries.py"
RUNNER = REPO_ROOT / "web" / "pyodide" / "run.mjs"
# Fields that may differ between runtimes without the answers differing.
RUNTIME_ONLY = ("runtime",)
# e.g. numpy in CPython, pure Python in Pyodide; "path" names the BM25 scoring path taken
# (numpy, python, python-packed), which follows the accelerator
RUNTIME_ONLY_METADATA = ("accelerator", "path")


def comparable(answers: dict[str, Any]) -> dict[str, Any]:
    """``answers`` without what describes the runtime rather than the answers."""
    kept = {k: v for k, v in answers.items() if k not in RUNTIME_ONLY}
    kept["answers"] = [
        {
            **answer,
            "metadata": {
                k: v for k, v in answer["metadata"].items() if k not in RUNTIME_ONLY_METADATA
            },
        }
        for answer in answers["answers"]
    ]
    return kept


def without_roots(answers: dict[str, Any]) -> dict[str, Any]:
    """``answers`` with each result's metadata ``root`` left out."""
    copy = json.loads(json.dumps(answers))
    for answer in copy["answers"]:
        for result in answer["results"]:
            result["metadata"].pop("root", None)
    return copy


def differences(left: dict[str, Any], right: dict[str, Any]) -> list[str]:
    """Human-readable differences between two ``queries.py`` outputs (empty when equal)."""
    a, b = comparable(left), comparable(right)
    found = [f"{key}: {a[key]!r} != {b[key]!r}" for key in sorted(a) if a[key] != b.get(key)]
    for x, y in zip(a["answers"], b["answers"], strict=False):
        if x != y:
            found.append(f"query {x['query']!r}:")
            if x["metadata"] != y["metadata"]:
                found.append(f"  metadata {x['metadata']} != {y['metadata']}")
            for rank, (r, s) in enumerate(zip(x["results"], y["results"], strict=False), 1):
                for field in sorted(set(r) | set(s)):
                    if r.get(field) != s.get(field):
                        found.append(f"  rank {rank} {field}: {r.get(field)!r} != {s.get(field)!r}")
            if len(x["results"]) != len(y["results"]):
                found.append(f"  {len(x['results'])} results != {len(y['results'])}")
    if len(a["answers"]) != len(b["answers"]):
        found.append(f"{len(a['answers'])} answers != {len(b['answers'])}")
    return found


def fingerprint(folder: Path) -> dict[str, str]:
    """sha256 of every file in ``folder`` (the collection file and any -wal/-shm beside it)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def run_checked(command: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, check=False, env=os.environ
    )
    assert done.returncode == 0, (
        f"{command} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    return done


@pytest.fixture(scope="module")
def both_runtimes(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], ...]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the Pyodide side needs Node.js >= 20")
    if not (RUNNER.parent / "node_modules" / "pyodide").is_dir():
        pytest.fail(f"Pyodide is not installed: run `bash {RUNNER.parent / 'setup.sh'}`")
    work = tmp_path_factory.mktemp("cross-runtime")
    index = work / "index"
    # calibrated, as build-site calibrates the site: both say "nothing here" alike (adr/0069)
    ingest = ["ingest", "sample", "--index-dir", str(index), "--calibrate"]
    run_checked([sys.executable, "-m", "groundkit", *ingest], 300)
    collection = index / "default"
    before = fingerprint(collection)
    assert "collection.sqlite" in before
    site = work / "site"  # the same corpus as a static site's index (what the browser reads)
    run_checked([sys.executable, "-m", "groundkit", "build-site", "sample", "-o", str(site)], 300)

    run_checked([sys.executable, str(QUERIES), str(index), str(work / "cpython.json")], 300)
    run_checked(
        [
            node,
            str(RUNNER),
            "--mount",
            str(work),
            "--mount",
            str(groundkit.sample_corpus()),  # the documents' root: verify re-reads them there
            "--script",
            str(QUERIES),
            "--",
            str(index),
            str(work / "pyodide.json"),
            "--site",
            str(site),
            str(work / "pyodide-site.json"),
        ],
        600,
    )
    after = fingerprint(collection)
    cpython = json.loads((work / "cpython.json").read_text(encoding="utf-8"))
    pyodide = json.loads((work / "pyodide.json").read_text(encoding="utf-8"))
    pyodide_site = json.loads((work / "pyodide-site.json").read_text(encoding="utf-8"))
    return cpython, pyodide, before, after, pyodide_site


def test_both_sides_ran_where_they_should(both_runtimes: tuple[dict[str, Any], ...]) -> None:
    cpython, pyodide, *_ = both_runtimes
    assert cpython["runtime"]["platform"] != "emscripten"
    assert pyodide["runtime"]["platform"] == "emscripten"
    assert cpython["runtime"]["implementation"] == pyodide["runtime"]["implementation"] == "CPython"


def test_pyodide_answers_exactly_as_cpython_over_the_same_file(
    both_runtimes: tuple[dict[str, Any], ...],
) -> None:
    cpython, pyodide, *_ = both_runtimes
    found = differences(cpython, pyodide)
    assert not found, "CPython and Pyodide answered differently:\n" + "\n".join(found[:60])
    assert comparable(cpython) == comparable(pyodide)
    answered = [a for a in cpython["answers"] if a["results"]]
    assert len(answered) >= len(cpython["answers"]) - 4, "the queries should mostly match"
    assert any(a["metadata"].get("abstained") for a in cpython["answers"])
    verdicts = {r["verdict"] for a in pyodide["answers"] for r in a["results"]}
    assert verdicts == {"verified"}, "every citation re-reads from the source in Pyodide too"


def test_pyodide_leaves_the_collection_file_as_it_was(
    both_runtimes: tuple[dict[str, Any], ...],
) -> None:
    *_, before, after, _ = both_runtimes
    assert after == before


def test_pyodide_over_the_static_site_answers_exactly_as_cpython_over_sqlite(
    both_runtimes: tuple[dict[str, Any], ...],
) -> None:
    cpython, *_, pyodide_site = both_runtimes
    assert pyodide_site["runtime"]["platform"] == "emscripten"
    # a site records its sources' root as "sources/", not the builder's path (issue 38.5)
    cpython, pyodide_site = without_roots(cpython), without_roots(pyodide_site)
    found = differences(cpython, pyodide_site)
    assert not found, "the static index in Pyodide answered differently:\n" + "\n".join(found[:60])
    assert comparable(cpython) == comparable(pyodide_site)


def test_the_comparison_sees_a_one_ulp_score_change(
    both_runtimes: tuple[dict[str, Any], ...],
) -> None:
    cpython, *_ = both_runtimes
    changed = json.loads(json.dumps(cpython))
    first = changed["answers"][0]["results"][0]
    score = float.fromhex(first["score"])
    first["score"] = (score + score * sys.float_info.epsilon).hex()
    assert float.fromhex(first["score"]) != score
    assert differences(cpython, changed) != []
    assert comparable(cpython) != comparable(changed)
    swapped = json.loads(json.dumps(cpython))
    results = swapped["answers"][1]["results"]
    results[0], results[1] = results[1], results[0]
    assert differences(cpython, swapped) != []
