"""Issue 17, random trees: hypothesis builds folders of odd names, encodings, line endings,
links (and, where the platform allows, permissions), ingests them, and checks that every file
is accounted for once, with the refusal an oracle predicts, and that the collection is sound:
consistent, every citation verified, line spans as an editor counts them; a second ingest
changes nothing."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundkit.ingestion import Indexer
from groundkit.retrieval.audit import verify_reader
from groundkit.store.sqlite import SqliteStore

NAME_CHARS = st.sampled_from([*"abcXYZ019 -_#~()'", "é", "ß", "水", "🦘", "\u200b"])
NAMES = st.text(NAME_CHARS, min_size=1, max_size=8).filter(lambda n: n.strip() == n)
BREAKS = st.sampled_from(["\n", "\r\n", "\r"])
LINES = st.lists(
    st.one_of(
        st.just(""),
        st.sampled_from(["# Title", "## Part two", "- item", "```", "1. first", "---"]),
        st.text(st.sampled_from([*"pump valve water é🦘 \t"]), min_size=1, max_size=30),
    ),
    max_size=12,
)
ROOT_IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
BAD_NAMES = sys.platform.startswith("linux")  # macOS and Windows refuse non-UTF-8 names


@dataclass(frozen=True)
class Entry:
    """One file of the tree: where, what kind, and the content's lines and line break."""

    folders: tuple[str, ...]
    name: str
    kind: str  # text, latin1, nul, bad_name, link_in, link_out, loop, unreadable
    lines: tuple[str, ...]
    newline: str
    bom: bool


KINDS = [
    "text",
    "text",
    "text",
    "latin1",
    "nul",
    "link_in",
    "link_out",
    "loop",
    *(["bad_name"] if BAD_NAMES else []),
    *([] if ROOT_IS_ROOT else ["unreadable"]),
]
ENTRIES = st.builds(
    Entry,
    folders=st.lists(NAMES, max_size=2).map(tuple),
    name=NAMES,
    kind=st.sampled_from(KINDS),
    lines=LINES.map(tuple),
    newline=BREAKS,
    bom=st.booleans(),
)
EXPECTED_REASON = {
    "latin1": "not_utf8",
    "nul": "nul_byte",
    "bad_name": "bad_name",
    "link_out": "path_escape",
    "loop": "symlink_loop",
    "unreadable": "unreadable",
}


def _text(entry: Entry) -> str:
    return ("\ufeff" if entry.bom else "") + entry.newline.join(entry.lines)


def _write(root: Path, outside: Path, entries: list[Entry]) -> dict[str, str]:
    """Write ``entries`` under ``root``; return the expected outcome of each source."""
    expected: dict[str, str] = {}
    target = outside / "secret.md"
    target.write_text("# Secret\n", encoding="utf-8")
    for n, entry in enumerate(entries):
        folder = root.joinpath(*entry.folders)
        if any(p.is_file() or p.is_symlink() for p in (folder, *folder.parents) if p != root):
            continue  # a file already holds this folder's name
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"{entry.name}{n}"
        source = "/".join((*entry.folders, f"{stem}.md"))
        path = folder / f"{stem}.md"
        if entry.kind == "bad_name":
            raw = os.path.join(os.fsencode(folder), os.fsencode(stem) + b"\xff.md")
            with open(raw, "wb") as handle:
                handle.write(b"# Bad name\n")
            source = os.fsdecode(raw)[len(str(root)) + 1 :]
            source = os.fsencode(source).decode("utf-8", "backslashreplace")
        elif entry.kind == "latin1":
            path.write_bytes(_text(entry).encode("utf-8") + b"\n caf\xe9\n")
        elif entry.kind == "nul":
            path.write_bytes(b"text\x00more\n")
        elif entry.kind == "link_in":
            real = folder / f"{stem}.real.txt"
            real.write_bytes(_text(entry).encode("utf-8"))
            os.symlink(real, path)
            expected["/".join((*entry.folders, real.name))] = "indexed"
        elif entry.kind == "link_out":
            os.symlink(target, path)
        elif entry.kind == "loop":
            os.symlink(path, path)
        else:
            path.write_bytes(_text(entry).encode("utf-8"))
            if entry.kind == "unreadable":
                path.chmod(0)
        expected[source] = EXPECTED_REASON.get(entry.kind, "indexed")
    return expected


_BREAK = re.compile(r"\r\n|\r|\n")


def _editor_line(text: str, offset: int) -> int:
    """The 1-based line of ``offset`` counted independently of groundkit.lines."""
    return len(_BREAK.findall(text, 0, offset)) + 1


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(entries=st.lists(ENTRIES, min_size=1, max_size=7))
def test_random_trees_are_accounted_for_and_stored_soundly(entries: list[Entry]) -> None:
    with tempfile.TemporaryDirectory() as work:
        root, outside = Path(work) / "tree", Path(work) / "outside"
        root.mkdir()
        outside.mkdir()
        expected = _write(root, outside, entries)
        store = SqliteStore(Path(work) / "index" / "collection.sqlite")
        try:
            indexer = Indexer(store)
            report = indexer.ingest(root)
            outcome = {source: "indexed" for source in report.indexed}
            outcome.update({r.source: r.reason for r in report.refused})
            assert outcome == expected
            assert len(report.indexed) + len(report.refused) == len(expected)
            assert all(r.source in r.message for r in report.refused)
            with store.reader() as reader:
                checked = verify_reader(reader)
                assert checked.ok, (checked.integrity_problems, checked.failures)
                documents = {d.document_id: d for d in reader.iter_documents()}
                for chunk in reader.iter_chunks():
                    document = documents[chunk.document_id]
                    text = (root / document.source).read_bytes().decode("utf-8")
                    assert chunk.start_line == _editor_line(text, chunk.start_offset)
                    assert chunk.end_line == _editor_line(text, chunk.end_offset - 1)
            again = indexer.ingest(root)
            assert again.removed == [] and again.indexed == [] and again.replaced == []
        finally:
            store.close()
            for path in root.rglob("*"):
                if not path.is_symlink():
                    path.chmod(0o755)
