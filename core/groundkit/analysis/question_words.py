"""The words that frame a question rather than name its subject ("how do I", "what is my"),
per language: a query's evidence is judged on its other words (adr/0060).

Each list holds surface words; a collection drops the terms its own analyzer makes of them,
so a stemmer or folding that changes a word changes it alike in the query and the list.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["QUESTION_WORDS", "content_terms", "question_terms"]

_LISTS: dict[str, str] = {
    "english": (
        "how what why when where who whom whose which do does did can could should would will "
        "shall may might must i me my mine myself we our us you your yours is are am was were "
        "be been being a an the of to in on for with about if whether there it its this that "
        "these those"
    ),
    "german": (
        "wie was warum wann wo wer wen wem wessen welche welcher welches kann können könnte "
        "soll sollte muss ich mein meine mir mich wir unser du dein ist sind war der die das "
        "ein eine einen zu in im mit für über ob es"
    ),
    "french": (
        "comment que quoi qu pourquoi quand où qui quel quelle quels quelles est-ce est sont "
        "je j me mon ma mes nous notre vous votre le la les l un une des de du d à au en pour "
        "avec sur si il peut puis dois faut"
    ),
    "spanish": (
        "cómo como qué que por porqué cuándo dónde quién quiénes cuál cuáles puedo puede "
        "debo yo me mi mis nosotros tu su es son está el la los las un una de del a en para "
        "con sobre si se"
    ),
    "italian": (
        "come che cosa perché quando dove chi quale quali posso può devo io mi mio mia noi "
        "è sono il lo la i gli le un una di del a in per con su se si"
    ),
    "portuguese": (
        "como que o quê por porque quando onde quem qual quais posso pode devo eu me meu "
        "minha nós é são está a os as um uma de do da em para com sobre se"
    ),
    "dutch": (
        "hoe wat waarom wanneer waar wie welke welk kan kun moet ik mijn me mij wij ons je "
        "jouw is zijn was de het een van te in op voor met over of er"
    ),
}
QUESTION_WORDS: dict[str, tuple[str, ...]] = {
    name: tuple(words.split()) for name, words in _LISTS.items()
}
"""Question-framing words of the languages groundkit's analyzers stem; others: English's."""


def question_terms(languages: Sequence[str], analyze: object) -> frozenset[str]:
    """The terms ``analyze`` (an ``Analyzer.terms``) makes of the question words of
    ``languages`` (Snowball names; none: English)."""
    assert callable(analyze)
    found: set[str] = set()
    for language in languages or ("english",):
        for word in QUESTION_WORDS.get(language, QUESTION_WORDS["english"]):
            found.update(analyze(word))
    return frozenset(found)


def content_terms(terms: Sequence[str], framing: frozenset[str]) -> list[str]:
    """``terms`` without the question's framing ones; all of them when nothing else is left."""
    kept = [term for term in terms if term not in framing]
    return kept or list(terms)
