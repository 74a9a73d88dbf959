"""The original Porter (1980) stemming algorithm, in two variants.

``stem(word)`` computes exactly what Martin Porter's reference code computes as Lucene's
``PorterStemmer`` (``PorterStemFilter``) ships it: words of 1-2 characters stay as they are,
and step 2 has the reference's two departures from the paper (``-bli`` -> ``-ble`` instead of
``-abli`` -> ``-able``, and ``-logi`` -> ``-log``).

``stem(word, published=True)`` is the algorithm as published, exactly as Snowball's ``porter``
computes it (which also undoes only the doublings bb dd ff gg mm nn pp rr tt left by -ed/-ing,
where the reference code undoes any double consonant but ll ss zz). That is what the official
Porter vocabulary (``voc.txt`` -> ``output.txt``) records, and it reproduces it line for line.
On that vocabulary the two variants differ only on words of 1-2 characters and on stems ending
in ``-bli`` or ``-logi`` (67 of 42,603 words).

Any character other than ``a e i o u`` (and ``y`` after a consonant) counts as a consonant.
"""

from __future__ import annotations

__all__ = ["stem"]

_VOWELS = frozenset("aeiou")
_ASCII_LETTER_KINDS = str.maketrans({chr(i): "v" if chr(i) in _VOWELS else "c" for i in range(128)})


def _pattern(word: str) -> str:
    """``word`` as ``c``/``v`` letters: consonant or vowel, in the sense of the algorithm."""
    if "y" not in word:
        if word.isascii():  # the usual case, in one C call
            return word.translate(_ASCII_LETTER_KINDS)
        return "".join("v" if ch in _VOWELS else "c" for ch in word)
    out: list[str] = []
    previous_is_consonant = False
    for index, ch in enumerate(word):
        if ch in _VOWELS:
            consonant = False
        elif ch == "y":
            consonant = index == 0 or not previous_is_consonant
        else:
            consonant = True
        out.append("c" if consonant else "v")
        previous_is_consonant = consonant
    return "".join(out)


def _measure(word: str) -> int:
    """``m`` in ``[C](VC){m}[V]``: the number of vowel-consonant sequences."""
    return _pattern(word).count("vc")


def _has_vowel(word: str) -> bool:
    return "v" in _pattern(word)


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _pattern(word)[-1] == "c"


def _ends_cvc(word: str) -> bool:
    """Consonant-vowel-consonant at the end, the last one not ``w``, ``x`` or ``y``."""
    return len(word) >= 3 and word[-1] not in "wxy" and _pattern(word).endswith("cvc")


# Steps 2-4 look at the first listed suffix the word ends with and stop there, whether or not
# the condition on the measure of what precedes it holds; the tables are keyed, as in the
# reference, by one letter of the suffix to pick a short list quickly.
_Rules = dict[str, tuple[tuple[str, str], ...]]

_STEP2_PUBLISHED: _Rules = {  # keyed by the penultimate letter; applied when m > 0
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
}

# The reference code (and so Lucene) replaces -abli by -bli and adds -logi.
_STEP2_REFERENCE: _Rules = {
    **_STEP2_PUBLISHED,
    "l": (("bli", "ble"), *_STEP2_PUBLISHED["l"][1:]),
    "g": (("logi", "log"),),
}

_STEP3: _Rules = {  # keyed by the last letter; applied when m > 0
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}

_STEP4: dict[str, tuple[str, ...]] = {  # keyed by the penultimate letter; removed when m > 1
    "a": ("al",),
    "c": ("ance", "ence"),
    "e": ("er",),
    "i": ("ic",),
    "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"),
    "o": ("ion", "ou"),
    "s": ("ism",),
    "t": ("ate", "iti"),
    "u": ("ous",),
    "v": ("ive",),
    "z": ("ize",),
}


# Snowball's porter (and so the official vocabulary) undoes only these doublings.
_UNDOUBLE_PUBLISHED = frozenset("bdfgmnprt")


def _step1a(word: str) -> str:
    """Plurals."""
    if word[-1] == "s":
        if word.endswith(("sses", "ies")):  # -sses -> -ss, -ies -> -i
            return word[:-2]
        if not word.endswith("ss"):
            return word[:-1]
    return word


def _step1b(word: str, undouble: frozenset[str] | None) -> str:
    """-eed, -ed and -ing. ``undouble``: the letters whose doubling -ed/-ing leaves undone
    (bb -> b); ``None`` for the reference's any double consonant but ll, ss and zz."""
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
        return word
    if word.endswith("ed"):
        base = word[:-2]
    elif word.endswith("ing"):
        base = word[:-3]
    else:
        return word
    if not _has_vowel(base):
        return word
    if base.endswith(("at", "bl", "iz")):
        return base + "e"
    if undouble is None:
        if _ends_double_consonant(base):
            return base if base[-1] in "lsz" else base[:-1]
    elif len(base) >= 2 and base[-1] == base[-2]:
        if base[-1] in undouble:
            return base[:-1]
        if _pattern(base)[-1] == "c":  # a double consonant: no -e restored either
            return base
    if _measure(base) == 1 and _ends_cvc(base):
        return base + "e"
    return base


def _step1c(word: str) -> str:
    if word[-1] == "y" and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


def _replace(word: str, rules: _Rules, key: str) -> str:
    for suffix, replacement in rules.get(key, ()):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + replacement if _measure(base) > 0 else word
    return word


def _step4(word: str) -> str:
    for suffix in _STEP4.get(word[-2], ()):
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if suffix == "ion" and not (base and base[-1] in "st"):
                continue
            return base if _measure(base) > 1 else word
    return word


def _step5(word: str) -> str:
    if word[-1] == "e":
        measure = _measure(word)
        if measure > 1 or (measure == 1 and not _ends_cvc(word[:-1])):
            word = word[:-1]
    if word[-1] == "l" and _ends_double_consonant(word) and _measure(word) > 1:
        word = word[:-1]
    return word


def stem(word: str, *, published: bool = False) -> str:
    """The Porter stem of ``word``, an already lower-cased token.

    By default as Lucene's ``PorterStemmer`` computes it (words of 1-2 characters unchanged);
    with ``published=True`` as the 1980 paper (and the official vocabulary) has it.
    """
    if published:
        if not word:
            return word
        step2, undouble = _STEP2_PUBLISHED, _UNDOUBLE_PUBLISHED
    else:
        if len(word) <= 2:
            return word
        step2, undouble = _STEP2_REFERENCE, None
    word = _step1b(_step1a(word), undouble)
    if len(word) <= 1:  # nothing further can apply to a single character
        return word
    word = _step1c(word)
    word = _replace(word, step2, word[-2])
    word = _replace(word, _STEP3, word[-1])
    word = _step4(word)
    return _step5(word)
