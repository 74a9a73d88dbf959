"""Links from a search site's results to the pages a visitor reads (``build-site --base-url``).

A site built from a documentation tree can link each result to the page its source renders to,
with the anchor of the result's innermost heading where that anchor is known (ADR 0048). The
links are computed here, at build time, and written to ``links.json``::

    {"format": 1, "rule": "sphinx-dirhtml", "base": "https://docs.example.org/en/5.2/",
     "pages": {"topics/db/transactions.txt": {
        "url": "https://docs.example.org/en/5.2/topics/db/transactions/",
        "anchors": {"Managing database transactions\\u001fAutocommit": "autocommit"}}}}

The page looks a result up by its source and by its heading path (the headings' display text,
joined with U+001F), so it computes nothing itself. Rules (``URL_RULES``), for a source
``a/b.txt`` under ``--base-url B``:

- ``sphinx-dirhtml``: ``B a/b/`` (``a/index.txt``: ``B a/``); anchors by docutils' ``make_id``;
- ``sphinx-html``: ``B a/b.html``; anchors by ``make_id``;
- ``mkdocs``: ``B a/b/`` (``index.md`` and ``README.md``: the folder); anchors by
  Python-Markdown's ``toc`` slugs (``_1``, ``_2`` for repeats);
- ``same``: ``B a/b.txt``, no anchors (a tree of HTML files served as they are).

``--url-map FILE.json`` (source -> URL) links anything else, page by page, without anchors.
"""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from groundkit.contracts import Chunk, Document
from groundkit.errors import ConfigurationError

__all__ = [
    "LINKS_JSON",
    "URL_RULES",
    "LinkSpec",
    "check_base_url",
    "links_table",
    "make_id",
    "markdown_slug",
    "page_url",
    "read_url_map",
    "section_anchors",
    "write_links",
]

LINKS_JSON = "links.json"
LINKS_FORMAT = 1
URL_RULES = ("sphinx-dirhtml", "sphinx-html", "mkdocs", "same")
HEADING_JOIN = "\x1f"
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
_UNSAFE = re.compile(r"[\x00-\x20\x7f<>\"\\^`{|}]")


def _check_url(url: str, what: str, *, fragment: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme:
        ok = parts.scheme in ("http", "https") and _HOST.fullmatch(parts.netloc or "") is not None
    else:
        ok = not parts.netloc and url.startswith("/") and not url.startswith("//")
    if not ok or _UNSAFE.search(url) or (parts.fragment and not fragment):
        raise ConfigurationError(
            f"{what} {url!r}: give an absolute http(s) URL (https://docs.example.org/) or a "
            "path from the site's root (/docs/)" + ("" if fragment else ", with no #fragment"),
            subject=url,
        )


def check_base_url(base: str) -> str:
    """``base`` checked (http(s) with a host, or a path from the root; no query or fragment)
    and ending with ``/``."""
    _check_url(base, "--base-url", fragment=False)
    if urlsplit(base).query:
        raise ConfigurationError(f"--base-url {base!r}: a base URL takes no ?query", subject=base)
    return base if base.endswith("/") else base + "/"


def read_url_map(path: str | Path) -> dict[str, str]:
    """A ``--url-map`` file: a JSON object of source (as ``groundkit`` names it) -> URL."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigurationError(f"--url-map {path}: no such file", subject=str(path)) from exc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigurationError(
            f"--url-map {path}: not a readable JSON file ({exc})", subject=str(path)
        ) from exc
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ConfigurationError(
            f'--url-map {path}: give a JSON object of source -> URL ({{"a/b.md": "/a/b/"}})',
            subject=str(path),
        )
    for url in data.values():
        _check_url(url, f"--url-map {path}:", fragment=True)
    return dict(data)


@dataclass(frozen=True)
class LinkSpec:
    """How a site links results to rendered pages: a rule over a base URL, or a map."""

    base: str | None = None
    """The URL the rule's paths are under (``--base-url``)."""
    rule: str | None = None
    """How a source names its page (``--url-rule``; None: the same path)."""
    url_map: Mapping[str, str] | None = None
    """Source -> URL, instead of a rule (``--url-map``)."""
    renders: Callable[[str], bool] | None = None
    """Which sources have a page (``sphinx-*``: read from conf.py, ``with_sources``); None:
    every source."""

    def with_sources(self, folder: Path) -> LinkSpec:
        """This spec for a build of ``folder``: under a ``sphinx-*`` rule, only the sources
        its ``conf.py`` says Sphinx renders link (``ConfigurationError`` if it cannot say)."""
        if self.rule is None or not self.rule.startswith("sphinx-"):
            return self
        from groundkit.site.sphinx_conf import read_sphinx_conf

        return dataclasses.replace(self, renders=read_sphinx_conf(folder).renders)

    @classmethod
    def from_options(
        cls,
        *,
        base_url: str | None = None,
        url_rule: str | None = None,
        url_map: str | Path | None = None,
    ) -> LinkSpec | None:
        """The spec the CLI's ``--base-url``/``--url-rule``/``--url-map`` ask for, checked
        before any work (None: no links)."""
        if url_map is not None:
            if base_url is not None or url_rule is not None:
                raise ConfigurationError(
                    "--url-map names every page's URL: give it without --base-url and --url-rule"
                )
            return cls(url_map=read_url_map(url_map))
        if base_url is None:
            if url_rule is not None:
                raise ConfigurationError(f"--url-rule {url_rule} needs --base-url")
            return None
        rule = url_rule or "same"
        if rule not in URL_RULES:
            raise ConfigurationError(
                f"--url-rule {rule}: choose one of {', '.join(URL_RULES)}", subject=rule
            )
        return cls(base=check_base_url(base_url), rule=rule)


def page_url(source: str, rule: str, base: str) -> str:
    """The URL of the page ``source`` (a ``/``-separated name) renders to under ``rule``."""
    if rule == "same":
        return base + quote(source)
    folder, name = posixpath.split(source)
    stem = posixpath.splitext(name)[0] if not name.startswith(".") else name
    prefix = f"{folder}/" if folder else ""
    if rule == "sphinx-html":
        path = f"{prefix}{stem}.html"
    elif (rule, stem) == ("sphinx-dirhtml", "index") or (
        rule == "mkdocs" and stem.lower() in ("index", "readme")
    ):
        path = prefix
    elif rule in ("sphinx-dirhtml", "mkdocs"):
        path = f"{prefix}{stem}/"
    else:
        raise ConfigurationError(f"unknown URL rule {rule!r}", subject=rule)
    return base + quote(path)


# docutils.nodes: letters it spells in ASCII before dropping what is left (a subset of its
# tables: the Latin letters with no decomposition), then [^a-z0-9]+ -> '-'.
_ID_LETTERS = str.maketrans(
    {"ß": "sz", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ħ": "h", "\u0131": "i", "ł": "l"}
)
_ID_RUNS = re.compile(r"[^a-z0-9]+")
_ID_ENDS = re.compile(r"^[-0-9]+|-+$")


def make_id(title: str) -> str:
    """docutils' ``nodes.make_id``: the id Sphinx gives a section titled ``title``."""
    text = title.lower().translate(_ID_LETTERS)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _ID_ENDS.sub("", _ID_RUNS.sub("-", " ".join(text.split())))


def _sphinx_slug(title: str) -> str:
    """``make_id`` of the title as docutils reads it: reST backslash escapes resolved
    (``QuerySet\\s`` is ``QuerySets``; an escaped space is nothing)."""
    return make_id(re.sub(r"\\(.)", lambda m: "" if m[1].isspace() else m[1], title))


def markdown_slug(title: str) -> str:
    """Python-Markdown's ``toc`` ``slugify`` (MkDocs' heading ids), before repeats are counted."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _sphinx_unique(ident: str, used: set[str]) -> str | None:
    """A repeated or empty id becomes docutils' ``idN``, whose N is not knowable here."""
    return None if not ident or ident in used else ident


def _markdown_unique(ident: str, used: set[str]) -> str | None:
    while ident in used or not ident:
        counted = re.match(r"^(.*)_([0-9]+)$", ident)
        ident = f"{counted[1]}_{int(counted[2]) + 1}" if counted else f"{ident}_1"
    return ident


_ANCHORS: dict[str, tuple[Callable[[str], str], Callable[[str, set[str]], str | None]]] = {
    "sphinx-dirhtml": (_sphinx_slug, _sphinx_unique),
    "sphinx-html": (_sphinx_slug, _sphinx_unique),
    "mkdocs": (markdown_slug, _markdown_unique),
}


def section_anchors(paths: Iterable[Sequence[str]], rule: str) -> dict[str, str]:
    """For each heading path of one document (its chunks' paths, in document order), the
    anchor a link to it takes: its innermost section's id, or its nearest enclosing section's
    where that id is unknown (an empty or repeated title under Sphinx, a path that names two
    sections). The document's first heading titles the page: its sections link to the page's
    top. Keys are the headings joined with U+001F; paths with no anchor are left out."""
    if rule not in _ANCHORS:
        return {}
    slug, unique = _ANCHORS[rule]
    ids: dict[tuple[str, ...], str | None] = {}
    used: set[str] = set()
    seen: list[tuple[str, ...]] = []
    current: tuple[str, ...] = ()
    for given in paths:
        path = tuple(given)
        seen.append(path)
        common = 0
        while common < min(len(path), len(current)) and path[common] == current[common]:
            common += 1
        for depth in range(common + 1, len(path) + 1):  # the sections this chunk opens
            section = path[:depth]
            if section in ids:  # opened again: two sections share this path
                ids[section] = None
                continue
            ident = unique(slug(section[-1]), used)
            if ident is not None:
                used.add(ident)
            ids[section] = ident
        current = path
    title = next((p[:1] for p in seen if p), None)
    anchors: dict[str, str] = {}
    for path in dict.fromkeys(seen):
        for depth in range(len(path), 0, -1):
            ident = ids.get(path[:depth])
            if path[:depth] == title:
                break
            if ident is not None:
                anchors[HEADING_JOIN.join(path)] = ident
                break
    return anchors


def links_table(
    spec: LinkSpec, documents: Iterable[Document], chunks: Iterable[Chunk]
) -> dict[str, Any]:
    """``links.json`` for a collection: each document's page URL and its sections' anchors.

    A ``url_map`` that names a source the collection lacks is refused (a wrong prefix or root,
    most likely); the collection's sources it leaves out get no link.
    """
    sources = {d.document_id: d.source for d in documents}
    pages: dict[str, dict[str, Any]] = {}
    if spec.url_map is not None:
        unknown = sorted(set(spec.url_map) - set(sources.values()))
        if unknown:
            raise ConfigurationError(
                f"--url-map names {len(unknown)} source(s) the collection does not hold: "
                f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''} (names are "
                "relative to the ingested folder, as `groundkit search` prints them)",
                subject=unknown[0],
            )
        pages = {s: {"url": u} for s, u in sorted(spec.url_map.items())}
    elif spec.rule is not None and spec.base is not None:
        from groundkit.retrieval.display import plain_text  # as the page shows headings

        paths: dict[str, list[tuple[str, ...]]] = {}
        for chunk in chunks:
            heading = chunk.metadata.get("heading_path", [])
            paths.setdefault(chunk.document_id, []).append(tuple(plain_text(h)[0] for h in heading))
        for doc_id, source in sorted(sources.items(), key=lambda item: item[1]):
            if spec.renders is not None and not spec.renders(source):
                continue  # a file Sphinx does not render (README.rst, requirements.txt)
            page: dict[str, Any] = {"url": page_url(source, spec.rule, spec.base)}
            anchors = section_anchors(paths.get(doc_id, []), spec.rule)
            if anchors:
                page["anchors"] = anchors
            pages[source] = page
    return {"format": LINKS_FORMAT, "rule": spec.rule, "base": spec.base, "pages": pages}


def write_links(
    out: Path, spec: LinkSpec | None, documents: Iterable[Document], chunks: Iterable[Chunk]
) -> dict[str, Any] | None:
    """Write ``links.json`` into the site folder ``out``; its ``site.json`` entry (None: no
    ``spec``, no links)."""
    if spec is None:
        return None
    table = links_table(spec, documents, chunks)
    (out / LINKS_JSON).write_text(
        json.dumps(table, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
    return {"url": LINKS_JSON, "rule": table["rule"], "pages": len(table["pages"])}
