"""What a fresh process imports for ``import groundkit`` and for a bm25 search (adr/0047).

Each check runs a new interpreter, since this one has imported everything already. No timing:
the benchmark is ``bench/cold_start.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import groundkit
from groundkit.index.bm25 import numpy_available

pytestmark = pytest.mark.subprocess  # a fresh interpreter each: none in Pyodide

CORE = Path(groundkit.__file__).resolve().parents[1]

HEAVY = (
    "numpy",
    "sqlite3",  # a search opens its collection file; `import groundkit` alone does not
    "groundkit.analysis",
    "groundkit.chunking",
    "groundkit.evaluation",
    "groundkit.extract",
    "groundkit.index",
    "groundkit.ingestion",
    "groundkit.retrieval",
    "groundkit.shards",
    "groundkit.site",
    "groundkit.store",
    "groundkit.vectors",
    "http.client",
    "importlib.metadata",
    "ssl",
    "urllib.request",
)
"""Modules (and everything under them) that `import groundkit` must not import."""

NOT_FOR_SEARCH = (
    "numpy",
    "groundkit.chunking",
    "groundkit.evaluation",
    "groundkit.extract",
    "groundkit.ingestion",
    "groundkit.shards",
    "groundkit.site",
    "groundkit.store.sqlite.writer",
    "http.client",
    "html.parser",
    "importlib.metadata",
    "ssl",
    "urllib.request",
)
"""What a bm25 search of a small collection, in Python or on the command line, must not import."""

PARSER_ONLY = ("groundkit.site", "groundkit.site.source_links")
"""What building the CLI's parser imports of the site package: ``--url-rule``'s choices."""

REPORT = "import json, sys; print(json.dumps(sorted(sys.modules)))"


def imported_by(code: str, cwd: Path) -> set[str]:
    """``sys.modules`` of a fresh interpreter after ``code``, with this tree's core first."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(CORE), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{REPORT}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def under(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules that are one of ``names`` or inside one."""
    return sorted(m for m in modules if any(m == n or m.startswith(f"{n}.") for n in names))


def small_collection(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "leaks.md").write_text("# Leaks\n\nReport a leak by calling the operations desk.\n")
    (folder / "billing.md").write_text("# Billing\n\nBills are sent every two months.\n")
    groundkit.ingest(folder, index_dir=tmp_path / "index")
    return tmp_path / "index"


def test_import_groundkit_imports_only_its_config_errors_and_lazy_exports(
    tmp_path: Path,
) -> None:
    modules = imported_by("import groundkit", tmp_path)
    assert under(modules, HEAVY) == []
    assert sorted(m for m in modules if m.startswith("groundkit")) == [
        "groundkit",
        "groundkit.config",
        "groundkit.errors",
        "groundkit.lazy",
    ]


def test_every_public_name_still_resolves_in_a_fresh_process(tmp_path: Path) -> None:
    code = (
        "import groundkit\n"
        "missing = [n for n in groundkit.__all__ if getattr(groundkit, n, None) is None]\n"
        "assert not missing, missing\n"
        "assert groundkit.ingest.__module__ == 'groundkit.ingestion.collection_ingest'\n"
        "from groundkit import *  # noqa: F403\n"
        "assert set(groundkit.__all__) <= set(dir(groundkit))\n"
    )
    imported_by(code, tmp_path)


def test_the_ingest_function_and_the_ingestion_package_both_resolve_in_either_order(
    tmp_path: Path,
) -> None:
    """The function ``groundkit.ingest`` and the package ``groundkit.ingestion`` have different
    names (adr/0051), so importing the package first changes neither."""
    code = (
        "import groundkit.ingestion.manage, groundkit\n"
        "assert callable(groundkit.ingest), groundkit.ingest\n"
        "assert groundkit.ingestion.manage.list_sources is groundkit.list_sources\n"
        "from groundkit import ingest\n"
        "from groundkit.ingestion.collection_ingest import ingest as home\n"
        "assert groundkit.ingest is home and ingest is home\n"
    )
    imported_by(code, tmp_path)


def test_public_names_are_the_same_objects_as_their_homes() -> None:
    from groundkit.ingestion.collection_ingest import ingest
    from groundkit.retrieval import Searcher

    assert groundkit.ingest is ingest
    assert groundkit.Searcher is Searcher
    assert sorted(groundkit.__all__) == sorted(set(groundkit.__all__))


def test_a_bm25_search_imports_no_ingest_extraction_evaluation_or_numpy(tmp_path: Path) -> None:
    index = small_collection(tmp_path)
    code = (
        "import groundkit\n"
        f"with groundkit.Searcher.open({str(index)!r}) as retriever:\n"
        "    response = retriever.search('report a leak', mode='bm25')\n"
        "assert response.results and response.trace.accelerator == 'python'\n"
    )
    modules = imported_by(code, tmp_path)
    assert "sqlite3" in modules and "groundkit.retrieval.searcher" in modules
    assert under(modules, NOT_FOR_SEARCH) == []


def test_the_search_command_imports_no_ingest_extraction_evaluation_or_numpy(
    tmp_path: Path,
) -> None:
    index = small_collection(tmp_path)
    code = (
        "from groundkit.cli import main\n"
        f"assert main(['search', 'report a leak', '--index-dir', {str(index)!r}]) == 0\n"
    )
    modules = imported_by(code, tmp_path)
    assert "groundkit.cli.commands.search" in modules
    assert [m for m in under(modules, NOT_FOR_SEARCH) if m not in PARSER_ONLY] == []


def test_numpy_available_does_not_import_numpy(tmp_path: Path) -> None:
    code = (
        "from groundkit.index.bm25 import numpy_available\n"
        f"assert numpy_available() is {numpy_available()}\n"
    )
    assert "numpy" not in imported_by(code, tmp_path)


NOT_FOR_SHARDED_SEARCH = (
    "groundkit.chunking",
    "groundkit.extract",
    "groundkit.ingestion",
    "groundkit.shards.build",
    "groundkit.shards.corpus",
)
"""What a search of a sharded collection must not import: nothing of ingestion (adr/0058)."""


def test_a_sharded_search_imports_nothing_of_ingestion(tmp_path: Path) -> None:
    from groundkit.shards import ingest_sharded

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(4):
        (folder / f"d{n}.md").write_text(f"# Doc {n}\n\nReport leak number {n} to the desk.\n")
    ingest_sharded(folder, shards=2, index_dir=tmp_path / "index", collection="big")
    code = (
        "from groundkit.retrieval.searcher import Searcher\n"
        f"with Searcher.open({str(tmp_path / 'index')!r}, 'big') as retriever:\n"
        "    assert retriever.search('report a leak', mode='bm25').results\n"
    )
    modules = imported_by(code, tmp_path)
    assert "groundkit.shards.shard_manifest" in modules
    assert under(modules, NOT_FOR_SHARDED_SEARCH) == []


def test_the_store_imports_nothing_of_analysis(tmp_path: Path) -> None:
    code = "import groundkit.store.sqlite.writer, groundkit.store.memory"
    modules = imported_by(code, tmp_path)
    assert "groundkit.store.sqlite.writer" in modules
    assert under(modules, ("groundkit.analysis",)) == []
