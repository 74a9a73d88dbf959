"""What the benches over one stored collection share: their arguments and their report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def collection_parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser whose --help is ``doc``, with ``--index-dir`` and ``--collection``."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index-dir", required=True, help="folder holding the collection")
    parser.add_argument("--collection", default="default", help="its name (default: default)")
    return parser


def emit(report: dict[str, Any], out: str | None) -> None:
    """Write ``report`` as JSON to ``out``, or print it where there is none."""
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if out:
        Path(out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
