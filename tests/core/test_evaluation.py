"""Evaluation: metrics by hand and against pytrec_eval, BEIR loading, the eval call and CLI."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from groundkit import Searcher
from groundkit.cli import main
from groundkit.errors import ConfigurationError
from groundkit.evaluation import metrics
from groundkit.evaluation.run import evaluate_dataset

RUN = {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d4": 0.5}
QRELS = {"d2": 2, "d4": 1, "d9": 1}
METRIC_KEYS = {
    "ndcg@10",
    "recall@100",
    "mrr@10",
    "map@100",
    "queries",
    "latency_p50_ms",
    "latency_p95_ms",
}


def test_metrics_by_hand() -> None:
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert metrics.ndcg(RUN, QRELS, 10) == pytest.approx(dcg / ideal)
    assert metrics.recall(RUN, QRELS, 100) == pytest.approx(2 / 3)
    assert metrics.reciprocal_rank(RUN, QRELS, 10) == pytest.approx(1 / 2)
    assert metrics.average_precision(RUN, QRELS, 100) == pytest.approx((1 / 2 + 2 / 4) / 3)
    assert metrics.reciprocal_rank(RUN, QRELS, 1) == 0.0
    assert metrics.ndcg({}, QRELS, 10) == 0.0 and metrics.ndcg(RUN, {}, 10) == 0.0


def test_ties_are_ordered_as_trec_eval_does() -> None:
    assert metrics.ranked({"a": 1.0, "c": 1.0, "b": 1.0}) == ["c", "b", "a"]


def test_metrics_agree_with_pytrec_eval_on_random_runs() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="dev-only: pytrec_eval not installed")
    rng = random.Random(7)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        docs = [f"d{i}" for i in range(60)]
        qrels[f"q{q}"] = {d: rng.randint(1, 3) for d in rng.sample(docs, rng.randint(1, 8))}
        run[f"q{q}"] = {d: float(rng.randint(0, 20)) for d in rng.sample(docs, 30)}
    measures = {"ndcg_cut.10", "recall.100", "recip_rank", "map_cut.100"}
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for q, judged in qrels.items():
        got = {
            "ndcg_cut_10": metrics.ndcg(run[q], judged, 10),
            "recall_100": metrics.recall(run[q], judged, 100),
            "recip_rank": metrics.reciprocal_rank(run[q], judged, 100),
            "map_cut_100": metrics.average_precision(run[q], judged, 100),
        }
        for name, value in got.items():
            assert value == pytest.approx(reference[q][name], abs=1e-9), (q, name)


def write_dataset(root: Path) -> Path:
    root.mkdir()
    corpus = [
        {"_id": "p1", "title": "Pumps", "text": "Centrifugal pumps move water through mains."},
        {"_id": "p2", "title": "Valves", "text": "Gate valves isolate a section of main."},
        {"_id": "p3", "title": "", "text": "Chlorine residual keeps water safe to drink."},
        {"_id": "p4", "title": "Meters", "text": "Meters record how much water a home uses."},
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), "utf-8")
    queries = [
        {"_id": "q1", "text": "which pumps move water"},
        {"_id": "q2", "text": "chlorine residual"},
        {"_id": "q3", "text": "an unjudged query"},
    ]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), "utf-8")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tp1\t1\nq2\tp3\t2\n", "utf-8"
    )
    return root


def test_evaluate_dataset_scores_only_judged_queries(tmp_path: Path) -> None:
    result = evaluate_dataset(write_dataset(tmp_path / "tiny"))
    assert set(result.metrics) == METRIC_KEYS
    assert result.metrics["queries"] == 2
    assert result.metrics["ndcg@10"] == pytest.approx(1.0)
    assert set(result.per_query) == {"q1", "q2"}


def test_a_kept_collection_is_reused_and_verifiable(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "tiny")
    index = tmp_path / "index"
    first = evaluate_dataset(dataset, index_dir=index)
    second = evaluate_dataset(dataset, index_dir=index)
    assert first.per_query == second.per_query
    assert main(["verify", "--index-dir", str(index), "--collection", "beir-tiny"]) == 0


def test_cli_eval_prints_the_metric_keys_and_writes_per_query(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    per_query = tmp_path / "per-query.jsonl"
    code = main(
        ["eval", str(write_dataset(tmp_path / "tiny")), "--json", "--per-query", str(per_query)]
    )
    assert code == 0
    assert set(json.loads(capsys.readouterr().out)) == {*METRIC_KEYS, "mode"}
    lines = [json.loads(line) for line in per_query.read_text("utf-8").splitlines()]
    assert [line["query_id"] for line in lines] == ["q1", "q2"]


def test_a_folder_that_is_not_a_dataset_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"queries\.jsonl is missing"):
        evaluate_dataset(tmp_path)
    broken = write_dataset(tmp_path / "broken")
    (broken / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1 p1\n", "utf-8")
    with pytest.raises(ConfigurationError, match="expected query-id, corpus-id, score"):
        evaluate_dataset(broken)


@pytest.mark.shared_data
def test_cranfield_reaches_the_plain_lucene_reference(shared_data: Path) -> None:
    result = evaluate_dataset(shared_data / "beir" / "cranfield")
    assert result.metrics["queries"] == 225
    assert result.metrics["ndcg@10"] >= 0.3517 - 0.002


def test_bm25_runs_match_one_deep_search_when_documents_have_many_chunks(tmp_path: Path) -> None:
    """Eval asks BM25 for top_k + 1 hits first: where documents hold several chunks that is
    not enough, and the deep search it falls back to gives what one deep search gives."""
    from groundkit.config import ChunkerSettings
    from groundkit.evaluation.beir import BeirDataset
    from groundkit.evaluation.run import build_collection, evaluate
    from groundkit.retrieval import Searcher
    from groundkit.store import MemoryStore

    root = write_dataset(tmp_path / "tiny")
    long = "\n\n".join(f"Pumps move water, pumps move water {n}." for n in range(12))
    rows = [json.dumps({"_id": "x0", "title": "", "text": long})]
    with (root / "corpus.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("".join(row + "\n" for row in rows))
    dataset = BeirDataset.load(root)
    store = MemoryStore()
    chunker = ChunkerSettings(target_chars=64, overlap_chars=0)
    sources = build_collection(dataset, store, tmp_path / "work", chunker=chunker)
    result = evaluate(dataset, store, sources, top_k=3, cutoffs=(1, 3))
    with Searcher.of(store.reader()) as retriever:
        hits = retriever.search("which pumps move water", top_k=30, highlight=False).results
    assert len(hits) > 4  # the first 4 hits are chunks of fewer than 3 documents
    assert len({sources[h.source] for h in hits[:4]}) < 3
    run: dict[str, float] = {}
    for hit in hits:
        run.setdefault(sources[hit.source], hit.score)
    best = dict(list(run.items())[:3])
    assert result.per_query["q1"]["recall@3"] == metrics.recall(best, dataset.qrels["q1"], 3)
    assert result.per_query["q1"]["ndcg@1"] == metrics.ndcg(best, dataset.qrels["q1"], 1)


@pytest.mark.parametrize("kept", [False, True])
def test_an_unregistered_embedder_evaluates_dense_and_hybrid(tmp_path: Path, kept: bool) -> None:
    """An embedder no registered name reproduces (a model folder, say) is the one the
    evaluation searches with, in memory and in a kept collection."""
    from dataclasses import replace

    from groundkit.embedding import HashEmbedder
    from groundkit.manifest import EmbeddingIdentity

    class Unregistered(HashEmbedder):
        @property
        def identity(self) -> EmbeddingIdentity:
            return replace(super().identity, model="my-own-model")

    dataset = write_dataset(tmp_path / "tiny")
    index = tmp_path / "index" if kept else None
    for mode in ("dense", "hybrid"):
        result = evaluate_dataset(
            dataset, mode=mode, embedder=Unregistered(), index_dir=index, min_similarity=-1
        )
        assert result.metrics["queries"] == 2


@pytest.mark.parametrize("kept", [False, True])
def test_eval_scores_the_mode_search_uses_by_default_and_says_which(
    tmp_path: Path, kept: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A collection bound to a semantic embedder searches hybrid by default: eval scores
    hybrid too unless asked otherwise (issue 32, item 3)."""
    from dataclasses import replace

    from groundkit.embedding import HashEmbedder
    from groundkit.manifest import EmbeddingIdentity

    class Meaningful(HashEmbedder):  # a stand-in for a semantic model (MiniLM)
        @property
        def identity(self) -> EmbeddingIdentity:
            return replace(super().identity, model="meaningful", semantic=True)

    dataset = write_dataset(tmp_path / "tiny")
    index = tmp_path / "index" if kept else None
    semantic = evaluate_dataset(dataset, embedder=Meaningful(), index_dir=index, min_similarity=-1)
    assert semantic.mode == "hybrid" and semantic.to_dict()["mode"] == "hybrid"
    if kept:
        with Searcher.open(tmp_path / "index", "beir-tiny", embedder=Meaningful()) as retriever:
            assert retriever.default_mode == semantic.mode  # the mode search picks
    assert evaluate_dataset(write_dataset(tmp_path / "lexical")).mode == "bm25"
    asked = evaluate_dataset(dataset, embedder=Meaningful(), mode="bm25")
    assert asked.mode == "bm25"
    main(["eval", str(write_dataset(tmp_path / "cli"))])
    assert capsys.readouterr().out.splitlines()[0].split() == ["mode", "bm25"]
