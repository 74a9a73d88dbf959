"""One ``Searcher`` over any transport (adr/0063).

A transport that pickles every step and every answer (what crossing to a Ray replica does to
them) answers exactly as this process's scorers do, verdicts included; one class serves one
collection and a sharded one; a transport that drops an answer is refused.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

import groundkit
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.errors import ConfigurationError, ShardUnavailableError
from groundkit.extend import Step, Transport
from groundkit.retrieval import Searcher, SearchFilter
from groundkit.retrieval.collection_scorer import CollectionScorer
from groundkit.retrieval.rerank import LogitReranker
from groundkit.retrieval.transport import LocalTransport
from groundkit.shards import ingest_sharded

T = TypeVar("T")
SETTINGS = IngestSettings(chunker=ChunkerSettings(target_chars=64, overlap_chars=0))
TEXTS = [
    "# Pumps\n\npump valve leak\n\nmeter pipe water flow",
    "# Valves\n\nwater main zone\n\nleak leak rate",
    "# Meters\n\nflow rate meter\n\npump pump zone main",
    "# Pumps\n\nvalve pipe\n\nwater water water",
    "# Valves\n\nzone main valve leak meter pipe",
    "# Meters\n\nmeter reading by the main valve",
]
QUERIES = ["leak meter", "water zone pump", "valve", "absent"]
FILTERS = [
    None,
    SearchFilter(source_prefix="part1/"),
    SearchFilter(metadata={"heading_path": "Pumps"}),
]


class PickledTransport:
    """This process's scorers behind a pickle of every step and every answer."""

    def __init__(self, scorers: Sequence[CollectionScorer]) -> None:
        self._local = LocalTransport(scorers)
        self.crossed: set[str] = set()

    def send(self, calls: Sequence[tuple[int, Step[T]]]) -> list[T]:
        sent: list[tuple[int, Step[T]]] = pickle.loads(pickle.dumps(list(calls)))
        self.crossed |= {type(step).__name__ for _, step in sent}
        answers: list[T] = pickle.loads(pickle.dumps(self._local.send(sent)))
        return answers

    def close(self) -> None:
        self._local.close()


class DroppingTransport(PickledTransport):
    """Loses the last shard's answer to every step of more than one shard."""

    def send(self, calls: Sequence[tuple[int, Step[T]]]) -> list[T]:
        answers = super().send(calls)
        return answers[:-1] if len(calls) > 1 else answers


def _logits(query: str, passages: Sequence[str]) -> list[float]:
    asked = set(query.split())
    return [len(asked & set(p.split())) - len(p) / 1000.0 for p in passages]


def _answer(response: groundkit.SearchResponse) -> list[tuple[str, str, dict[str, Any]]]:
    return [(r.chunk_id, r.score.hex(), r.to_dict()) for r in response.results]


@pytest.fixture
def index(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    for number, text in enumerate(TEXTS):
        path = corpus / f"part{number % 3}" / f"doc{number:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = tmp_path / "index"
    hashing = groundkit.get_embedder("hash")
    groundkit.ingest(corpus, index_dir=index, collection="one", settings=SETTINGS, embedder=hashing)
    ingest_sharded(
        corpus, shards=3, index_dir=index, collection="many", settings=SETTINGS, embedder=hashing
    )
    return index


def _crossing(index: Path, transport: type[PickledTransport], **options: Any) -> Searcher:
    """The public way an engine serves shards elsewhere: ``StoredCollection.open_shard`` for
    each scorer, ``searcher_over`` for the one ``Searcher`` over them (adr/0067)."""
    stored = groundkit.StoredCollection(index, "many")
    scorers = [stored.open_shard(n) for n in range(len(stored.shard_names()))]
    carrier: Transport = transport(scorers)  # a Transport, as the SPI states it
    return stored.searcher_over(carrier, **options)


def test_steps_and_answers_that_cross_processes_answer_as_one_collection(index: Path) -> None:
    reranker = LogitReranker(_logits)
    crossing = _crossing(index, PickledTransport, reranker=reranker)
    with (
        crossing,
        groundkit.Searcher.open(index, "one", reranker=reranker) as one,
        groundkit.Searcher.open(index, "many", reranker=reranker) as here,
    ):
        crossing.warm()  # loads what a first search would, in every shard
        for query in QUERIES:
            for mode in ("bm25", "dense", "hybrid"):
                for where in FILTERS:
                    for rerank in (False, True):
                        want = one.search(query, 5, mode, where=where, rerank=rerank)
                        got = crossing.search(query, 5, mode, where=where, rerank=rerank)
                        assert _answer(got) == _answer(want)
                        assert _answer(here.search(query, 5, mode, where=where, rerank=rerank)) == (
                            _answer(want)
                        )
                        assert got.metadata.get("filter") == want.metadata.get("filter")
            results = one.search(query, 10).results
            assert [crossing.verify(r).verdict for r in results] == ["verified"] * len(results)
            assert [crossing.document_of(r) for r in results] == [
                one.document_of(r) for r in results
            ]
        assert crossing.default_mode == one.default_mode == "bm25"  # hash: not semantic
        assert crossing.lexical_evidence("leak meter") == one.lexical_evidence("leak meter")
        assert isinstance(crossing.transport, PickledTransport)
        assert crossing.transport.crossed >= {
            "Admitted",
            "DefaultMode",
            "Dense",
            "DocumentOf",
            "Floor",
            "Lexical",
            "LexicalBar",
            "LexicalShare",
            "Results",
            "Statistics",
            "Verify",
            "Warm",
        }


def test_one_class_opens_a_collection_and_a_sharded_one_by_name(index: Path) -> None:
    with (
        groundkit.Searcher.open(index, "one") as one,
        groundkit.Searcher.open(index, "many") as many,
    ):
        assert type(one) is type(many) is groundkit.Searcher
        assert groundkit.Retriever is groundkit.Searcher  # the former name
        assert len(many.readers) == 3 and one.readers == (one.reader,)
        with pytest.raises(ConfigurationError, match="one read view per shard"):
            _ = many.reader
    with pytest.raises(TypeError, match="not subclassed"):

        class Mine(Searcher):
            pass


def test_a_sharded_collection_refuses_another_analyzer(index: Path) -> None:
    analyzer = groundkit.Analyzer(stemmer="none")
    with pytest.raises(ConfigurationError, match="analyzer its manifest records"):
        groundkit.Searcher.open(index, "many", analyzer=analyzer)


def test_shards_held_elsewhere_only_answer_searches(index: Path) -> None:
    with _crossing(index, PickledTransport) as crossing:
        assert crossing.search("leak", 3).results
        with pytest.raises(ConfigurationError, match="held by other processes"):
            _ = crossing.readers


def test_a_transport_that_loses_an_answer_is_refused(index: Path) -> None:
    with (
        _crossing(index, DroppingTransport) as dropping,
        pytest.raises(ShardUnavailableError, match="2 of 3 shards answered"),
    ):
        dropping.search("leak", 3, "bm25")
