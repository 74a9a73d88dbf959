"""The static collection (``groundkit.store.static``): ranks, scores and cites exactly as the
SQLite collection it was exported from, fetching only the files a query needs."""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import groundkit
from groundkit.analysis.analyzer import Analyzer
from groundkit.collection import open_reader
from groundkit.errors import ConfigurationError, StorageError
from groundkit.evaluation.self_calibration import record_self_calibration, self_calibrate
from groundkit.index.lexicon import Lexicon
from groundkit.retrieval import GroupOptions, Searcher
from groundkit.retrieval.floor import FloorRecord, write_floor
from groundkit.retrieval.lexical_bar import read_lexical_bar
from groundkit.store import static_export
from groundkit.store.protocols import CollectionReader
from groundkit.store.static import FilesNeeded, StaticReader
from groundkit.store.static_export import export_static
from groundkit.store.static_layout import (
    BLOCK,
    HEAD,
    TEXT_BLOCK,
    block_path,
    pack,
    range_shard_of,
    shard_path,
    texts_path,
)

SAMPLE = Path(groundkit.__file__).resolve().parent / "sample"
QUERIES = (
    ("how do I report a leak", 5, None),
    ("chlorine residual target", 10, None),
    ("Avis aux résidents rinçage du réseau", 5, None),
    ("water interruption – Orchard Road", 5, None),
    ("payment options direct debit late fee", 20, None),
    ("the of and", 5, None),
    ("zyzzyva quokka", 5, None),
    ("hydrant flushing discoloured water", 10, 2.0),
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("static")
    index = root / "idx"
    hashing = groundkit.get_embedder("hash")
    groundkit.ingest(SAMPLE, index_dir=index, embedder=hashing, calibrate=False)  # no bar shipped
    with open_reader(index, "default") as reader:
        export_static(reader, root / "site" / "index", SAMPLE)
    yield index, root / "site"


class Files:
    """fetch(path) over a site folder (sources from the sample), recording every path."""

    def __init__(self, site: Path) -> None:
        self.site = site
        self.paths: list[str] = []

    def __call__(self, path: str) -> bytes:
        self.paths.append(path)
        if path.startswith("sources/"):
            return (SAMPLE / path.removeprefix("sources/")).read_bytes()
        return (self.site / path).read_bytes()


def answers(retriever: Searcher, mode: str) -> list[Any]:
    out = []
    for query, k, threshold in QUERIES:
        response = retriever.search(query, top_k=k, score_threshold=threshold, mode=mode)
        meta = {key: v for key, v in response.metadata.items() if key != "timings_ms"}
        out.append(
            (
                meta,
                [
                    (r.chunk_id, r.score.hex(), dataclasses.asdict(r.citation), dict(r.metadata))
                    for r in response.results
                ],
            )
        )
    return out


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_same_answers_as_the_sqlite_collection(built: tuple[Path, Path], mode: str) -> None:
    index, site = built
    with (
        Searcher.open(index) as stored,
        Searcher.of(StaticReader(Files(site), index="index/")) as r,
    ):
        assert answers(r, mode) == answers(stored, mode)


def test_a_shipped_bar_says_nothing_here_as_the_collection_does(tmp_path: Path) -> None:
    """A static collection exported with the collection's recorded bar abstains, reports its
    share (same bits) and names the bar's source exactly as the collection does, plain and
    with prefix and typos, grouped or not (adr/0069); one exported without it never does."""
    index = tmp_path / "idx"
    groundkit.ingest(SAMPLE, index_dir=index)
    with Searcher.open(index) as stored:
        record_self_calibration(stored, self_calibrate(stored))
        bar = read_lexical_bar(stored.reader.location)
        assert bar is not None and bar.separates
        export_static(stored.reader, tmp_path / "site" / "index", SAMPLE, lexical_bar=bar.to_dict())
        export_static(stored.reader, tmp_path / "bare" / "index", SAMPLE)
    queries = [q for q, _, _ in QUERIES] + ["how do I bake a chocolate cake", "chlorne residual"]
    kinds = [{}, {"prefix": True, "fuzzy": True}, {"prefix": True, "group": GroupOptions(2)}]
    with (
        Searcher.open(index) as stored,
        Searcher.of(StaticReader(Files(tmp_path / "site"), index="index/")) as static,
        Searcher.of(StaticReader(Files(tmp_path / "bare"), index="index/")) as bare,
    ):
        said = []
        for query in queries:
            for kind in kinds:
                want = stored.search(query, mode="bm25", **kind)  # type: ignore[arg-type]
                got = static.search(query, mode="bm25", **kind)  # type: ignore[arg-type]
                for key in ("abstained", "lexical_bar", "groups"):
                    assert got.metadata.get(key) == want.metadata.get(key), (query, kind)
                share = got.metadata["lexical_share"]
                assert share.hex() == want.metadata["lexical_share"].hex(), (query, kind)
                assert [r.chunk_id for r in got.results] == [r.chunk_id for r in want.results]
                said.append(got.metadata["abstained"])
                assert "lexical_bar" not in bare.search(query, mode="bm25", **kind).metadata  # type: ignore[arg-type]
        assert any(said) and not all(said)
        assert got.metadata["lexical_bar"]["source"] == "self-calibrated"


def test_an_unreadable_shipped_bar_is_refused(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, site = built
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    head["lexical_bar"] = {"share": 2.0}
    files = Files(site)
    changed = pack(head)
    reader = StaticReader(lambda p: changed if p == "index/" + HEAD else files(p), index="index/")
    with pytest.raises(ConfigurationError, match="rebuild the site"):
        Searcher.of(reader).search("leak", mode="bm25")


def test_a_shipped_floor_is_applied_as_the_collections_record(tmp_path: Path) -> None:
    """A static collection exported with the collection's dense floor and hybrid share
    applies them exactly as the collection applies its ``dense-floor.json``, naming their
    source; one exported without them falls back to the embedder's floor and says so
    (adr/0070)."""
    index, embedder = tmp_path / "idx", groundkit.get_embedder("hash")
    groundkit.ingest(SAMPLE, index_dir=index, embedder=embedder)
    with Searcher.open(index) as stored:
        record = FloorRecord(0.2, embedder.identity, {"source": "self"}, 0.3)
        write_floor(stored.reader.location, record)
        floor = record.to_dict()
        export_static(stored.reader, tmp_path / "site" / "index", SAMPLE, dense_floor=floor)
        export_static(stored.reader, tmp_path / "bare" / "index", SAMPLE)
    queries = [q for q, _, _ in QUERIES] + ["how do I bake a chocolate cake"]
    keys = ("min_similarity", "floor_source", "fusion", "dense_best", "abstained")
    with (
        Searcher.open(index) as stored,
        Searcher.of(StaticReader(Files(tmp_path / "site"), index="index/")) as static,
        Searcher.of(StaticReader(Files(tmp_path / "bare"), index="index/")) as bare,
    ):
        assert static.reader.shipped_dense_floor() == floor
        said = []
        for query in queries:
            for mode in ("dense", "hybrid"):
                want = stored.search(query, mode=mode)  # type: ignore[arg-type]
                got = static.search(query, mode=mode)  # type: ignore[arg-type]
                assert {k: got.metadata.get(k) for k in keys} == {
                    k: want.metadata.get(k) for k in keys
                }, (query, mode)
                assert [r.chunk_id for r in got.results] == [r.chunk_id for r in want.results]
                assert got.metadata["floor_source"] == "self-calibrated"
                said.append(got.metadata["abstained"])
                fallback = bare.search(query, mode=mode).metadata  # type: ignore[arg-type]
                assert fallback["floor_source"] == "embedder"
                assert fallback["min_similarity"] == embedder.similarity_floor
        assert any(said) and not all(said)
        hybrid = static.search("chlorine residual target", mode="hybrid").metadata["fusion"]
        assert hybrid["min_lexical_share"] == 0.3
        assert hybrid["lexical_share_source"] == "self-calibrated"


@pytest.mark.parametrize(
    "change",
    [
        {"floor": "high"},
        {"embedding": {**groundkit.get_embedder("hash").identity.to_dict(), "dimensions": 7}},
    ],
)
def test_an_unreadable_or_foreign_shipped_floor_is_refused(
    built: tuple[Path, Path], change: dict[str, Any]
) -> None:
    _, site = built
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    identity = groundkit.get_embedder("hash").identity
    head["dense_floor"] = {**FloorRecord(0.2, identity).to_dict(), **change}
    files = Files(site)
    changed = pack(head)
    reader = StaticReader(lambda p: changed if p == "index/" + HEAD else files(p), index="index/")
    with pytest.raises(ConfigurationError, match="rebuild the site"):
        Searcher.of(reader).search("leak", mode="dense")


def test_reader_protocol_and_counts(built: tuple[Path, Path]) -> None:
    index, site = built
    static = StaticReader(Files(site), index="index/")
    assert isinstance(static, CollectionReader)
    with open_reader(index, "default") as stored:
        assert static.generation == stored.generation
        assert static.chunk_count == stored.chunk_count
        assert static.total_length == stored.total_length
        assert sorted(static.chunk_lengths()) == sorted(stored.chunk_lengths())
        assert list(static.iter_documents()) == list(stored.iter_documents())
        assert list(static.iter_chunks()) == list(stored.iter_chunks())
        assert dict(static.iter_tie_keys()) == dict(stored.iter_tie_keys())
        assert dict(static.vectors()) == dict(stored.vectors())
        assert static.status()["terms"] == stored.status()["terms"]
        some = next(iter(stored.iter_chunks()))
        assert static.chunk_by_id(some.chunk_id) == stored.chunk_by_id(some.chunk_id) == some
        assert static.chunk_by_id("chk_none") is None
    assert static.integrity_problems() == []


def test_a_query_fetches_only_its_shards(built: tuple[Path, Path]) -> None:
    _, site = built
    files = Files(site)
    reader = StaticReader(files, index="index/")
    assert files.paths == ["index/" + HEAD]
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    firsts = head["postings_firsts"]
    assert head["shards"] == len(firsts) > 1 and firsts == sorted(firsts)
    wanted = reader.missing(["leak", "report"])
    assert wanted == sorted(
        {"index/" + shard_path(range_shard_of(t, firsts)) for t in ("leak", "report")}
    )
    for path in wanted:  # fetched ahead, as the page does; the reader then fetches nothing
        reader.put(path, (site / path).read_bytes())
    assert reader.postings("leak") and reader.postings("report")
    assert files.paths == ["index/" + HEAD]
    assert reader.missing(["leak", "report"]) == []


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_deferred_calls_name_every_file_they_need_then_answer_the_same(
    built: tuple[Path, Path], mode: str
) -> None:
    index, site = built
    files = Files(site)
    reader = StaticReader(files, index="index/")
    retriever = Searcher.of(reader)

    def put(paths: list[str]) -> None:  # fetched "in parallel" by the caller, as the page does
        for path in paths:
            data = (site / path) if path.startswith("index/") else SAMPLE / path[len("sources/") :]
            reader.put(path, data.read_bytes())

    put(reader.missing(retriever.analyzer.terms("how do I report a leak")))
    rounds = 0
    reader.defer = True
    while True:
        try:
            deferred = retriever.search("how do I report a leak", top_k=10, mode=mode)
            break
        except FilesNeeded as needed:
            rounds += 1
            assert rounds <= 2 and needed.paths
            put(needed.paths)
    assert files.paths == ["index/" + HEAD], "nothing was fetched one by one"
    assert rounds >= 1  # the chunk blocks and sources (and, for hybrid, the vectors first)
    with Searcher.open(index) as stored:
        want = stored.search("how do I report a leak", top_k=10, mode=mode)
    assert [(r.chunk_id, r.score.hex(), r.citation) for r in deferred.results] == [
        (r.chunk_id, r.score.hex(), r.citation) for r in want.results
    ]


def test_a_missing_file_is_a_storage_error(tmp_path: Path) -> None:
    def fetch(path: str) -> bytes:
        raise OSError(f"HTTP 404 for {path}")

    with pytest.raises(StorageError, match=r"cannot fetch index/collection\.bin"):
        StaticReader(fetch, index="index/")


def test_damaged_or_newer_files_are_refused(built: tuple[Path, Path]) -> None:
    _, site = built
    head = site / "index" / HEAD
    with pytest.raises(StorageError, match="damaged"):
        StaticReader(lambda p: b"not zlib", index="index/")
    newer = json.loads(zlib.decompress(head.read_bytes()))
    newer["format"] = 99
    data = zlib.compress(json.dumps(newer).encode())
    with pytest.raises(StorageError, match="format 99"):
        StaticReader(lambda p: data, index="index/")


def test_export_refuses_postings_that_disagree_with_the_text(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Wombats\n\nWombats dig burrows.\n", encoding="utf-8")
    groundkit.ingest(corpus, index_dir=tmp_path / "idx")

    class Tampered:
        def __init__(self, inner: CollectionReader) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def postings(self, term: str) -> list[tuple[int, int]]:
            return [(key, tf + 1) for key, tf in self.inner.postings(term)]

    with (
        open_reader(tmp_path / "idx", "default") as reader,
        pytest.raises(StorageError, match="postings differ"),
    ):
        export_static(Tampered(reader), tmp_path / "out", corpus)  # type: ignore[arg-type]


EXPANDING = (
    ("hydrent leakge", {"fuzzy": True}),
    ("chlori", {"prefix": True}),
    ("flush hydr", {"prefix": True}),
)


def test_the_term_list_is_the_stores_and_a_prefix_reads_only_its_blocks(
    tmp_path: Path, built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, _ = built
    monkeypatch.setattr(static_export, "TERMS_BLOCK", 64)  # many blocks from the small sample
    with open_reader(index, "default") as reader:
        export_static(reader, tmp_path / "site" / "index", SAMPLE)
        stored = reader.indexed_terms("")
        files = Files(tmp_path / "site")
        static = StaticReader(files, index="index/")
        for prefix in ("", "c", "chlor", "r", "résid", "zzz", "\U0010ffff"):
            files.paths.clear()
            assert static.indexed_terms(prefix) == reader.indexed_terms(prefix)
            if prefix not in ("", "c", "r"):
                assert len(files.paths) <= 2  # a narrow prefix: one block, or two it straddles
    assert stored == sorted(stored) and len(stored) > 3 * 64


def test_expanded_searches_answer_as_over_the_sqlite_collection(built: tuple[Path, Path]) -> None:
    index, site = built
    with (
        Searcher.open(index) as stored,
        Searcher.of(StaticReader(Files(site), index="index/")) as r,
    ):
        for query, options in EXPANDING:
            want = stored.search(query, 5, "bm25", **options)
            got = r.search(query, 5, "bm25", **options)
            assert (
                want.metadata["expansions"]
                and got.metadata["expansions"] == want.metadata["expansions"]
            )
            assert [(x.chunk_id, x.score.hex()) for x in got.results] == [
                (x.chunk_id, x.score.hex()) for x in want.results
            ]


def test_a_site_without_a_term_list_refuses_expansion(
    tmp_path: Path, built: tuple[Path, Path]
) -> None:
    _, site = built
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    del head["term_blocks"]
    files = Files(site)
    reader = StaticReader(
        lambda p: pack(head) if p == "index/" + HEAD else files(p), index="index/"
    )
    with pytest.raises(StorageError, match="no term list"):
        Searcher.of(reader).search("chlori", prefix=True)


def test_the_word_list_is_the_chunks_surface_words(
    tmp_path: Path, built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, site = built
    monkeypatch.setattr(static_export, "TERMS_BLOCK", 64)  # several word blocks
    with open_reader(index, "default") as reader:
        export_static(reader, tmp_path / "site" / "index", SAMPLE)
        scanned = Lexicon(reader, Analyzer().readable).words()
    static = StaticReader(Files(tmp_path / "site"), index="index/")
    assert static.indexed_words() == scanned and len(scanned) > 2 * 64
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    del head["word_blocks"]
    files = Files(site)
    old = StaticReader(lambda p: pack(head) if p == "index/" + HEAD else files(p), index="index/")
    with pytest.raises(StorageError, match="no word list"):
        Searcher.of(old).search("chlorinne", fuzzy=True)


def test_a_prefix_reads_one_or_two_postings_shards(built: tuple[Path, Path]) -> None:
    """Shards hold ranges of terms, so a prefix's completions are in one or two (adr/0062)."""
    _, site = built
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    firsts = head["postings_firsts"]
    reader = StaticReader(Files(site), index="index/")
    for prefix in ("hyd", "pay", "chl", "res", "mai", "wat"):
        completions = reader.indexed_terms(prefix)
        assert completions, prefix
        shards = {range_shard_of(term, firsts) for term in completions}
        assert len(shards) <= 2 and max(shards) - min(shards) <= 1, (prefix, shards)


def test_the_site_ships_each_chunk_with_its_text_for_the_pages_js(
    built: tuple[Path, Path],
) -> None:
    """``texts/``: every chunk's row (as ``chunks/`` holds it) with its text, ``text_block`` a
    file, in key order: what the page's JS path reads of a result instead of a whole source."""
    index, site = built
    head = json.loads(zlib.decompress((site / "index" / HEAD).read_bytes()))
    per = head["text_block"]
    assert per == TEXT_BLOCK
    with open_reader(index, "default") as reader:
        keys = sorted(key for key, _ in reader.chunk_lengths())
        chunks = reader.chunks(keys)
    assert keys == head["keys"]
    for block in range(0, len(keys), per):
        passages = json.loads(
            zlib.decompress((site / "index" / texts_path(block // per)).read_bytes())
        )
        rows = json.loads(
            zlib.decompress((site / "index" / block_path(block // BLOCK)).read_bytes())
        )
        for slot, passage in enumerate(passages, block):
            assert passage[:6] == rows[slot % BLOCK][:6]
            assert passage[6] == chunks[keys[slot]].text
