"""Reading a BEIR-layout dataset: corpus.jsonl[.gz], queries.jsonl, qrels/<split>.tsv."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from groundkit.errors import ConfigurationError

__all__ = ["BeirDataset", "CorpusDocument"]


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    doc_id: str
    title: str
    text: str

    @property
    def flat(self) -> str:
        """Title and text as one document ("flat", as BEIR and Anserini index them)."""
        return f"{self.title}\n\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class BeirDataset:
    root: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @classmethod
    def load(cls, root: str | Path, split: str = "test") -> BeirDataset:
        folder = Path(root)
        qrels_path = folder / "qrels" / f"{split}.tsv"
        for needed in (folder / "queries.jsonl", qrels_path):
            if not needed.is_file():
                raise ConfigurationError(
                    f"{folder} is not a BEIR dataset: {needed.name} is missing (expected "
                    "corpus.jsonl[.gz], queries.jsonl and qrels/test.tsv)",
                    subject=str(folder),
                )
        cls._corpus_path(folder)
        qrels: dict[str, dict[str, int]] = {}
        with open(qrels_path, encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                fields = line.rstrip("\n").split("\t")
                if number == 0 and fields[0] == "query-id":
                    continue
                if len(fields) != 3:
                    raise ConfigurationError(
                        f"{qrels_path}:{number + 1}: expected query-id, corpus-id, score",
                        subject=str(qrels_path),
                    )
                qrels.setdefault(fields[0], {})[fields[1]] = int(fields[2])
        queries: dict[str, str] = {}
        for record in _records(folder / "queries.jsonl"):
            if str(record["_id"]) in qrels:
                queries[str(record["_id"])] = str(record["text"])
        return cls(folder, queries, qrels)

    @staticmethod
    def _corpus_path(folder: Path) -> Path:
        for name in ("corpus.jsonl", "corpus.jsonl.gz"):
            if (folder / name).is_file():
                return folder / name
        raise ConfigurationError(
            f"{folder} has no corpus.jsonl or corpus.jsonl.gz", subject=str(folder)
        )

    def corpus(self) -> Iterator[CorpusDocument]:
        for record in _records(self._corpus_path(self.root)):
            yield CorpusDocument(
                str(record["_id"]), str(record.get("title") or ""), str(record.get("text") or "")
            )


def _open_text(path: Path) -> IO[str]:
    """A text handle on ``path``, decompressing ``.gz`` files."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ConfigurationError(
                        f"{path}:{number}: not valid JSON ({exc.msg})", subject=str(path)
                    ) from None
