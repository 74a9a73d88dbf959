"""The extras import from the core only ``groundkit`` and ``groundkit.extend`` (adr/0067).

Every module of ``extras/`` is walked: ``import`` and ``from ... import`` anywhere (module level,
functions, methods, ``if TYPE_CHECKING:`` blocks too, since a type names a dependency all the
same), the modules a lazy ``_HOMES`` table names, and the string given to ``import_module``.
``tox -e lint``'s import-linter contract holds the same rule over what runs; this test also
sees what only runs inside a function and what only mypy reads.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXTRAS = REPO / "extras"
CORE = REPO / "core" / "groundkit"
DOORS = {"groundkit", "groundkit.extend"}

pytestmark = pytest.mark.skipif(not EXTRAS.is_dir(), reason="runs from a checkout, not a wheel")


def _core_module(name: str) -> bool:
    """Whether ``groundkit.<name>`` is a module or package of the core."""
    path = CORE.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, module) for every module ``path`` imports, however it does."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: inside the extra's own package
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                core_sub = base == "groundkit" and _core_module(alias.name)
                found.append((node.lineno, sub if core_sub else base))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "import_module",
            "__import__",
        ):
            if node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
        elif isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "_HOMES":
            table = ast.literal_eval(node.value)
            found += [(node.lineno, module) for module in table]
        elif isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "_HOMES":
            assert node.value is not None
            table = ast.literal_eval(node.value)
            found += [(node.lineno, module) for module in table]
    return found


def _refused(module: str, package: str) -> bool:
    top = module.partition(".")[0]
    if top == "groundkit":
        return module not in DOORS
    return top.startswith("groundkit_") and top != package  # another extra: not a dependency


def test_the_extras_import_only_groundkit_and_groundkit_extend() -> None:
    modules = sorted(EXTRAS.rglob("*.py"))
    assert len(modules) > 20  # the three extras are there to be walked
    refused = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in modules
        for package in [path.relative_to(EXTRAS).parts[0]]
        for line, module in _imported(path, package)
        if _refused(module, package)
    ]
    assert refused == []


def test_the_walk_sees_an_import_hidden_in_a_function(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden.py"
    hidden.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from groundkit.store.protocols import CollectionReader\n"
        "def f():\n"
        "    from groundkit import collection, Searcher\n"
        "    import groundkit.shards.build\n"
        "    import_module('groundkit.plugins')\n"
        "    from . import own\n",
        encoding="utf-8",
    )
    seen = [module for _, module in _imported(hidden, "groundkit_x")]
    refused = sorted(module for module in seen if _refused(module, "groundkit_x"))
    assert refused == [
        "groundkit.collection",
        "groundkit.plugins",
        "groundkit.shards.build",
        "groundkit.store.protocols",
    ]
    assert "groundkit" in seen and "groundkit_x" in seen  # Searcher; the extra's own module
