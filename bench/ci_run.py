"""Time `CI=true bash .ci/run` and record it in bench/results/ci_run.json, the one source of the
clean-clone figure that README.md and docs/development.md quote (issue 42.5).

    python3 bench/ci_run.py                      # run .ci/run here, record, rewrite the docs
    python3 bench/ci_run.py --from-log tox.log --seconds 504   # record a run already made
    python3 bench/ci_run.py --check              # do the docs quote the recorded run?

The record names the commit, the date, the machine (cores, CPU model) and its load (the 1-minute
load average before and after), and each tox environment's seconds from tox's own report. The
sentence both pages carry is ``sentence(record)``; tests/docs/test_readme.py fails when either
page's sentence differs from the one the record gives. Run it on a fresh clone with warm pip and
npm caches and chromium installed, on an otherwise idle machine, and say so with ``--conditions``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "bench" / "results" / "ci_run.json"
PAGES = (ROOT / "README.md", ROOT / "docs" / "development.md")
DEFAULT_CONDITIONS = (
    "this project's 2-core machine with its pip and npm caches warm and chromium already "
    "installed, the machine otherwise idle"
)
_ENV = re.compile(r"^\s*([\w.-]+): (?:OK|FAIL|SKIP)[^(\n]*\(([\d.]+)(?:=|\s)", re.M)
_TOTAL = re.compile(r"(?:congratulations :\)|evaluation failed :\() \(([\d.]+) seconds\)")
_SENTENCE = re.compile(r"A fresh clone ran `CI=true bash \.ci/run`.*?;", re.S)


def environments(log: str) -> dict[str, float]:
    """Each tox environment's seconds, from the report tox prints at the end of ``tox run``."""
    return {name: float(seconds) for name, seconds in _ENV.findall(log)}


def sentence(record: dict[str, Any]) -> str:
    """The sentence README.md and development.md quote, from a ``ci_run.json`` record."""
    total = round(record["seconds"])
    envs = sorted(record["environments"].items(), key=lambda item: (-item[1], item[0]))
    parts = ", ".join(f"{name} {round(seconds)} s" for name, seconds in envs)
    load = record.get("load")
    measured = "" if load is None else (
        f", 1-minute load {load['before']:.1f} before, {load['after']:.1f} after"
    )  # fmt: skip
    return (
        f"A fresh clone ran `CI=true bash .ci/run` in {total // 60} min {total % 60} s ({total} s) "
        f"at {record['commit']} on {record['date']} ({parts}), on {record['conditions']} "
        f"({record['machine']['cores']} cores, {record['machine']['cpu']}{measured});"
    )


def _flat(text: str) -> str:
    return " ".join(text.split())


def quoted(page: Path) -> str | None:
    """The run sentence a page carries (whitespace flattened), if any."""
    found = _SENTENCE.search(page.read_text("utf-8"))
    return None if found is None else _flat(found.group(0))


def rewrite(page: Path, record: dict[str, Any]) -> None:
    """Replace the page's run sentence by the record's, wrapped as the page wraps text."""
    text = page.read_text("utf-8")
    found = _SENTENCE.search(text)
    if found is None:
        raise SystemExit(f"{page}: no sentence starting 'A fresh clone ran' to replace")
    line_start = text.rfind("\n", 0, found.start()) + 1
    indent = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
    first = text[line_start : found.start()].strip() != ""  # the sentence starts a line
    # break between words, never inside "504 s" or "8 min"
    words, lines, line = re.split(r" (?!(?:s|min)\b)", sentence(record)), [], ""
    for word in words:
        if line and len(indent) + len(line) + 1 + len(word) > 96:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    wrapped = ("\n" + indent if first else "") + f"\n{indent}".join(lines)
    before = text[: found.start()].rstrip(" ") if first else text[: found.start()]
    page.write_text(before + wrapped + text[found.end() :], "utf-8")


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = " ".join(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": cpu, "system": platform.platform(terse=True)}


def record_run(
    log: str, seconds: float, before: float, after: float, conditions: str
) -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    found = _TOTAL.search(log)
    return {
        "command": "CI=true bash .ci/run",
        "recorded_by": "python3 bench/ci_run.py",
        "commit": commit,
        "date": datetime.now(UTC).date().isoformat(),
        "seconds": round(seconds, 1),
        "tox_seconds": float(found.group(1)) if found else None,
        "environments": environments(log),
        "machine": machine(),
        "load": {"before": round(before, 2), "after": round(after, 2)},
        "conditions": conditions,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-log", type=Path, help="record a run already made: tox's output")
    parser.add_argument("--seconds", type=float, help="with --from-log: the run's wall time")
    parser.add_argument("--conditions", default=DEFAULT_CONDITIONS, help="machine and load")
    parser.add_argument("--check", action="store_true", help="only check the docs' sentence")
    parser.add_argument("--no-docs", action="store_true", help="record without rewriting docs")
    args = parser.parse_args()
    if args.check:
        wanted = _flat(sentence(json.loads(RESULT.read_text("utf-8"))))
        stale = [str(page) for page in PAGES if quoted(page) != wanted]
        print("\n".join(stale) or "the docs quote bench/results/ci_run.json")
        return 1 if stale else 0
    before = os.getloadavg()[0]
    if args.from_log:
        log = args.from_log.read_text("utf-8")
        seconds = args.seconds or float(_TOTAL.search(log).group(1))  # type: ignore[union-attr]
    else:
        started = time.monotonic()
        done = subprocess.run(
            ["bash", ".ci/run"], cwd=ROOT, env={**os.environ, "CI": "true"},
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        seconds, log = time.monotonic() - started, done.stdout + done.stderr
        sys.stdout.write(log[-3000:])
        if done.returncode != 0:
            print(f"\n.ci/run failed (exit {done.returncode}); nothing recorded", file=sys.stderr)
            return done.returncode
    record = record_run(log, seconds, before, os.getloadavg()[0], args.conditions)
    RESULT.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    if not args.no_docs:
        for page in PAGES:
            rewrite(page, record)
    print(sentence(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
