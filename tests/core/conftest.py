"""Fixtures for the core tests: corpora on disk and both store kinds."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from groundkit.store import CollectionStore, MemoryStore
from groundkit.store.sqlite import SqliteStore

WriteCorpus = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def write_corpus(tmp_path: Path) -> WriteCorpus:
    """Write ``{relative path: text or bytes}`` under ``tmp_path/corpus`` and return that folder."""
    root = tmp_path / "corpus"

    def write(files: dict[str, str | bytes]) -> Path:
        root.mkdir(exist_ok=True)
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8"))
        return root

    return write


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CollectionStore]:
    """Each store implementation in turn, empty."""
    made: CollectionStore
    if request.param == "sqlite":
        made = SqliteStore(tmp_path / "index" / "default" / "collection.sqlite")
    else:
        made = MemoryStore("test")
    yield made
    made.close()


@pytest.fixture
def pypdf() -> ModuleType:
    """pypdf, or a skip (a failure where GROUNDKIT_REQUIRE_PYPDF=1, as in tox -e sources)."""
    try:
        import pypdf as module
    except ImportError:
        if os.environ.get("GROUNDKIT_REQUIRE_PYPDF") == "1":
            pytest.fail("GROUNDKIT_REQUIRE_PYPDF=1 but pypdf is not installed")
        pytest.skip('PDF extraction needs pypdf: pip install ".[pdf]" (tox -e sources runs these)')
    return module


@pytest.fixture
def make_pdf() -> Callable[[list[list[str]]], bytes]:
    """A minimal PDF writer: one Helvetica text line per string, one list of lines per page."""
    return _make_pdf


def _make_pdf(pages: list[list[str]]) -> bytes:
    """A valid PDF 1.4 file whose page ``i`` shows the lines ``pages[i]`` (Latin-1 text)."""
    count = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects = {
        1: "<< /Type /Catalog /Pages 2 0 R >>",
        2: f"<< /Type /Pages /Kids [{kids}] /Count {count} >>",
        3: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    }
    for i, lines in enumerate(pages):
        shown = " ".join(f"({_escape(line)}) Tj T*" for line in lines)
        content = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET"
        objects[4 + 2 * i] = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>"
        )
        objects[5 + 2 * i] = f"<< /Length {len(content)} >>\nstream\n{content}\nendstream"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number in sorted(objects):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{objects[number]}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
