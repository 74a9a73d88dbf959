"""MkDocs hook: the reference pages that are generated at build time, so they cannot drift.

A page asks for generated text with an HTML comment on a line of its own,
``<!-- generated: NAME [ARGUMENT] -->``; ``on_page_markdown`` replaces it:

- ``cli``: every command's and subcommand's ``--help``, from the argparse parser itself;
- ``python-api MODULE``: a mkdocstrings block for each name in ``MODULE.__all__``;
- ``openapi`` and ``mcp-tools``: the service's OpenAPI document and tool list, from
  ``groundkit_serve`` (the ``serve`` extra must be installed);
- ``bench-results``: one section per file of ``bench/results``;
- ``adr-index``: the decision records, which ``on_files`` adds to the site as pages ``adr/*``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- generated: ([a-z-]+)(?: (\S+))? -->$", re.MULTILINE)
HELP_WIDTH = "100"
JSON_PREVIEW_LINES = 120


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each ADR of ``adr/`` as the page ``adr/NAME.md``."""
    for record in sorted((ROOT / "adr").glob("[0-9]*.md")):
        files.append(
            File.generated(config, f"adr/{record.name}", content=record.read_text("utf-8"))
        )
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Replace every ``<!-- generated: ... -->`` marker of a page with its text."""

    def expand(match: re.Match[str]) -> str:
        name, argument = match.group(1), match.group(2)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_uri}: unknown generated block {name!r}")
        return GENERATORS[name](argument)

    return MARKER.sub(expand, markdown)


# ---------- the CLI ----------


def _parsers(
    parser: argparse.ArgumentParser, name: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every sub-parser below it, depth first, in the order --help lists them."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def cli_reference(_: str | None) -> str:
    from groundkit.cli.app import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH  # argparse wraps to the terminal's width
    try:
        sections = []
        for name, parser in _parsers(build_parser(), "groundkit"):
            level = "##" if name.count(" ") <= 1 else "###"
            sections.append(f"{level} `{name}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return "\n".join(sections)


# ---------- the Python API ----------


def python_api(module_name: str | None) -> str:
    if module_name is None:
        raise ValueError("python-api needs a module name")
    module = importlib.import_module(module_name)
    names: list[str] = list(module.__all__)
    if module_name == "groundkit":  # the order a program meets them; the rest as __all__ has it
        names.sort(key=lambda name: API_ORDER.index(name) if name in API_ORDER else len(API_ORDER))
    return "\n".join(f"::: {module_name}.{name}\n" for name in names)


API_ORDER = [
    # the first program: ingest, search, read the results, check them
    "ingest",
    "sample_corpus",
    "Searcher",
    "SearchResponse",
    "SearchResult",
    "Citation",
    "Verification",
    "verify_citation",
    "verify_collection",
    "CollectionVerification",
    "snippet",
    "Snippet",
    # asking for more: the request and its options
    "SearchRequest",
    "SearchMode",
    "SearchFilter",
    "HybridOptions",
    "RerankOptions",
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    # what ingest and the collection tools report
    "IngestReport",
    "IngestProgress",
    "IngestSettings",
    "ChunkerSettings",
    "list_sources",
    "SourceRoot",
    "remove_sources",
    "RemoveReport",
    "relocate_sources",
    "RelocateReport",
    "check_collection",
    "resolve_citation",
    # hosting stored collections: a service, a shard engine (adr/0067)
    "StoredCollection",
    "list_collections",
    "DEFAULT_INDEX_DIR",
    "DEFAULT_COLLECTION",
    # errors, most common first
    "GroundkitError",
    "CollectionNotFoundError",
    "InvalidQueryError",
    "ConfigurationError",
    "IngestionError",
]
"""The Python API page's order for ``groundkit``: what a first program needs first."""


# ---------- the service ----------


def _registry() -> Any:
    from groundkit_serve import Registry, Runtime, ServeSettings

    return Registry(Runtime(ServeSettings()))


def openapi_reference(_: str | None) -> str:
    from groundkit_serve.rest import openapi

    document = openapi(_registry())
    rows = ["| method | path | summary |", "|---|---|---|"]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            rows.append(f"| `{method.upper()}` | `{path}` | {operation.get('summary', '')} |")
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return "\n".join(
        [
            *rows,
            "",
            f'??? note "The OpenAPI {document["openapi"]} document (`GET /openapi.json`)"',
            "",
            "    ```json",
            *(f"    {line}" for line in text.splitlines()),
            "    ```",
            "",
        ]
    )


def mcp_tools(_: str | None) -> str:
    registry = _registry()
    sections = []
    for spec in registry.tools.values():
        schema = json.dumps(spec.request.model_json_schema(), indent=2, ensure_ascii=False)
        sections.extend(
            [
                f"### `{spec.name}`",
                "",
                f"**{spec.title}.** {spec.description}",
                "",
                f'??? note "Arguments (JSON Schema of `{spec.request.__name__}`)"',
                "",
                "    ```json",
                *(f"    {line}" for line in schema.splitlines()),
                "    ```",
                "",
            ]
        )
    return "\n".join(sections)


# ---------- bench/results ----------


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """A Markdown table of the scalar columns of a list of JSON objects."""
    columns: list[str] = []
    for row in rows:
        for key, value in row.items():
            if key not in columns and not isinstance(value, (dict, list)):
                columns.append(key)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [str(row.get(column, "")).replace("|", "\\|") for column in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _tables(document: Any) -> list[str]:
    """Tables for the top-level lists of flat objects of a JSON result (``rows``, ...)."""
    found: list[str] = []
    if isinstance(document, dict):
        for key, value in document.items():
            if (
                isinstance(value, list)
                and value
                and all(isinstance(item, dict) for item in value)
                and len(value) <= 60
            ):
                found.extend([f"`{key}`:", "", *_table(value), ""])
    return found


def _summary(document: Any) -> list[str]:
    if not isinstance(document, dict):
        return []
    scalars = {k: v for k, v in document.items() if not isinstance(v, (dict, list))}
    return [f"- `{key}`: {value}" for key, value in scalars.items()] + [""] if scalars else []


def _indented(lines: list[str]) -> list[str]:
    return [f"    {line}" if line else "" for line in lines]


def bench_results(_: str | None) -> str:
    out: list[str] = []
    for path in sorted((ROOT / "bench" / "results").iterdir()):
        if path.suffix not in {".json", ".txt", ".md"}:
            continue
        text = path.read_text("utf-8")
        out.extend([f"### {path.name}", ""])
        if path.suffix == ".json":
            document = json.loads(text)
            body = _summary(document) + _tables(document)
            pretty = json.dumps(document, indent=1, ensure_ascii=False).splitlines()
            shown = pretty[:JSON_PREVIEW_LINES]
            if len(pretty) > len(shown):
                shown.append(f"... ({len(pretty) - len(shown)} more lines in the file)")
            out.extend(body)
            out.extend([f'??? note "{path.name}"', "", "    ```json"])
            out.extend(_indented(shown))
            out.extend(["    ```", ""])
        elif path.suffix == ".md":
            out.extend([text, ""])
        else:
            out.extend(["```text", text.rstrip(), "```", ""])
    return "\n".join(out)


# ---------- the decision records ----------


def adr_index(_: str | None) -> str:
    lines = []
    for record in sorted((ROOT / "adr").glob("[0-9]*.md")):
        title = record.read_text("utf-8").splitlines()[0].lstrip("# ").strip()
        lines.append(f"- [{title}]({record.name})")
    return "\n".join(lines)


GENERATORS = {
    "cli": cli_reference,
    "python-api": python_api,
    "openapi": openapi_reference,
    "mcp-tools": mcp_tools,
    "bench-results": bench_results,
    "adr-index": adr_index,
}
