"""The fenced code blocks of the documentation (README.md and docs/), and how each is checked.

Convention, for whoever writes a page:

- ```` ```python ```` blocks run, in the order of the page, in one namespace per page;
- ```` ```console ```` blocks run their ``$ groundkit ...`` lines (other lines are output);
  ```` ```bash ```` blocks run every line; a shell command must start with ``groundkit``;
- ```` ```json ```` blocks must parse;
- a block is left out with ``<!-- docs-test: skip (REASON) -->`` on the line before its fence
  (a server, Ray, a GPU, a model download, a package install), and a shell block whose
  commands must fail says so with ``<!-- docs-test: exit N -->``.

Every page runs in a temporary folder holding a collection of the bundled sample
(``.groundkit``, as ``groundkit ingest sample`` writes it) and a copy of the sample as ``docs/``.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_LANGUAGES = {"python", "console", "bash", "sh", "shell", "json"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<info>[^`\n]*)$")
MARKER = re.compile(r"^\s*<!-- docs-test: (?P<what>skip|exit)\b ?(?P<argument>.*?) ?-->\s*$")


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block: where it is, its language, its text (dedented), and its marker."""

    path: Path
    line: int
    language: str
    text: str
    skip: str | None
    exit_code: int

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO_ROOT)}:{self.line}"


def documentation_pages() -> list[Path]:
    """README.md and every Markdown page of docs/, sorted."""
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a page, with the marker on the line before each, if any."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        language = opening["info"].strip().split(" ")[0].lstrip(".").lower()
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        inside = lines[index + 1 : end]
        body = textwrap.dedent("\n".join(line.removeprefix(indent) for line in inside))
        marker = MARKER.match(lines[index - 1]) if index else None
        skip = None
        if marker and marker["what"] == "skip":
            skip = marker["argument"] or "no reason given"
        exit_code = int(marker["argument"]) if marker and marker["what"] == "exit" else 0
        found.append(Block(path, index + 1, language, body, skip, exit_code))
        index = end + 1
    return found


def runnable(path: Path) -> list[Block]:
    """The blocks of a page that the docs test runs or parses."""
    return [b for b in blocks(path) if b.language in RUN_LANGUAGES and b.skip is None]


def shell_commands(block: Block) -> list[str]:
    """The commands of a console block (``$ `` lines) or a bash block (every line), with
    backslash continuations joined."""
    commands: list[str] = []
    pending = ""
    prompt = block.language == "console"
    for raw in block.text.splitlines():
        line = raw.rstrip()
        if not pending:
            if prompt:
                if not line.startswith("$ "):
                    continue  # output
                line = line[2:]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append((pending + line).strip())
        pending = ""
    return commands
