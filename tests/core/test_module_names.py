"""The source tree's own rules (adr/0027, adr/0051): one name per module, short modules."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "core" / "groundkit"
EXTRAS = REPO / "extras"

pytestmark = pytest.mark.skipif(not CORE.is_dir(), reason="runs from a checkout, not a wheel")


def _modules() -> list[Path]:
    return sorted([*CORE.rglob("*.py"), *EXTRAS.rglob("*.py")])


def test_no_module_name_is_used_twice_across_core_and_extras() -> None:
    counts = Counter(path.name for path in _modules() if path.name != "__init__.py")
    repeated = sorted(name for name, n in counts.items() if n > 1)
    assert repeated == []


def test_every_core_module_is_under_450_lines() -> None:
    lines = {
        str(path.relative_to(CORE)): len(path.read_text("utf-8").splitlines())
        for path in CORE.rglob("*.py")
    }
    assert {name: n for name, n in lines.items() if n >= 450} == {}
