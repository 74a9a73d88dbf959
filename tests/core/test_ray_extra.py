"""The Ray extra is imported lazily: without ray, its calls name the extra (issue 19)."""

from __future__ import annotations

import sys

import pytest

from groundkit.errors import ConfigurationError


def test_ray_extra_imports_without_ray_and_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    import groundkit_ray

    with pytest.raises(ConfigurationError, match=r'pip install "\.\[ray\]"'):
        groundkit_ray.build_on_ray("docs", collection="big", shards=2)
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[ray\]"'):
        groundkit_ray.serve_sharded("big")
