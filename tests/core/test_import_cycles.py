"""No import cycle in the core or the extras, counting imports inside functions (adr/0058).

Every module's AST is walked: ``import`` and ``from ... import`` anywhere (module level,
functions, methods) make an edge; those under ``if TYPE_CHECKING:`` do not, since they never
run. A name a package re-exports lazily (``_HOMES``) is an edge to its home module.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = (REPO / "core", REPO / "extras")

pytestmark = pytest.mark.skipif(
    not (REPO / "core" / "groundkit").is_dir(), reason="runs from a checkout, not a wheel"
)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts and parts[0].startswith("groundkit"):
                found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@functools.cache
def _homes(package: str) -> dict[str, str]:
    """A lazily re-exporting module's ``_HOMES``: name -> the module it lives in."""
    path = MODULES.get(package)
    if path is None:
        return {}
    for node in ast.parse(path.read_text("utf-8")).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "_HOMES" and node.value is not None:
            table = ast.literal_eval(node.value)
            return {name: home for home, names in table.items() for name in names}
    return {}


def _imports(name: str, path: Path) -> set[str]:
    """The modules of ours that ``name`` imports anywhere except under TYPE_CHECKING."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for other in child.orelse:
                    walk_one(other)
            else:
                walk_one(child)

    def walk_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else _homes(base).get(alias.name, base))
        walk(node)

    walk(ast.parse(path.read_text("utf-8")))
    return {module for module in found if module in MODULES and module != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_walk_sees_imports_inside_functions_and_skips_type_checking() -> None:
    graph = _graph()
    assert "groundkit.extract" in graph["groundkit.retrieval.citations"]  # inside a function
    assert "groundkit.cli.options" not in graph["groundkit.plugins"]  # TYPE_CHECKING only
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_core_or_the_extras() -> None:
    assert _cycles(_graph()) == []
