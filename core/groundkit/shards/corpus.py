"""A JSONL corpus as a folder of text files, so every passage cites a file ``verify`` re-reads.

Each line is an object with an id (``_id`` or ``id``) and ``text`` (and optionally ``title``,
put first as its own paragraph, as the BEIR loader does). File names derive from the id alone
(a readable part and a hash), so rebuilding writes the same sources.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError

__all__ = ["corpus_source", "file_name_for", "jsonl_to_folder", "read_jsonl", "write_records"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def file_name_for(record_id: str) -> str:
    """``<readable id>-<8 hex of sha256(id)>.txt``: unique, stable, safe on every filesystem."""
    readable = _UNSAFE.sub("_", record_id).strip("._")[:80] or "doc"
    digest = hashlib.sha256(record_id.encode("utf-8")).hexdigest()[:8]
    return f"{readable}-{digest}.txt"


def text_of(record: Mapping[str, Any], where: str) -> tuple[str, str]:
    """(id, text) of one JSONL record; ``ConfigurationError`` naming the line when malformed."""
    record_id = record.get("_id", record.get("id"))
    text = record.get("text")
    if record_id is None or not isinstance(text, str):
        raise ConfigurationError(
            f"{where}: a corpus record needs an '_id' (or 'id') and a string 'text'", subject=where
        )
    title = record.get("title")
    if isinstance(title, str) and title.strip():
        text = f"{title.strip()}\n\n{text}"
    return str(record_id), text


def write_records(records: Iterable[Mapping[str, Any]], folder: Path, where: str) -> int:
    """Write each record as a file under ``folder`` (unchanged files are left alone)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for record in records:
        record_id, text = text_of(record, where)
        path = folder / file_name_for(record_id)
        data = text.encode("utf-8")
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        written += 1
    return written


def read_jsonl(path: Path) -> Iterable[dict[str, Any]]:
    """The records of a JSONL file, one per non-empty line."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError as exc:
                    raise ConfigurationError(
                        f"{path}:{number}: not a JSON object ({exc})", subject=str(path)
                    ) from None


def jsonl_to_folder(jsonl: str | Path, folder: str | Path) -> int:
    """Write every record of a JSONL corpus as a file under ``folder``; returns how many."""
    return write_records(read_jsonl(Path(jsonl)), Path(folder), str(jsonl))


def corpus_source(path: str | Path, corpus_dir: str | Path | None) -> Path:
    """The folder to ingest: ``path`` itself, or a ``.jsonl`` corpus's folder of files, which
    must be named (citations are re-checked against those files)."""
    given = Path(path)
    if given.suffix != ".jsonl" or not given.is_file():
        return given
    if corpus_dir is None:
        raise ConfigurationError(
            f"{given} is a JSONL corpus: give --corpus-dir (corpus_dir=), the folder its records "
            "are written to as files (citations are re-checked against them)",
            subject=str(given),
        )
    return Path(corpus_dir)
