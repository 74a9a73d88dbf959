"""No function over 80 lines and no signature over 8 parameters without a written exception
(issue 41.6, adr/0064).

ruff holds the same limits (PLR0912, PLR0913, PLR0915 in pyproject.toml); this walk holds them
where ruff does not run, in the measure the issue states: lines of code, not statements. A
function is exempt only if its ``def`` line carries ``# noqa:`` naming the rule and a reason
after the codes (``# noqa: PLR0913  the CLI's flags, one each``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = (REPO / "core" / "groundkit", REPO / "extras")
MAX_LINES = 80
MAX_PARAMETERS = 8
LINES_CODES = frozenset({"PLR0915", "PLR0912", "C901"})
"""The ruff codes whose exception also excuses a long body (too many statements, branches)."""
PARAMETERS_CODES = frozenset({"PLR0913", "PLR0917"})
"""The ruff codes whose exception also excuses a long signature."""

_NOQA = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)(?P<reason>.*)$")

pytestmark = pytest.mark.skipif(
    not (REPO / "core" / "groundkit").is_dir(), reason="runs from a checkout, not a wheel"
)


@dataclass(frozen=True, slots=True)
class Breach:
    """One function over a limit, with no written exception for it."""

    where: str
    """``path:line name``."""
    what: str
    """Which limit, and by how much."""


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the end of the last one: the
    code, not the signature or the docstring (nested functions count in their parent)."""
    body = node.body
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    end = body[-1].end_lineno or body[-1].lineno
    return end - body[0].lineno + 1


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool) -> int:
    """Every parameter a caller can pass: positional, keyword-only, ``*args``, ``**kwargs``;
    a method's ``self``/``cls`` is not one."""
    args = node.args
    named = [*args.posonlyargs, *args.args]
    if method and named and named[0].arg in ("self", "cls"):
        named = named[1:]
    return len(named) + len(args.kwonlyargs) + (args.vararg is not None) + (args.kwarg is not None)


def exception_codes(line: str) -> frozenset[str]:
    """The codes a ``# noqa:`` on ``line`` names, if it gives a reason after them (a bare
    ``# noqa: PLR0913`` excuses nothing here)."""
    found = _NOQA.search(line)
    if found is None or len(found["reason"].strip(" -:#()")) < 10:
        return frozenset()
    return frozenset(re.split(r"[\s,]+", found["codes"].strip()))


def breaches(source: str, name: str) -> list[Breach]:
    """The functions of ``source`` over a limit without a written exception on their def line."""
    lines = source.splitlines()
    found: list[Breach] = []

    def visit(parent: ast.AST, in_class: bool) -> None:
        for node in ast.iter_child_nodes(parent):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node, isinstance(node, ast.ClassDef) or in_class)
                continue
            excused = exception_codes(lines[node.lineno - 1])
            where = f"{name}:{node.lineno} {node.name}"
            length = body_lines(node)
            if length > MAX_LINES and not excused & LINES_CODES:
                found.append(Breach(where, f"{length} lines (limit {MAX_LINES})"))
            count = parameters(node, method=in_class)
            if count > MAX_PARAMETERS and not excused & PARAMETERS_CODES:
                found.append(Breach(where, f"{count} parameters (limit {MAX_PARAMETERS})"))
            visit(node, False)

    visit(ast.parse(source), False)
    return found


def test_no_function_over_the_limits_without_a_written_exception() -> None:
    found: list[Breach] = []
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            name = str(path.relative_to(REPO))
            found += breaches(path.read_text("utf-8"), name)
    assert not found, (
        "over the size limits (adr/0064: split it, group its options in a dataclass, or write "
        "the exception on the def line as `# noqa: PLR0913  <why>`):\n"
        + "\n".join(f"  {b.where}: {b.what}" for b in found)
    )


def _function(lines: int, params: int, comment: str = "", *, method: bool = False) -> str:
    signature = ", ".join(["self"] * method + [f"p{i}" for i in range(params)])
    body = "".join(f"    x{i} = {i}\n" for i in range(lines))
    source = f"def f({signature}):{comment}\n    '''Doc.'''\n{body}"
    if method:
        source = "class C:\n" + "".join(f"    {line}\n" for line in source.splitlines())
    return source


def test_the_walk_finds_what_it_must() -> None:
    assert breaches(_function(MAX_LINES, MAX_PARAMETERS), "m") == []
    assert [b.what for b in breaches(_function(MAX_LINES + 1, 1), "m")] == ["81 lines (limit 80)"]
    too_many = breaches(_function(1, MAX_PARAMETERS + 1), "m")
    assert [b.what for b in too_many] == ["9 parameters (limit 8)"]
    # a method's self is not a parameter a caller passes
    assert breaches(_function(1, MAX_PARAMETERS, method=True), "m") == []
    assert breaches(_function(1, MAX_PARAMETERS + 1, method=True), "m") != []
    # a nested function is measured too
    nested = "def outer():\n" + "".join(
        f"    {line}\n" for line in _function(1, MAX_PARAMETERS + 1).splitlines()
    )
    assert [b.where for b in breaches(nested, "m")] == ["m:2 f"]


def test_only_a_written_exception_for_that_limit_excuses() -> None:
    long_body = MAX_LINES + 5
    reason = "  # noqa: PLR0915  one table the parser reads top to bottom"
    assert breaches(_function(long_body, 1, reason), "m") == []
    assert breaches(_function(long_body, 1, "  # noqa: PLR0915"), "m") != []  # no reason
    assert breaches(_function(long_body, 1, "  # noqa: PLR0913  wrong limit named"), "m") != []
    wide = MAX_PARAMETERS + 2
    assert breaches(_function(1, wide, "  # noqa: PLR0913  mirrors a C signature"), "m") == []
    assert breaches(_function(1, wide, "  # noqa: E501, PLR0913 - mirrors the wire"), "m") == []
    assert breaches(_function(1, wide, "  # noqa: PLR0915  the wrong one, long"), "m") != []
