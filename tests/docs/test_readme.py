"""The README stays short, its two set-up commands stay true, and help texts point to pages
that exist (the wheel ships no adr/ folder, so ``--help`` points to the docs instead)."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from snippets import REPO_ROOT, blocks
from test_snippets import run_shell

from groundkit.cli.app import build_parser

README = REPO_ROOT / "README.md"
DOCS_REFERENCE = re.compile(r"\bdocs: ([a-z0-9-]+(?:/[a-z0-9-]+)*)")


def setup_commands() -> list[str]:
    """The README's two set-up commands: the bash blocks under "Set-up on a fresh machine"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    start = text.index(section)
    first_line = text[:start].count("\n") + 1
    last_line = first_line + section.count("\n")
    found = [
        b.text.strip()
        for b in blocks(README)
        if b.language == "bash" and first_line <= b.line <= last_line
    ]
    assert len(found) == 2, found
    return found


def test_the_readme_is_at_most_150_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


def test_the_readme_links_to_files_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)\)", text)
    assert "docs/index.md" in targets
    assert [t for t in targets if not (REPO_ROOT / t).exists()] == []


def test_ci_runs_set_up_command_2_verbatim() -> None:
    command = setup_commands()[1]
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command.startswith("python3 -m pip install") and "tox run" in command
    # .ci/run adds only pip's quiet flags to the install
    assert command.replace("pip install", "pip install --quiet --disable-pip-version-check") in ci


@pytest.mark.subprocess
def test_set_up_command_1_installs_then_ingests_and_searches(tmp_path: Path) -> None:
    """Its last two steps, run with this installation's groundkit, exit 0 and verify."""
    steps = [step.strip() for step in setup_commands()[0].split("&&")]
    assert steps[:2] == ["python3 -m venv .venv", ".venv/bin/pip install ."]
    cli_steps = steps[2:]
    assert [shlex.split(s)[:2] for s in cli_steps] == [
        [".venv/bin/groundkit", "ingest"],
        [".venv/bin/groundkit", "search"],
    ]
    for step in cli_steps:
        done = run_shell(step.removeprefix(".venv/bin/"), tmp_path)
        assert done.returncode == 0, done.stderr
    assert "[verified]" in done.stdout and "[drifted]" not in done.stdout


def parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from parsers(sub)


def help_strings(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every text a parser's --help prints, before argparse wraps it."""
    yield from (parser.description or "", parser.epilog or "")
    for group in parser._action_groups:
        yield from (group.title or "", group.description or "")
    for action in parser._actions:
        yield str(action.help or "")


def test_help_texts_point_to_docs_pages_that_exist_and_never_to_adr() -> None:
    texts = [text for p in parsers(build_parser()) for text in help_strings(p)]
    assert not [t for t in texts if "adr/" in t], "the wheel ships no adr/: point to a docs page"
    references = {r for text in texts for r in DOCS_REFERENCE.findall(text)}
    assert references, "no help text points to the docs"
    missing = [r for r in sorted(references) if not (REPO_ROOT / "docs" / f"{r}.md").is_file()]
    assert not missing, missing


def preview_command() -> str:
    """The README's docs preview command (``pip install ... && mkdocs serve``)."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"`(pip install -e [^`]*&& mkdocs serve)`", text)
    assert found is not None, "the README names no docs preview command"
    return found.group(1)


def test_the_docs_preview_installs_what_the_docs_build_imports() -> None:
    """The preview installs the extras and packages of `tox -e docs` (the hooks import
    groundkit_serve and snowballstemmer; ruff formats signatures), so `mkdocs serve` starts."""
    import configparser

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO_ROOT / "tox.ini", encoding="utf-8")
    extras = tox["testenv:docs"]["extras"].split()
    test_only = ("pytest", "tox")  # tests/docs' own (test_toxfile.py loads tox's plugin)
    deps = [d for d in tox["testenv:docs"]["deps"].split() if not d.startswith(test_only)]
    words = shlex.split(preview_command().split("&&")[0])
    editable = words[words.index("-e") + 1]
    assert editable.startswith(".[") and set(editable[2:-1].split(",")) >= set(extras), editable
    names = {re.split(r"[<>=]", word)[0] for word in words[words.index("-e") + 2 :]}
    assert names >= {re.split(r"[<>=]", d)[0] for d in deps}, (names, deps)


def _ci_run() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ci_run", REPO_ROOT / "bench" / "ci_run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_clean_clone_figure_is_the_recorded_one_in_both_pages() -> None:
    """README.md and development.md quote bench/results/ci_run.json's run, word for word, with
    its machine and load (bench/ci_run.py records a run and rewrites both)."""
    import json

    ci_run = _ci_run()
    record = json.loads((REPO_ROOT / "bench" / "results" / "ci_run.json").read_text("utf-8"))
    wanted = " ".join(ci_run.sentence(record).split())
    for page in ci_run.PAGES:
        assert ci_run.quoted(page) == wanted, (
            f"{page.name} quotes another clean-clone run than bench/results/ci_run.json: run "
            "`python3 bench/ci_run.py` (or --from-log) to record one and rewrite both pages"
        )
    assert record["conditions"] and record["machine"]["cores"]


def test_the_recorder_reads_tox_s_report() -> None:
    log = (
        "  core: OK (52.31=setup[10.20]+cmd[42.11] seconds)\n"
        "  ray: FAIL code 1 (70.02=setup[60.00]+cmd[10.02] seconds)\n"
        "  lint: OK (1.90=setup[0.50]+cmd[1.40] seconds)\n"
        "  evaluation failed :( (504.12 seconds)\n"
    )
    assert _ci_run().environments(log) == {"core": 52.31, "ray": 70.02, "lint": 1.90}
