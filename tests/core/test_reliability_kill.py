"""Issue 17, the bounded kill loop: ``groundkit ingest`` killed with SIGKILL at random moments
leaves a consistent collection, and finishing the ingest gives exactly a clean ingest's chunks,
postings and search results. A few kills on a small corpus, so it runs in CI in seconds."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import groundkit
from groundkit.collection import check_collection, collection_file
from groundkit.errors import CollectionNotFoundError
from groundkit.retrieval import Searcher

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL"),
]
PACKAGE_PARENT = str(Path(groundkit.__file__).resolve().parent.parent)
KILLS = 4
FILES = 100
QUERIES = ("pump station", "valve zone pressure", "hydrant flushing spring", "meter reading")
WORDS = [
    "pump",
    "station",
    "valve",
    "zone",
    "pressure",
    "hydrant",
    "flushing",
    "spring",
    "meter",
    "reading",
    "main",
    "leak",
    "reservoir",
    "tank",
    "chlorine",
    "residual",
    "crew",
    "shift",
    "report",
]


def _corpus(root: Path, files: int) -> None:
    rng = random.Random(11)
    for n in range(files):
        folder = root / f"part{n % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        sections = [
            f"## Section {s}\n\n" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 90)))
            for s in range(rng.randint(1, 4))
        ]
        (folder / f"doc{n:03}.md").write_text(f"# Doc {n}\n\n" + "\n\n".join(sections) + "\n")


def _ingest_process(corpus: Path, index: Path) -> subprocess.Popen[str]:
    """``groundkit.ingest`` in another process, printing a line after each file; commit groups
    of 8 files (not 256), so that kills land before, inside and after commits."""
    code = (
        "import importlib, sys, groundkit\n"
        "importlib.import_module('groundkit.ingestion.indexer').FILES_PER_COMMIT = 8\n"
        "groundkit.ingest(sys.argv[1], index_dir=sys.argv[2],\n"
        "                 progress=lambda event: print(event.done, flush=True))\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, str(corpus), str(index)],
        env={**os.environ, "PYTHONPATH": PACKAGE_PARENT},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _postings(index: Path) -> list[tuple[str, str, int]]:
    """Every chunk's postings as (chunk id, term, tf): independent of row ids."""
    with sqlite3.connect(collection_file(index, "default")) as db:
        return sorted(
            db.execute(
                "SELECT c.chunk_id, t.term, p.tf FROM postings p "
                "JOIN terms t ON t.term_id = p.term_id JOIN chunks c ON c.chunk_key = p.chunk_key"
            )
        )


def _chunks(index: Path) -> dict[str, tuple[str, ...]]:
    """Stored documents, each with its chunk ids in order."""
    with sqlite3.connect(collection_file(index, "default")) as db:
        found: dict[str, list[str]] = {}
        for source, chunk_id in db.execute(
            "SELECT d.source, c.chunk_id FROM chunks c JOIN documents d "
            "ON d.document_id = c.document_id ORDER BY d.source, c.chunk_index"
        ):
            found.setdefault(source, []).append(chunk_id)
    return {source: tuple(ids) for source, ids in found.items()}


def _answers(index: Path) -> list[list[tuple[str, float]]]:
    with Searcher.open(index) as retriever:
        return [
            [(r.chunk_id, r.score) for r in retriever.search(q, top_k=20).results] for q in QUERIES
        ]


def test_sigkill_mid_ingest_leaves_a_consistent_collection_and_finishing_equals_clean(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    _corpus(corpus, FILES)
    clean = tmp_path / "clean"
    groundkit.ingest(corpus, index_dir=clean)
    clean_chunks = _chunks(clean)

    index = tmp_path / "killed"
    rng = random.Random(2026)
    killed_mid_ingest = 0
    for _ in range(KILLS):
        process = _ingest_process(corpus, index)
        assert process.stdout is not None
        # a random moment: after a random number of files (so on any machine's speed the kill
        # lands inside the ingest), then a random fraction of the next file's work
        files = rng.randint(1, FILES - 5)
        for _ in range(files):
            if not process.stdout.readline():
                break
        else:
            time.sleep(rng.uniform(0, 0.02))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed_mid_ingest += 1
        _, err = process.communicate(timeout=60)
        assert process.returncode in (0, -signal.SIGKILL), err
        try:
            assert check_collection(index, "default") == []
        except CollectionNotFoundError:
            continue  # killed before the collection was created

        stored = _chunks(index)
        for source, chunk_ids in stored.items():  # every stored document is complete
            assert chunk_ids == clean_chunks[source], source
    assert killed_mid_ingest >= 1

    process = _ingest_process(corpus, index)  # finish it
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert check_collection(index, "default") == []
    assert _chunks(index) == clean_chunks
    assert _postings(index) == _postings(clean)
    assert _answers(index) == _answers(clean)
