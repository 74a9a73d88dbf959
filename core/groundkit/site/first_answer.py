"""Whether a collection's page can answer before Python starts (adr/0062, adr/0055).

The page's JS first answer (``web_app/first_answer.js``) analyzes with ``web_app/analysis.js``,
which reproduces the core's analysis for the identities ``js_capable`` accepts (adr/0054); a
collection analyzed any other way, or one with vectors, keeps Python-first search, and
``build-site`` says so. This is the Python half of the rule ``FirstAnswer.open`` applies in JS.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from groundkit.analysis.markup import MARKUP
from groundkit.site.js_capable import analysis_refusal

__all__ = ["first_answer_refusal"]


def first_answer_refusal(identity: Mapping[str, Any] | None, *, dense: bool = False) -> str | None:
    """None when the page's JS path analyzes as ``identity`` does; else why not, for the
    build's report (the page then answers once Python has started). A ``dense`` collection's
    page offers dense and hybrid search from the start, which only the core does."""
    if dense:
        return "its collection has vectors (dense and hybrid search run in the core)"
    if identity is None:
        return None  # the default analyzer
    if identity.get("name") != "groundkit.standard" or identity.get("version") != 2:
        return f"its analyzer {identity.get('name')} {identity.get('version')} has no JS copy"
    if identity.get("cjk") != "bigram":
        return f"its CJK rule {identity.get('cjk')} has no JS copy"
    if identity.get("fold", "diacritics") != "diacritics":
        return f"its folding {identity.get('fold')} has no JS copy"
    if identity.get("markup", MARKUP) != MARKUP:  # adr/0073: postings and words only
        return f"its markup rule {identity.get('markup')} has no JS copy"
    headings = identity.get("headings", 1)
    if type(headings) is not int or headings < 1:  # adr/0065: postings only, read as they are
        return f"its heading weight {headings} is not one the core writes"
    return analysis_refusal(identity)
