"""Shared ONNX plumbing: the import-order check, sessions (device, threads), tokenizers, hashes."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from groundkit.extend import ConfigurationError, install_hint

__all__ = [
    "DEVICES",
    "default_device",
    "default_threads",
    "file_digest",
    "import_onnxruntime",
    "load_tokenizer",
    "make_session",
]

DEVICES = ("cpu", "cuda")
_PROVIDERS = {"cpu": "CPUExecutionProvider", "cuda": "CUDAExecutionProvider"}
_FIRST_BAD_USEARCH = (2, 26, 2)


def _usearch_version() -> tuple[int, ...]:
    try:
        text = metadata.version("usearch")
    except metadata.PackageNotFoundError:
        return ()
    return tuple(int(p) for p in text.split(".")[:3] if p.isdigit())


def import_onnxruntime() -> Any:
    """onnxruntime, or ``ConfigurationError`` when it is missing or importing it would crash."""
    if "onnxruntime" not in sys.modules and "usearch.compiled" in sys.modules:
        version = _usearch_version()
        if not version or version >= _FIRST_BAD_USEARCH:
            raise ConfigurationError(
                "usearch was imported before onnxruntime; with usearch "
                f"{'.'.join(map(str, version)) or '?'} importing onnxruntime now would crash the "
                "process (SIGSEGV). Import groundkit_native (or onnxruntime) before usearch",
                subject="onnxruntime",
            )
    try:
        import onnxruntime
    except ImportError as exc:
        raise ConfigurationError(
            f"the ONNX extra is not installed ({exc}); install it with: {install_hint('onnx')}",
            subject="onnxruntime",
        ) from None
    return onnxruntime


def default_device() -> str:
    """``$GROUNDKIT_DEVICE`` (``cpu`` or ``cuda``), else ``cpu``."""
    return os.environ.get("GROUNDKIT_DEVICE", "") or "cpu"


def default_threads() -> int | None:
    """``$GROUNDKIT_THREADS`` as a positive int, else None (onnxruntime's own choice)."""
    text = os.environ.get("GROUNDKIT_THREADS", "")
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ConfigurationError(f"GROUNDKIT_THREADS must be a whole number >= 1, got {text!r}")
    return int(text)


def make_session(model: Path, *, device: str, threads: int | None) -> Any:
    """An inference session on ``device``; asking for CUDA without it is an error, never CPU."""
    ort = import_onnxruntime()
    if device not in DEVICES:
        raise ConfigurationError(
            f"device must be one of {', '.join(DEVICES)}, got {device!r}", subject=device
        )
    if threads is not None and (isinstance(threads, bool) or threads < 1):
        raise ConfigurationError(f"threads must be a whole number >= 1, got {threads!r}")
    provider = _PROVIDERS[device]
    available = ort.get_available_providers()
    if provider not in available:
        raise ConfigurationError(
            f"device {device!r} needs onnxruntime's {provider}, which this onnxruntime lacks "
            f"(available: {', '.join(available)}); install {install_hint('gpu')} on a machine "
            "with CUDA, or use --device cpu",
            subject=device,
        )
    if not model.is_file():
        raise ConfigurationError(f"ONNX model file {model} does not exist", subject=str(model))
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if device == "cuda":
        _preload_cuda(ort)
    providers = [provider] if device == "cpu" else [provider, _PROVIDERS["cpu"]]
    session = ort.InferenceSession(str(model), sess_options=options, providers=providers)
    started = session.get_providers()
    if not started or started[0] != provider:
        raise ConfigurationError(
            f"onnxruntime lists {provider} but could not start it for {model} (the session "
            f"runs on {', '.join(started) or 'nothing'}): the CUDA or cuDNN libraries it needs "
            f"are missing or of another major version; install {install_hint('gpu')} (it brings "
            "them as nvidia-* wheels), or use --device cpu",
            subject=device,
        )
    return session


def _preload_cuda(ort: Any) -> None:
    """Load CUDA and cuDNN from the nvidia-* wheels where onnxruntime can (1.21+), quietly."""
    preload = getattr(ort, "preload_dlls", None)
    if preload is None:
        return
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its warnings
        preload()


def load_tokenizer(path: Path, *, max_length: int, pair_strategy: str = "longest_first") -> Any:
    """A ``tokenizers`` tokenizer truncating at ``max_length``, padding to the batch's longest."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigurationError(
            f"the ONNX extra is not installed ({exc}); install it with: {install_hint('onnx')}",
            subject="tokenizers",
        ) from None
    if not path.is_file():
        raise ConfigurationError(f"tokenizer file {path} does not exist", subject=str(path))
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=max_length, strategy=pair_strategy)
    tokenizer.no_padding()
    tokenizer.enable_padding()
    return tokenizer


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """SHA-256 of a file, hex (cached by path, size and modification time)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    found = _DIGESTS.get(key)
    if found is None:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        found = _DIGESTS[key] = digest.hexdigest()
    return found
