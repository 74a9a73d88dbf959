"""A tiny random-weight BERT (1 layer, 2 heads, 16 wide) as ONNX, and a WordPiece tokenizer.

No cross-encoder or encoder weights can be had offline, so the native tests build one: the
plumbing (tokenizing pairs, truncation, batching, pooling, logits) is what they check.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as h
from onnx import numpy_helper as nh
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

WORDS = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "water",
    "main",
    "leak",
    "burst",
    "report",
    "pipe",
    "pressure",
    "meter",
    "bill",
    "customer",
    "crew",
    "repair",
    "boil",
    "notice",
    "chlorine",
    "quality",
    "service",
    "street",
    "valve",
    "flow",
    "hydrant",
]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def write_tokenizer(path: Path) -> None:
    vocab = {token: i for i, token in enumerate(SPECIAL + WORDS + ["##s", "##ing", "##ed"])}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.save(str(path))


def write_model(
    path: Path, *, head: str, seed: int = 7, positions: int = 64, width: int = 16
) -> None:
    """``head``: ``classifier`` (logits [B, 1]) or ``encoder`` (last_hidden_state [B, S, D])."""
    rng = np.random.default_rng(seed)
    vocab = len(SPECIAL) + len(WORDS) + 3
    heads, hd = 2, width // 2
    inits: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def init(name: str, arr: np.ndarray) -> str:
        inits.append(nh.from_array(np.ascontiguousarray(arr), name))
        return name

    def w(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    def n(op: str, ins: list[str], out: str | None = None, **kw: object) -> str:
        name = out or f"{op}_{len(nodes)}"
        nodes.append(h.make_node(op, ins, [name], **kw))
        return name

    def lin(x: str, a: int, b: int) -> str:
        return n(
            "Add", [n("MatMul", [x, init(f"W{len(inits)}", w(a, b))]), init(f"b{len(inits)}", w(b))]
        )

    def ln(x: str) -> str:
        gamma = init(f"g{len(inits)}", np.ones(width, np.float32))
        beta = init(f"z{len(inits)}", np.zeros(width, np.float32))
        return n("LayerNormalization", [x, gamma, beta], epsilon=1e-12, axis=-1)

    init("zero1", np.array([0], np.int64))
    init("ax12", np.array([1, 2], np.int64))
    init("f1", np.array(1.0, np.float32))
    init("fneg", np.array(-1e4, np.float32))
    init("scale", np.array(1 / np.sqrt(hd), np.float32))
    init("shp_heads", np.array([0, 0, heads, hd], np.int64))
    init("shp_merge", np.array([0, 0, width], np.int64))
    seq = n("Shape", ["input_ids"], start=1, end=2)
    pe = n("Slice", [init("pe", w(positions, width)), "zero1", seq, "zero1"])
    e = n("Add", [n("Gather", [init("we", w(vocab, width)), "input_ids"]), pe])
    e = n("Add", [e, n("Gather", [init("te", w(2, width)), "token_type_ids"])])
    x = ln(e)
    mf = n("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    add_mask = n("Unsqueeze", [n("Mul", [n("Sub", ["f1", mf]), "fneg"]), "ax12"])

    def split(t: str, perm: list[int]) -> str:
        return n("Transpose", [n("Reshape", [t, "shp_heads"])], perm=perm)

    q = split(lin(x, width, width), [0, 2, 1, 3])
    k = split(lin(x, width, width), [0, 2, 3, 1])
    v = split(lin(x, width, width), [0, 2, 1, 3])
    s = n("Add", [n("Mul", [n("MatMul", [q, k]), "scale"]), add_mask])
    c = n("Transpose", [n("MatMul", [n("Softmax", [s], axis=-1), v])], perm=[0, 2, 1, 3])
    x = ln(n("Add", [lin(n("Reshape", [c, "shp_merge"]), width, width), x]))
    ids = [
        h.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    if head == "classifier":
        cls = n("Gather", [x, init("idx0", np.array(0, np.int64))], axis=1)  # [B, D]
        n(
            "Add",
            [
                n("MatMul", [n("Tanh", [lin(cls, width, width)]), init("wc", w(width, 1))]),
                init("bc", w(1)),
            ],
            "logits",
        )
        outs = [h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])]
    else:
        n("Identity", [x], "last_hidden_state")
        outs = [
            h.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", width]
            )
        ]
    graph = h.make_graph(nodes, "tinybert", ids, outs, inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def make_model_dir(folder: Path, *, head: str, config: dict[str, object] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_model(folder / "model.onnx", head=head)
    write_tokenizer(folder / "tokenizer.json")
    if config is not None:
        (folder / "groundkit.json").write_text(json.dumps(config), encoding="utf-8")
    return folder
