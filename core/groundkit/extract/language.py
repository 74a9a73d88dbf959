"""The language a source declares: HTML's ``<html lang>``, Markdown front matter's ``lang:`` or
``language:`` key. Declarations are read, never guessed from the words (adr/0045)."""

from __future__ import annotations

import re

from groundkit.extract.extractor import Extraction

__all__ = ["declared_language", "front_matter_language", "html_language"]

_HTML_LANG = re.compile(
    r"<html\b[^>]*?\s(?:xml:)?lang\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+))", re.IGNORECASE
)
_FRONT_MATTER_KEY = re.compile(
    r"(?:lang|language)[ \t]*:[ \t]*([\"']?)([A-Za-z][A-Za-z0-9_-]*)\1[ \t]*(?:#.*)?", re.IGNORECASE
)


def html_language(markup: str) -> str | None:
    """The ``lang`` (or ``xml:lang``) attribute of the first ``<html>`` tag, None if absent."""
    match = _HTML_LANG.search(markup)
    if match is None:
        return None
    tag = next(group for group in match.groups() if group is not None).strip()
    return tag or None


def front_matter_language(text: str) -> str | None:
    """``lang:`` or ``language:`` at the top level of YAML front matter (``---`` on the first
    line, closed by ``---`` or ``...``), None without one."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            return None
        match = _FRONT_MATTER_KEY.fullmatch(line.rstrip())
        if match is not None:
            return match.group(2)
    return None


def declared_language(extraction: Extraction) -> str | None:
    """The language ``extraction``'s source declares, None when it declares none."""
    if extraction.language is not None:
        return extraction.language
    return front_matter_language(extraction.text) if extraction.structure == "markdown" else None
