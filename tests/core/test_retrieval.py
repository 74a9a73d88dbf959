"""Searcher: exact Lucene BM25, tie-breaks, validation, read views, failing closed."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_store import make_document

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.config import MAX_QUERY_CHARS, MAX_TOP_K, BM25Params
from groundkit.contracts import Chunk, Document, chunk_id_for, content_hash, document_id_for
from groundkit.errors import CorruptCollectionError, IndexIdentityError, RetrievalError
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher
from groundkit.store import CollectionStore, IndexedChunk, MemoryStore
from groundkit.store.sqlite import SqliteReader, SqliteStore

PLAIN = Analyzer(stemmer="none", stopwords="none")


def load(store: CollectionStore, docs: list[list[str]], sources: list[str] | None = None) -> None:
    """Each doc is a list of passages (chunks) of space-separated lowercase words."""
    for n, passages in enumerate(docs):
        source = sources[n] if sources else f"d{n:03}.txt"
        document, items = make_document(source, passages, root="/r")
        store.write_document(document, items, analyzer_identity=PLAIN.identity)


def brute_force(
    docs: list[list[str]], query: list[str], params: BM25Params
) -> list[tuple[str, float]]:
    passages = [p for d in docs for p in d]
    lengths = [len(p.split()) for p in passages]
    n, avgdl = len(passages), sum(lengths) / len(passages)
    scores: list[tuple[str, float]] = []
    for passage, length in zip(passages, lengths, strict=True):
        tf = Counter(passage.split())
        total = 0.0
        for term, qtf in sorted(Counter(query).items()):
            df = sum(1 for p in passages if term in p.split())
            if not tf[term]:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            norm = params.k1 * (1 - params.b + params.b * length / avgdl)
            total += qtf * idf * tf[term] / (tf[term] + norm)
        if total:
            scores.append((passage, total))
    return scores


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"])
PASSAGE = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
CORPUS = st.lists(st.lists(PASSAGE, min_size=1, max_size=3), min_size=1, max_size=15)


@settings(max_examples=60, deadline=None)
@given(CORPUS, st.lists(WORDS, min_size=1, max_size=4), st.integers(1, 20))
def test_top_k_is_exact_against_brute_force(
    docs: list[list[str]], query: list[str], k: int
) -> None:
    store = MemoryStore()
    load(store, docs)
    params = BM25Params(k1=1.2, b=0.75)
    expected = brute_force(docs, query, params)
    with Searcher.of(store.reader(), bm25=params) as retriever:
        response = retriever.search(" ".join(query), top_k=k)
    got = [(r.content, r.score) for r in response.results]
    assert len(got) == min(k, len(expected))
    best = sorted((score for _, score in expected), reverse=True)[: len(got)]
    by_content = dict(expected)
    for (content, score), want in zip(got, best, strict=True):
        assert score == pytest.approx(want, rel=1e-12)
        assert by_content[content] == pytest.approx(score, rel=1e-12)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_lucene_idf_and_saturation_by_hand() -> None:
    store = MemoryStore()
    load(store, [["alpha beta"], ["beta beta gamma delta"], ["gamma"]])
    with Searcher.of(store.reader(), bm25=BM25Params(k1=0.9, b=0.4)) as retriever:
        response = retriever.search("beta")
    # N=3, df=2: idf = ln(1 + 1.5/2.5); avgdl = 7/3
    idf = math.log(1 + 1.5 / 2.5)
    first = idf * 2 / (2 + 0.9 * (0.6 + 0.4 * 4 / (7 / 3)))
    second = idf * 1 / (1 + 0.9 * (0.6 + 0.4 * 2 / (7 / 3)))
    assert [r.score for r in response.results] == pytest.approx([first, second], rel=1e-12)


def test_ties_break_on_content_hash_then_chunk_index_whatever_the_ingest_order() -> None:
    named = {
        "x.txt": ["same words here"],
        "y.txt": ["same words here", "same words here"],
        "z.txt": ["same words here"],  # same content as x.txt: the source decides
    }
    expected = sorted(
        (content_hash("\n".join(passages)), i, source)
        for source, passages in named.items()
        for i in range(len(passages))
    )
    for order in (["x.txt", "y.txt", "z.txt"], ["z.txt", "y.txt", "x.txt"]):
        store = MemoryStore()
        load(store, [named[source] for source in order], sources=order)
        with Searcher.of(store.reader()) as retriever:
            results = retriever.search("same", top_k=4).results
        assert len({r.score for r in results}) == 1
        got = [
            (content_hash("\n".join(named[r.source])), r.metadata["chunk_index"], r.source)
            for r in results
        ]
        assert got == expected


def test_tie_at_the_cut_is_resolved_exactly() -> None:
    store = MemoryStore()
    passages = [["alpha beta"]] + [["alpha gamma"]] * 1 + [["alpha delta"], ["alpha eps"]]
    load(store, passages)
    with Searcher.of(store.reader()) as retriever:
        everything = retriever.search("alpha", top_k=10).results
        for k in range(1, 5):
            assert retriever.search("alpha", top_k=k).results == everything[:k]


def test_results_carry_resolvable_citations(write_corpus: WriteCorpus, tmp_path: Path) -> None:
    root = write_corpus(
        {"a.md": "# Title\n\nThe 💧 pump lifts water.\n\nSecond para about valves.\n"}
    )
    store = SqliteStore(tmp_path / "c.sqlite")
    Indexer(store).ingest(root)
    with Searcher.of(store.reader()) as retriever:
        response = retriever.search("pump")
        assert response.metadata["stage"] == "bm25"
        result = response.results[0]
        text = (root / "a.md").read_text(encoding="utf-8")
        c = result.citation
        assert text[c.start_offset : c.end_offset] == result.content
        assert retriever.verify(result).verdict == "verified"
    store.close()


@pytest.mark.parametrize(
    ("query", "top_k", "mode", "match"),
    [
        ("", None, "bm25", "empty"),
        ("   \n\t", None, "bm25", "empty"),
        ("x" * (MAX_QUERY_CHARS + 1), None, "bm25", "limit"),
        ("pump", 0, "bm25", "top_k"),
        ("pump", MAX_TOP_K + 1, "bm25", "top_k"),
        ("pump", True, "bm25", "top_k"),
        ("pump", None, "magic", "unknown search mode"),
        ("pump", None, "Dense", "unknown search mode"),
    ],
)
def test_invalid_requests_raise_retrieval_error(
    query: str, top_k: object, mode: str, match: str
) -> None:
    store = MemoryStore()
    load(store, [["pump station"]])
    with Searcher.of(store.reader()) as retriever, pytest.raises(RetrievalError, match=match):
        retriever.search(query, top_k=top_k, mode=mode)  # type: ignore[arg-type]


def test_unknown_words_and_only_stopwords_return_nothing() -> None:
    store = MemoryStore()
    load(store, [["pump station"]])
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("zzz unknown").results == ()
    stemmed = MemoryStore()
    with Searcher.of(stemmed.reader(), analyzer=Analyzer()) as retriever:
        response = retriever.search("the of and")
    assert response.results == () and response.metadata["query_terms"] == 0


def test_score_threshold_lets_a_query_return_nothing() -> None:
    store = MemoryStore()
    load(store, [["pump station alpha"], ["valve beta"], ["gamma"]])
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("alpha").total_results == 1
        assert retriever.search("alpha", score_threshold=100.0).total_results == 0
        assert retriever.search("alpha", score_threshold=0.0).total_results == 1


def test_documents_ingested_after_open_are_invisible(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.sqlite")
    load(store, [["alpha"]])
    retriever = Searcher.of(store.reader())
    load_more = [["alpha"], ["alpha alpha"]]
    for n, passages in enumerate(load_more):
        text = "\n".join(passages)
        source = f"late{n}.txt"
        doc_id = document_id_for(source, content_hash(text))
        chunk = Chunk(chunk_id_for(doc_id, 0, 0, len(text)), doc_id, 0, text, 0, len(text), 1, 1)
        store.write_document(
            Document(doc_id, source, "/r", content_hash(text), len(text), 1, "f"),
            [IndexedChunk(chunk, Counter(text.split()), len(text.split()))],
            analyzer_identity=PLAIN.identity,
        )
    assert retriever.search("alpha").total_results == 1
    assert retriever.generation == 1
    retriever.close()
    with Searcher.of(store.reader()) as fresh:
        assert fresh.search("alpha").total_results == 3
    store.close()


def test_a_hit_without_a_document_record_fails_closed(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    load(store, [["alpha"], ["beta"]])
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("DELETE FROM documents WHERE source = 'd000.txt'")
    db.commit()
    db.close()
    with pytest.raises(CorruptCollectionError, match="chunks without a document"):
        SqliteStore(path)  # a writer never opens a file `check` rejects
    with Searcher.of(SqliteReader(path)) as retriever:
        assert retriever.search("beta").total_results == 1
        with pytest.raises(RetrievalError, match="no chunk or document record") as info:
            retriever.search("alpha")
    assert info.value.verdict == "unresolvable"


def test_searching_with_another_analyzer_is_refused() -> None:
    store = MemoryStore()
    load(store, [["alpha"]])
    with pytest.raises(IndexIdentityError):
        Searcher.of(store.reader(), analyzer=Analyzer())
    with Searcher.of(store.reader()) as retriever:
        assert retriever.analyzer == PLAIN


def test_same_corpus_same_ranking_on_both_stores(tmp_path: Path) -> None:
    docs = [["alpha beta gamma"], ["alpha alpha"], ["beta gamma delta", "alpha delta"]]
    rankings = []
    for store in (MemoryStore(), SqliteStore(tmp_path / "c.sqlite")):
        load(store, docs)
        with Searcher.of(store.reader()) as retriever:
            response = retriever.search("alpha delta", top_k=10)
        rankings.append([(r.chunk_id, r.score) for r in response.results])
        store.close()
    assert rankings[0] == rankings[1]


@pytest.mark.parametrize("limit", [1 << 25, 300])
def test_joined_records_are_read_once_and_give_the_same_results(limit: int) -> None:
    """A hit's chunk, document and citation are read on its first join and kept for the
    read view's lifetime (a small bound starts over: still the same results)."""
    from groundkit.retrieval.join import JoinedRecords, join_results

    store = MemoryStore()
    load(store, [[f"pump {n} valve", f"valve {n % 3} pressure"] for n in range(12)])
    reader = store.reader()
    reads: list[int] = []
    chunks = reader.chunks

    def counted(keys: list[int]) -> dict[int, Chunk]:
        reads.append(len(keys))
        return chunks(keys)

    reader.chunks = counted  # type: ignore[method-assign]
    records = JoinedRecords(reader, limit=limit)
    keys = [key for key, _ in reader.chunk_lengths()]
    ranked = [(key, 1.0 / (rank + 1), rank + 1) for rank, key in enumerate(keys)]

    def missing(key: int) -> Exception:
        return KeyError(key)

    first = join_results(records, ranked, missing)
    again = join_results(records, ranked[::-1], missing)
    assert [r.chunk_id for r in again] == [r.chunk_id for r in first][::-1]
    for a, b in zip(first, again[::-1], strict=True):
        assert (a.content, a.citation, a.document_id) == (b.content, b.citation, b.document_id)
    if limit == 1 << 25:
        assert reads == [len(keys)]  # the second join read nothing
    else:
        assert len(reads) >= 2  # the bound forced re-reads
    with pytest.raises(KeyError):
        join_results(records, [(10**9, 1.0, 1)], missing)
