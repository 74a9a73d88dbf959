"""Every code snippet of README.md and docs/ runs (or parses) as the page shows it.

Collected only by ``tox run -e docs`` (``pytest tests/docs``); see ``snippets.py`` for the
convention that marks the blocks which must not run here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from snippets import (
    REPO_ROOT,
    RUN_LANGUAGES,
    Block,
    blocks,
    documentation_pages,
    runnable,
    shell_commands,
)

from groundkit import sample_corpus

PAGES = [page for page in documentation_pages() if runnable(page)]
BIN = Path(sys.executable).parent


def page_id(page: Path) -> str:
    return str(page.relative_to(REPO_ROOT))


@pytest.fixture(scope="session")
def sample_collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``.groundkit``, the bundled sample ingested once by the CLI, and a copy
    of the sample as ``docs/``, the folder the pages' examples ingest."""
    folder = tmp_path_factory.mktemp("sample")
    shutil.copytree(sample_corpus(), folder / "docs")
    done = run_shell("groundkit ingest sample", folder)
    assert done.returncode == 0, done.stderr
    return folder


def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    environment["NO_COLOR"] = "1"
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def check_shell(block: Block, cwd: Path) -> None:
    commands = shell_commands(block)
    assert commands, f"{block.where}: a shell block with no command (mark it docs-test: skip)"
    for command in commands:
        assert command.split(" ", 1)[0] == "groundkit", (
            f"{block.where}: only groundkit commands run here; mark the block "
            f"<!-- docs-test: skip (REASON) --> if {command!r} must not run"
        )
        done = run_shell(command, cwd)
        assert done.returncode == block.exit_code, (
            f"{block.where}: `{command}` exited {done.returncode}, not {block.exit_code}\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )


def check_python(block: Block, namespace: dict[str, object]) -> None:
    code = compile(block.text, block.where, "exec")
    exec(code, namespace)


@pytest.mark.subprocess
@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_snippet_of_the_page_runs(
    page: Path, sample_collection: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workdir = tmp_path / "work"
    shutil.copytree(sample_collection, workdir)
    monkeypatch.chdir(workdir)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in runnable(page):
        if block.language == "python":
            check_python(block, namespace)
        elif block.language == "json":
            json.loads(block.text)
        else:
            check_shell(block, workdir)


def test_the_convention_finds_blocks_of_every_kind() -> None:
    """The parser sees the tutorial's Python and console blocks and honours skip markers."""
    page = REPO_ROOT / "docs" / "tutorial" / "ingest-and-search.md"
    found = runnable(page)
    assert {b.language for b in found} >= {"python", "console"}
    assert any(b.skip for b in __import__("snippets").blocks(page))
    assert all(b.skip is None for b in found)


HOW_TO_SKIPPED = [
    block
    for page in sorted((REPO_ROOT / "docs" / "how-to").glob("*.md"))
    for block in blocks(page)
    if block.skip is not None and block.language in RUN_LANGUAGES
]


@pytest.mark.parametrize("block", HOW_TO_SKIPPED, ids=lambda block: block.where)
def test_each_how_to_block_left_out_says_why(block: Block) -> None:
    """The how-to blocks the page test does not run (every other one runs above, offline), each
    with its reason, listed by ``pytest -rs tests/docs``."""
    assert block.skip != "no reason given", f"{block.where}: say why it cannot run here"
    pytest.skip(f"{block.where} not run: {block.skip}")


def test_the_mcp_config_serves_a_collection_the_tutorial_creates() -> None:
    """The serving how-to's MCP client configuration names only a collection that a documented
    step makes: the tutorial's ``groundkit ingest`` lines (``default`` without --collection)."""
    tutorial = REPO_ROOT / "docs" / "tutorial" / "ingest-and-search.md"
    created = set()
    for block in runnable(tutorial):
        for command in shell_commands(block) if block.language != "python" else []:
            words = command.split()
            if words[:2] == ["groundkit", "ingest"]:
                at = words.index("--collection") + 1 if "--collection" in words else None
                created.add(words[at] if at else "default")
    page = REPO_ROOT / "docs" / "how-to" / "serving.md"
    configs = [json.loads(b.text) for b in runnable(page) if b.language == "json"]
    servers = [s for c in configs for s in c.get("mcpServers", {}).values() if "args" in s]
    assert servers, "the serving how-to shows no MCP client configuration"
    for server in servers:
        args = server["args"]
        wanted = args[args.index("--collection") + 1] if "--collection" in args else "default"
        assert wanted in created, f"--collection {wanted}: no documented step creates it"
