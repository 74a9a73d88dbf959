"""ONNX cross-encoder reranker: (query, passage) pairs -> one logit each -> ``rerank_by_logits``.

A model directory holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask``, optionally
``token_type_ids``; output [batch, 1] or [batch, labels] logits) and ``tokenizer.json``; an
optional ``groundkit.json`` may set ``max_length`` (default 512), ``label`` (the logit column,
default 0) and ``output`` (default: the first output). Pairs longer than ``max_length`` are
truncated, longest side first, so the query survives a long passage.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundkit.extend import ConfigurationError, SearchResult, rerank_by_logits
from groundkit_native._runtime import default_device, default_threads, load_tokenizer, make_session

__all__ = ["OnnxCrossEncoder"]

_KNOWN = {"max_length", "label", "output", "name"}


class OnnxCrossEncoder:
    """A ``Reranker`` scoring each candidate with a cross-encoder, in batches."""

    def __init__(
        self,
        model: str | Path,
        tokenizer: str | Path,
        *,
        max_length: int = 512,
        label: int = 0,
        output: str = "",
        batch_size: int = 16,
        device: str | None = None,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1 or max_length < 4:
            raise ConfigurationError("batch_size must be >= 1 and max_length >= 4")
        self.max_length = max_length
        self.label = label
        self.batch_size = batch_size
        self._session = make_session(
            Path(model),
            device=device or default_device(),
            threads=default_threads() if threads is None else threads,
        )
        self._tokenizer = load_tokenizer(Path(tokenizer), max_length=max_length)
        self._inputs = {i.name for i in self._session.get_inputs()}
        outputs = [o.name for o in self._session.get_outputs()]
        if output and output not in outputs:
            raise ConfigurationError(f"{model} has no output {output!r} ({', '.join(outputs)})")
        self._output = output or outputs[0]

    @classmethod
    def from_dir(cls, directory: str | Path, **options: Any) -> OnnxCrossEncoder:
        """The cross-encoder in ``directory`` (``model.onnx``, ``tokenizer.json``)."""
        root = Path(directory)
        if not root.is_dir():
            raise ConfigurationError(f"reranker folder {root} does not exist", subject=str(root))
        settings: dict[str, Any] = {}
        config = root / "groundkit.json"
        if config.is_file():
            try:
                settings = json.loads(config.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ConfigurationError(f"{config} is not valid JSON: {exc}") from None
            unknown = sorted(set(settings) - _KNOWN)
            if unknown:
                raise ConfigurationError(f"{config}: unknown field(s) {', '.join(unknown)}")
            settings.pop("name", None)
        return cls(root / "model.onnx", root / "tokenizer.json", **{**settings, **options})

    def encode(self, query: str, passages: Sequence[str]) -> dict[str, Any]:
        """The model's inputs for (query, passage) pairs (truncated, padded to the longest)."""
        import numpy as np

        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        feed = {
            "input_ids": ids,
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        }
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        return feed

    def logits(self, query: str, passages: Sequence[str]) -> list[float]:
        """One logit per passage, in input order."""
        import numpy as np

        out: list[float] = []
        for start in range(0, len(passages), self.batch_size):
            feed = self.encode(query, passages[start : start + self.batch_size])
            raw = np.asarray(self._session.run([self._output], feed)[0], dtype=np.float64)
            column = raw.reshape(len(feed["input_ids"]), -1)[:, self.label]
            out.extend(float(x) for x in column)
        return out

    def rerank(self, query: str, results: Sequence[SearchResult], top_k: int) -> list[SearchResult]:
        if not results:
            return []
        return rerank_by_logits(results, self.logits(query, [r.content for r in results]))[:top_k]
