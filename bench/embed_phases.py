"""Where an ONNX embedding batch spends its time: tokenizing, the session's run, pooling.

    python bench/embed_phases.py --model-dir DIR --device cuda --batches 32 128

The first ``--docs`` SciFact abstracts go through groundkit's ``OnnxEmbedder`` phase by phase,
in its length-sorted batches; each phase's total is reported in seconds, and pooling twice: as
the embedder pools (one batched matrix product) and as it pooled before (mask times hidden
states, summed over tokens), so that the two can be compared on the same hidden states.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundkit_native.onnx_embedder import OnnxEmbedder


def corpus(path: Path, n: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        docs = [json.loads(line) for _, line in zip(range(n), handle, strict=False)]
    return [f"{doc.get('title', '')}\n\n{doc.get('text', '')}" for doc in docs]


def pool_product(hidden: Any, mask: Any) -> Any:
    weights = mask.astype(np.float32)
    summed = np.matmul(weights[:, None, :], hidden)[:, 0, :]
    return summed / np.clip(weights.sum(axis=1, keepdims=True), 1e-9, None)


def pool_elementwise(hidden: Any, mask: Any) -> Any:
    weights = mask[..., None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


def phases(embedder: OnnxEmbedder, texts: list[str]) -> dict[str, float]:
    spent = dict.fromkeys(["tokenize", "run", "pool_product", "pool_elementwise"], 0.0)
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    for start in range(0, len(order), embedder.batch_size):
        batch = [texts[i] for i in order[start : start + embedder.batch_size]]
        clock = time.perf_counter()
        encodings = embedder._tokenizer.encode_batch(batch)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        feed = {k: v for k, v in feed.items() if k in embedder._inputs}
        spent["tokenize"] += time.perf_counter() - clock
        clock = time.perf_counter()
        hidden = embedder._session.run([embedder._output], feed)[0]
        spent["run"] += time.perf_counter() - clock
        for name, pool in (("pool_product", pool_product), ("pool_elementwise", pool_elementwise)):
            clock = time.perf_counter()
            pool(hidden.astype(np.float32, copy=False), mask)
            spent[name] += time.perf_counter() - clock
    return {k: round(v, 3) for k, v in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/beir/scifact/corpus.jsonl.gz")
    parser.add_argument("--docs", type=int, default=5183)
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 128])
    args = parser.parse_args()
    texts = corpus(Path(args.data), args.docs)
    for batch in args.batches:
        embedder = OnnxEmbedder.from_dir(args.model_dir, device=args.device, batch_size=batch)
        phases(embedder, texts[: batch * 2])  # warm-up: sessions settle on their first shapes
        print(f"{Path(args.model_dir).name} batch {batch}: {phases(embedder, texts)} seconds")


if __name__ == "__main__":
    main()
