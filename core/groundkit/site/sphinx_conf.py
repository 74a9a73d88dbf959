"""Which sources Sphinx renders, read from a project's ``conf.py`` (``--url-rule sphinx-*``).

``conf.py`` is parsed, never run: ``source_suffix``, ``exclude_patterns`` and ``root_doc``
(or ``master_doc``) must be literals there, or the build is refused with what to do instead.
A source links to a page only if its suffix is one Sphinx reads and no exclude pattern names
it or a folder above it (Sphinx's own pattern syntax: ``*`` within a folder, ``**`` across).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from groundkit.errors import ConfigurationError

__all__ = ["SphinxSources", "read_sphinx_conf"]

CONF = "conf.py"


@dataclass(frozen=True)
class SphinxSources:
    """What ``conf.py`` says Sphinx renders."""

    suffixes: tuple[str, ...]
    """The file endings Sphinx reads as documents (``source_suffix``; default ``.rst``)."""
    exclude_patterns: tuple[str, ...]
    """Patterns of paths Sphinx skips, relative to the source folder."""
    root_doc: str
    """The root document's name without suffix (``root_doc``/``master_doc``; default index)."""

    def renders(self, source: str) -> bool:
        """Whether ``source`` (a ``/``-separated path under the source folder) is a page."""
        if not source.endswith(self.suffixes):
            return False
        parts = source.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        return not any(
            _pattern(p).fullmatch(prefix) for p in self.exclude_patterns for prefix in prefixes
        )


def _pattern(glob: str) -> re.Pattern[str]:
    """Sphinx's ``sphinx.util.matching`` translation of an exclude pattern."""
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in glob[i + 1 :]:
            end = glob.index("]", i + 1)
            inner = glob[i + 1 : end]
            negated = inner.startswith("!")
            inner = re.escape(inner[1:] if negated else inner).replace("\\-", "-")
            out.append(f"[{'^/' if negated else ''}{inner}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def read_sphinx_conf(folder: Path) -> SphinxSources:
    """The ``SphinxSources`` of ``folder/conf.py``; ``ConfigurationError`` without one, or
    when a setting is not a literal (then only ``--url-map`` can say which pages exist)."""
    conf = folder / CONF
    if not conf.is_file():
        raise ConfigurationError(
            f"--url-rule sphinx-*: {folder} holds no conf.py, so which files Sphinx renders is "
            "unknown; build the site from the folder holding conf.py, or link with --url-map",
            subject=str(conf),
        )
    try:
        tree = ast.parse(conf.read_text("utf-8"), filename=str(conf))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigurationError(f"--url-rule sphinx-*: cannot read {conf}: {exc}") from None
    values: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    values[target.id] = node.value
    suffix = _literal(conf, values, "source_suffix", ".rst")
    if isinstance(suffix, dict):
        suffix = list(suffix)
    suffixes = (suffix,) if isinstance(suffix, str) else suffix
    excluded = _literal(conf, values, "exclude_patterns", [])
    root = _literal(conf, values, "root_doc", None)
    root = root if root is not None else _literal(conf, values, "master_doc", "index")
    if not (
        isinstance(suffixes, list | tuple)
        and suffixes
        and all(isinstance(s, str) and s for s in suffixes)
        and isinstance(excluded, list | tuple)
        and all(isinstance(p, str) for p in excluded)
        and isinstance(root, str)
    ):
        raise ConfigurationError(
            f"--url-rule sphinx-*: {conf}'s source_suffix, exclude_patterns or root_doc has an "
            "unexpected type; link with --url-map",
            subject=str(conf),
        )
    return SphinxSources(tuple(suffixes), tuple(excluded), root)


def _literal(conf: Path, values: dict[str, ast.expr], name: str, default: object) -> object:
    node = values.get(name)
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ConfigurationError(
            f"--url-rule sphinx-*: {conf} computes {name}, which groundkit reads but never "
            "runs; write it as a literal, or link with --url-map",
            subject=name,
        ) from None
