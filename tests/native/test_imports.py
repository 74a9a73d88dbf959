"""The usearch/onnxruntime import-order crash (usearch 2.26.2+ first SIGSEGVs) and its guard."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_onnxruntime_then_usearch_is_fine() -> None:
    done = _run("import onnxruntime, usearch.index; print('ok')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_usearch_then_onnxruntime_raw_order_is_the_known_crash_or_fine() -> None:
    # Documents the upstream bug: a SIGSEGV (-11) with usearch 2.26.2-2.26.6, fine otherwise.
    done = _run("import usearch.index, onnxruntime; print('ok')")
    assert done.returncode in (0, -11), done.stderr


def test_our_modules_in_either_order_never_crash() -> None:
    for code in (
        "import groundkit_native.usearch_store; import groundkit_native.onnx_embedder",
        "import groundkit_native.onnx_embedder; import groundkit_native.usearch_store",
        "from groundkit.vectors.store_registry import _loader; _loader('usearch');"
        "from groundkit import get_embedder; get_embedder('minilm')",
    ):
        done = _run(code + "; print('ok')")
        assert done.returncode == 0, (code, done.returncode, done.stderr)
        assert done.stdout.strip().endswith("ok")


def test_usearch_imported_first_by_the_user_is_refused_not_a_crash() -> None:
    code = (
        "import usearch.index\n"
        "from groundkit.errors import ConfigurationError\n"
        "from groundkit import get_embedder\n"
        "try:\n"
        "    get_embedder('minilm')\n"
        "    print('ok')\n"
        "except ConfigurationError as exc:\n"
        "    assert 'before onnxruntime' in exc.message, exc.message\n"
        "    print('refused')\n"
    )
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("ok", "refused")
