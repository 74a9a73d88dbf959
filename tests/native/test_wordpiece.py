"""The pure-Python WordPiece (the page's query tokenizer, ADR 0035) equals ``tokenizers``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit.embedding.wordpiece import WordPiece
from groundkit.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER = ROOT / "extras/groundkit_native/data/minilm/tokenizer.json"
SAMPLE = ROOT / "core/groundkit/sample"

TRICKY = [
    "ΟΔΟΣ Σ ὈΔΥΣΣΕΎΣ",  # final sigma: lowercased per character, as Rust does
    "İstanbul ǅ ß ﬁ ẞ ǈǋ",
    "naïve café résumé a\u0301\u0302",
    "中文字符测试 日本語 한국어 \U00020000\U0002b820\U0002b920x",
    "a\U0002b820b a\U0002b920b a\U0002b81fb",  # tokenizers spaces from U+2B920, not U+2B820
    "a\u200bb\u00adc\ufeffd \ue000private \U000e0001tag",
    "x\x0by\x0cz\x85w\u2028v\u3000u\u00a0t",
    "[CLS] hello [MASK]world[SEP] [cls] [UNK]",
    "e=mc² ½ ① ℃ Ａｂｃ　ｆｕｌｌ",
    "emoji 👍🏽 family 👨‍👩‍👧",
    "tab\tnew\nline\r \ufffd\x00zero",
    "x" * 150,
    "under_score $5 a+b<c>d^e`f|g~h ¿¡«»„“”‘’‹›",
    "مرحبا بالعالم Привет, мир! ﷺ ﷽",
    "\u0378unassigned",
    "word " * 400,  # truncated to 256 ids
    "",
]
ALPHABET = st.sampled_from(
    list(" \t\n.,;:!?'\"()[]{}-_#$%&*+/<=>@\\^`|~")
    + list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list("àéîõüçñßÆøΣσςΔλЖжйЁё中文字日本語한국\u0301\u0308\u00ad\u200b\u00a0\u3000\x00\x07")
    + ["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "##", "ing", "tion", "un"]
)


@pytest.fixture(scope="module")
def pair() -> tuple[object, WordPiece]:
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(TOKENIZER))
    reference.enable_truncation(max_length=256)
    reference.no_padding()
    return reference, WordPiece.from_bytes(TOKENIZER.read_bytes(), max_length=256)


def _same(pair: tuple[object, WordPiece], text: str) -> None:
    reference, ours = pair
    assert ours.encode(text) == reference.encode(text).ids, repr(text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_text(pair: tuple[object, WordPiece], text: str) -> None:
    _same(pair, text)


def test_sample_corpus(pair: tuple[object, WordPiece]) -> None:
    files = sorted(p for p in SAMPLE.rglob("*") if p.is_file() and p.suffix != ".py")
    assert files
    for path in files:
        text = path.read_text("utf-8", errors="replace")
        for line in text.splitlines():
            _same(pair, line)
        _same(pair, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_text(pair: tuple[object, WordPiece], text: str) -> None:
    _same(pair, text)


def test_other_tokenizers_are_refused() -> None:
    import json

    spec = json.loads(TOKENIZER.read_text("utf-8"))
    spec["pre_tokenizer"] = {"type": "Whitespace"}
    with pytest.raises(ConfigurationError, match="pre_tokenizer"):
        WordPiece(spec, max_length=256)
