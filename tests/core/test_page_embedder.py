"""Semantic search in the page (ADR 0035): the given-vector embedder and ``--ort-dir``.

The browser side (onnxruntime-web, the comparison with CPython) is exercised by ``tox -e web``;
the tokenizer's equality with ``tokenizers`` by tests/native/test_wordpiece.py.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import groundkit
from conftest import WriteCorpus
from groundkit.embedding.hashing import HashEmbedder
from groundkit.embedding.page import GivenQueryEmbedder, revision_parts
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.evaluation.self_calibration import (
    off_topic_questions,
    record_self_calibration,
    self_calibrate,
)
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval.floor import read_floor
from groundkit.site import SiteOptions, build_site, page_runtime, page_semantic
from groundkit.site.semantic_assets import ORT_FILES
from groundkit.store.static import StaticReader

TOKENIZER = (
    Path(__file__).resolve().parents[2] / "extras/groundkit_native/data/minilm/tokenizer.json"
)
MODEL = b"not really an onnx model"


def _identity(model: bytes = MODEL, tokenizer: bytes | None = None) -> EmbeddingIdentity:
    tok = TOKENIZER.read_bytes() if tokenizer is None else tokenizer
    revision = (
        f"sha256:{hashlib.sha256(model).hexdigest()[:16]};"
        f"tokenizer:{hashlib.sha256(tok).hexdigest()[:16]};max_length:256"
    )
    return EmbeddingIdentity(provider="onnx", model="mini", revision=revision, dimensions=4)


def _given() -> GivenQueryEmbedder:
    return GivenQueryEmbedder.for_identity(
        _identity(),
        model_sha256=hashlib.sha256(MODEL).hexdigest(),
        tokenizer_json=TOKENIZER.read_bytes(),
        floor=0.375,
    )


def test_revision_parts() -> None:
    assert revision_parts("sha256:ab;tokenizer:cd;max_length:256") == {
        "sha256": "ab",
        "tokenizer": "cd",
        "max_length": "256",
    }
    assert revision_parts("a:1;a:2") == {} and revision_parts("v1") == {}


def test_given_vector_for_its_query_only() -> None:
    given = _given()
    assert given.identity == _identity() and given.similarity_floor == 0.375
    assert given.tokenize("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    with pytest.raises(ConfigurationError, match="no query vector"):
        given.embed_query("hello")
    given.give("hello", [1.0, 0.0, 0.0, 0.0])
    assert given.embed_query("hello") == [1.0, 0.0, 0.0, 0.0]
    with pytest.raises(ConfigurationError, match="no query vector"):
        given.embed_query("hello again")
    with pytest.raises(ConfigurationError, match="4 finite floats"):
        given.give("x", [1.0, 0.0])
    with pytest.raises(ConfigurationError, match="4 finite floats"):
        given.give("x", [1.0, 0.0, float("nan"), 0.0])
    with pytest.raises(ConfigurationError, match="only queries"):
        given.embed_documents(["a passage"])


@pytest.mark.parametrize(
    ("identity", "model", "tokenizer"),
    [
        (_identity(), b"another model", TOKENIZER.read_bytes()),  # other weights
        (_identity(), MODEL, TOKENIZER.read_bytes() + b" "),  # another tokenizer file
        (replace(_identity(), revision="v1"), MODEL, TOKENIZER.read_bytes()),  # not a file hash
        (
            replace(_identity(), revision=_identity().revision + ";prefixes:[]"),
            MODEL,
            TOKENIZER.read_bytes(),
        ),
    ],
)
def test_other_files_fail_closed(
    identity: EmbeddingIdentity, model: bytes, tokenizer: bytes
) -> None:
    with pytest.raises(IndexIdentityError, match="rebuild the site"):
        GivenQueryEmbedder.for_identity(
            identity,
            model_sha256=hashlib.sha256(model).hexdigest(),
            tokenizer_json=tokenizer,
            floor=0.375,
        )


class _FileEmbedder:
    """The hash embedder's vectors under an identity naming model files, as an ONNX one has."""

    def __init__(self, model: Path, tokenizer: Path) -> None:
        self.model_path, self.tokenizer_path = model, tokenizer
        self._inner = HashEmbedder()
        self._identity = replace(
            _identity(model.read_bytes(), tokenizer.read_bytes()),
            dimensions=self._inner.identity.dimensions,
        )

    @property
    def identity(self) -> EmbeddingIdentity:
        return self._identity

    @property
    def similarity_floor(self) -> float:
        return 0.5

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._inner.embed_query(text)


def _ort(tmp_path: Path, version: str = "1.31.1") -> Path:
    ort = tmp_path / "onnxruntime-web"
    (ort / "dist").mkdir(parents=True, exist_ok=True)
    (ort / "package.json").write_text(json.dumps({"version": version}), "utf-8")
    for name in ORT_FILES:
        (ort / "dist" / name).write_bytes(name.encode())
    return ort


def test_ort_dir_ships_the_model(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    (tmp_path / "model.onnx").write_bytes(MODEL)
    embedder = _FileEmbedder(tmp_path / "model.onnx", TOKENIZER)
    out = tmp_path / "site"
    report = build_site(
        write_corpus({"a.md": "Quokkas live on Rottnest."}),
        out,
        SiteOptions(embedder=embedder, ort_dir=_ort(tmp_path)),
    )
    site = json.loads((out / "site.json").read_text("utf-8"))
    semantic = site["semantic"]
    assert (out / semantic["model"]).read_bytes() == MODEL
    assert (out / semantic["tokenizer"]).read_bytes() == TOKENIZER.read_bytes()
    assert sorted(p.name for p in (out / semantic["ort"]).iterdir()) == sorted(ORT_FILES)
    assert semantic["similarity_floor"] == 0.5 and semantic["ort_version"] == "1.31.1"
    assert report.semantic_bytes == sum(p.stat().st_size for p in (out / "semantic").rglob("*.*"))
    # what the page then does: the shipped files reproduce the collection's identity
    identity = EmbeddingIdentity(
        **{k: v for k, v in site["collection"]["embedder"].items() if k != "manifest_version"}
    )
    GivenQueryEmbedder.for_identity(
        identity,
        model_sha256=hashlib.sha256((out / semantic["model"]).read_bytes()).hexdigest(),
        tokenizer_json=(out / semantic["tokenizer"]).read_bytes(),
        floor=0.5,
    )


def test_ort_dir_with_precompress(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    """onnxruntime-web and the tokenizer get siblings; the model is shipped as it is."""
    (tmp_path / "model.onnx").write_bytes(MODEL * 200)  # compressible, yet never compressed
    embedder = _FileEmbedder(tmp_path / "model.onnx", TOKENIZER)
    ort = _ort(tmp_path)
    for name in ORT_FILES:
        (ort / "dist" / name).write_bytes(name.encode() * 500)
    out = tmp_path / "site"
    report = build_site(
        write_corpus({"a.md": "Quokkas live on Rottnest."}),
        out,
        SiteOptions(embedder=embedder, ort_dir=ort, precompress_with="gzip"),
    )
    shipped = out / "semantic"
    assert sorted(p.name for p in (shipped / "ort").glob("*.gz")) == sorted(
        f"{name}.gz" for name in ORT_FILES
    )
    assert (shipped / "tokenizer.json.gz").is_file() and not (shipped / "model.onnx.gz").exists()
    assert report.semantic_bytes == sum(
        p.stat().st_size for p in shipped.rglob("*") if p.is_file() and p.suffix != ".gz"
    )


def test_ort_dir_refusals(tmp_path: Path, write_corpus: WriteCorpus) -> None:
    corpus = write_corpus({"a.md": "Quokkas."})
    with pytest.raises(ConfigurationError, match="--embedder minilm"):
        build_site(corpus, tmp_path / "s1", SiteOptions(ort_dir=_ort(tmp_path)))
    with pytest.raises(ConfigurationError, match="--embedder minilm"):
        options = SiteOptions(embedder=HashEmbedder(), ort_dir=_ort(tmp_path))
        build_site(corpus, tmp_path / "s2", options)
    (tmp_path / "model.onnx").write_bytes(MODEL)
    embedder = _FileEmbedder(tmp_path / "model.onnx", TOKENIZER)
    with pytest.raises(ConfigurationError, match=r"onnxruntime-web 1\.20 or later"):
        build_site(
            corpus, tmp_path / "s3", SiteOptions(embedder=embedder, ort_dir=tmp_path / "nothing")
        )
    assert not (tmp_path / "s3").exists()


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def to_bytes(self) -> bytes:
        return self.data


def _page_answers(site: Path, embedder: _FileEmbedder, queries: list[str], mode: str) -> list[Any]:
    """Each query searched as the page's worker does with semantic search on: the site's
    static reader, the model files checked, the query's vector given (``page_semantic``)."""
    semantic = json.loads((site / "site.json").read_text("utf-8"))["semantic"]
    page_runtime.open_reader(
        StaticReader(lambda path: (site / path).read_bytes(), index="index/", sources="sources/")
    )
    model = hashlib.sha256((site / semantic["model"]).read_bytes()).hexdigest()
    tokenizer = _Bytes((site / semantic["tokenizer"]).read_bytes())
    page_semantic.enable(model, tokenizer, semantic["similarity_floor"])
    found = []
    for query in queries:
        page_semantic.give(query, json.dumps(embedder.embed_query(query)))
        found.append(json.loads(page_runtime.search(query, mode, 10, False, expand=False)))
    return found


def test_a_semantic_site_ships_the_collections_own_floor_and_the_page_applies_it(
    tmp_path: Path,
) -> None:
    """build-site with a semantic embedder fits the dense floor and hybrid's share as
    `ingest --calibrate` records them for the same folder, ships them in the index head, and
    the page's semantic search applies them as the stored collection does, naming their
    source; without a calibration it falls back to the model's floor and says so
    (adr/0070)."""
    (tmp_path / "model.onnx").write_bytes(MODEL)
    embedder = _FileEmbedder(tmp_path / "model.onnx", TOKENIZER)
    assert embedder.identity.semantic
    sample, ort = groundkit.sample_corpus(), _ort(tmp_path)
    out, bare = tmp_path / "site", tmp_path / "bare"
    report = build_site(sample, out, SiteOptions(embedder=embedder, ort_dir=ort))
    uncalibrated = SiteOptions(embedder=embedder, ort_dir=ort, calibrate=False)
    assert build_site(sample, bare, uncalibrated).dense_floor is None
    index = tmp_path / "idx"  # what `groundkit ingest --calibrate` does (cli/commands/ingest.py)
    groundkit.ingest(sample, index_dir=index, embedder=embedder)
    with groundkit.Searcher.open(index, embedder=embedder) as stored:
        record_self_calibration(stored, self_calibrate(stored))
        recorded = read_floor(stored.reader.location, embedder.identity)
    assert recorded is not None and recorded.source == "self-calibrated"
    head = StaticReader(lambda path: (out / path).read_bytes(), index="index/")
    assert head.shipped_dense_floor() == report.dense_floor == recorded.to_dict()
    questions = [
        "how do I report a leak",
        "chlorine residual target",
        "hydrant flushing discoloured water",
        *off_topic_questions()[:12],
    ]
    with groundkit.Searcher.open(index, embedder=embedder) as stored:
        for mode in ("hybrid", "dense"):
            page = _page_answers(out, embedder, questions, mode)
            for query, got in zip(questions, page, strict=True):
                want = stored.search(query, mode=mode)  # type: ignore[arg-type]
                assert [r["chunk_id"] for r in got["results"]] == [
                    r.chunk_id for r in want.results
                ], (query, mode)
                assert got["abstained"] == want.metadata["abstained"]
                floor = got["floor"]
                assert floor["source"] == want.metadata["floor_source"] == "self-calibrated"
                assert floor["min_similarity"] == recorded.floor
                if mode == "hybrid":
                    assert floor["min_lexical_share"] == recorded.lexical_share
                    assert floor["lexical_share_source"] == "self-calibrated"
            assert any(a["abstained"] for a in page) and not all(a["abstained"] for a in page)
        for got in _page_answers(bare, embedder, questions, "hybrid"):
            assert got["floor"]["source"] == "embedder"
            assert got["floor"]["min_similarity"] == embedder.similarity_floor
            assert got["floor"]["lexical_share_source"] == "default"
