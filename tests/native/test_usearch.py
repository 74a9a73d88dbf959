"""usearch store: protocol behaviour, exactness option, recall, persistence beside the
collection, refresh from SQLite (lockstep deletes, crash safety), memory-mapped opening."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import groundkit
from groundkit import Searcher
from groundkit.vectors.exact import ExactVectorStore
from groundkit_native import usearch_store
from groundkit_native.usearch_store import UsearchSettings, UsearchVectorStore


def _vectors(n: int, d: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(n // 50, 1), d)).astype(np.float32)
    v = centres[rng.integers(0, len(centres), n)] + 0.5 * rng.standard_normal((n, d))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_store_protocol_add_replace_delete() -> None:
    store = UsearchVectorStore(4, "cosine")
    store.add([1, 2, 3], [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]])
    assert store.count() == 3
    assert [k for k, _ in store.search([1, 0, 0, 0], 2)] == [1, 3]
    store.add([1], [[0, 0, 1, 0]])  # replaced, not duplicated
    assert store.count() == 3 and store.search([0, 0, 1, 0], 1)[0][0] == 1
    store.delete([1, 99])
    assert store.count() == 2 and 1 not in {k for k, _ in store.search([0, 0, 1, 0], 5)}
    hits = store.search([0, 1, 0, 0], 5, min_score=0.5)
    assert [k for k, _ in hits] == [2, 3] and hits[0][1] == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="dimensions"):
        store.add([5], [[1, 0]])
    with pytest.raises(ValueError, match="NaN"):
        store.add([5], [[float("nan"), 0, 0, 0]])


def test_exact_option_matches_the_core_exact_store() -> None:
    v = _vectors(2000, 32)
    keys = list(range(10, 2010))
    exact = ExactVectorStore(32, "cosine")
    exact.add(keys, v.tolist())
    store = UsearchVectorStore(32, "cosine", UsearchSettings(exact=True))
    store.add(keys, v)
    for q in _vectors(20, 32, seed=2):
        assert [k for k, _ in store.search(q, 10)] == [k for k, _ in exact.search(q.tolist(), 10)]


def _lowrank(n: int, d: int, seed: int) -> np.ndarray:
    """bench/vectors_speed.py's embedding-like data: a 32-d latent space plus 30 % noise."""
    basis = np.random.default_rng(0).standard_normal((32, d)).astype(np.float32) / np.sqrt(32)
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 32)).astype(np.float32) @ basis
    v += 0.3 * rng.standard_normal((n, d)).astype(np.float32) / np.sqrt(d)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_recall_at_defaults() -> None:
    v = _lowrank(10_000, 128, 1)
    store = UsearchVectorStore(128, "cosine")
    store.add(list(range(len(v))), v)
    queries = _lowrank(200, 128, 2)
    truth = np.argsort(-(queries @ v.T), axis=1)[:, :10]
    found = [{k for k, _ in store.search(q, 10)} for q in queries]
    recall = np.mean([len(f & set(t.tolist())) / 10 for f, t in zip(found, truth, strict=True)])
    assert recall >= 0.99


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    shutil.copytree(groundkit.sample_corpus() / "emergencies", folder / "emergencies")
    shutil.copytree(groundkit.sample_corpus() / "billing", folder / "billing")
    return folder


def _ingest(corpus: Path, index: Path, *extra: str) -> None:
    from groundkit.cli import main

    assert main(["ingest", str(corpus), "--index-dir", str(index), "--quiet", *extra]) == 0


def _keys(index: Path, name: str = "default") -> list[int]:
    with Searcher.open(index, name, vector_store="exact") as r:
        return sorted(k for k, _ in r.reader.chunk_lengths())


def test_persisted_beside_the_collection_and_kept_in_lockstep(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    _ingest(corpus, index, "--embedder", "hash", "--vector-store", "usearch")
    folder = index / "default"
    record = json.loads((folder / usearch_store.RECORD).read_text())
    assert (record["metric"], record["dtype"], record["connectivity"]) == ("cos", "f32", 16)
    assert json.loads((folder / "vector-store.json").read_text()) == {"vector_store": "usearch"}
    with Searcher.open(index) as r:
        assert record["generation"] == r.generation and record["count"] == len(_keys(index))
        response = r.search("burst main", mode="dense", top_k=5)
        assert response.metadata["vector_store"] == "usearch"
    # remove a folder: the next ingest (no flag: the recorded store) removes its vectors
    shutil.rmtree(corpus / "billing")
    _ingest(corpus, index)
    record = json.loads((folder / usearch_store.RECORD).read_text())
    keys = _keys(index)
    assert record["count"] == len(keys)
    saved = np.load(folder / f"vectors-g{record['generation']}.keys.npy")
    assert sorted(saved[:, 0].tolist()) == keys
    assert len(list(folder.glob("vectors-g*.usearch"))) == 1  # older generations cleaned up


def test_same_answers_as_exact_and_refresh_after_a_crash(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    _ingest(corpus, index, "--embedder", "hash", "--vector-store", "usearch_exact")
    queries = ["burst main", "pay my bill", "boil water notice", "who do I call"]

    def ranked(store: str) -> list[list[str]]:
        with Searcher.open(index, vector_store=store) as r:
            return [
                [x.chunk_id for x in r.search(q, mode="dense", top_k=5).results] for q in queries
            ]

    expected = ranked("exact")
    assert ranked("usearch_exact") == expected
    # a crash after the SQLite commit but before the index save: the record is stale or gone
    folder = index / "default"
    (folder / usearch_store.RECORD).unlink()
    assert ranked("usearch_exact") == expected
    assert (folder / usearch_store.RECORD).is_file()  # rebuilt from SQLite and saved again
    (folder / usearch_store.RECORD).write_text("{torn", encoding="utf-8")
    assert ranked("usearch_exact") == expected


def test_large_indexes_are_memory_mapped(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "idx"
    _ingest(corpus, index, "--embedder", "hash", "--vector-store", "usearch")
    monkeypatch.setattr(usearch_store, "VIEW_BYTES", 0)
    with Searcher.open(index) as r:
        assert r.search("burst main", mode="hybrid", top_k=3).results
        store = r._local().scorers[0].dense._store
        assert isinstance(store, UsearchVectorStore) and store.viewed
        store.add([10**9], [[0.0] * 255 + [1.0]])  # a viewed index is copied before a write
        assert not store.viewed and store.count() == len(_keys(index)) + 1


def test_cli_minilm_usearch_dense_hybrid_and_rerank(
    tmp_path: Path,
    tiny_models: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from groundkit.cli import main

    # --device/--threads reach the extras through the environment: restore it afterwards
    monkeypatch.setenv("GROUNDKIT_DEVICE", "cpu")
    monkeypatch.setenv("GROUNDKIT_THREADS", "2")

    docs = tmp_path / "docs"
    shutil.copytree(groundkit.sample_corpus() / "emergencies", docs)
    index = str(tmp_path / "idx")
    common = ["--index-dir", index, "--collection", "sem"]
    assert (
        main(
            [
                "ingest",
                str(docs),
                *common,
                "--embedder",
                "minilm",
                "--vector-store",
                "usearch",
                "--threads",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    for mode in ("dense", "hybrid"):
        assert (
            main(
                [
                    "search",
                    "when must I boil my drinking water",  # dense abstains on off-topic ones
                    *common,
                    "--mode",
                    mode,
                    "--json",
                    "--verify",
                ]
            )
            == 0
        )
        payload = json.loads(capsys.readouterr().out)
        assert payload["results"] and payload["metadata"]["vector_store"] == "usearch"
        assert all(r["verification"]["verdict"] == "verified" for r in payload["results"])
    # unanswerable in hybrid: no shared term, nothing close (the minilm floor)
    assert main(["search", "zebra quantum xylophone", *common, "--mode", "hybrid", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metadata"]["abstained"] is True
    reranker = str(tiny_models["cross_encoder"])
    assert (
        main(
            [
                "search",
                "burst water main",  # "burst main" alone is near no page of this folder
                *common,
                "--mode",
                "hybrid",
                "--reranker",
                reranker,
                "--top-k",
                "3",
                "--json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["metadata"]["stage"] == "rerank" and len(payload["results"]) == 3
    assert all("rerank_logit" in r["metadata"] for r in payload["results"])
    assert main(["search", "burst main", *common, "--device", "cuda", "--mode", "dense"]) in (0, 2)
