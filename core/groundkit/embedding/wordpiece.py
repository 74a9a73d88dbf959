"""BERT WordPiece tokenization from a ``tokenizer.json``, in pure Python (ADR 0035).

The page embeds a query with onnxruntime-web in the browser, where Hugging Face ``tokenizers``
does not run; this module gives the same ids for the files it accepts: a ``BertNormalizer``
(clean text, CJK spacing, accent stripping, lowercasing), a ``BertPreTokenizer``, a
``WordPiece`` model and a ``[CLS] $A [SEP]`` template, truncated to ``max_length``. Anything
else in the file is refused (``ConfigurationError``), never approximated. Held equal to
``tokenizers`` by tests/native/test_wordpiece.py.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from groundkit.errors import ConfigurationError

__all__ = ["WordPiece"]

# Rust's char::is_whitespace (the Unicode White_Space property), which tokenizers uses.
_WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# What tokenizers' clean_text removes: its Unicode tables list no unassigned (Cn) code point.
_OTHER = frozenset(("Cc", "Cf", "Co"))
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _is_control(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c) in _OTHER


def _is_cjk(c: str) -> bool:
    code = ord(c)
    return any(low <= code <= high for low, high in _CJK)


def _is_punct(c: str) -> bool:
    return c in _ASCII_PUNCT or unicodedata.category(c).startswith("P")


@dataclass(frozen=True)
class _Normalizer:
    clean_text: bool
    chinese: bool
    strip_accents: bool
    lowercase: bool

    def __call__(self, text: str) -> str:
        if self.clean_text:
            text = "".join(
                " " if c in _WHITESPACE else c
                for c in text
                if c not in "\x00\ufffd" and not _is_control(c)
            )
        if self.chinese:
            text = "".join(f" {c} " if _is_cjk(c) else c for c in text)
        if self.strip_accents:
            text = "".join(
                c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
            )
        if self.lowercase:  # per character, as Rust's char::to_lowercase (no final sigma)
            text = "".join(c.lower() for c in text)
        return text


def _pre_tokenize(text: str) -> list[str]:
    """BertPreTokenizer: split on whitespace (dropped) and punctuation (kept, one per word)."""
    words: list[str] = []
    current: list[str] = []
    for c in text:
        if c in _WHITESPACE or _is_punct(c):
            if current:
                words.append("".join(current))
                current = []
            if c not in _WHITESPACE:
                words.append(c)
        else:
            current.append(c)
    if current:
        words.append("".join(current))
    return words


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise ConfigurationError(
            f"tokenizer.json: {what}; the pure-Python WordPiece reads only BERT WordPiece "
            "tokenizers (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP])",
            subject="tokenizer.json",
        )


class WordPiece:
    """``encode(text)`` -> token ids, as ``tokenizers`` gives them for a BERT WordPiece file."""

    def __init__(self, spec: dict[str, Any], *, max_length: int) -> None:
        norm = spec.get("normalizer") or {}
        _expect(norm.get("type") == "BertNormalizer", f"normalizer {norm.get('type')!r}")
        lowercase = bool(norm.get("lowercase", True))
        strip = norm.get("strip_accents")
        self._normalize = _Normalizer(
            bool(norm.get("clean_text", True)),
            bool(norm.get("handle_chinese_chars", True)),
            lowercase if strip is None else bool(strip),
            lowercase,
        )
        pre = (spec.get("pre_tokenizer") or {}).get("type")
        _expect(pre == "BertPreTokenizer", f"pre_tokenizer {pre!r}")
        model = spec.get("model") or {}
        _expect(model.get("type") == "WordPiece", f"model {model.get('type')!r}")
        self._vocab: dict[str, int] = dict(model["vocab"])
        self._unk = self._vocab[model.get("unk_token", "[UNK]")]
        self._prefix = str(model.get("continuing_subword_prefix", "##"))
        self._max_chars = int(model.get("max_input_chars_per_word", 100))
        post = spec.get("post_processor") or {}
        _expect(post.get("type") == "TemplateProcessing", f"post_processor {post.get('type')!r}")
        single = post.get("single", [])
        names = [next(iter(part.values()))["id"] for part in single]
        _expect(len(names) == 3 and names[1] == "A", f"template {names!r}")
        specials = post.get("special_tokens", {})
        self._cls = int(specials[names[0]]["ids"][0])
        self._sep = int(specials[names[2]]["ids"][0])
        self._added = sorted(
            ((str(t["content"]), int(t["id"])) for t in spec.get("added_tokens", [])),
            key=lambda item: -len(item[0]),
        )
        _expect(
            all(not t.get("normalized", False) for t in spec.get("added_tokens", [])),
            "an added token is normalized",
        )
        self.max_length = max_length

    @classmethod
    def from_bytes(cls, data: bytes, *, max_length: int) -> WordPiece:
        try:
            spec = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ConfigurationError(
                f"tokenizer.json is not JSON: {exc}", subject="tokenizer.json"
            ) from None
        return cls(spec, max_length=max_length)

    def encode(self, text: str) -> list[int]:
        """[CLS] ids [SEP], the ids truncated to ``max_length - 2``."""
        ids: list[int] = []
        for piece, added in self._split_added(text):
            if added is not None:
                ids.append(added)
                continue
            for word in _pre_tokenize(self._normalize(piece)):
                ids.extend(self._word(word))
        return [self._cls, *ids[: max(0, self.max_length - 2)], self._sep]

    def _split_added(self, text: str) -> list[tuple[str, int | None]]:
        """The text cut at the added (special) tokens, matched leftmost-longest, raw."""
        out: list[tuple[str, int | None]] = []
        start = at = 0
        while at < len(text):
            hit = next(((c, i) for c, i in self._added if text.startswith(c, at)), None)
            if hit is None:
                at += 1
                continue
            if at > start:
                out.append((text[start:at], None))
            out.append((hit[0], hit[1]))
            at = start = at + len(hit[0])
        if start < len(text):
            out.append((text[start:], None))
        return out

    def _word(self, word: str) -> list[int]:
        if len(word) > self._max_chars:
            return [self._unk]
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else self._prefix + word[start:end]
                found = self._vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self._unk]
            ids.append(found)
            start = end
        return ids
