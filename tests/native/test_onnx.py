"""ONNX embedder (minilm and a model folder) and cross-encoder reranker, on tiny inputs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from groundkit import ConfigurationError, EmbeddingIdentity, IndexIdentityError, get_embedder
from groundkit.contracts import Citation, SearchResult
from groundkit.embedding.embedder_registry import embedder_for
from groundkit_native.onnx_embedder import OnnxEmbedder, minilm_factory
from groundkit_native.onnx_reranker import OnnxCrossEncoder

TEXTS = [
    "A man is playing a guitar.",
    "Someone is strumming a guitar on stage.",
    "The stock market fell sharply today.",
    "Report a burst water main to the dispatcher at once.",
]


def test_minilm_identity_and_meaning(minilm: Any) -> None:
    identity = minilm.identity
    assert (identity.provider, identity.model, identity.dimensions) == (
        "onnx",
        "all-MiniLM-L6-v2",
        384,
    )
    assert identity.revision.startswith("sha256:8199be6f699a395f;tokenizer:")
    assert identity.semantic and identity.pooling == "mean" and identity.similarity == "cosine"
    v = np.array(minilm.embed_documents(TEXTS[:3]))
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] == pytest.approx(0.6195, abs=2e-3)  # models.md, snippet A1
    assert v[0] @ v[2] == pytest.approx(-0.0497, abs=2e-3)


def test_minilm_batches_equal_one_at_a_time(minilm: Any) -> None:
    together = np.array(minilm.embed_documents(TEXTS))
    alone = np.array([minilm.embed_query(t) for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)
    assert minilm.embed_documents([]) == []


def test_prefetching_the_next_batch_gives_the_same_bits() -> None:
    """On a GPU the next batch is tokenized while one runs; the vectors must not change."""
    texts = [t * (1 + i % 3) for i, t in enumerate(TEXTS * 3)]
    plain = OnnxEmbedder.minilm(batch_size=2, prefetch=False)
    ahead = OnnxEmbedder.minilm(batch_size=2, prefetch=True)
    assert not plain.prefetch and ahead.prefetch and OnnxEmbedder.minilm().prefetch is False
    assert ahead.embed_array(texts).tobytes() == plain.embed_array(texts).tobytes()
    assert ahead.embed_array(texts[:1]).tobytes() == plain.embed_array(texts[:1]).tobytes()


def test_registry_rebuilds_minilm_from_its_identity(minilm: Any) -> None:
    again = embedder_for(minilm.identity)
    assert again is not None and again.identity == minilm.identity
    other = EmbeddingIdentity.from_dict({**minilm.identity.to_dict(), "revision": "sha256:0"})
    with pytest.raises(IndexIdentityError):
        minilm_factory(other)


def test_cuda_without_its_provider_is_an_error_not_a_cpu_run() -> None:
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this onnxruntime has CUDA")
    with pytest.raises(ConfigurationError, match="CUDAExecutionProvider"):
        OnnxEmbedder.minilm(device="cuda")


@pytest.mark.filterwarnings("ignore:Specified provider 'CUDAExecutionProvider'")
def test_cuda_listed_but_not_started_is_an_error_not_a_cpu_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """onnxruntime-gpu lists CUDA even where its libraries are missing, then runs on CPU."""
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this onnxruntime has CUDA")
    listed = [*onnxruntime.get_available_providers(), "CUDAExecutionProvider"]
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: listed)
    with pytest.raises(ConfigurationError, match=r"could not start it .* runs on CPUExecution"):
        OnnxEmbedder.minilm(device="cuda")


def test_threads_and_device_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROUNDKIT_THREADS", "1")
    assert len(get_embedder("minilm").embed_query("leak")) == 384
    monkeypatch.setenv("GROUNDKIT_THREADS", "zero")
    with pytest.raises(ConfigurationError, match="GROUNDKIT_THREADS"):
        get_embedder("minilm")


def test_model_folder_embedder(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    embedder = OnnxEmbedder.from_dir(tiny_models["encoder"], batch_size=2)
    identity = embedder.identity
    assert (identity.model, identity.dimensions, identity.pooling) == ("tiny", 16, "cls")
    assert embedder.similarity_floor == 0.1
    texts = ["water main leak", "boil notice", "the " * 200, "meter"]
    together = np.array(embedder.embed_documents(texts))
    alone = np.array([embedder.embed_query(t) for t in texts])
    assert together.shape == (4, 16) and np.allclose(together, alone, atol=1e-5)
    # another model file is another identity (its hash is in the revision)
    import tinybert

    copy = shutil.copytree(tiny_models["encoder"], tmp_path / "enc2")
    tinybert.write_model(copy / "model.onnx", head="encoder", seed=8)
    assert OnnxEmbedder.from_dir(copy).identity.revision != identity.revision


def test_model_folder_config_is_checked(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    bad = shutil.copytree(tiny_models["encoder"], tmp_path / "bad")
    (bad / "groundkit.json").write_text('{"pooling": "max"}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="pooling"):
        OnnxEmbedder.from_dir(bad)
    (bad / "groundkit.json").write_text('{"pooling": "mean", "colour": 1}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="colour"):
        OnnxEmbedder.from_dir(bad)
    with pytest.raises(ConfigurationError, match="does not exist"):
        OnnxEmbedder.from_dir(tmp_path / "nowhere")


def _results(passages: list[str]) -> list[SearchResult]:
    out = []
    for i, text in enumerate(passages):
        citation = Citation(
            source=f"doc{i}.md",
            start_offset=0,
            end_offset=len(text),
            text=text,
            start_line=1,
            end_line=1,
            source_class="text",
        )
        out.append(
            SearchResult(
                content=text,
                score=float(len(passages) - i),
                document_id=f"d{i}",
                chunk_id=f"c{i}",
                citation=citation,
                metadata={"rank": i + 1},
            )
        )
    return out


PASSAGES = [
    "report a burst water main",
    "chlorine quality notice",
    "the " * 300 + "leak",  # far past max_length 32: truncated
    "meter bill customer",
    "crew repair valve street hydrant flow pressure",
    "boil water notice",
]


def test_cross_encoder_shapes_and_truncation(tiny_models: dict[str, Path]) -> None:
    ce = OnnxCrossEncoder.from_dir(tiny_models["cross_encoder"])
    feed = ce.encode("water main leak", PASSAGES)
    assert feed["input_ids"].shape == (len(PASSAGES), 32)  # padded to the longest: truncated
    long_row = feed["input_ids"][2]
    assert long_row[0] == 2 and (long_row == 3).sum() == 2  # [CLS] ... [SEP] ... [SEP]
    assert feed["token_type_ids"][2].max() == 1  # the passage side survives
    logits = ce.logits("water main leak", PASSAGES)
    assert len(logits) == len(PASSAGES) and all(np.isfinite(logits))


def test_cross_encoder_batching_equals_one_at_a_time(tiny_models: dict[str, Path]) -> None:
    batched = OnnxCrossEncoder.from_dir(tiny_models["cross_encoder"], batch_size=4)
    single = OnnxCrossEncoder.from_dir(tiny_models["cross_encoder"], batch_size=1)
    a = batched.logits("burst main", PASSAGES)
    b = single.logits("burst main", PASSAGES)
    assert np.allclose(a, b, atol=1e-4)


def test_cross_encoder_scores_stay_with_their_passages(tiny_models: dict[str, Path]) -> None:
    ce = OnnxCrossEncoder.from_dir(tiny_models["cross_encoder"])
    logits = dict(zip(PASSAGES, ce.logits("boil notice", PASSAGES), strict=True))
    reversed_logits = ce.logits("boil notice", PASSAGES[::-1])
    assert np.allclose(reversed_logits, [logits[p] for p in PASSAGES[::-1]], atol=1e-5)
    reranked = ce.rerank("boil notice", _results(PASSAGES), top_k=4)
    assert len(reranked) == 4
    for result in reranked:
        assert result.metadata["rerank_logit"] == pytest.approx(logits[result.content], abs=1e-5)
    got = [r.metadata["rerank_logit"] for r in reranked]
    assert got == sorted(got, reverse=True)
    assert ce.rerank("boil notice", [], top_k=3) == []


def test_cli_takes_a_model_folder_as_the_embedder(
    tiny_models: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--embedder DIR ingests and searches with a user's ONNX encoder; another folder is refused."""
    import json

    import tinybert

    from groundkit.cli import ExitCode, main

    index = str(tmp_path / "index")
    folder = str(tiny_models["encoder"])
    base = ["--index-dir", index, "--collection", "tiny"]
    # no calibration: a random-weight model's own floor would stop "leak" (adr/0072)
    ingest = ["ingest", "sample", "--embedder", folder, "--quiet", "--no-calibrate", *base]
    assert main(ingest) == ExitCode.OK
    capsys.readouterr()
    assert main(["search", "leak", "--mode", "dense", "--embedder", folder, "--json", *base]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metadata"]["stage"] == "dense" and payload["results"]
    # a semantic embedder's collection searches hybrid when no mode is given (adr/0025)
    assert main(["search", "leak", "--embedder", folder, "--json", *base]) == 0
    metadata = json.loads(capsys.readouterr().out)["metadata"]
    assert (metadata["stage"], metadata["mode_source"]) == ("fusion", "collection")
    # without the folder, no registered embedder reproduces the collection: a usage error
    assert main(["search", "leak", "--mode", "dense", *base]) == ExitCode.USAGE
    assert "no registered embedder reproduces it" in capsys.readouterr().err
    other = shutil.copytree(tiny_models["encoder"], tmp_path / "other")
    tinybert.write_model(other / "model.onnx", head="encoder", seed=9)
    code = main(["search", "leak", "--mode", "dense", "--embedder", str(other), *base])
    assert code != ExitCode.OK and "is bound to embedding" in capsys.readouterr().err
