"""Canonical JSON with and without msgspec, and strict decoding of the embedding manifest."""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit import codec
from groundkit.manifest import EmbeddingIdentity, ManifestError

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def stdlib_bytes(value: Any) -> str:
    """The reference form, straight from the standard library."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_forced_stdlib_path_gives_the_reference_bytes(value: Any) -> None:
    encoded = codec.encode(value, accelerated=False)
    assert encoded == stdlib_bytes(value)
    assert codec.decode(encoded, accelerated=False) == value


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_msgspec_path_gives_identical_bytes_and_values(value: Any) -> None:
    pytest.importorskip("msgspec")
    assert codec.ACCELERATED
    encoded = codec.encode(value)
    assert encoded == stdlib_bytes(value)
    assert codec.decode(encoded) == codec.decode(encoded, accelerated=False) == value


def test_without_msgspec_the_module_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_msgspec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "msgspec":
            raise ImportError("msgspec hidden by the test")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_msgspec)
    fallback = importlib.reload(codec)
    try:
        assert not fallback.ACCELERATED
        value = {"b": [1, 2.5, 1e-07, None], "a": "é\u2028"}
        assert fallback.encode(value) == stdlib_bytes(value)
        assert fallback.decode(fallback.encode(value)) == value
    finally:
        monkeypatch.undo()
        importlib.reload(codec)


@pytest.mark.parametrize("accelerated", [None, False])
@pytest.mark.parametrize(
    ("value", "error"),
    [
        (math.nan, ValueError),
        ({"x": [math.inf]}, ValueError),
        ({1: "int key"}, TypeError),
        ({"s": {1, 2}}, TypeError),
        (b"bytes", TypeError),
    ],
)
def test_non_json_values_are_refused_on_both_paths(
    value: Any, error: type[Exception], accelerated: bool | None
) -> None:
    with pytest.raises(error):
        codec.encode(value, accelerated=accelerated)


@pytest.mark.parametrize("accelerated", [None, False])
@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "1e400", "{", '{"a":1} x'])
def test_non_finite_and_malformed_json_is_refused(text: str, accelerated: bool | None) -> None:
    with pytest.raises(ValueError):
        codec.decode(text, accelerated=accelerated)


IDENTITY = EmbeddingIdentity(
    provider="groundkit", model="hash", revision="1", dimensions=8, pooling="sum", semantic=False
)


def test_identity_round_trips_through_canonical_json() -> None:
    text = IDENTITY.to_json()
    assert text == codec.encode(IDENTITY.to_dict())
    assert EmbeddingIdentity.from_json(text) == IDENTITY
    assert json.loads(text)["manifest_version"] == 1


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"colour": "blue"}, "unknown field.*colour"),
        ({"dimensions": "8"}, "dimensions must be int"),
        ({"dimensions": 8.0}, "dimensions must be int"),
        ({"dimensions": True}, "dimensions must be int"),
        ({"semantic": 0}, "semantic must be bool"),
        ({"model": 3}, "model must be str"),
        ({"similarity": "euclid"}, "similarity must be one of"),
        ({"dimensions": 0}, "dimensions must be an integer"),
        ({"manifest_version": 2}, "manifest_version must be 1"),
        ({"dtype": "float16"}, "dtype must be one of"),
    ],
)
def test_manifest_decoding_is_strict(change: dict[str, Any], match: str) -> None:
    raw = {**IDENTITY.to_dict(), **change}
    with pytest.raises(ManifestError, match=match):
        EmbeddingIdentity.from_json(json.dumps(raw))


def test_manifest_missing_fields_and_non_objects_are_refused() -> None:
    raw = IDENTITY.to_dict()
    del raw["revision"]
    with pytest.raises(ManifestError, match=r"lacks field.*revision"):
        EmbeddingIdentity.from_dict(raw)
    with pytest.raises(ManifestError, match="JSON object"):
        EmbeddingIdentity.from_json("[1]")
    with pytest.raises(ManifestError, match="not valid JSON"):
        EmbeddingIdentity.from_json("{")
