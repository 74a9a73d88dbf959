"""Dense and hybrid retrieval: identities, lockstep vectors, read views, and failing closed."""

from __future__ import annotations

import hashlib
import inspect
import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from old_schema import as_schema_4

from conftest import WriteCorpus
from groundkit.embedding import Embedder, HashEmbedder, embedder_for, get_embedder
from groundkit.errors import (
    ConfigurationError,
    IndexIdentityError,
    RetrievalError,
    StorageError,
)
from groundkit.index import bm25 as bm25_module
from groundkit.ingestion import Indexer
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval import HybridOptions, Searcher
from groundkit.retrieval.abstention import DEFAULT_MIN_LEXICAL_SHARE
from groundkit.retrieval.floor import FLOOR_FILE, FloorRecord, write_floor
from groundkit.retrieval.rerank import LogitReranker, Reranker
from groundkit.store import CollectionReader, CollectionStore, MemoryReader, MemoryStore
from groundkit.store.sqlite import SCHEMA_VERSION, SqliteReader, SqliteStore
from groundkit.vectors import ExactVectorStore, VectorStore, pack_vector, unpack_vector

DOCS = {
    "pumps.md": "# Pumps\n\nThe pump station lifts water to the tank.\n",
    "valves.txt": "Valves control pressure in each zone of the network.\n",
    "billing.md": "# Billing\n\nYour bill shows the meter reading and the tariff.\n",
}


def dense_collection(store: CollectionStore, write_corpus: WriteCorpus) -> Path:
    root = write_corpus(DOCS)
    Indexer(store, embedder=HashEmbedder()).ingest(root)
    return root


# --- the hash embedder -------------------------------------------------------------------------


def test_hash_embedder_is_deterministic_normalised_and_says_it_has_no_meaning() -> None:
    first, second = HashEmbedder(), HashEmbedder()
    vector = first.embed_query("The pump station")
    assert vector == second.embed_documents(["The pump station"])[0]
    assert math.fsum(x * x for x in vector) == pytest.approx(1.0)
    assert first.identity.semantic is False and first.identity.dimensions == 256
    assert (first.identity.provider, first.identity.model) == ("groundkit", "hash")
    assert first.embed_query("!!!") == [0.0] * 256  # no features: the zero vector


def test_hash_embedder_output_is_pinned() -> None:
    """Changing the features or hashing must bump HASH_REVISION; this digest notices."""
    packed = pack_vector(HashEmbedder(64).embed_query("Chlorine residual target"), 64)
    assert hashlib.sha256(packed).hexdigest()[:16] == PINNED_DIGEST


PINNED_DIGEST = "84d54e8616afeac7"


def test_registry_resolves_names_and_identities() -> None:
    assert isinstance(get_embedder("hash"), HashEmbedder)
    with pytest.raises(ConfigurationError, match="unknown embedder 'nope'; available: hash"):
        get_embedder("nope")
    assert embedder_for(HashEmbedder(32).identity).identity == HashEmbedder(32).identity  # type: ignore[union-attr]
    other = EmbeddingIdentity(provider="acme", model="m", revision="1", dimensions=4)
    assert embedder_for(other) is None
    stale = EmbeddingIdentity(
        provider="groundkit",
        model="hash",
        revision="0",
        dimensions=4,
        pooling="sum",
        semantic=False,
    )
    with pytest.raises(IndexIdentityError, match="cannot be reproduced"):
        embedder_for(stale)


# --- protocol conformance ----------------------------------------------------------------------


def _members(protocol: type) -> list[str]:
    return sorted(
        name
        for name, value in vars(protocol).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    )


def _shape(function: Any) -> list[tuple[str, Any, Any]]:
    signature = inspect.signature(function)
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [
        (Embedder, HashEmbedder),
        (VectorStore, ExactVectorStore),
        (Reranker, LogitReranker),
        (CollectionStore, SqliteStore),
        (CollectionStore, MemoryStore),
        (CollectionReader, SqliteReader),
        (CollectionReader, MemoryReader),
    ],
)
def test_implementations_match_their_protocols(protocol: type, implementation: type) -> None:
    for name in _members(protocol):
        wanted = vars(protocol)[name]
        got = getattr(implementation, name, None)
        assert got is not None, f"{implementation.__name__} lacks {name}"
        if isinstance(wanted, property):
            assert isinstance(got, property), f"{implementation.__name__}.{name} is no property"
            continue
        assert _shape(got) == _shape(wanted), f"{implementation.__name__}.{name}"


# --- the exact vector store --------------------------------------------------------------------

VECTORS = st.lists(
    st.lists(st.floats(-10, 10, width=32), min_size=3, max_size=3), min_size=1, max_size=12
)


@settings(max_examples=100, deadline=None)
@given(VECTORS, st.lists(st.floats(-10, 10, width=32), min_size=3, max_size=3), st.randoms())
def test_exact_scores_do_not_depend_on_insertion_order(
    vectors: list[list[float]], query: list[float], random: Any
) -> None:
    for similarity in ("cosine", "dot"):
        forward, shuffled = ExactVectorStore(3, similarity), ExactVectorStore(3, similarity)
        keys = list(range(len(vectors)))
        forward.add(keys, vectors)
        order = keys[:]
        random.shuffle(order)
        shuffled.add(order, [vectors[k] for k in order])
        assert forward.scores(query) == shuffled.scores(query)
        assert forward.search(query, 5) == shuffled.search(query, 5)


NEAR = st.sampled_from([0.0, 1.0, -1.0, 0.1, 1e-30, 3e-39, 1e19, 1.0000001, 0.99999994])
MIXED_VECTORS = st.lists(
    st.lists(st.floats(-10, 10, width=32) | NEAR, min_size=4, max_size=4), min_size=2, max_size=40
)


@pytest.mark.skipif(not bm25_module.numpy_available(), reason="numpy is not installed here")
@settings(max_examples=150, deadline=None)
@given(
    MIXED_VECTORS,
    st.lists(st.floats(-10, 10, width=32) | NEAR, min_size=4, max_size=4),
    st.integers(1, 12),
    st.none() | st.floats(-1, 1),
    st.sampled_from(["cosine", "dot"]),
    st.integers(0, 3),
)
def test_exact_store_numpy_prefilter_gives_the_python_results(
    vectors: list[list[float]],
    query: list[float],
    k: int,
    min_score: float | None,
    similarity: str,
    copies: int,
) -> None:
    """Duplicated and near-equal vectors (ties and near-ties at the k-th place), zero and
    subnormal ones, and float32 overflows (1e19 squared): the same keys, scores and order."""
    vectors = vectors + vectors[:copies]  # exact duplicates tie
    keys = list(range(len(vectors)))
    python = ExactVectorStore(4, similarity, accelerator="python")
    numpy_store = ExactVectorStore(4, similarity, accelerator="numpy")
    for store in (python, numpy_store):
        store.add(keys, vectors)
    assert numpy_store.accelerator == "numpy" and python.accelerator == "python"
    ties = {key: (f"{(key * 7919) % 13:02d}", 0, "") for key in keys}
    tie_keys = lambda asked: {key: ties[key] for key in asked}  # noqa: E731
    want = python.search(query, k, min_score=min_score, tie_keys=tie_keys)
    assert numpy_store.search(query, k, min_score=min_score, tie_keys=tie_keys) == want
    numpy_store.delete(keys[:1])  # the prefilter follows the store's changes
    python.delete(keys[:1])
    assert numpy_store.search(query, k, min_score=min_score) == python.search(
        query, k, min_score=min_score
    )


@pytest.mark.skipif(not bm25_module.numpy_available(), reason="numpy is not installed here")
def test_exact_store_numpy_prefilter_scores_few_vectors_exactly() -> None:
    """The prefilter is what makes the store fast: of 500 spread vectors, only the few that
    can reach the top 5 are scored exactly."""
    from array import array

    from groundkit.vectors.prefilter import NumpyPrefilter

    vectors = [array("f", [math.sin(n * 1.7 + d) for d in range(8)]) for n in range(500)]
    norms = [math.sqrt(math.fsum(x * x for x in v)) for v in vectors]
    prefilter = NumpyPrefilter(list(range(500)), vectors, norms)
    query = array("f", [math.cos(d) for d in range(8)])
    found = prefilter.candidates(query, 2.0, 5, cosine=True, min_score=None)
    assert found is not None and 5 <= len(found) < 50
    huge = NumpyPrefilter([1], [array("f", [3e38, 3e38])], [4.2e38])  # its products overflow
    found = huge.candidates(array("f", [3e38, 3e38]), 4.2e38, 1, cosine=False, min_score=None)
    assert found is None
    with pytest.raises(ValueError, match="unknown accelerator"):
        ExactVectorStore(2, accelerator="fortran")  # type: ignore[arg-type]


def test_exact_store_cosine_dot_floor_and_ties() -> None:
    store = ExactVectorStore(2, "cosine")
    store.add([1, 2, 3, 4], [[1.0, 0.0], [0.0, 2.0], [2.0, 0.0], [0.0, 0.0]])
    assert store.scores([3.0, 0.0]) == {1: 1.0, 2: 0.0, 3: 1.0, 4: 0.0}
    ties = {1: ("b", 0, ""), 3: ("a", 0, "")}
    assert store.search([1.0, 0.0], 2, tie_keys=lambda keys: {k: ties[k] for k in keys}) == [
        (3, 1.0),
        (1, 1.0),
    ]
    assert store.search([1.0, 0.0], 9, min_score=0.5) == [(1, 1.0), (3, 1.0)]
    dot = ExactVectorStore(2, "dot")
    dot.add([1], [[0.5, 2.0]])
    assert dot.scores([2.0, 1.0]) == {1: 3.0}
    store.delete([1, 99])
    assert store.count() == 3
    with pytest.raises(ValueError, match="dimensions"):
        store.add([5], [[1.0]])


def test_packing_is_float32_little_endian_and_refuses_non_finite() -> None:
    assert pack_vector([1.0, -2.0], 2) == b"\x00\x00\x80\x3f\x00\x00\x00\xc0"
    assert list(unpack_vector(pack_vector([0.5, 3.0], 2), 2)) == [0.5, 3.0]
    with pytest.raises(ValueError, match="NaN or infinity"):
        pack_vector([math.nan, 1.0], 2)
    with pytest.raises(ValueError, match="beyond float32"):
        pack_vector([1e39, 1.0], 2)
    with pytest.raises(ValueError, match="3 dimensions"):
        pack_vector([1.0, 2.0, 3.0], 2)


# --- ingest and search -------------------------------------------------------------------------


def test_dense_and_hybrid_search_report_their_stage(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    dense_collection(store, write_corpus)
    with Searcher.of(store.reader()) as retriever:
        assert isinstance(retriever.embedder, HashEmbedder)  # resolved from the manifest
        dense = retriever.search("pump station", mode="dense", top_k=2)
        hybrid = retriever.search("pump station", mode="hybrid", top_k=2)
        lexical = retriever.search("pump station", mode="bm25", top_k=2)
    assert dense.metadata["stage"] == "dense" and dense.results[0].source == "pumps.md"
    assert hybrid.metadata["stage"] == "fusion" and hybrid.results[0].source == "pumps.md"
    assert hybrid.metadata["abstained"] is False
    assert lexical.metadata["stage"] == "bm25"
    for response in (dense, hybrid):
        assert all(retriever_result.citation.text for retriever_result in response.results)


def test_same_dense_ranking_on_both_stores(write_corpus: WriteCorpus, tmp_path: Path) -> None:
    rankings = []
    for store in (MemoryStore(), SqliteStore(tmp_path / "c.sqlite")):
        dense_collection(store, write_corpus)
        with Searcher.of(store.reader()) as retriever:
            for mode in ("dense", "hybrid"):
                response = retriever.search("water pressure meter", mode=mode, top_k=3)
                rankings.append((mode, [(r.chunk_id, r.score) for r in response.results]))
        store.close()
    assert rankings[:2] == rankings[2:]


def test_vectors_stay_in_lockstep_through_replace_and_remove(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = dense_collection(store, write_corpus)
    (root / "pumps.md").write_text("# Pumps\n\nNew text.\n\nAnd a second paragraph.\n")
    (root / "valves.txt").unlink()
    report = Indexer(store, embedder=HashEmbedder()).ingest(root)
    assert report.replaced == ["pumps.md"] and report.removed == ["valves.txt"]
    with store.reader() as reader:
        assert reader.integrity_problems() == []
        assert reader.status()["vectors"] == reader.chunk_count
        chunk_keys = {key for key, _ in reader.chunk_lengths()}
        assert {key for key, _ in reader.vectors()} == chunk_keys


def test_a_failed_write_leaves_neither_chunks_nor_vectors(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = dense_collection(store, write_corpus)
    (root / "pumps.md").write_text("# Pumps\n\nRewritten.\n\nTwo paragraphs now.\n")
    embedder = HashEmbedder()
    indexer = Indexer(store, embedder=embedder)
    original = indexer.build

    def broken(*args: Any, **kwargs: Any) -> Any:
        document, chunks = original(*args, **kwargs)
        return document, [*chunks[:-1], type(chunks[-1])(chunks[-1].chunk, {}, 0, b"bad")]

    monkeypatch.setattr(indexer, "build", broken)
    with store.reader() as before:
        generation = before.generation
    with pytest.raises(ValueError, match="needs 1024 bytes"):
        indexer.ingest(root)
    with store.reader() as reader:
        assert reader.generation == generation and reader.integrity_problems() == []
        assert reader.status()["vectors"] == reader.chunk_count


def test_skip_fingerprint_includes_the_embedding_identity(store: CollectionStore) -> None:
    lexical = Indexer(MemoryStore())
    dense = Indexer(MemoryStore(), embedder=HashEmbedder())
    smaller = Indexer(MemoryStore(), embedder=HashEmbedder(64))
    assert len({lexical.fingerprint("h"), dense.fingerprint("h"), smaller.fingerprint("h")}) == 3
    chunker = '{"overlap_chars":100,"target_chars":1000}'
    legacy = hashlib.sha256(f"h\0{chunker}\0{lexical.analyzer.identity_json}".encode()).hexdigest()
    assert lexical.fingerprint("h") == legacy  # lexical collections are not re-ingested


# --- identities --------------------------------------------------------------------------------


def test_mixed_identities_are_refused_at_ingest(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    dense_collection(store, write_corpus)
    with pytest.raises(IndexIdentityError, match="bound to embedding"):
        Indexer(store, embedder=HashEmbedder(128))
    document = store.documents_under(str(write_corpus({})))[0]
    with pytest.raises(IndexIdentityError, match="bound to embedding"):
        store.write_document(
            document,
            [],
            analyzer_identity=Indexer(store).analyzer.identity,
            replaces=document.document_id,
        )


def test_binding_a_lexical_collection_that_holds_documents_is_refused(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    (root / "new.md").write_text("A new file about pumps.\n")
    with pytest.raises(IndexIdentityError, match="already holds documents without vectors"):
        Indexer(store, embedder=HashEmbedder()).ingest(root)
    with store.reader() as reader:
        assert reader.embedding_identity is None and reader.integrity_problems() == []


def test_opening_with_another_embedder_is_refused_before_reading_the_corpus(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    dense_collection(store, write_corpus)

    def corpus_work(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("O(corpus) work before the identity check")

    monkeypatch.setattr(bm25_module.BM25Index, "__init__", corpus_work)
    with pytest.raises(IndexIdentityError, match="bound to embedding") as info:
        Searcher.of(store.reader(), embedder=HashEmbedder(128))
    assert '"dimensions":256' in info.value.expected and '"dimensions":128' in info.value.found


class Unregistered:
    """An embedder no registry knows (as a native extra would be before it is imported)."""

    identity = EmbeddingIdentity(provider="acme", model="tiny", revision="1", dimensions=2)
    similarity_floor = 0.5

    def __init__(self, table: dict[str, list[float]] | None = None) -> None:
        self.table = table or {}

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        found = [vector for word, vector in self.table.items() if word in text.lower()]
        return found[0] if found else [0.0, 1.0]


def test_without_a_resolvable_embedder_dense_names_how_to_pass_one(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    Indexer(store, embedder=Unregistered()).ingest(write_corpus(DOCS))
    with pytest.raises(ConfigurationError, match="no registered embedder"):
        Indexer(store)
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("pump", mode="bm25").total_results >= 1  # bm25 still works
        # hybrid, the default of a semantic collection (adr/0025), needs the embedder: bm25, said
        fallback = retriever.search("pump")
        assert (
            fallback.metadata["mode"] == "bm25"
            and "not available" in fallback.metadata["mode_note"]
        )
        with pytest.raises(ConfigurationError, match=r"Searcher.open\(\.\.\., embedder=\.\.\.\)"):
            retriever.search("pump", mode="dense")
    with Searcher.of(store.reader(), embedder=Unregistered()) as retriever:
        assert retriever.search("pump", mode="dense").total_results == 3
        default = retriever.search("pump").metadata
        assert (default["mode"], default["stage"], default["mode_source"]) == (
            "hybrid",
            "fusion",
            "collection",
        )


# --- failing closed ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_dense_on_a_lexical_collection_raises_configuration_error(
    store: CollectionStore, write_corpus: WriteCorpus, mode: str
) -> None:
    Indexer(store).ingest(write_corpus(DOCS))
    with (
        Searcher.of(store.reader(), embedder=HashEmbedder()) as retriever,
        pytest.raises(ConfigurationError, match=r"no dense side.*--embedder minilm"),
    ):
        retriever.search("pump", mode=mode)


@pytest.mark.parametrize("mode", ["Dense", "semantic", "", "bm25 "])
def test_unknown_modes_raise(store: CollectionStore, write_corpus: WriteCorpus, mode: str) -> None:
    dense_collection(store, write_corpus)
    with (
        Searcher.of(store.reader()) as retriever,
        pytest.raises(RetrievalError, match="unknown search mode"),
    ):
        retriever.search("pump", mode=mode)


def _tamper(store: CollectionStore, sql: str, memory: Any) -> None:
    """Damage the vector side behind the store's back (as a bug or a crash might)."""
    if isinstance(store, SqliteStore):
        db = sqlite3.connect(store.location)
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute(sql)
        db.commit()
        db.close()
    else:
        assert isinstance(store, MemoryStore)
        memory(store._state)  # the test reaches inside on purpose


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_an_empty_dense_side_raises_storage_error(
    store: CollectionStore, write_corpus: WriteCorpus, mode: str
) -> None:
    dense_collection(store, write_corpus)
    _tamper(store, "DELETE FROM vectors", lambda state: state.vectors.clear())
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("pump").total_results >= 1
        with pytest.raises(StorageError, match="holds no vectors"):
            retriever.search("pump", mode=mode)


def test_a_missing_vector_raises_storage_error(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    dense_collection(store, write_corpus)
    _tamper(
        store,
        "DELETE FROM vectors WHERE chunk_key = (SELECT min(chunk_key) FROM vectors)",
        lambda state: state.vectors.pop(min(state.vectors)),
    )
    with store.reader() as reader:
        assert any("vector" in problem for problem in reader.integrity_problems())
    with (
        Searcher.of(store.reader()) as retriever,
        pytest.raises(StorageError, match="lacks vectors for 1 chunk"),
    ):
        retriever.search("pump", mode="dense")


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_an_orphaned_vector_fails_closed(
    store: CollectionStore, write_corpus: WriteCorpus, mode: str
) -> None:
    dense_collection(store, write_corpus)
    blob = pack_vector(HashEmbedder().embed_query("pump station"), 256)
    _tamper(
        store,
        f"INSERT INTO vectors (chunk_key, vector) VALUES (9999, x'{blob.hex()}')",
        lambda state: state.vectors.__setitem__(9999, blob),
    )
    with store.reader() as reader:
        assert any("vectors without a chunk" in p for p in reader.integrity_problems())
    with (
        Searcher.of(store.reader()) as retriever,
        pytest.raises(RetrievalError, match="belong to no chunk") as info,
    ):
        retriever.search("pump station", mode=mode)
    assert info.value.verdict == "unresolvable"


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_a_hit_whose_document_is_gone_fails_closed(
    store: CollectionStore, write_corpus: WriteCorpus, mode: str
) -> None:
    dense_collection(store, write_corpus)

    def drop(state: Any) -> None:
        document_id = state.by_source.pop((str(write_corpus({})), "pumps.md"))
        del state.documents[document_id]

    _tamper(store, "DELETE FROM documents WHERE source = 'pumps.md'", drop)
    with (
        Searcher.of(store.reader()) as retriever,
        pytest.raises(RetrievalError, match="no chunk or document record") as info,
    ):
        retriever.search("pump station lifts water", mode=mode, top_k=3)
    assert info.value.verdict == "unresolvable"


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_documents_ingested_after_open_are_invisible_to_both_legs(
    store: CollectionStore, write_corpus: WriteCorpus, mode: str
) -> None:
    root = dense_collection(store, write_corpus)
    retriever = Searcher.of(store.reader())
    (root / "late.md").write_text("The pump station has a second pump.\n")
    Indexer(store, embedder=HashEmbedder()).ingest(root)
    sources = {r.source for r in retriever.search("pump station", mode=mode, top_k=10).results}
    assert "late.md" not in sources and "pumps.md" in sources
    retriever.close()
    with Searcher.of(store.reader()) as fresh:
        sources = {r.source for r in fresh.search("pump station", mode=mode, top_k=10).results}
    assert "late.md" in sources


# --- hybrid abstention (adr/0008) --------------------------------------------------------------


def test_hybrid_abstains_when_neither_leg_has_evidence(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    dense_collection(store, write_corpus)
    with Searcher.of(store.reader()) as retriever:
        response = retriever.search("zebra quantum xylophone", mode="hybrid")
        assert response.results == () and response.metadata["abstained"] is True
        assert response.metadata["min_similarity"] == HashEmbedder().similarity_floor
        # the floor is what abstains: without it the dense leg always "finds" something
        unguarded = retriever.search("zebra quantum xylophone", mode="hybrid", min_similarity=-1.0)
        assert unguarded.total_results == 3 and unguarded.metadata["abstained"] is False
        # dense mode abstains under the same floor (adr/0024), and answers with it off
        dense = retriever.search("zebra quantum xylophone", mode="dense")
        assert dense.results == () and dense.metadata["abstained"] is True
        assert dense.metadata["floor_source"] == "embedder"
        unfloored = retriever.search("zebra quantum xylophone", mode="dense", min_similarity=-1)
        assert unfloored.total_results == 3 and unfloored.metadata["abstained"] is False
        assert retriever.search("pump station", mode="dense").total_results >= 1


def test_a_recorded_floor_is_used_and_bound_to_the_embedding_identity(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    Indexer(store, embedder=HashEmbedder()).ingest(write_corpus(DOCS))
    store.close()
    identity = HashEmbedder().identity
    write_floor(str(path), FloorRecord(-1.0, identity, {"note": "test"}))
    with Searcher.of(SqliteReader(path)) as retriever:
        response = retriever.search("zebra quantum xylophone", mode="dense")
        assert response.total_results == 3 and response.metadata["floor_source"] == "collection"
        assert response.metadata["min_similarity"] == -1.0
        given = retriever.search("zebra quantum xylophone", mode="hybrid", min_similarity=0.9)
        assert given.results == () and given.metadata["floor_source"] == "search"
    other = HashEmbedder(identity.dimensions * 2).identity
    write_floor(str(path), FloorRecord(0.5, other))
    with (
        Searcher.of(SqliteReader(path)) as retriever,
        pytest.raises(ConfigurationError, match="holds a floor for embedding"),
    ):
        retriever.search("pump", mode="dense")
    (path.parent / FLOOR_FILE).write_text("{", encoding="utf-8")
    with (
        Searcher.of(SqliteReader(path)) as retriever,
        pytest.raises(ConfigurationError, match="unreadable"),
    ):
        retriever.search("pump", mode="hybrid")
    with pytest.raises(ConfigurationError, match="finite"):
        FloorRecord(math.nan, identity)


def test_hybrid_answers_from_either_leg_alone(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    # "reservoir" shares no term with the corpus but the embedder places it next to "the pump"
    table = {"pump": [1.0, 0.0], "reservoir": [1.0, 0.1]}
    embedder = Unregistered(table)
    Indexer(store, embedder=embedder).ingest(write_corpus(DOCS))
    with Searcher.of(store.reader(), embedder=embedder) as retriever:
        paraphrase = retriever.search("reservoir", mode="hybrid")
        # its best neighbour reaches the floor: the dense leg keeps its whole list (adr/0049)
        assert paraphrase.metadata["legs"] == {"bm25": 0, "dense": 3}
        assert paraphrase.results[0].source == "pumps.md"
        share = retriever.search("tariff", mode="hybrid").metadata["lexical_share"]
        assert 0.0 < share < 1.0
        no_dense = HybridOptions(min_lexical_share=share)
        lexical_only = retriever.search(
            "tariff", mode="hybrid", min_similarity=2.0, hybrid=no_dense
        )
        assert lexical_only.metadata["legs"]["dense"] == 0
        assert [r.source for r in lexical_only.results] == ["billing.md"]
        # without dense evidence, a BM25 match under the share asked for is not an answer
        stricter = HybridOptions(min_lexical_share=min(1.0, share + 0.01))
        refused = retriever.search("tariff", mode="hybrid", min_similarity=2.0, hybrid=stricter)
        assert refused.metadata["abstained"] and not refused.results


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rrf_k": 0}, "rrf_k"),
        ({"depth": 2}, "depth must be an integer from the results wanted"),
        ({"weights": (1.0, -1.0)}, "weights"),
        ({"weights": (0.0, 0.0)}, "weights"),
    ],
)
def test_bad_hybrid_settings_raise(
    store: CollectionStore, write_corpus: WriteCorpus, kwargs: dict[str, Any], match: str
) -> None:
    dense_collection(store, write_corpus)
    with Searcher.of(store.reader()) as retriever:
        with pytest.raises(ConfigurationError, match=match):
            retriever.search("pump", mode="hybrid", top_k=5, hybrid=HybridOptions(**kwargs))
        with pytest.raises(ConfigurationError, match="in mode 'bm25' use score_threshold"):
            retriever.search("pump", mode="bm25", min_similarity=0.1)


def test_hybrid_weights_and_rrf_k_shape_the_fusion(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    dense_collection(store, write_corpus)
    with Searcher.of(store.reader()) as retriever:
        options = HybridOptions(rrf_k=1, weights=(2.0, 0.0))
        response = retriever.search("pump", mode="hybrid", hybrid=options, top_k=1)
    assert response.results[0].score == 2.0 / (1 + 1)
    assert response.metadata["fusion"] == {
        "rrf_k": 1,
        "depth": 100,
        "weights": [2.0, 0.0],
        "min_lexical_share": DEFAULT_MIN_LEXICAL_SHARE,
        "lexical_share_source": "default",
    }


# --- schema ------------------------------------------------------------------------------------


def test_a_version_1_file_is_read_as_lexical_and_upgraded_by_a_writer(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    Indexer(store).ingest(write_corpus(DOCS))
    store.close()
    db = sqlite3.connect(path)
    as_schema_4(db)
    db.execute("DROP TABLE vectors")
    db.execute("ALTER TABLE documents DROP COLUMN extractor")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Searcher.of(SqliteReader(path)) as retriever:
        assert retriever.search("pump").total_results >= 1
        assert retriever.reader.integrity_problems() == []
        assert retriever.reader.status()["schema_version"] == 1  # the file's, not the code's
        with pytest.raises(ConfigurationError, match="no dense side"):
            retriever.search("pump", mode="dense")
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM documents WHERE extractor IS NULL").fetchone()[0] > 0
    db.close()


def test_status_shows_the_manifest(store: CollectionStore, write_corpus: WriteCorpus) -> None:
    dense_collection(store, write_corpus)
    status = store.status()
    assert status["embedding"] == HashEmbedder().identity.to_dict()
    assert status["vectors"] == status["chunks"] > 0


def test_a_damaged_manifest_is_a_storage_error(write_corpus: WriteCorpus, tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    dense_collection(store, write_corpus)
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '{\"provider\":1}' WHERE key = 'embedding'")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="unreadable embedding manifest"):
        SqliteReader(path)


def test_warm_loads_the_vector_store_at_open_not_in_the_first_dense_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32, item 4: a server warms a collection when it opens it, so its first hybrid
    query does not load the vector store (counted, not timed)."""
    import importlib

    from groundkit import ingest, sample_corpus

    dense = importlib.import_module("groundkit.retrieval.dense")
    loads: list[str] = []
    real = dense.load_vector_store

    def counting(name: str, *args: Any, **kwargs: Any) -> Any:
        loads.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(dense, "load_vector_store", counting)
    index = tmp_path / "index"
    ingest(sample_corpus(), index_dir=index, embedder=get_embedder("hash"))
    with Searcher.open(index) as retriever:
        assert retriever.warm() is True and loads == ["exact"]
        retriever.search("report a leak", mode="hybrid")
        retriever.search("report a leak", mode="dense")
        assert loads == ["exact"]  # the searches found it loaded
    lexical = tmp_path / "lexical"
    ingest(sample_corpus(), index_dir=lexical)
    with Searcher.open(lexical) as retriever:
        assert retriever.warm() is False  # no dense side: nothing to warm


def test_a_word_the_collection_lacks_lowers_the_lexical_share(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    """BM25's best over the query's ideal score: an absent word adds its full idf to the ideal,
    so "tariff pizza" has half the evidence of "tariff" (adr/0049)."""
    embedder = Unregistered({"pump": [1.0, 0.0]})
    Indexer(store, embedder=embedder).ingest(write_corpus(DOCS))
    with Searcher.of(store.reader(), embedder=embedder) as retriever:
        alone = retriever.search("tariff", mode="hybrid").metadata
        diluted = retriever.search("tariff pizza", mode="hybrid").metadata
        idf = retriever._local().scorers[0]._lexical.term_idf
        assert diluted["lexical_share"] == pytest.approx(
            alone["lexical_share"] * idf("tariff") / (idf("tariff") + idf("pizza"))
        )
        between = (alone["lexical_share"] + diluted["lexical_share"]) / 2
        options = HybridOptions(min_lexical_share=between)
        assert retriever.search("tariff", mode="hybrid", min_similarity=2.0, hybrid=options).results
        off = retriever.search("tariff pizza", mode="hybrid", min_similarity=2.0, hybrid=options)
        assert off.metadata["abstained"] and not off.results


def test_calibrate_records_a_lexical_share_that_hybrid_search_then_uses(
    tmp_path: Path, write_corpus: WriteCorpus
) -> None:
    """Queries the embedder cannot place ("tariff" answers, "tariff pizza" should not) get
    their bar measured beside the floor, recorded, and used when a search names none."""
    from groundkit.evaluation.floor_calibration import calibrate, choose_share

    embedder = Unregistered({"pump": [1.0, 0.0], "valve": [1.0, 0.0], "bill": [1.0, 0.0]})
    store = SqliteStore(tmp_path / "index" / "default" / "collection.sqlite")
    Indexer(store, embedder=embedder).ingest(write_corpus(DOCS))
    reader = store.reader()
    with Searcher.of(reader, embedder=embedder) as retriever:
        result = calibrate(retriever, ["pump station", "tariff"], ["zebra", "tariff pizza"])
        assert len(result.on_shares) == 1 and len(result.off_shares) == 2  # under the floor
        assert result.off_shares[1] < result.lexical_share <= result.on_shares[0]  # type: ignore[operator]
        assert result.hybrid_rates() == (0.0, 0.0)
        write_floor(reader.location, result.record())
    with Searcher.of(store.reader(), embedder=embedder) as retriever:
        answered = retriever.search("tariff", mode="hybrid")
        refused = retriever.search("tariff pizza", mode="hybrid")
        assert answered.results and answered.metadata["fusion"]["lexical_share_source"] == (
            "collection"
        )
        assert refused.metadata["abstained"] and not refused.results
        assert retriever.search("tariff pizza", mode="hybrid", hybrid=HybridOptions(
            min_lexical_share=0.0)).results  # fmt: skip
    assert choose_share([], [0.2]) == 0.201 and choose_share([0.3], []) == 0.0
    store.close()


def test_a_registered_embedder_is_made_only_for_a_search_that_embeds(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a collection bound to a registered semantic embedder only claims it: a bm25
    search makes none; the first search of the default mode (hybrid: it embeds) makes it."""
    from groundkit.embedding import embedder_registry
    from groundkit.plugins import EmbedderEntry

    made: list[EmbeddingIdentity | None] = []

    def factory(identity: EmbeddingIdentity | None) -> Unregistered:
        made.append(identity)
        return Unregistered({"pump": [1.0, 0.0]})

    Indexer(store, embedder=Unregistered({"pump": [1.0, 0.0]})).ingest(write_corpus(DOCS))
    monkeypatch.setitem(embedder_registry.EMBEDDERS._own, "tiny", EmbedderEntry(
        "acme", "tiny", factory))  # fmt: skip
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("pump", mode="bm25").results and made == []
        assert retriever.search("pump").metadata["mode"] == "hybrid"
        assert made == [Unregistered.identity]
        retriever.search("pump", mode="dense")
        assert len(made) == 1  # made once, kept


@pytest.mark.parametrize("failure", [ConfigurationError("no model here"), OSError("disk")])
def test_a_claimed_embedder_that_cannot_be_made_leaves_bm25_with_the_reason(
    store: CollectionStore,
    write_corpus: WriteCorpus,
    monkeypatch: pytest.MonkeyPatch,
    failure: Exception,
) -> None:
    """Making fails once and is remembered: the default falls back to bm25 (with its note) on
    every search, the first included, and dense says why; never a traceback."""
    from groundkit.embedding import embedder_registry
    from groundkit.plugins import EmbedderEntry

    def factory(identity: EmbeddingIdentity | None) -> Unregistered:
        raise failure

    Indexer(store, embedder=Unregistered()).ingest(write_corpus(DOCS))
    monkeypatch.setitem(embedder_registry.EMBEDDERS._own, "tiny", EmbedderEntry(
        "acme", "tiny", factory))  # fmt: skip
    with Searcher.of(store.reader()) as retriever:
        for _ in range(2):
            fallback = retriever.search("pump").metadata
            assert fallback["mode"] == "bm25" and "not available" in fallback["mode_note"]
        with pytest.raises(ConfigurationError, match=r"no model here|disk"):
            retriever.search("pump", mode="dense")
