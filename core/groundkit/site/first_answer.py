"""Whether a collection's page can answer before Python starts (adr/0062).

The page's JS first answer (``web_app/first_answer.js``) reproduces the core's analysis for the
identities named here; a collection analyzed any other way (a Snowball language, folded
diacritics, several languages) keeps Python-first search, and ``build-site`` says so. This is
the Python half of the rule ``Analyzer.fromIdentity`` applies in JS.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from groundkit.site.js_capable import analysis_refusal

__all__ = ["JS_STEMMERS", "JS_STOPWORDS", "first_answer_refusal"]

JS_STEMMERS = ("porter", "none")
"""Stemmers the JS path ships, each held to the core's on its vocabulary in node."""
JS_STOPWORDS = ("lucene-english", "none")
"""Stop word sets the JS path ships (generated into web_app/tables.js)."""
_KEYS = frozenset(("name", "version", "stemmer", "stopwords", "cjk"))


def first_answer_refusal(identity: Mapping[str, Any] | None, *, dense: bool = False) -> str | None:
    """None when the page's JS path analyzes as ``identity`` does; else why not, for the
    build's report (the page then answers once Python has started). A ``dense`` collection's
    page offers dense and hybrid search from the start, which only the core does."""
    if dense:
        return "its collection has vectors (dense and hybrid search run in the core)"
    if identity is None:
        return None  # the default analyzer
    language = analysis_refusal(identity)  # a language analysis.js cannot stem as the core
    if language is not None:
        return language
    extra = sorted(set(identity) - _KEYS)
    if extra:
        what = (
            "languages" if "languages" in extra else "folded diacritics" if "fold" in extra else ""
        )
        return f"its analyzer ({what or ', '.join(extra)}) has no JS copy yet"
    if identity.get("name") != "groundkit.standard" or identity.get("version") != 2:
        return f"its analyzer {identity.get('name')} {identity.get('version')} has no JS copy"
    stemmer, stopwords = identity.get("stemmer"), identity.get("stopwords")
    if stemmer not in JS_STEMMERS:
        return f"its stemmer {stemmer} has no JS copy held to the core's yet (language sites)"
    if stopwords not in JS_STOPWORDS:
        return f"its stop words {stopwords} have no JS copy yet"
    if identity.get("cjk") != "bigram":
        return f"its CJK rule {identity.get('cjk')} has no JS copy"
    return None
