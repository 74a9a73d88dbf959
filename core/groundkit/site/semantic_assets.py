"""``build-site --ort-dir``: what the page needs to embed queries itself (ADR 0035).

A site whose collection has semantic vectors (``--embedder minilm``) ships, under
``semantic/``, the embedder's ONNX model and ``tokenizer.json`` and onnxruntime-web's
single-threaded WebAssembly build, copied from the npm package folder. The page fetches none
of it until a visitor turns semantic search on. The copies are hashed here against the
identity's revision, so a site never ships files that would not reproduce its vectors.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.page import revision_parts
from groundkit.errors import ConfigurationError

__all__ = ["ORT_FILES", "SEMANTIC_DIR", "check_semantic", "precompressible", "write_semantic"]

SEMANTIC_DIR = "semantic"
ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
"""onnxruntime-web's WebAssembly-only build: the module and the runtime it loads."""
ORT_MIN_VERSION = (1, 20)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _ort_version(ort_dir: Path) -> str:
    missing = [name for name in ORT_FILES if not (ort_dir / "dist" / name).is_file()]
    try:
        version = str(json.loads((ort_dir / "package.json").read_text("utf-8"))["version"])
        numbers = tuple(int(x) for x in version.split(".")[:2])
    except (OSError, ValueError, KeyError) as exc:
        missing.append(f"a readable package.json ({exc})")
        version, numbers = "?", (0, 0)
    if missing or numbers < ORT_MIN_VERSION:
        raise ConfigurationError(
            f"--ort-dir {ort_dir}: not the npm package onnxruntime-web 1.20 or later "
            f"(version {version}; lacks {', '.join(missing) or 'nothing'}); give its folder, "
            "e.g. node_modules/onnxruntime-web",
            subject=str(ort_dir),
        )
    return version


def check_semantic(embedder: Embedder | None, ort_dir: Path) -> tuple[Path, Path, str]:
    """Before any work: the model and tokenizer files of ``embedder`` and onnxruntime-web's
    version in ``ort_dir``, or a ``ConfigurationError`` saying what is missing."""
    model = getattr(embedder, "model_path", None)
    tokenizer = getattr(embedder, "tokenizer_path", None)
    if embedder is None or not isinstance(model, Path) or not isinstance(tokenizer, Path):
        raise ConfigurationError(
            "--ort-dir ships a model for the page to embed queries with; it needs an ONNX "
            "embedder (--embedder minilm)",
            subject="--ort-dir",
        )
    identity = embedder.identity
    parts = revision_parts(identity.revision)
    if set(parts) != {"sha256", "tokenizer", "max_length"} or identity.pooling != "mean":
        raise ConfigurationError(
            f"--ort-dir: the page embeds with mean pooling and no prefixes; {identity.model} "
            f"({identity.pooling}, {identity.revision}) is not such a model",
            subject=identity.model,
        )
    return model, tokenizer, _ort_version(ort_dir)


def write_semantic(embedder: Embedder | None, ort_dir: Path, work: Path) -> dict[str, Any]:
    """Copy the model, tokenizer and onnxruntime-web into ``work/semantic``; site.json's part."""
    model, tokenizer, version = check_semantic(embedder, ort_dir)
    assert embedder is not None  # check_semantic refused it otherwise
    identity = embedder.identity
    parts = revision_parts(identity.revision)
    out = work / SEMANTIC_DIR
    (out / "ort").mkdir(parents=True)
    for name in ORT_FILES:
        shutil.copyfile(ort_dir / "dist" / name, out / "ort" / name)
    shutil.copyfile(model, out / "model.onnx")
    shutil.copyfile(tokenizer, out / "tokenizer.json")
    model_sha = _sha256(out / "model.onnx")
    found = (parts["sha256"], parts["tokenizer"])
    if (model_sha[:16], _sha256(out / "tokenizer.json")[:16]) != found:
        raise ConfigurationError(
            f"the model files copied for the page do not match {identity.revision}; "
            "they changed during the build: build again",
            subject=identity.model,
        )
    sizes = {name: (out / "ort" / name).stat().st_size for name in ORT_FILES}
    return {
        "model": f"{SEMANTIC_DIR}/model.onnx",
        "model_bytes": (out / "model.onnx").stat().st_size,
        "tokenizer": f"{SEMANTIC_DIR}/tokenizer.json",
        "ort": f"{SEMANTIC_DIR}/ort/",
        "ort_version": version,
        "ort_bytes": sum(sizes.values()),
        "similarity_floor": embedder.similarity_floor,
    }


def precompressible(work: Path) -> list[Path]:
    """The semantic files worth pre-compressing: onnxruntime-web and the tokenizer. The model
    is left as it is: its int8 weights shrink by under a tenth, for a minute of brotli."""
    out = work / SEMANTIC_DIR
    return [*sorted((out / "ort").iterdir()), out / "tokenizer.json"]
