"""The page's JS analysis (web_app/analysis.js, adr/0054) against the core's, in node: the same
tokens, token spans, terms, term spans and highlights for every analyzer identity a static site
can record (the default, no stemmer, each JS-capable language, folded diacritics, several
languages), on fixed texts in each language's script and on generated Unicode; each JS stemmer
against the core's on vocabulary words and on variants with astral letters, combining marks,
digits and underscores inserted. Skipped without node (failed without it under CI); the
language identities need snowballstemmer (the languages extra: ``tox -e js``)."""

from __future__ import annotations

import gzip
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.languages import LANGUAGES, language_stemmer
from groundkit.analysis.markup import without_markup
from groundkit.analysis.tokenize import token_spans, tokens
from groundkit.errors import IndexIdentityError
from groundkit.retrieval.highlight import highlight_spans
from groundkit.site import js_capable
from groundkit.site.first_answer import first_answer_refusal

pytestmark = pytest.mark.subprocess

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNNER = HERE / "analysis_run.mjs"
VOCABULARIES = REPO / "tests" / "data" / "snowball"
CODES = {algorithm: code for code, algorithm in LANGUAGES.items()}


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("node is not installed; under CI the JS analysis must be checked")
        pytest.skip("node is not installed")
    return found


@pytest.fixture(scope="module")
def languages() -> None:
    pytest.importorskip("snowballstemmer", reason='pip install ".[languages]" (tox -e js)')


def run_js(node: str, request: dict[str, Any]) -> Any:
    done = subprocess.run(
        [node, str(RUNNER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def plain_identities() -> list[dict[str, Any] | None]:
    return [
        None,
        Analyzer().identity,
        Analyzer(stemmer="none", stopwords="none").identity,
        Analyzer(stemmer="porter", stopwords="none").identity,
        Analyzer(stemmer="none", stopwords="lucene-english").identity,
        Analyzer(fold=True).identity,
        Analyzer(headings=0).identity,  # collections from before heading weight (adr/0065)
        Analyzer(headings=2).identity,
        Analyzer(markup=False).identity,  # collections from before reST markup (adr/0073)
    ]


def language_identities() -> list[dict[str, Any]]:
    out = [Analyzer(stemmer="snowball-english").identity]
    out += [Analyzer.for_language(CODES[a]).identity for a in js_capable.JS_LANGUAGES]
    out += [Analyzer.for_language(code, fold=True).identity for code in ("de", "fr", "el", "tr")]
    out += [Analyzer(stemmer="snowball-german", stopwords="lucene-english").identity]
    out.append(Analyzer.for_languages("de,fr,en").identity)
    out.append(Analyzer.for_languages("el,ru,ar,hi", fold=True).identity)
    out.append(Analyzer.for_languages("de,fr", headings=0).identity)
    out.append(Analyzer.for_languages("de,fr", markup=False).identity)
    return out


TEXTS = [
    "The runners' running ran; it's John’s 1,000.5 e.g. don't ÉCOLE ﬁle straße ẞ ǅ",
    "Die Zähne der Bäume und die Häuser: Fußgängerübergänge, Maßnahmen für Mädchen",
    "l'installation d’une bibliothèque; qu'il jusqu'à aujourd'hui, Ça été élevé",
    "dell'università, l'anno degl'italiani; c'è nell'acqua",
    "Σίσυφος ΑΠΟ από τα παιδιά των ανθρώπων ΟΔΟΣ ὁδός",
    "İstanbul'da IŞIK ışık çocukların kitaplarından Iğdır",
    "Москва́ столицы ёлка ЁЛКА бежавшие",
    "الكتاب والمكتبات في المدرسة",
    "हिन्दी भाषाओं में लिखा गया क़िला",
    "பாடங்களைப் படித்தார்கள்",
    "Հայաստանի մայրաքաղաքը",
    "d'fhéadfadh mBaile Átha Cliath",
    "ייִדיש שפּראַך פֿון די",
    "kirjoissakin taloissammekaan",
    "legszebbeknek házaikban",
    "mokyklose vaikams žmonėms",
    "ljudi čovjeka djeca ђаци",
    "pembelajaran mempermainkan",
    "नेपालका मानिसहरूले",
    "gizonarekin etxeetan",
    "les cases dels homes d'aquí",
    "huset husene bøgerne",
    "中文字 한국어 日本語のテキスト 𝔘𝔫𝔦 ²³ Ⅻ ॐ",
    "Call :meth:`save` or :py:class:`~db.Model`, `saved`:ref: and `the guide <https://x.org/𝔘>`_"
    "\n.. _mod_dav: https://httpd.apache.org/mod/mod_dav.html\n  .. _`a b`:\nRead ``:mod:``, "
    "10:30:`x`, é:meth:`y` and `anonymous`__ then `ref`_x :doc:`t\u3000<p/𝔘>`",
]


def check_same(
    node: str, identities: list[dict[str, Any] | None], texts: list[str]
) -> tuple[int, int]:
    """Every JS answer equals the core's; returns (analyzers, texts) compared."""
    js = run_js(node, {"identities": identities, "texts": texts})
    assert js["readable"] == [without_markup(text) for text in texts]
    for text, got_tokens, got_spans in zip(texts, js["tokens"], js["spans"], strict=True):
        assert got_tokens == tokens(text), text
        assert [tuple(s) for s in got_spans] == list(token_spans(text)), text
    for identity, got, refusal in zip(identities, js["analyzed"], js["refusals"], strict=True):
        assert got is not None, (identity, refusal)
        analyzer = Analyzer() if identity is None else Analyzer.from_identity(identity, subject="t")
        assert got["namespaces"] == list(analyzer.namespaces)
        for text, (terms, spans, marks) in zip(texts, got["texts"], strict=True):
            want = analyzer.terms(text)
            where = (identity, text)
            assert terms == want, where
            assert [tuple(s) for s in spans] == list(analyzer.term_spans(text)), where
            assert [tuple(s) for s in marks] == list(highlight_spans(analyzer, set(want), text))
    return len(identities), len(texts)


def test_the_js_analysis_is_the_cores_without_languages(node: str) -> None:
    assert check_same(node, plain_identities(), TEXTS) == (9, len(TEXTS))


def test_the_js_analysis_is_the_cores_in_every_js_language(node: str, languages: None) -> None:
    identities: list[dict[str, Any] | None] = list(language_identities())
    assert check_same(node, identities, TEXTS)[0] == len(js_capable.JS_LANGUAGES) + 10


GENERATED = st.text(
    st.characters(
        codec="utf-8",
        categories=("L", "M", "N", "P", "S", "Zs", "Cc"),
        exclude_characters="\r",
    ),
    max_size=40,
)
SPECIAL = st.sampled_from(
    [
        "ß",
        "ẞ",
        "ς",
        "Σ",
        "ΣΑΣ",
        "İ",
        "ı",
        "I",
        "ﬁ",
        "ﬀ",
        "Ǆ",
        "ǅ",
        "é",
        "é",
        "ñ",
        "中文字",
        "한국어",
        "日本",
        "𝔘𝔫𝔦",
        "𠀀𠀁",
        "😀",
        "²",
        "Ⅻ",
        "٣",
        "it's",
        "l'",
        "d’",
        "’s",
        "e.g.",
        "1,000.5",
        "ॐ",
        "क़",
        "ё",
        "ά",
        " ",
        "-",
        "_",
        "`",
        ":",
        " <",
        ">`",
        "\n.. _",
        ":meth:`",
        ":py:class:",
        "`_",
        "__",
        "\u3000",
        "\x1c",
    ]
)


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.lists(st.one_of(GENERATED, SPECIAL), max_size=6).map("".join), min_size=300, max_size=300
    )
)
def test_the_js_analysis_is_the_cores_on_generated_unicode(node: str, texts: list[str]) -> None:
    identities = plain_identities()
    try:
        identities += language_identities()
    except Exception:  # no snowballstemmer (tox -e core): the identities without languages
        if "snowballstemmer" in sys.modules:
            raise
    check_same(node, identities, texts)


def _vocabulary(algorithm: str) -> list[str]:
    name = f"libstemmer-{algorithm}" if algorithm in ("arabic", "tamil") else algorithm
    with gzip.open(VOCABULARIES / f"{name}.txt.gz", "rt", encoding="utf-8") as handle:
        return [line.partition("\t")[0] for line in handle.read().splitlines()]


def _variants(words: list[str], seed: int) -> list[str]:
    """Words with an astral letter, a combining mark, a digit or an underscore put inside."""
    pick = random.Random(seed)
    inserts = ["𝔘", "𠀀", "\u0301", "\u0308", "\u093c", "7", "_", "ß", "İ", "ς"]
    out = []
    for word in pick.sample(words, min(len(words), 800)):
        at = pick.randrange(len(word) + 1)
        out.append(word[:at] + pick.choice(inserts) + word[at:])
    return out


def test_each_js_stemmer_is_the_cores(node: str, languages: None) -> None:
    words = {}
    for algorithm in js_capable.JS_LANGUAGES:
        vocabulary = _vocabulary(algorithm)
        words[algorithm] = vocabulary[::12] + _variants(vocabulary, len(algorithm))
    js = run_js(node, {"identities": [], "texts": [], "stems": words})
    for algorithm, batch in words.items():
        stem = language_stemmer(algorithm)  # English: the core's own snowball.py
        got = js["stems"][algorithm]
        wrong = [(w, g, stem(w)) for w, g in zip(batch, got, strict=True) if g != stem(w)]
        assert not wrong, (algorithm, len(wrong), wrong[:10])
        assert len(batch) > 800


def test_the_js_refuses_what_it_cannot_reproduce(node: str, languages: None) -> None:
    german = Analyzer.for_language("de").identity
    refused = [
        {**german, "release": "snowballstemmer 2.2.0"},
        {**german, "extra": 1},
        {**Analyzer().identity, "version": 3},
        {**Analyzer().identity, "stemmer": "lovins"},
        {**Analyzer().identity, "fold": "accents"},
        {**Analyzer().identity, "headings": 0},
        {**Analyzer().identity, "headings": 1.5},
        {**Analyzer().identity, "headings": "1"},
        {**Analyzer().identity, "markup": "markdown"},
        {**Analyzer.for_languages("de,fr").identity, "markup": True},
        {**Analyzer.for_languages("de,fr").identity, "headings": -1},
        {**Analyzer.for_languages("de,fr").identity, "languages": ["de", "xx"]},
        {**Analyzer.for_languages("de,fr").identity, "languages": ["fr", "de"]},
    ]
    js = run_js(node, {"identities": refused, "texts": ["x"]})
    for identity, got in zip(refused, js["analyzed"], strict=True):
        assert got is None, identity
        with pytest.raises(IndexIdentityError):  # the core refuses each as well
            Analyzer.from_identity(identity, subject="t")
    assert "snowballstemmer 2.2.0" in js["refusals"][0]


def test_a_language_without_a_js_stemmer_keeps_python_first_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    german = {"name": "groundkit.standard", "version": 2, "stemmer": "snowball-german"}
    assert js_capable.analysis_refusal(german) is None
    assert "german.js" in js_capable.language_files({**german, "stopwords": "snowball-german"})
    monkeypatch.setattr(
        js_capable, "JS_LANGUAGES", tuple(a for a in js_capable.JS_LANGUAGES if a != "german")
    )
    note = first_answer_refusal({**german, "stopwords": "snowball-german", "cjk": "bigram"})
    assert note is not None and "german keeps Python-first search" in note
    multi = {"languages": ["fr", "de"], "stemmer": "per-document"}
    assert "german" in (js_capable.analysis_refusal(multi) or "")
    assert js_capable.language_files(None) == js_capable.RUNTIME_FILES


def test_the_generated_stemmers_are_current(languages: None) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "data" / "js" / "make_stemmers.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tokenizers_classes_are_res_on_every_assigned_code_point(node: str) -> None:
    """The JS word pattern's classes (\\p{...}, the engine's Unicode) equal ``re``'s ``\\w``,
    ``[^\\W\\d_]``, ``\\d`` and the tokenizer's marks on every code point CPython assigns, as
    do ``casefold`` and the engine's NFKC and NFKD, and ``isUpperChar`` (casefold and CPython's
    exceptions) equals ``str.isupper`` on every one NFKC keeps (adr/0080)."""
    import re
    import unicodedata

    from groundkit.analysis.tokenize import _is_mark

    module = REPO / "core" / "groundkit" / "site" / "web_app" / "analysis.js"
    runner = (
        f"const m = await import({json.dumps(module.as_uri())});"
        "const out = {};"
        "for (const [name, source] of Object.entries(m.WORD_CLASSES)) {"
        "  const re = new RegExp(`^${source}$`, 'u'); const hits = [];"
        "  for (let cp = 0; cp < 0x110000; cp++) {"
        "    if (cp >= 0xd800 && cp < 0xe000) continue;"
        "    if (re.test(String.fromCodePoint(cp))) hits.push(cp);"
        "  }"
        "  out[name] = hits;"
        "}"
        "const folds = {}; const nfkc = {}; const nfkd = {}; const upper = [];"
        "for (let cp = 0; cp < 0x110000; cp++) {"
        "  if (cp >= 0xd800 && cp < 0xe000) continue;"
        "  const ch = String.fromCodePoint(cp);"
        "  if (m.casefold(ch) !== ch) folds[cp] = m.casefold(ch);"
        "  if (ch.normalize('NFKC') !== ch) nfkc[cp] = ch.normalize('NFKC');"
        "  if (ch.normalize('NFKD') !== ch) nfkd[cp] = ch.normalize('NFKD');"
        "  if (ch.normalize('NFKC') === ch && m.isUpperChar(ch)) upper.push(cp);"
        "}"
        "out.casefold = folds; out.nfkc = nfkc; out.nfkd = nfkd; out.upper = upper;"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", runner],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    mapped = {name: found.pop(name) for name in ("casefold", "nfkc", "nfkd")}
    upper = set(found.pop("upper"))
    js = {name: set(hits) for name, hits in found.items()}
    assigned = [cp for cp in range(0x110000) if unicodedata.category(chr(cp)) not in ("Cn", "Cs")]
    letter, digit = re.compile(r"[^\W\d_]"), re.compile(r"\d")
    wants = {
        "word": lambda c: c.isalnum() or c == "_",
        "letter": lambda c: letter.match(c) is not None,
        "digit": lambda c: digit.match(c) is not None,
    }
    for name, want in wants.items():
        wrong = [cp for cp in assigned if want(chr(cp)) != (cp in js[name])]
        assert not wrong, (name, [hex(cp) for cp in wrong[:20]])
    # the word pattern adds \p{M} to \w: the same as adding the tokenizer's marks
    wrong = [
        cp for cp in assigned if _is_mark(chr(cp)) != (cp in js["mark"] and cp not in js["word"])
    ]
    assert not wrong, [hex(cp) for cp in wrong[:20]]
    # casefold (tables.js over toLowerCase) and the engine's NFKC and NFKD, code point by code point
    python = {
        "casefold": str.casefold,
        "nfkc": lambda c: unicodedata.normalize("NFKC", c),
        "nfkd": lambda c: unicodedata.normalize("NFKD", c),
    }
    for name, function in python.items():
        got = mapped[name]
        wrong = [cp for cp in assigned if got.get(str(cp), chr(cp)) != function(chr(cp))]
        assert not wrong, (name, [hex(cp) for cp in wrong[:20]])
    kept = [cp for cp in assigned if unicodedata.normalize("NFKC", chr(cp)) == chr(cp)]
    wrong = [cp for cp in kept if chr(cp).isupper() != (cp in upper)]
    assert not wrong, ("isUpperChar", [hex(cp) for cp in wrong[:20]])
    assert len(assigned) > 280_000 and len(upper) > 1000


MARKUP_PIECES = st.sampled_from(
    [
        *("`", ":", "meth", "py", "é", "𝔘", " ", "\n", "\r", "<", ">", ".. _", "_", "x"),
        *("\u3000", "\x1c", "-", "+", ".", "\u2028", "9", ":meth:`", "`:ref:", " <u>`", "`_"),
        *("`__", "\n.. _a:", "\r.. _b: u", "\u2028.. _c:", " .. _`d e`: ", ":py:x:", "é:f:`"),
        "\x1c<g>`",
    ]
)


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(MARKUP_PIECES, max_size=14).map("".join), min_size=400, max_size=400))
def test_the_js_markup_rule_is_the_cores(node: str, texts: list[str]) -> None:
    """withoutMarkup blanks what markup.without_markup blanks, on texts dense with markup's
    characters (line ends \\r and \\u2028 included, which JS's ^ and $ would take as lines)."""
    got = run_js(node, {"identities": [], "texts": texts})["readable"]
    assert got == [without_markup(text) for text in texts]
