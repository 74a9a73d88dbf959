"""The Snowball English ("Porter2") stemmer.

A standard-library implementation of the English algorithm of the Snowball project
(``english.sbl``): exceptional forms, ``Y`` marking of consonantal ``y``, the R1/R2 regions
(with their special prefixes such as ``gener``/``commun``/``arsen``), the apostrophe and
``'s``/``s'`` removal, and steps 1a to 5. It reproduces the official Snowball English sample
vocabulary and its expected output line for line. The input must already be lower-cased.
"""

from __future__ import annotations

__all__ = ["stem"]

_VOWELS = frozenset("aeiouy")
# ``v_WXY``: a letter that cannot end a short syllable (after its vowel).
_V_WXY = frozenset("aeiouywxY")
_VALID_LI = frozenset("cdeghkmnrt")
_AEO = frozenset("aeo")
_DOUBLES = frozenset(("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"))

# Words stemmed as a whole, before anything else.
_EXCEPTIONS: dict[str, str] = {
    "skis": "ski",
    "skies": "sky",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}

# A word starting with one of these has R1 right after it.
_R1_PREFIXES = ("gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter")

# Step 1b: what stays before "eed"/"eedly", and before "ing", for the word to stay as it is.
_EED_KEEP = frozenset(("proc", "exc", "succ"))
_ING_KEEP = frozenset(("inn", "out", "cann", "herr", "earr", "even"))

# Step 1b suffixes, longest first.
_STEP1B_SUFFIXES = ("eedly", "ingly", "edly", "eed", "ing", "ed")

_STEP2: dict[str, str] = {
    "tional": "tion",
    "enci": "ence",
    "anci": "ance",
    "abli": "able",
    "entli": "ent",
    "izer": "ize",
    "ization": "ize",
    "ational": "ate",
    "ation": "ate",
    "ator": "ate",
    "alism": "al",
    "aliti": "al",
    "alli": "al",
    "fulness": "ful",
    "ousli": "ous",
    "ousness": "ous",
    "iveness": "ive",
    "iviti": "ive",
    "biliti": "ble",
    "bli": "ble",
    "ogist": "og",
    "ogi": "og",
    "fulli": "ful",
    "lessli": "less",
    "li": "",
}

_STEP3: dict[str, str] = {
    "tional": "tion",
    "ational": "ate",
    "alize": "al",
    "icate": "ic",
    "iciti": "ic",
    "ical": "ic",
    "ful": "",
    "ness": "",
    "ative": "",
}

_STEP4 = frozenset(
    (
        "al",
        "ance",
        "ence",
        "er",
        "ic",
        "able",
        "ible",
        "ant",
        "ement",
        "ment",
        "ent",
        "ism",
        "ate",
        "iti",
        "ous",
        "ive",
        "ize",
        "ion",
    )
)


def _longest(word: str, suffixes: dict[str, str] | frozenset[str], longest: int) -> str | None:
    """The longest of ``suffixes`` (none longer than ``longest``) that ``word`` ends with."""
    for size in range(min(longest, len(word)), 0, -1):
        ending = word[-size:]
        if ending in suffixes:
            return ending
    return None


def _after_vowel_consonant(word: str, start: int) -> int:
    """Where the region starts: after the first non-vowel following a vowel, from ``start``."""
    size = len(word)
    i = start
    while i < size and word[i] not in _VOWELS:
        i += 1
    i += 1
    while i < size and word[i] in _VOWELS:
        i += 1
    return i + 1 if i < size else size


def _short_syllable(word: str, end: int) -> bool:
    """Whether ``word[:end]`` ends in a short syllable (or in ``past``)."""
    if end >= 2 and word[end - 2] in _VOWELS:
        if end == 2:
            if word[1] not in _VOWELS:
                return True
        elif word[end - 1] not in _V_WXY and word[end - 3] not in _VOWELS:
            return True
    return end >= 4 and word[end - 4 : end] == "past"


def stem(word: str) -> str:
    """The Snowball English stem of ``word`` (an already lower-cased token)."""
    special = _EXCEPTIONS.get(word)
    if special is not None:
        return special
    if len(word) < 3:
        return word

    # Prelude: drop one leading apostrophe, mark consonantal y as Y.
    if word[0] == "'":
        word = word[1:]
    y_found = False
    if "y" in word:
        chars = list(word)
        if chars[0] == "y":
            chars[0] = "Y"
            y_found = True
        for i in range(1, len(chars)):
            if chars[i] == "y" and chars[i - 1] in _VOWELS:
                chars[i] = "Y"
                y_found = True
        if y_found:
            word = "".join(chars)

    # Regions, as absolute positions (suffix changes never move them).
    p1 = len(word)
    for prefix in _R1_PREFIXES:
        if word.startswith(prefix):
            p1 = len(prefix)
            break
    else:
        p1 = _after_vowel_consonant(word, 0)
    p2 = _after_vowel_consonant(word, p1)

    word = _step1a(word)
    word = _step1b(word, p1)

    # Step 1c: y/Y after a non-vowel that is not the first letter becomes i.
    if len(word) >= 3 and word[-1] in "yY" and word[-2] not in _VOWELS:
        word = word[:-1] + "i"

    word = _step2(word, p1)
    word = _step3(word, p1, p2)
    word = _step4(word, p2)
    word = _step5(word, p1, p2)

    if y_found:
        word = word.replace("Y", "y")
    return word


def _step1a(word: str) -> str:
    if word.endswith("'s'"):
        word = word[:-3]
    elif word.endswith("'s"):
        word = word[:-2]
    elif word.endswith("'"):
        word = word[:-1]

    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ied", "ies")):
        return word[:-3] + ("i" if len(word) >= 5 else "ie")
    if word.endswith(("us", "ss")):
        return word
    if word.endswith("s"):
        # Delete if a vowel comes before the letter preceding the s.
        for i in range(len(word) - 3, -1, -1):
            if word[i] in _VOWELS:
                return word[:-1]
    return word


def _step1b(word: str, p1: int) -> str:
    for suffix in _STEP1B_SUFFIXES:
        if word.endswith(suffix):
            break
    else:
        return word
    start = len(word) - len(suffix)
    before = word[:start]

    if suffix in ("eed", "eedly"):
        if before not in _EED_KEEP and start >= p1:
            return before + "ee"
        return word
    if suffix == "ing":
        if start == 2 and before[1] == "y" and before[0] not in _VOWELS:
            return before[0] + "ie"
        if before in _ING_KEEP:
            return word

    for ch in before:
        if ch in _VOWELS:
            break
    else:
        return word
    word = before
    ending = word[-2:]
    if ending in ("at", "bl", "iz"):
        return word + "e"
    if ending in _DOUBLES:
        if len(word) == 3 and word[0] in _AEO:
            return word
        return word[:-1]
    if p1 == len(word) and _short_syllable(word, len(word)):
        return word + "e"
    return word


def _step2(word: str, p1: int) -> str:
    suffix = _longest(word, _STEP2, 7)
    if suffix is None:
        return word
    start = len(word) - len(suffix)
    if start < p1:
        return word
    if suffix == "ogi":
        if start < 1 or word[start - 1] != "l":
            return word
    elif suffix == "li" and (start < 1 or word[start - 1] not in _VALID_LI):
        return word
    return word[:start] + _STEP2[suffix]


def _step3(word: str, p1: int, p2: int) -> str:
    suffix = _longest(word, _STEP3, 7)
    if suffix is None:
        return word
    start = len(word) - len(suffix)
    if start < p1 or (suffix == "ative" and start < p2):
        return word
    return word[:start] + _STEP3[suffix]


def _step4(word: str, p2: int) -> str:
    suffix = _longest(word, _STEP4, 5)
    if suffix is None:
        return word
    start = len(word) - len(suffix)
    if start < p2:
        return word
    if suffix == "ion" and (start < 1 or word[start - 1] not in "st"):
        return word
    return word[:start]


def _step5(word: str, p1: int, p2: int) -> str:
    start = len(word) - 1
    if start < 0:
        return word
    last = word[-1]
    if last == "e":
        if start >= p2 or (start >= p1 and not _short_syllable(word, start)):
            return word[:start]
    elif last == "l" and start >= p2 and start >= 1 and word[start - 1] == "l":
        return word[:start]
    return word
