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

import pytest

from conftest import WriteCorpus
from groundkit.embedding.hashing import HashEmbedder
from groundkit.embedding.page import GivenQueryEmbedder, revision_parts
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.manifest import EmbeddingIdentity
from groundkit.site import SiteOptions, build_site
from groundkit.site.semantic_assets import ORT_FILES

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
