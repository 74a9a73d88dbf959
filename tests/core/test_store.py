"""Both stores behind one protocol: transactions, generations, read views, identity, refusals."""

from __future__ import annotations

import os
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from groundkit.analysis.analyzer import Analyzer
from groundkit.contracts import Chunk, Document, chunk_id_for, content_hash, document_id_for
from groundkit.errors import CollectionNotFoundError, IndexIdentityError, StorageError
from groundkit.store import CollectionReader, CollectionStore, IndexedChunk, MemoryStore
from groundkit.store.sqlite import SCHEMA_VERSION, SqliteReader, SqliteStore

IDENTITY = Analyzer().identity


def make_document(
    source: str, passages: list[str], root: str = "/corpus"
) -> tuple[Document, list[IndexedChunk]]:
    text = "\n".join(passages)
    doc_id = document_id_for(source, content_hash(text))
    chunks: list[IndexedChunk] = []
    offset = 0
    for i, passage in enumerate(passages):
        chunk = Chunk(
            chunk_id_for(doc_id, i, offset, offset + len(passage)),
            doc_id,
            i,
            passage,
            offset,
            offset + len(passage),
            i + 1,
            i + 1,
            {"heading_path": []},
        )
        terms = passage.split()
        chunks.append(IndexedChunk(chunk, Counter(terms), len(terms)))
        offset += len(passage) + 1
    document = Document(
        doc_id, source, root, content_hash(text), len(text), len(passages), "fp-" + source
    )
    return document, chunks


def put(store: CollectionStore, source: str, passages: list[str], **kw: object) -> Document:
    document, chunks = make_document(source, passages)
    store.write_document(document, chunks, analyzer_identity=IDENTITY, **kw)  # type: ignore[arg-type]
    return document


def test_stores_satisfy_the_protocol(store: CollectionStore) -> None:
    assert isinstance(store, CollectionStore)
    with store.reader() as reader:
        assert isinstance(reader, CollectionReader)


def test_write_then_read(store: CollectionStore) -> None:
    doc = put(store, "a.md", ["pump station alpha", "valve beta beta"])
    with store.reader() as reader:
        assert reader.generation == 1
        assert reader.chunk_count == 2
        assert reader.total_length == 6
        assert reader.analyzer_identity == IDENTITY
        assert sorted(tf for _, tf in reader.postings("beta")) == [2]
        assert reader.postings("nothing") in ((), [])
        keys = [key for key, _ in reader.chunk_lengths()]
        chunks = reader.chunks(keys)
        assert sorted(c.text for c in chunks.values()) == ["pump station alpha", "valve beta beta"]
        ties = reader.tie_keys(keys)
        assert {t[0] for t in ties.values()} == {doc.content_hash}
        assert reader.documents([doc.document_id])[doc.document_id] == doc
        assert reader.integrity_problems() == []
    assert store.find_document("/corpus", "a.md") == doc
    assert store.find_document_by_id(doc.document_id) == doc
    assert [d.source for d in store.documents_under("/corpus")] == ["a.md"]


def test_tie_keys_in_one_pass_equal_those_asked_for(store: CollectionStore) -> None:
    put(store, "b.md", ["pump valve", "valve"])
    put(store, "a.md", ["pump"])
    with store.reader() as reader:
        keys = [key for key, _ in reader.chunk_lengths()]
        every = dict(reader.iter_tie_keys())
        assert every == reader.tie_keys([*keys, 10**6])  # an unknown key is left out
        assert sorted((tie[2], tie[1]) for tie in every.values()) == [
            ("a.md", 0),
            ("b.md", 0),
            ("b.md", 1),
        ]


def test_chunk_by_id_finds_a_chunk_or_none(store: CollectionStore) -> None:
    put(store, "a.md", ["pump station", "valve"])
    with store.reader() as reader:
        every = list(reader.iter_chunks())
        for chunk in every:
            assert reader.chunk_by_id(chunk.chunk_id) == chunk
        assert reader.chunk_by_id("chk_" + "0" * 32) is None


def test_every_write_bumps_the_generation(store: CollectionStore) -> None:
    a = put(store, "a.md", ["one"])
    put(store, "b.md", ["two"])
    assert store.remove_document(a.document_id) == 3
    with store.reader() as reader:
        assert reader.generation == 3
        assert reader.chunk_count == 1


def test_replace_and_remove_leave_no_stale_postings(store: CollectionStore) -> None:
    old = put(store, "a.md", ["alpha beta", "gamma"])
    document, chunks = make_document("a.md", ["alpha delta"])
    store.write_document(document, chunks, analyzer_identity=IDENTITY, replaces=old.document_id)
    with store.reader() as reader:
        assert reader.postings("gamma") in ((), [])
        assert reader.postings("beta") in ((), [])
        assert len(reader.postings("alpha")) == 1
        assert reader.chunk_count == 1
        assert reader.integrity_problems() == []
    store.remove_document(document.document_id)
    with store.reader() as reader:
        assert reader.chunk_count == 0 and reader.total_length == 0
        assert reader.postings("alpha") in ((), [])
        assert reader.integrity_problems() == []


def test_reader_is_a_read_view(store: CollectionStore) -> None:
    put(store, "a.md", ["alpha"])
    reader = store.reader()
    put(store, "b.md", ["alpha again"])
    try:
        assert reader.generation == 1
        assert reader.chunk_count == 1
        assert len(reader.postings("alpha")) == 1
    finally:
        reader.close()
    with store.reader() as fresh:
        assert len(fresh.postings("alpha")) == 2


def test_analyzer_identity_is_bound_on_first_write(store: CollectionStore) -> None:
    put(store, "a.md", ["alpha"])
    document, chunks = make_document("b.md", ["beta"])
    other = Analyzer(stemmer="snowball-english").identity
    with pytest.raises(IndexIdentityError):
        store.write_document(document, chunks, analyzer_identity=other)
    with store.reader() as reader:
        assert reader.chunk_count == 1 and reader.generation == 1


def test_an_exception_mid_write_leaves_nothing_half_written(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.sqlite")
    put(store, "a.md", ["alpha"])
    document, chunks = make_document("b.md", ["beta", "gamma"])
    calls = 0
    original = store._insert_chunk

    def explode_on_second(item: IndexedChunk) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("disk on fire")
        original(item)

    store._insert_chunk = explode_on_second  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        store.write_document(document, chunks, analyzer_identity=IDENTITY)
    with store.reader() as reader:
        assert reader.generation == 1
        assert reader.chunk_count == 1
        assert not reader.postings("beta")
        assert reader.integrity_problems() == []
    assert store.find_document_by_id(document.document_id) is None
    store.close()


def test_a_failed_replace_keeps_the_old_document(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.sqlite")
    old = put(store, "a.md", ["alpha"])
    document, chunks = make_document("a.md", ["beta"])

    def explode(item: IndexedChunk) -> None:
        raise RuntimeError("boom")

    store._insert_chunk = explode  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        store.write_document(document, chunks, analyzer_identity=IDENTITY, replaces=old.document_id)
    assert store.find_document("/corpus", "a.md") == old
    with store.reader() as reader:
        assert len(reader.postings("alpha")) == 1
    store.close()


def test_memory_store_refusal_leaves_state_untouched() -> None:
    store = MemoryStore()
    put(store, "a.md", ["alpha"])
    document, chunks = make_document("b.md", ["beta"])
    with pytest.raises(IndexIdentityError):
        store.write_document(document, chunks, analyzer_identity={"name": "other"})
    with store.reader() as reader:
        assert reader.chunk_count == 1 and reader.generation == 1


def test_sqlite_collection_is_stamped_and_persisted(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", ["alpha"])
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == 0x47524B54
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    with SqliteReader(path) as reader:
        assert reader.chunk_count == 1


def test_foreign_sqlite_file_is_refused_and_not_written(tmp_path: Path) -> None:
    path = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE mine (x)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StorageError, match="did not create"):
        SqliteStore(path)
    with pytest.raises(StorageError, match="did not create"):
        SqliteReader(path)
    assert path.read_bytes() == before


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="newer"):
        SqliteStore(path)
    with pytest.raises(StorageError, match="newer"):
        SqliteReader(path)


def test_corrupt_file_is_a_storage_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StorageError, match=str(path.name)):
        SqliteStore(path)


def test_missing_collection(tmp_path: Path) -> None:
    with pytest.raises(CollectionNotFoundError, match="groundkit ingest"):
        SqliteReader(tmp_path / "nope.sqlite")
    with pytest.raises(CollectionNotFoundError):
        SqliteStore(tmp_path / "nope.sqlite", create=False)
    assert not (tmp_path / "nope.sqlite").exists()


def test_integrity_problems_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", ["alpha beta"])
    db = sqlite3.connect(path)
    db.execute("DELETE FROM postings WHERE term_id = (SELECT min(term_id) FROM postings)")
    db.commit()
    db.close()
    with SqliteReader(path) as reader:
        assert any("postings" in p for p in reader.integrity_problems())


def test_collection_file_layout(tmp_path: Path) -> None:
    from groundkit.collection import collection_file

    assert collection_file(tmp_path, "docs") == tmp_path / "docs" / "collection.sqlite"


def test_a_batch_replaces_and_removes_documents_it_wrote_itself(store: CollectionStore) -> None:
    """Postings written at a batch's end: a replace or remove inside the batch of a document
    written earlier in it still leaves no stale postings, counters or terms."""
    with store.batch():
        old = put(store, "a.md", ["alpha beta", "gamma"])
        put(store, "b.md", ["alpha"])
        document, chunks = make_document("a.md", ["alpha delta"])
        store.write_document(document, chunks, analyzer_identity=IDENTITY, replaces=old.document_id)
        gone = put(store, "c.md", ["epsilon alpha"])
        store.remove_document(gone.document_id)
    with store.reader() as reader:
        assert [len(reader.postings(t)) for t in ("alpha", "beta", "gamma", "delta")] == [
            2,
            0,
            0,
            1,
        ]
        assert not reader.postings("epsilon")
        assert (reader.chunk_count, reader.total_length, reader.generation) == (2, 3, 5)
        assert reader.integrity_problems() == []


def test_a_failed_document_in_a_batch_drops_only_its_own_postings(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.sqlite")
    document, chunks = make_document("b.md", ["beta alpha", "gamma"])
    calls = 0
    original = store._insert_chunk

    def explode_on_second(item: IndexedChunk) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # the second chunk of b.md, after its first chunk's postings
            raise RuntimeError("disk on fire")
        original(item)

    store._insert_chunk = explode_on_second  # type: ignore[method-assign]
    with store.batch():
        put(store, "a.md", ["alpha"])
        with pytest.raises(RuntimeError):
            store.write_document(document, chunks, analyzer_identity=IDENTITY)
        put(store, "c.md", ["alpha gamma delta"])  # new terms after the failed document's
    with store.reader() as reader:
        assert (len(reader.postings("alpha")), len(reader.postings("gamma"))) == (2, 1)
        assert not reader.postings("beta") and len(reader.postings("delta")) == 1
        assert (reader.chunk_count, reader.total_length) == (2, 4)
        assert reader.integrity_problems() == []
        # each posting points at its own chunk, not at the failed document's unused keys
        for term, texts in (
            ("alpha", {"alpha", "alpha gamma delta"}),
            ("gamma", {"alpha gamma delta"}),
            ("delta", {"alpha gamma delta"}),
        ):
            keys = [key for key, _ in reader.postings(term)]
            assert {chunk.text for chunk in reader.chunks(keys).values()} == texts
    store.close()


def test_a_batch_finds_its_own_unwritten_documents_and_forgets_a_failed_one(
    tmp_path: Path,
) -> None:
    """Inside a batch, documents and chunks are written at its end; until then the writer's
    lookups find them as stored rows, and a document whose write failed is not among them."""
    store = SqliteStore(tmp_path / "c.sqlite")
    failing, chunks = make_document("b.md", ["beta", "gamma"])
    original = store._insert_chunk
    calls = 0

    def explode_on_third(item: IndexedChunk) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # b.md's second chunk: its document row and first chunk are pending
            raise RuntimeError("disk on fire")
        original(item)

    store._insert_chunk = explode_on_third  # type: ignore[method-assign]
    with store.batch():
        a = put(store, "a.md", ["alpha"])
        assert store.find_document("/corpus", "a.md") == a
        assert store.find_document_by_id(a.document_id) == a
        with pytest.raises(RuntimeError):
            store.write_document(failing, chunks, analyzer_identity=IDENTITY)
        assert store.find_document("/corpus", "b.md") is None
        assert store.find_document_by_id(failing.document_id) is None
        c = put(store, "c.md", ["gamma delta"])
        assert [d.source for d in store.documents_under("/corpus")] == ["a.md", "c.md"]
        d = put(store, "d.md", ["delta"])  # pending again, after documents_under wrote a and c
        put(store, "d.md", ["epsilon"], replaces=d.document_id)
    with store.reader() as reader:
        keys = [key for key, _ in reader.chunk_lengths()]
        assert keys == sorted(keys) and len(keys) == 3
        assert [c.document_id for c in reader.chunks(keys).values()] == [
            a.document_id,
            c.document_id,
            make_document("d.md", ["epsilon"])[0].document_id,
        ]
        assert not reader.postings("beta") and len(reader.postings("delta")) == 1
        assert reader.integrity_problems() == []
    store.close()


def test_a_failed_first_document_in_a_batch_undoes_its_identity_binding(tmp_path: Path) -> None:
    """The SQL a document's write runs itself (here binding the analyzer, the first write of
    the file) is inside its savepoint: its failure leaves the file as it was."""
    store = SqliteStore(tmp_path / "c.sqlite")
    failing, chunks = make_document("a.md", ["alpha"])
    store._insert_chunk = _explode  # type: ignore[method-assign]
    with store.batch(), pytest.raises(RuntimeError):
        store.write_document(failing, chunks, analyzer_identity=IDENTITY)
    assert store.analyzer_identity() is None and store.find_document("/corpus", "a.md") is None
    with store.reader() as reader:
        assert (reader.generation, reader.chunk_count) == (0, 0)
    store.close()


def _explode(item: IndexedChunk) -> None:
    raise RuntimeError("disk on fire")


def test_a_failed_write_of_pending_postings_keeps_them_for_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's pending postings are written in a savepoint: when that fails (here once, as
    the remove of a document needs them written first), nothing of it is kept and the batch's
    commit writes them all."""
    from groundkit.store.sqlite import pending

    store = SqliteStore(tmp_path / "c.sqlite")
    original = pending.add_counts
    failures = 1

    def fail_once(db: sqlite3.Connection, chunks: int, length: int) -> None:
        nonlocal failures
        if failures:
            failures -= 1
            raise sqlite3.OperationalError("disk I/O error")
        original(db, chunks, length)

    monkeypatch.setattr(pending, "add_counts", fail_once)
    many = " ".join(f"w{n}" for n in range(700))  # more postings than one INSERT statement holds
    with store.batch():
        put(store, "a.md", ["alpha beta " + many])
        b = put(store, "b.md", ["beta"])
        with pytest.raises(StorageError):
            store.remove_document(b.document_id)
    with store.reader() as reader:
        assert (len(reader.postings("alpha")), len(reader.postings("beta"))) == (1, 2)
        assert [len(reader.postings(f"w{n}")) for n in (0, 299, 300, 699)] == [1, 1, 1, 1]
        assert (reader.chunk_count, reader.total_length, reader.generation) == (2, 703, 2)
        assert reader.integrity_problems() == []
    store.close()


def test_a_writer_skips_integrity_check_only_on_the_file_its_last_writer_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from groundkit.store.sqlite import writer

    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", ["alpha"])
    stamp = Path(f"{path}-sound")
    assert stamp.is_file()
    checked: list[Path] = []
    monkeypatch.setattr(writer, "check_before_write", lambda db, p, **_: checked.append(p))
    with SqliteStore(path) as store:
        assert not stamp.exists()  # dropped while a writer has the file open
        put(store, "b.md", ["beta"])
    assert checked == [] and stamp.is_file()
    reader = SqliteReader(path)  # a reader open when the writer closes keeps frames in the WAL
    try:
        with SqliteStore(path) as store:
            put(store, "c.md", ["gamma"])
    finally:
        reader.close()
    assert not stamp.exists()
    with SqliteStore(path):
        pass
    assert checked == [path] and stamp.is_file()
    data = bytearray(path.read_bytes())
    data[-100] ^= 1  # a flipped bit, size and time kept: the hash still tells
    info = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert not writer.matches_stamp(path)
    with SqliteStore(path):
        pass
    assert checked == [path, path]


def test_a_byte_identical_copy_is_not_altered_and_a_changed_byte_is(tmp_path: Path) -> None:
    """adr/0056: a copy (new modification time, same bytes) keeps its stamp's word; a byte
    changed in place, or the stamp's size, does not."""
    import shutil

    from groundkit.store.sqlite.stamp import altered_since_stamp

    path = tmp_path / "a" / "c.sqlite"
    path.parent.mkdir()
    with SqliteStore(path) as store:
        put(store, "a.md", ["alpha"])
    copy = tmp_path / "b" / "c.sqlite"
    copy.parent.mkdir()
    shutil.copyfile(path, copy)  # new mtime
    shutil.copyfile(f"{path}-sound", f"{copy}-sound")
    os.utime(copy, ns=(0, path.stat().st_mtime_ns + 10**9))
    assert not altered_since_stamp(path) and not altered_since_stamp(copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    os.utime(copy, ns=(0, path.stat().st_mtime_ns + 2 * 10**9))
    assert altered_since_stamp(copy)
    copy.write_bytes(bytes(data) + b"\0")
    assert altered_since_stamp(copy)


LONG = " ".join(f"pump{i % 37} valve station alpha" for i in range(60))


def test_schema_5_packs_long_texts_and_term_ids_into_16k_pages(tmp_path: Path) -> None:
    """A long text is stored compressed (a BLOB), a short one as is; both read back exactly;
    term ids take 4 bytes each (adr/0032)."""
    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", [LONG, "short valve"])
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA page_size").fetchone()[0] == 16_384
    stored = dict(db.execute("SELECT chunk_index, typeof(text) FROM chunks").fetchall())
    assert stored == {0: "blob", 1: "text"}
    sizes = db.execute("SELECT length(term_ids), length(text) FROM chunks ORDER BY 1").fetchall()
    assert sizes[0][0] == 4 * 2 and sizes[1][1] < len(LONG) / 3  # "short", "valve"; packed
    db.close()
    with SqliteReader(path) as reader:
        texts = sorted(c.text for c in reader.chunks([1, 2]).values())
        assert texts == [LONG, "short valve"]
        assert reader.integrity_problems() == []


def test_a_schema_4_file_reads_as_is_and_its_first_writer_repacks_it(tmp_path: Path) -> None:
    from old_schema import as_schema_4

    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", [LONG, "short valve"])
        replaced = put(store, "b.md", ["valve beta beta"])
    with SqliteReader(path) as reader:
        before = sorted(reader.postings("valve")), reader.chunks([1, 2, 3])
    db = sqlite3.connect(path)
    as_schema_4(db)
    db.commit()
    assert db.execute("SELECT count(*) FROM chunks WHERE typeof(text) = 'blob'").fetchone() == (0,)
    db.close()
    with SqliteReader(path) as reader:  # read as schema 4: 8-byte term ids
        assert reader.integrity_problems() == []
        assert (sorted(reader.postings("valve")), reader.chunks([1, 2, 3])) == before
    with SqliteStore(path) as store:  # the upgrade, then a replace that needs the term ids
        put(store, "b.md", ["gamma"], replaces=replaced.document_id)
    with SqliteReader(path) as reader:
        assert reader.status()["schema_version"] == SCHEMA_VERSION == 5
        assert reader.integrity_problems() == []
        assert len(reader.postings("valve")) == 2 and reader.postings("beta") in ((), [])


def test_a_compressed_text_that_does_not_inflate_is_damage_without_the_text(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.sqlite"
    with SqliteStore(path) as store:
        put(store, "a.md", [LONG])
    db = sqlite3.connect(path)
    db.execute("UPDATE chunks SET text = X'5345435245545F'")  # "SECRET_", not zlib
    db.commit()
    db.close()
    with SqliteReader(path) as reader, pytest.raises(StorageError) as caught:
        reader.chunks([1])
    assert "does not decompress" in str(caught.value) and "SECRET" not in str(caught.value)


def test_two_writers_taking_turns_share_term_ids(tmp_path: Path) -> None:
    """A writer whose cache held every term of a new file must look terms up again once
    another writer has written: the term another one created is not created twice."""
    path = tmp_path / "c.sqlite"
    first, second = SqliteStore(path), SqliteStore(path)
    put(first, "a.md", ["alpha beta"])
    put(second, "b.md", ["beta gamma"])
    put(first, "c.md", ["gamma delta alpha"])
    with SqliteReader(path) as reader:
        assert [len(reader.postings(t)) for t in ("alpha", "beta", "gamma", "delta")] == [
            2,
            2,
            2,
            1,
        ]
        assert reader.integrity_problems() == []
    first.close()
    second.close()


def test_a_batch_whose_commit_fails_in_sqlite_raises_a_storage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer guards its entry points only; a batch's commit runs as the block is left,
    outside any of them, so the batch is guarded as a whole: SQLite's error still arrives as
    a ``StorageError``, and nothing of the batch is kept."""
    from groundkit.store.sqlite import pending

    def fail(db: sqlite3.Connection, chunks: int, length: int) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    store = SqliteStore(tmp_path / "c.sqlite")
    monkeypatch.setattr(pending, "add_counts", fail)
    with pytest.raises(StorageError), store.batch():
        put(store, "a.md", ["alpha beta"])
    monkeypatch.undo()
    assert store.find_document("/corpus", "a.md") is None
    put(store, "b.md", ["beta"])
    with store.reader() as reader:
        assert (reader.chunk_count, len(reader.postings("alpha"))) == (1, 0)
        assert reader.integrity_problems() == []
    store.close()


def test_a_first_build_finds_what_its_earlier_commits_and_other_writers_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that began on an empty file answers "not stored" from the keys it wrote,
    across its commits; a key it wrote is looked up, and once another writer has written
    (or the keys grow past their limit) every lookup asks SQLite again."""
    from groundkit.store.sqlite import known

    path = tmp_path / "c.sqlite"
    first, second = SqliteStore(path), SqliteStore(path)
    with first.batch():
        a = put(first, "a.md", ["alpha"])
    with first.batch():
        assert first.find_document("/corpus", "a.md") == a
        assert first.find_document_by_id(a.document_id) == a
        assert first.find_document("/corpus", "b.md") is None
        put(first, "c.md", ["gamma"])
    b = put(second, "b.md", ["beta"])
    assert first.find_document("/corpus", "b.md") == b  # outside a transaction
    with first.batch():
        assert first.find_document("/corpus", "b.md") == b
        assert first.find_document_by_id(b.document_id) == b
    moving = SqliteStore(tmp_path / "e.sqlite")
    a = put(moving, "a.md", ["alpha"])
    moving.relocate_document(a.document_id, "/moved")
    with moving.batch():
        assert moving.find_document("/moved", "a.md") is not None
    monkeypatch.setattr(known, "STORED_KEYS_LIMIT", 1)
    fresh = SqliteStore(tmp_path / "d.sqlite")
    with fresh.batch():
        put(fresh, "a.md", ["alpha"])
        put(fresh, "b.md", ["beta"])
    with fresh.batch():
        assert [fresh.find_document("/corpus", s) is not None for s in ("a.md", "b.md")] == [
            True,
            True,
        ]
    for store in (first, second, moving, fresh):
        store.close()


def test_term_ids_are_the_same_when_the_writer_forgets_its_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a term cache that starts over every few terms, stored terms are looked up and
    terms created earlier in the transaction found among its pending ones: every term gets
    the id it gets with the cache kept whole, and none is created twice."""
    from groundkit.store.sqlite import term_table

    texts = [["alpha beta gamma", "beta delta"], ["gamma epsilon alpha"], ["zeta beta eta"]]

    def build(name: str) -> list[tuple[object, ...]]:
        store = SqliteStore(tmp_path / name)
        with store.batch():
            for n, passages in enumerate(texts[:2]):
                put(store, f"{n}.md", passages)
        put(store, "2.md", texts[2])
        store.close()
        db = sqlite3.connect(tmp_path / name)
        rows = db.execute(
            "SELECT t.term, t.term_id, t.df, t.checksum, p.chunk_key, p.tf FROM terms t "
            "JOIN postings p USING (term_id) ORDER BY t.term_id, p.chunk_key"
        ).fetchall()
        db.close()
        return rows

    whole = build("whole.sqlite")
    monkeypatch.setattr(term_table, "TERM_CACHE_LIMIT", 1)
    assert build("forgetful.sqlite") == whole
    assert len({row[0] for row in whole}) == len({row[1] for row in whole}) == 7
