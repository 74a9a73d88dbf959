"""Issue 17, damaged and read-only collections: detected, never used or written into; a clear
error with an exit code of its own (6), never a traceback or stored text (adr/0023)."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from old_schema import as_schema_4

from conftest import WriteCorpus
from groundkit.cli import ExitCode, main
from groundkit.collection import check_collection, collection_file, open_reader, open_store
from groundkit.errors import CorruptCollectionError, ReadOnlyCollectionError
from groundkit.retrieval import Searcher
from groundkit.store.sqlite.checks import WRITE_CHECK

WORDS = [
    "pump",
    "valve",
    "main",
    "leak",
    "water",
    "pressure",
    "tank",
    "zone",
    "meter",
    "flush",
    "hydrant",
    "chlorine",
]


def _corpus(write_corpus: WriteCorpus, files: int = 24) -> Path:
    rng = random.Random(7)
    docs = {
        f"doc{i:02}.md": f"# Doc {i}\n\n"
        + "\n\n".join(" ".join(rng.choice(WORDS) for _ in range(40)) for _ in range(3))
        + "\n"
        for i in range(files)
    }
    return write_corpus(docs)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def built(
    tmp_path: Path, write_corpus: WriteCorpus, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, Path]:
    """A clean collection (its folder under ``index``) of a small corpus, WAL checkpointed."""
    root = _corpus(write_corpus)
    index = tmp_path / "index"
    assert run(capsys, "ingest", str(root), "--index-dir", str(index), "--quiet")[0] == 0
    return root, index


def _search(capsys: pytest.CaptureFixture[str], index: Path, query: str) -> tuple[int, str, str]:
    return run(capsys, "search", query, "--index-dir", str(index), "--json", "--top-k", "20")


def _results(out: str) -> list[tuple[str, float]]:
    return [(r["chunk_id"], r["score"]) for r in json.loads(out)["results"]]


def _flip(path: Path, rng: random.Random, count: int) -> None:
    data = bytearray(path.read_bytes())
    for _ in range(count):
        at = rng.randrange(100, len(data))  # past the header's stamps (a foreign file is
        data[at] ^= 1 << rng.randrange(8)  # refused by them, tested in test_store.py)
    path.write_bytes(bytes(data))


def _sqlite_sound(db: Path) -> bool:
    """What the writer checks before writing (``WRITE_CHECK``), asked of SQLite directly."""
    try:
        with sqlite3.connect(db) as connection:
            rows = connection.execute(f"PRAGMA {WRITE_CHECK}").fetchall()
    except sqlite3.DatabaseError:
        return False
    return rows == [("ok",)]


def test_flipped_bytes_give_a_clear_error_never_a_traceback_or_a_write(
    built: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """10 trials of 20 flipped bits: every command answers with an exit code (a traceback
    fails the test); a file SQLite finds damaged is never written into; a search answers
    exactly as on the clean file unless ``groundkit check`` reports the damage."""
    root, clean_index = built
    queries = ("pump leak", "chlorine hydrant flush", "water pressure zone")
    clean = {q: _results(_search(capsys, clean_index, q)[1]) for q in queries}
    damaged_exits = refused_writes = 0
    for trial in range(10):
        index = tmp_path / f"trial{trial}"
        shutil.copytree(clean_index, index)
        db = collection_file(index, "default")
        _flip(db, random.Random(trial), 20)
        code, _, err = run(capsys, "check", "--index-dir", str(index))
        assert code in (ExitCode.OK, ExitCode.DAMAGED), err
        sound = code == ExitCode.OK
        for query in queries:
            code, out, err = _search(capsys, index, query)
            # a flipped analyzer identity is refused as another analyzer's (exit 1)
            assert code in (ExitCode.OK, ExitCode.ERROR, ExitCode.DAMAGED), err
            if code != ExitCode.OK:
                assert json.loads(err)["error"]["message"]  # a groundkit error, as JSON
                damaged_exits += code == ExitCode.DAMAGED
            elif sound:
                assert _results(out) == clean[query]
        writable = _sqlite_sound(db)
        before = db.read_bytes()
        code, _, err = run(capsys, "ingest", str(root), "--index-dir", str(index), "--quiet")
        if not writable:
            assert code == ExitCode.DAMAGED, err
            assert db.read_bytes() == before  # nothing was written
            refused_writes += 1
        elif sound:
            assert code == ExitCode.OK, err
    assert damaged_exits > 0 and refused_writes > 0  # the trials did damage something


def test_deleted_postings_are_detected_by_search_and_check(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, index = built
    db = collection_file(index, "default")
    with sqlite3.connect(db) as connection:
        connection.execute(
            "DELETE FROM postings WHERE term_id = (SELECT term_id FROM terms "
            "WHERE term = 'pump') AND chunk_key IN (SELECT chunk_key FROM chunks LIMIT 2)"
        )
    code, _, err = _search(capsys, index, "pump")
    assert code == ExitCode.DAMAGED and "postings" in err
    code, out, _ = run(capsys, "check", "--index-dir", str(index), "--json")
    assert code == ExitCode.DAMAGED
    assert any("postings" in p for p in json.loads(out)["problems"])


def test_a_changed_chunk_length_is_detected_when_a_retriever_opens(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, index = built
    with sqlite3.connect(collection_file(index, "default")) as connection:
        connection.execute("UPDATE chunks SET length = length + 1 WHERE chunk_key = 1")
    code, _, err = _search(capsys, index, "pump")
    assert code == ExitCode.DAMAGED and "counters" in err


def test_a_stored_text_that_is_not_utf8_is_an_error_without_the_text(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, index = built
    with sqlite3.connect(collection_file(index, "default")) as connection:
        connection.execute(
            "UPDATE chunks SET text = CAST(X'5345435245545FFF' AS TEXT)"  # "SECRET_" + 0xff
        )
    for command in (("search", "pump"), ("verify",)):
        code, out, err = run(capsys, *command, "--index-dir", str(index))
        assert code == ExitCode.DAMAGED, err
        assert "not valid UTF-8" in err and "SECRET" not in err + out


def _make_read_only(monkeypatch: pytest.MonkeyPatch, paths: set[Path]) -> None:
    """Report ``paths`` as not writable, as ``os.access`` would for another user.

    Tests run as root in CI containers, where permission bits do not stop writes; SQLite's
    own refusal is covered by opening the file read-only (``mode=ro``) as a reader does.
    """
    real = os.access

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and Path(str(path)).resolve() in paths:
            return False
        return real(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_collection_is_searchable_and_refuses_writes_clearly(
    built: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    what: str,
) -> None:
    root, index = built
    db = collection_file(index, "default")
    for suffix in ("-wal", "-shm"):  # a cleanly closed collection leaves none
        assert not Path(f"{db}{suffix}").exists()
    _make_read_only(monkeypatch, {(db if what == "file" else db.parent).resolve()})
    code, out, err = _search(capsys, index, "pump")
    assert code == ExitCode.OK and _results(out), err
    assert run(capsys, "status", "--index-dir", str(index))[0] == ExitCode.OK
    assert run(capsys, "check", "--index-dir", str(index))[0] == ExitCode.OK
    (root / "new.md").write_text("# New\n\nA new pump.\n", encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(root), "--index-dir", str(index))
    assert code == ExitCode.ERROR
    assert "read-only" in err and "searched" in err and "corrupt" not in err
    with pytest.raises(ReadOnlyCollectionError):
        open_store(index, "default")


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_reader_of_a_read_only_collection_opens_it_read_only(
    built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """A reader opens a file it cannot write (or one in a folder it cannot write) through
    ``mode=ro`` (and ``immutable`` for the folder): SQLite then refuses any write, even root's,
    and never needs to create ``-wal``/``-shm`` files beside it."""
    from groundkit.store.sqlite.schema import connect

    _, index = built
    db = collection_file(index, "default")
    _make_read_only(monkeypatch, {(db if what == "file" else db.parent).resolve()})
    connection = connect(db)
    try:
        assert connection.execute("SELECT count(*) FROM chunks").fetchone()[0] > 0
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            connection.execute("DELETE FROM meta")
    finally:
        connection.close()
    assert not Path(f"{db}-wal").exists() or what == "file"


def test_check_collection_reports_nothing_for_a_sound_collection(
    built: tuple[Path, Path],
) -> None:
    _, index = built
    assert check_collection(index, "default") == []
    with open_reader(index, "default") as reader, Searcher.of(reader) as retriever:
        assert retriever.search("pump").results


def test_a_file_that_is_not_sqlite_is_a_damaged_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = collection_file(tmp_path / "index", "default")
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database, just bytes " * 200)
    code, _, err = run(capsys, "search", "pump", "--index-dir", str(tmp_path / "index"))
    assert code == ExitCode.DAMAGED and "Traceback" not in err
    with pytest.raises(CorruptCollectionError):
        open_store(tmp_path / "index", "default")


def test_a_version_2_file_gets_postings_checksums_from_its_first_writer(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema 2 had no checksums: readers read it unchecked, the first writer fills them in."""
    _, index = built
    db = collection_file(index, "default")
    with sqlite3.connect(db) as connection:
        as_schema_4(connection)
        connection.execute("ALTER TABLE terms DROP COLUMN checksum")
        connection.execute("PRAGMA user_version = 2")
    assert _search(capsys, index, "pump")[0] == ExitCode.OK
    assert check_collection(index, "default") == []
    open_store(index, "default").close()  # the upgrade
    with sqlite3.connect(db) as connection:
        assert (
            connection.execute("PRAGMA user_version").fetchone()[0] == 5
        )  # 2 -> 3 (checksums) -> 4 (extractor) -> 5 (term ids 4 bytes each)
        assert connection.execute("SELECT count(*) FROM terms WHERE checksum = 0").fetchone() == (
            0,
        )
    assert check_collection(index, "default") == []


def test_a_flipped_term_frequency_fails_its_checksum_at_search_and_check(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A changed tf keeps every count and B-tree sound; only the checksum sees it."""
    _, index = built
    with sqlite3.connect(collection_file(index, "default")) as connection:
        connection.execute(
            "UPDATE postings SET tf = tf + 1 WHERE term_id = (SELECT term_id FROM terms "
            "WHERE term = 'leak') AND chunk_key = (SELECT min(chunk_key) FROM postings p, "
            "terms t WHERE p.term_id = t.term_id AND t.term = 'leak')"
        )
    code, _, err = _search(capsys, index, "leak")
    assert code == ExitCode.DAMAGED and "checksum" in err
    code, out, _ = run(capsys, "check", "--index-dir", str(index), "--json")
    assert code == ExitCode.DAMAGED
    assert any("checksum" in p for p in json.loads(out)["problems"])


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE chunks SET text = text || X'FF' WHERE chunk_key = 2",
        "UPDATE chunks SET metadata = '{\"cut' WHERE chunk_key = 3",
        "UPDATE documents SET source = source || X'FF' WHERE rowid = 1",
        "UPDATE terms SET term = term || X'FF' WHERE term = 'pump'",
        "UPDATE chunks SET term_ids = X'010203' WHERE chunk_key = 2",
    ],
)
def test_check_decodes_every_stored_value_and_a_writer_refuses_what_check_rejects(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    # issue 29 item 15: check said "sound" where search fails, and ingest wrote into the file
    root, index = built
    db = collection_file(index, "default")
    with sqlite3.connect(db) as connection:
        connection.execute(damage)
    code, out, _ = run(capsys, "check", "--index-dir", str(index), "--json")
    assert code == ExitCode.DAMAGED, out
    assert any("decode" in p or "disagree" in p for p in json.loads(out)["problems"])
    files = [db, Path(f"{db}-wal")]
    before = [path.read_bytes() for path in files if path.exists()]
    (root / "doc00.md").write_text("# Changed\n\npump valve\n", encoding="utf-8")
    (root / "new.md").write_text("# New\n\nhydrant\n", encoding="utf-8")
    code, out, err = run(capsys, "ingest", str(root), "--index-dir", str(index), "--quiet")
    assert code == ExitCode.DAMAGED and "groundkit check:" in err, err
    assert [path.read_bytes() for path in files if path.exists()] == before  # nothing written


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE meta SET value = 'many' WHERE key = 'total_length'",
        "UPDATE meta SET value = '{\"cut' WHERE key = 'analyzer'",
    ],
)
def test_a_writer_refuses_a_meta_value_that_readers_refuse(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    root, index = built
    db = collection_file(index, "default")
    with sqlite3.connect(db) as connection:
        connection.execute(damage)
    assert run(capsys, "check", "--index-dir", str(index))[0] == ExitCode.DAMAGED
    files = [db, Path(f"{db}-wal")]
    before = [path.read_bytes() for path in files if path.exists()]
    (root / "new.md").write_text("# New\n\nhydrant\n", encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(root), "--index-dir", str(index), "--quiet")
    assert code == ExitCode.DAMAGED and "meta" in err, err
    assert [path.read_bytes() for path in files if path.exists()] == before


def test_check_and_a_writer_find_a_vector_of_the_wrong_size(
    tmp_path: Path, write_corpus: WriteCorpus, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _corpus(write_corpus, files=4)
    index = tmp_path / "index"
    argv = ("--index-dir", str(index), "--embedder", "hash", "--quiet")
    assert run(capsys, "ingest", str(root), *argv)[0] == 0
    db = collection_file(index, "default")
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE vectors SET vector = X'0000' WHERE chunk_key = 1")
    assert run(capsys, "search", "pump", "--index-dir", str(index), "--mode", "dense")[0] != 0
    code, out, _ = run(capsys, "check", "--index-dir", str(index), "--json")
    assert code == ExitCode.DAMAGED
    assert any("another size" in p for p in json.loads(out)["problems"])
    (root / "new.md").write_text("# New\n\nhydrant\n", encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(root), *argv)
    assert code == ExitCode.DAMAGED and "another size" in err, err
