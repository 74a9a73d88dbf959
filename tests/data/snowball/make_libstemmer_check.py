"""Regenerate the Arabic and Tamil check lists: words stemmed by libstemmer (C), for the two
languages whose official vocabularies our snowball-data mirror lacks (Git LFS objects).

The words are every non-ASCII token, without digits or underscores, of the Arabic and Tamil
gettext translations installed on a Debian bookworm machine (``/usr/share/locale/{ar,ta}/
LC_MESSAGES/*.mo``: iso-codes, glib, gtk, apt, PAM, ...), as groundkit's tokenizer produces
them (NFKC, casefolded, vowel signs kept inside the word);
each is stemmed by PyStemmer 3.1.0 (Snowball's C output, a second implementation of the same
algorithms: it agrees with every official vocabulary we hold, adr/0045). Run with PyStemmer
installed:

    PYTHONPATH=core python tests/data/snowball/make_libstemmer_check.py

Writes ``libstemmer-arabic.txt.gz`` and ``libstemmer-tamil.txt.gz`` beside this file, packed as
the vocabularies are (``word``, ``word<TAB>N`` or ``word<TAB>=stem``).
"""

from __future__ import annotations

import gettext
import gzip
from pathlib import Path

import Stemmer  # type: ignore[import-not-found]  # PyStemmer, for this script only

from groundkit.analysis.tokenize import tokens

HERE = Path(__file__).resolve().parent
LANGUAGES = {"ar": "arabic", "ta": "tamil"}


def words(code: str) -> list[str]:
    """The distinct words of the installed translations into ``code``."""
    found: set[str] = set()
    for path in sorted(Path(f"/usr/share/locale/{code}/LC_MESSAGES").glob("*.mo")):
        with path.open("rb") as handle:
            catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
        for text in catalog.values():
            for word in tokens(text):
                if not word.isascii() and not any(c.isdigit() or c == "_" for c in word):
                    found.add(word)
    return sorted(found)


def compact(word: str, stem: str) -> str:
    if stem == word:
        return word
    if word.startswith(stem):
        return f"{word}\t{len(word) - len(stem)}"
    return f"{word}\t={stem}"


def main() -> None:
    for code, algorithm in LANGUAGES.items():
        stem = Stemmer.Stemmer(algorithm).stemWord
        body = "\n".join(compact(w, stem(w)) for w in words(code)) + "\n"
        with gzip.GzipFile(HERE / f"libstemmer-{algorithm}.txt.gz", "wb", mtime=0) as out:
            out.write(body.encode("utf-8"))


if __name__ == "__main__":
    main()
