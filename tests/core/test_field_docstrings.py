"""Every public field of every public dataclass carries a docstring (issue 42.1), so the Python
API page (mkdocstrings) shows it: a field without one is hidden from the reference."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import textwrap

import pytest

import groundkit
import groundkit.site


def public_dataclasses() -> list[type]:
    """The dataclasses among ``groundkit.__all__`` and ``groundkit.site.__all__``, and the
    dataclasses their fields name that live in groundkit (``SearchTrace`` through
    ``SearchResponse.trace``), sorted by name."""
    found: dict[str, type] = {}
    pending = [getattr(groundkit, name) for name in groundkit.__all__]
    pending += [getattr(groundkit.site, name) for name in groundkit.site.__all__]
    while pending:
        value = pending.pop()
        if not (inspect.isclass(value) and dataclasses.is_dataclass(value)):
            continue
        if not value.__module__.startswith("groundkit") or value.__name__ in found:
            continue
        found[value.__name__] = value
        hints = inspect.get_annotations(value, eval_str=True)
        for hint in hints.values():
            pending.extend(getattr(hint, "__args__", ()) or (hint,))
    return [found[name] for name in sorted(found)]


def undocumented_fields(cls: type) -> list[str]:
    """The public fields of ``cls`` with no string literal right after their annotation."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    documented = set()
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
            and following.value.value.strip()
        ):
            documented.add(statement.target.id)
    fields = [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]
    return [name for name in fields if name not in documented]


CLASSES = public_dataclasses()


def test_the_public_types_are_found() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"Citation", "SearchResult", "SearchResponse", "SearchRequest"} <= names
    assert {"Verification", "IngestReport"} <= names
    assert {"SiteOptions", "SiteReport", "LinkSpec"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_public_field_has_a_docstring(cls: type) -> None:
    missing = undocumented_fields(cls)
    assert not missing, (
        f"{cls.__module__}.{cls.__name__}: fields without a docstring (a string literal on "
        f"the line after the field; mkdocstrings hides them otherwise): {', '.join(missing)}"
    )
