"""Prefix and typo-tolerant search: the lexicon, blended terms, and the words they expand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_retrieval import load

from conftest import WriteCorpus
from groundkit import deadline
from groundkit.analysis.analyzer import Analyzer
from groundkit.cli import main
from groundkit.config import MAX_QUERY_CHARS
from groundkit.errors import ConfigurationError, InvalidQueryError, SearchTimeoutError
from groundkit.index.bm25 import BM25Index
from groundkit.index.lexicon import Lexicon, edit_distance
from groundkit.index.postings import blend_members
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher
from groundkit.retrieval.expansion import (
    MAX_EXPANDED_TERMS,
    MAX_WORD_LETTERS,
    ExpandedQuery,
    expand_query,
    typo_budget,
)
from groundkit.retrieval.request import SearchFilter
from groundkit.store import CollectionStore, MemoryStore

SHORT = st.text("abcd", max_size=6)


def reference_distance(a: str, b: str) -> int:
    """Optimal string alignment distance, the textbook table, unbounded."""
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, table[i - 2][j - 2] + 1)
            table[i][j] = best
    return table[-1][-1]


@settings(max_examples=300, deadline=None)
@given(SHORT, SHORT, st.integers(0, 3))
def test_edit_distance_is_the_alignment_distance_capped_past_the_limit(
    a: str, b: str, limit: int
) -> None:
    assert edit_distance(a, b, limit) == min(reference_distance(a, b), limit + 1)


def lexicon_of(terms: list[str]) -> Lexicon:
    store = MemoryStore("lexicon")
    with store.batch():
        load_words(store, terms)
    return Lexicon(store.reader(), Analyzer().readable)


def load_words(store: CollectionStore, words: list[str]) -> None:
    if words:
        load(store, [[word] for word in words])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abcd", min_size=1, max_size=6), max_size=30), SHORT)
def test_near_finds_every_term_one_edit_away(vocabulary: list[str], term: str) -> None:
    lexicon = lexicon_of(vocabulary)
    want = {known: 1 for known in set(vocabulary) if reference_distance(term, known) == 1}
    assert lexicon.near(term, 1) == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abcd", min_size=1, max_size=6), max_size=30), SHORT)
def test_near_finds_every_term_two_edits_away_that_keeps_the_first_letter(
    vocabulary: list[str], term: str
) -> None:
    lexicon = lexicon_of(vocabulary)
    want = {
        known: reference_distance(term, known)
        for known in set(vocabulary)
        if 0 < reference_distance(term, known) <= 2
        and (reference_distance(term, known) == 1 or known[:1] == term[:1])
    }
    assert lexicon.near(term, 2) == want


def test_near_with_two_edits_on_real_words() -> None:
    lexicon = lexicon_of(["authentication", "middleware", "paginator", "paganitor", "queryset"])
    assert lexicon.near("autentcation", 2) == {"authentication": 2}  # two letters left out
    assert lexicon.near("midlewaree", 2) == {"middleware": 2}  # one left out, one extra
    assert lexicon.near("paginatro", 2) == {"paginator": 1}  # paganitor is three away
    assert lexicon.near("quxrysex", 2) == {"queryset": 2}  # two substitutions
    assert lexicon.near("aueryset", 1) == {"queryset": 1}  # one edit: the first letter too
    assert lexicon.near("auerysex", 2) == {}  # two edits: the first letter is kept


def test_completions_are_the_indexed_terms_a_prefix_begins(store: CollectionStore) -> None:
    load_words(store, ["pump", "pumps", "pumping", "valve", "zähne", "zahl"])
    reader = store.reader()
    assert reader.indexed_terms("pum") == ["pump", "pumping", "pumps"]
    assert reader.indexed_terms("z") == ["zahl", "zähne"]  # code-point order
    assert reader.indexed_terms("") == sorted(
        ["pump", "pumps", "pumping", "valve", "zähne", "zahl"]
    )
    assert reader.indexed_terms("x") == []


def test_a_removed_documents_terms_leave_the_lexicon(store: CollectionStore) -> None:
    load_words(store, ["pump", "valve"])
    removed = next(d for d in store.documents_under("/r") if d.source == "d000.txt")
    store.remove_document(removed.document_id)
    assert store.reader().indexed_terms("") == ["valve"]


def test_a_blended_term_sums_frequencies_takes_the_largest_df_and_scales_its_idf() -> None:
    store = MemoryStore("blend")
    load_words(store, ["pump pump valve", "pump", "valve seat", "seat"])
    index = BM25Index(store.reader(), accelerator="python")
    blended = index.blend(["valve", "pump"], 0.5)
    assert blended == index.blend(["pump", "valve", "pump"], 0.5)  # members are a set
    assert index.df(blended) == max(index.df("pump"), index.df("valve")) == 2
    assert index.term_idf(blended) == 0.5 * index.idf(2)
    keys, _, _ = index.term_scores(blended)
    held = {key for term in ("pump", "valve") for key in index.term_scores(term)[0]}
    assert list(keys) == sorted(held) and len(keys) == 3
    with pytest.raises(ConfigurationError):
        index.blend([], 0.5)
    with pytest.raises(ConfigurationError):
        index.blend(["pump"], 0.0)


DJANGO_LIKE = {
    "ref/middleware.txt": "# Middleware\n\nMiddleware is a framework of hooks into request "
    "processing. Each middleware component does one job. Activate middleware in settings.\n",
    "topics/pagination.txt": "# Pagination\n\nDjango provides classes that help you manage "
    "paginated data. The Paginator class paginates a list; pagination splits it into pages.\n",
    "topics/auth.txt": "# User authentication\n\nDjango comes with a user authentication "
    "system. Authentication verifies a user; authorization decides what they may do.\n",
    "topics/queries.txt": "# Making queries\n\nA QuerySet represents a collection of objects "
    "from your database. Filter a queryset; querysets are lazy.\n",
    "topics/forms.txt": "# Forms\n\nA form handles input. The middle of the form is its fields; "
    "a page shows the form. Forms validate data and render widgets.\n",
}


@pytest.fixture
def django_like(write_corpus: WriteCorpus) -> Searcher:
    store = MemoryStore("django")
    Indexer(store).ingest(write_corpus(DJANGO_LIKE))
    return Searcher.of(store.reader())


@pytest.mark.parametrize(
    ("query", "option", "expected"),
    [
        ("middlware", "fuzzy", "ref/middleware.txt"),
        ("paginaton", "fuzzy", "topics/pagination.txt"),  # the typo changes the stem
        ("authentcation", "fuzzy", "topics/auth.txt"),
        ("querset", "fuzzy", "topics/queries.txt"),
        ("paginat", "prefix", "topics/pagination.txt"),  # backs off to the stem, pagin
        ("middlew", "prefix", "ref/middleware.txt"),
        ("queryse", "prefix", "topics/queries.txt"),
    ],
)
def test_a_typo_or_a_begun_word_finds_its_page_only_when_asked(
    django_like: Searcher, query: str, option: str, expected: str
) -> None:
    assert not django_like.search(query, 3, "bm25").results
    response = django_like.search(query, 3, "bm25", **{option: True})
    assert response.results[0].source == expected
    expanded = response.metadata["expansions"][option]
    assert (
        list(expanded) == [query.rsplit(maxsplit=1)[-1]] and expanded[query.rsplit(maxsplit=1)[-1]]
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("middlware", "ref/middleware.txt"),
        ("paginaton", "topics/pagination.txt"),
        ("paginat", "topics/pagination.txt"),
        ("middlew", "ref/middleware.txt"),
    ],
)
def test_with_both_on_as_the_page_searches_typos_and_begun_words_find_their_page(
    django_like: Searcher, query: str, expected: str
) -> None:
    response = django_like.search(query, 3, "bm25", prefix=True, fuzzy=True)
    assert response.results[0].source == expected


def test_a_last_word_that_begins_no_indexed_word_is_corrected_not_backtracked(
    django_like: Searcher,
) -> None:
    # "middl" (the form's "middle") begins "middlware" too: backtracking to it found the form
    response = django_like.search("middlware", 3, "bm25", prefix=True, fuzzy=True)
    assert response.metadata["expansions"] == {"fuzzy": {"middlware": ["middlewar"]}}
    begun = django_like.search("middlew", 3, "bm25", prefix=True, fuzzy=True)
    assert list(begun.metadata["expansions"]) == ["prefix"]  # a begun word is still completed


def test_expanded_words_are_highlighted_in_the_cited_text(django_like: Searcher) -> None:
    result = django_like.search("paginaton", 1, "bm25", fuzzy=True).results[0]
    marked = {result.content[start:end] for start, end in result.highlights}
    assert {"Pagination", "paginated", "paginates", "pagination"} <= marked


def test_a_complete_common_word_is_not_corrected(django_like: Searcher) -> None:
    plain = django_like.search("form", 5, "bm25")
    expanded = django_like.search("form", 5, "bm25", fuzzy=True)
    assert "expansions" not in expanded.metadata
    assert [(r.chunk_id, r.score) for r in expanded.results] == [
        (r.chunk_id, r.score) for r in plain.results
    ]


COMMA = {
    "csv.txt": "# CSV\n\nValues are separated by a comma; a comma ends each value.\n",
    "cli.txt": "# The command line\n\nRun the command; each command prints a line.\n",
    "commas.txt": "# Style\n\nCommas and semicolons.\n",
}


def test_a_last_word_that_is_a_word_itself_also_completes_the_exact_word_first(
    write_corpus: WriteCorpus,
) -> None:
    store = MemoryStore("comma")
    Indexer(store).ingest(write_corpus(COMMA))
    retriever = Searcher.of(store.reader())
    exact = retriever.search("comma", 5, "bm25")
    assert {r.source for r in exact.results} == {"csv.txt", "commas.txt"}
    typed = retriever.search("comma", 5, "bm25", prefix=True)
    assert typed.metadata["expansions"] == {"prefix": {"comma": ["command"]}}
    assert [r.source for r in typed.results] == ["csv.txt", "commas.txt", "cli.txt"]
    # the exact word keeps its full weight: its results score as without prefix
    assert [r.score for r in typed.results[:2]] == [r.score for r in exact.results]


def test_two_typos_are_measured_on_the_word_not_its_stem(write_corpus: WriteCorpus) -> None:
    store = MemoryStore("words")
    Indexer(store).ingest(
        write_corpus(
            {
                "display.txt": "# Output\n\nDisplaying a table and displayed rows.\n",
                "sum.txt": "# Sums\n\nThe aggregation of values; aggregate them.\n",
            }
        )
    )
    retriever = Searcher.of(store.reader())
    for query, source, term in [
        ("dfsplayng", "display.txt", "displai"),  # two edits from displaying, four from displai
        ("agkgregatino", "sum.txt", "aggreg"),
    ]:
        assert not retriever.search(query, 3, "bm25").results
        response = retriever.search(query, 3, "bm25", fuzzy=True)
        assert response.results[0].source == source
        assert response.metadata["expansions"] == {"fuzzy": {query: [term]}}


def test_the_surface_words_are_the_words_of_letters_of_the_text() -> None:
    store = MemoryStore("surface")
    odd = "is a b2b x.y z_z a__b _meta abc_ utf8_name"  # only z_z is a word of letters
    load_words(store, ["displaying tables", f"{odd} aggregation", "tables"])
    lexicon = Lexicon(store.reader(), Analyzer().readable)
    assert lexicon.words() == ["aggregation", "displaying", "tables", "z_z"]
    assert lexicon.near_words("dfsplayng", 2) == {"displaying": 2}
    assert lexicon.near_words("tabels", 1) == {"tables": 1}
    assert lexicon.near_words("xables", 1) == {}  # the first letter is kept


def test_an_identifier_is_measured_against_identifiers_and_a_word_against_words() -> None:
    store = MemoryStore("kinds")
    load_words(store, ["postsave post_save"])
    lexicon = Lexicon(store.reader(), Analyzer().readable)
    assert lexicon.words() == ["post_save", "postsave"]
    assert lexicon.near_words("post_savx", 2) == {"post_save": 1}
    assert lexicon.near_words("postsavx", 2) == {"postsave": 1}


def test_a_correction_weighs_less_than_the_exact_word_unless_it_is_the_only_one(
    django_like: Searcher, write_corpus: WriteCorpus
) -> None:
    # "middlware" is no word of the text and only middleware is within one edit: it is that
    exact = django_like.search("middleware", 1, "bm25").results[0]
    typo = django_like.search("middlware", 1, "bm25", fuzzy=True).results[0]
    assert typo.chunk_id == exact.chunk_id and typo.score == pytest.approx(exact.score)
    # "hoase" could be horse or house: the blend weighs 3/4
    reader = ingested(write_corpus, "two", {"a.txt": "A horse.\n", "b.txt": "A house.\n"}).reader()
    index = BM25Index(reader, accelerator="python")
    lexicon = Lexicon(reader, Analyzer().readable)
    typed = expand_query("hoase", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    assert typed.fuzzy == {"hoase": ["hors", "hous"]}
    assert blend_members(typed.terms[-1]) == (0.75, ("hors", "hous"))


def test_prefix_and_fuzzy_are_refused_where_they_cannot_apply(django_like: Searcher) -> None:
    with pytest.raises(ConfigurationError, match="mode 'dense' has no BM25"):
        django_like.search("middlware", mode="dense", fuzzy=True)
    with pytest.raises(ConfigurationError, match="prefix must be true or false"):
        django_like.search("middlware", prefix="yes")  # type: ignore[arg-type]


def test_cli_search_says_what_each_word_also_matched(
    write_corpus: WriteCorpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    assert main(["ingest", str(write_corpus(DJANGO_LIKE)), "--index-dir", index]) == 0
    capsys.readouterr()
    assert main(["search", "paginaton", "--fuzzy", "--index-dir", index]) == 0
    shown = capsys.readouterr().out
    assert "'paginaton' also matched the indexed terms (stems) a typo away: pagin" in shown
    assert "topics/pagination.txt" in shown
    assert main(["search", "middlew", "--prefix", "--json", "--index-dir", index]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["results"][0]["source"] == "ref/middleware.txt"
    assert "middlewar" in payload["metadata"]["expansions"]["prefix"]["middlew"]


def test_expansion_past_its_limits_is_refused_before_any_work(django_like: Searcher) -> None:
    long = "m" * (MAX_WORD_LETTERS + 1)
    assert not django_like.search(long, 3, "bm25").results  # a plain search is not bounded so
    for option in ("prefix", "fuzzy"):
        with pytest.raises(InvalidQueryError, match=f"too long for {option} search"):
            django_like.search(f"middleware {long}", 3, "bm25", **{option: True})
    many = " ".join(f"word{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(65))
    with pytest.raises(InvalidQueryError, match="at most 64 distinct words"):
        django_like.search(many, 3, "bm25", fuzzy=True)
    assert django_like.search(many, 3, "bm25", prefix=True).results == ()  # one word expands


def test_a_search_stops_at_its_deadline(
    django_like: Searcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    from groundkit import deadlines as deadline_module

    clock = iter([0.0] + [100.0] * 1000)  # the deadline is set at 0 s; every check sees 100 s
    monkeypatch.setattr(deadline_module.time, "monotonic", lambda: next(clock))
    with deadline(1.0), pytest.raises(SearchTimeoutError, match="past its deadline of 1 s"):
        django_like.search("middlware", 3, "bm25", fuzzy=True)
    monkeypatch.undo()
    with deadline(60.0):
        assert django_like.search("middlware", 3, "bm25", fuzzy=True).results


HOSTILE = st.text(
    st.characters(codec="utf-8", categories=("L", "M", "N", "P", "Zs")), max_size=MAX_QUERY_CHARS
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(HOSTILE, st.booleans(), st.booleans())
def test_any_query_is_answered_or_refused_with_a_bounded_expansion(
    django_like: Searcher, query: str, prefix: bool, fuzzy: bool
) -> None:
    try:
        response = django_like.search(query or "x", 3, "bm25", prefix=prefix, fuzzy=fuzzy)
    except InvalidQueryError:
        return
    expansions = response.metadata.get("expansions") or {}
    added = sum(len(terms) for words in expansions.values() for terms in words.values())
    assert added <= MAX_EXPANDED_TERMS


def test_a_last_word_whose_stem_alone_begins_terms_is_corrected(write_corpus: WriteCorpus) -> None:
    """``muscue`` begins no indexed word, though its stem ``muscu`` begins ``muscular``: with
    both options on it is a typo of muscle, as fuzzy alone says (bench/search_box.py)."""
    store = MemoryStore("muscle")
    Indexer(store).ingest(
        write_corpus(
            {
                "fibres.txt": "# Fibres\n\nFast-twitch muscle fibres; the muscle contracts.\n",
                "tissue.txt": "# Tissue\n\nMuscular tissue and musculoskeletal pain.\n",
                "other.txt": "# Other\n\nBones and joints.\n",
            }
        )
    )
    retriever = Searcher.of(store.reader())
    both = retriever.search("twitch muscue", 3, "bm25", prefix=True, fuzzy=True)
    assert both.metadata["expansions"] == {"fuzzy": {"muscue": ["muscl"]}}
    assert both.results[0].source == "fibres.txt"


SHARES = {
    "settings.txt": "# Settings\n\nThe settings module holds settings; a setting per line.\n",
    "objects.txt": "# Objects\n\nCreating objects: each object is saved. obj obj obj obj.\n",
    "forms.txt": "# Forms\n\nA form and its fields; each form is a form, formsets repeat a form.\n",
    "formats.txt": "# Formats\n\nDate format strings.\n",
    "loops.txt": "# Loops\n\nA for loop runs for each item, for ever.\n",
}


def ingested(write_corpus: WriteCorpus, name: str, texts: dict[str, str]) -> MemoryStore:
    """A memory collection of ``texts`` (path: text)."""
    store = MemoryStore(name)
    Indexer(store).ingest(write_corpus(texts))
    return store


@pytest.fixture
def shares_store(write_corpus: WriteCorpus) -> MemoryStore:
    return ingested(write_corpus, "shares", SHARES)


@pytest.fixture
def shares(shares_store: MemoryStore) -> Searcher:
    return Searcher.of(shares_store.reader())


def expand(store: MemoryStore, query: str) -> ExpandedQuery:
    reader = store.reader()
    index = BM25Index(reader, accelerator="python")
    lexicon = Lexicon(reader, Analyzer().readable)
    return expand_query(query, Analyzer(), lexicon, index, prefix=True, fuzzy=False)


def test_a_begun_word_completes_through_the_words_of_the_text(shares: Searcher) -> None:
    # "setti" begins settings and setting, whose stem "set" it does not begin
    response = shares.search("setti", 3, "bm25", prefix=True)
    assert response.metadata["expansions"] == {"prefix": {"setti": ["set"]}}
    assert response.results[0].source == "settings.txt"


def test_a_fragment_stands_for_its_completions_not_its_own_stem(shares: Searcher) -> None:
    # "obje" stems to "obj", an indexed word that "obje" does not begin: it is dropped
    assert shares.search("obje", 3, "bm25").results[0].source == "objects.txt"  # obj alone
    response = shares.search("obje", 3, "bm25", prefix=True)
    assert response.metadata["expansions"] == {"prefix": {"obje": ["object"]}}
    plain = shares.search("object", 3, "bm25")
    assert [(r.chunk_id, r.score) for r in response.results] == [
        (r.chunk_id, r.score) for r in plain.results
    ]


def test_a_word_keeps_its_term_and_each_completion_weighs_its_share(
    shares: Searcher, shares_store: MemoryStore
) -> None:
    exact = shares.search("form", 5, "bm25")
    typed = shares.search("form", 5, "bm25", prefix=True)
    assert typed.metadata["expansions"] == {"prefix": {"form": ["format", "formset"]}}
    # form, format and formset are each held by one chunk: each completion weighs 1/3
    expanded = expand(shares_store, "form")
    assert expanded.terms[0] == "form"
    assert [blend_members(term) for term in expanded.terms[1:]] == [
        (1 / 3, ("format",)),
        (1 / 3, ("formset",)),
    ]
    assert typed.results[0].chunk_id == exact.results[0].chunk_id


def test_a_stopword_last_completes_as_a_word_held_by_every_chunk(
    shares: Searcher, shares_store: MemoryStore
) -> None:
    expanded = expand(shares_store, "loop for")
    assert expanded.prefix == {"for": ["form", "format", "formset"]}
    chunks = len(list(shares_store.reader().iter_chunks()))
    # each completion's share counts the stopword as held by every chunk
    assert [blend_members(term) for term in expanded.terms[1:]] == [
        (1 / (chunks + 3), (term,)) for term in ("form", "format", "formset")
    ]
    assert shares.search("loop for", 3, "bm25", prefix=True).results[0].source == "loops.txt"


def test_two_letters_complete(shares: Searcher) -> None:
    response = shares.search("ob", 3, "bm25", prefix=True)
    assert "object" in response.metadata["expansions"]["prefix"]["ob"]
    assert response.results[0].source == "objects.txt"


def test_an_eight_letter_word_takes_two_edits(write_corpus: WriteCorpus) -> None:
    store = MemoryStore("eight")
    Indexer(store).ingest(write_corpus({"b.txt": "# Building\n\nBuilding a form.\n"}))
    retriever = Searcher.of(store.reader())
    assert typo_budget("building") == 2 and typo_budget("buildin") == 1
    response = retriever.search("btildign", 3, "bm25", fuzzy=True)  # two edits from building
    assert response.results and response.results[0].source == "b.txt"


def test_a_four_letter_word_takes_one_edit(write_corpus: WriteCorpus) -> None:
    """MiniSearch's 0.2 edits per letter, rounded, from four letters (adr/0078); not four
    characters of a number or code: 1956 is no typo of 1966."""
    store = MemoryStore("four")
    pages = {"w.txt": "# Water\n\nWater mains in 1966.\n", "f.txt": "# Forms\n\nA form.\n"}
    Indexer(store).ingest(write_corpus(pages))
    retriever = Searcher.of(store.reader())
    assert [typo_budget(word) for word in ("wtr", "wter", "h2o5", "1956")] == [0, 1, 0, 0]
    response = retriever.search("wter", 3, "bm25", fuzzy=True)
    assert response.metadata["expansions"]["fuzzy"] == {"wter": ["water"]}
    assert response.results[0].source == "w.txt"
    assert not retriever.search("1956", 3, "bm25", fuzzy=True).results


def test_a_short_words_correction_ranks_but_is_no_evidence(write_corpus: WriteCorpus) -> None:
    """Four letters the text holds, however rarely, are the word meant (best is not test);
    four it lacks are corrected, and a correction to more than one term is a guess: the
    evidence keeps the word's own term and drops the correction's blend. One term in reach is
    the word (adr/0076): evidence as a longer word's correction is (adr/0078)."""
    pages = {f"t{n}.txt": f"# Test {n}\n\nA test.\n" for n in range(12)}
    pages |= {"b.txt": "# Best\n\nThe best.\n", "r.txt": "# Rest\n\nA rest.\n"}
    reader = ingested(write_corpus, "short", pages).reader()
    index = BM25Index(reader, accelerator="python")
    lexicon = Lexicon(reader, Analyzer().readable)
    held = expand_query("best", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    assert held.fuzzy == {} and held.terms == ["best"]
    typed = expand_query("xest", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    near = BM25Index.blend(typed.fuzzy["xest"], 0.75)
    assert sorted(typed.fuzzy["xest"]) == ["best", "rest", "test"] and typed.terms == ["xest", near]
    assert typed.guessed == {"xest": (near, [])} and typed.evidence_terms() == ["xest"]
    assert typed.stood_for(Analyzer().terms) == frozenset()
    single = expand_query("bext", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    assert single.fuzzy == {"bext": ["best"]} and single.guessed == {}
    assert single.stood_for(Analyzer().terms) == frozenset({"bext"})


CONTEXT = {
    # "meth" is a word of the text (a drug, in one page), and "method" is what a visitor typing
    # "useful meth" is after: more of the chunks holding "useful" hold method than meth
    "methods.txt": "# Useful methods\n\nA useful method returns the request's host.\n",
    "helpers.txt": "# Helpers\n\nAnother useful method: a method for the path.\n",
    "drugs.txt": "# Drugs\n\nMeth is a drug, and not a useful one.\n",
    "labs.txt": "# Labs\n\nA lab tested meth and other drugs.\n",
    "protocols.txt": "# Protocols\n\nA lab method.\n",
}


@pytest.fixture
def context_store(write_corpus: WriteCorpus) -> MemoryStore:
    return ingested(write_corpus, "context", CONTEXT)


def test_a_completion_the_other_words_hold_with_more_joins_the_word(
    context_store: MemoryStore,
) -> None:
    # chunks holding "useful": 3; of them, 1 holds meth and 2 hold method
    expanded = expand(context_store, "useful meth")
    assert expanded.prefix == {"meth": ["method"]}
    assert expanded.terms == ["us", BM25Index.blend(["meth", "method"], 1.0)]
    assert {"meth", "method"} <= expanded.matched_terms  # the word stays highlighted
    retriever = Searcher.of(context_store.reader())
    typed = retriever.search("useful meth", 2, "bm25", prefix=True)
    assert {r.source for r in typed.results} == {"methods.txt", "helpers.txt"}
    assert retriever.search("useful meth", 1, "bm25").results[0].source == "drugs.txt"


def test_without_a_chunk_holding_every_other_word_the_word_keeps_its_reading(
    context_store: MemoryStore,
) -> None:
    alone = expand(context_store, "meth")  # no other word: its share of the chunks, 3 of 5
    assert alone.terms == ["meth", BM25Index.blend(["method"], 3 / 5)]
    # "lab" and "useful" share no chunk, so the other words say nothing
    assert expand(context_store, "lab useful meth").terms[:3] == ["lab", "us", "meth"]
    # where the word holds more of the other words' chunks, or as many, it keeps its reading
    assert expand(context_store, "drug meth").terms[:2] == ["drug", "meth"]  # 2 against 0
    assert expand(context_store, "lab meth").terms[:2] == ["lab", "meth"]  # 1 against 1


def test_a_guessed_word_is_no_evidence(tmp_path: Path) -> None:
    """A last word that begins no word of the text, completed from a shorter prefix (France
    -> fran -> français), and a four-letter word the text lacks, corrected to more than one
    term (rats -> rate, raw, hat), are guesses at other words: bm25's evidence weighs the
    words themselves, as plain search does, and so says "nothing here" where plain search
    does (adr/0077, adr/0078)."""
    import groundkit

    groundkit.ingest(groundkit.sample_corpus(), index_dir=tmp_path / "idx")
    with Searcher.open(tmp_path / "idx") as searcher:
        for query, kind, word in (
            ("who won the last Tour de France", "prefix", "france"),
            ("how do I get rid of rats", "fuzzy", "rats"),
        ):
            typed = searcher.search(query, 3, "bm25", prefix=True, fuzzy=True)
            plain = searcher.search(query, 3, "bm25")
            assert word not in typed.metadata["expansions"][kind][word]  # another word
            assert typed.metadata["lexical_share"] == plain.metadata["lexical_share"]
            assert typed.metadata["abstained"] and plain.metadata["abstained"]
        # filtered, the evidence is found under the filter, as plain search finds it
        where = SearchFilter(source_prefix="billing/")
        for query in ("water meter readings rats", "leak repairs rats"):
            typed = searcher.search(query, 3, "bm25", prefix=True, fuzzy=True, where=where)
            plain = searcher.search(query, 3, "bm25", where=where)
            assert typed.metadata["expansions"]["fuzzy"]["rats"]  # a guess at another word
            assert typed.metadata["lexical_share"] == plain.metadata["lexical_share"]
        # a longer word's correction is the word meant: its evidence is the correction's
        fixed = searcher.search("hydrnt flushng", 3, "bm25", fuzzy=True)
        assert not fixed.metadata["abstained"]


def test_a_guess_gives_its_own_terms_to_the_evidence(write_corpus: WriteCorpus) -> None:
    store = ingested(write_corpus, "guess", {"a.txt": "The rate is set, rather than guessed.\n"})
    expanded = expand(store, "rats")  # rats begins no word: rat's completions stand for it
    assert expanded.prefix == {"rats": ["rate", "rather"]}
    assert expanded.guessed == {"rats": (BM25Index.blend(["rate", "rather"], 1.0), ["rat"])}
    assert expanded.evidence_terms() == ["rat"]
    assert expand(store, "rate").guessed == {}  # a word of the text is no guess


def test_a_guess_and_a_correction_of_one_blend_keep_their_places(
    write_corpus: WriteCorpus,
) -> None:
    # "flushn" corrects to flush and "flusnhg" is guessed from "flus": the same blend key,
    # of which only the guess's (added first) gives way to the guessed word's own term
    reader = ingested(write_corpus, "guess-and-typo", {"a.txt": "Flush the hydrant.\n"}).reader()
    index = BM25Index(reader, accelerator="python")
    lexicon = Lexicon(reader, Analyzer().readable)
    typed = expand_query("flushn flusnhg", Analyzer(), lexicon, index, prefix=True, fuzzy=True)
    flush = BM25Index.blend(["flush"], 1.0)
    assert typed.guessed == {"flusnhg": (flush, ["flusnhg"])}
    assert typed.fuzzy == {"flushn": ["flush"]}
    assert typed.terms == ["flushn", flush, flush]
    assert typed.evidence_terms() == ["flushn", "flusnhg", flush]


HELD_WORDS: dict[str, str] = json.loads(
    (Path(__file__).parents[1] / "data" / "held_words.json").read_text(encoding="utf-8")
)
"""``vectorial`` and ``seatings`` held once each, ``vector`` and ``settings`` twelve times."""


def test_a_rare_word_the_text_holds_is_corrected_only_as_the_other_words_read_it(
    write_corpus: WriteCorpus,
) -> None:
    """``vectorial`` beside malaria and capacity stays itself; ``seatings`` beside "creating
    your own" is the settings the other words' passages hold (adr/0081)."""
    retriever = Searcher.of(ingested(write_corpus, "held", HELD_WORDS).reader())
    kept = retriever.search("malaria vectorial capacity", 3, "bm25", fuzzy=True)
    assert kept.metadata.get("expansions") is None
    assert kept.results[0].source == "m.txt"
    alone = retriever.search("vectorial", 3, "bm25", fuzzy=True)  # no other word: itself
    assert alone.metadata.get("expansions") is None
    typed = retriever.search("malaria vectorial capac", 3, "bm25", prefix=True, fuzzy=True)
    assert "fuzzy" not in typed.metadata["expansions"]  # capacity completed, vectorial kept
    fixed = retriever.search("creating your own seatings", 3, "bm25", fuzzy=True)
    assert fixed.metadata["expansions"] == {"fuzzy": {"seatings": ["set"]}}
    assert {r.source for r in fixed.results} > {"typo.txt"}  # settings passages come too


IDENTIFIERS = {
    "queries.txt": "# Queries\n\nCall update_or_create() to update a row, or create it.\n",
    "signals.txt": "# Signals\n\nThe post_save signal; post_save_handler is an example.\n",
    "saving.txt": "# Saving\n\nA signal after each save, and before it.\n",
}


def test_an_identifier_is_a_word_typed_and_mistyped_whole(write_corpus: WriteCorpus) -> None:
    # adr/0082: two typos in an identifier of eight letters or more are within its budget,
    # measured on the identifier as the text writes it
    store = ingested(write_corpus, "identifiers", IDENTIFIERS)
    reader = store.reader()
    index, lexicon = BM25Index(reader, accelerator="python"), Lexicon(reader, Analyzer().readable)
    typed = expand_query("udpate_or_creathe", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    assert typed.fuzzy == {"udpate_or_creathe": ["update_or_cr"]}
    found = Searcher.of(store.reader()).search("udpate_or_creathe", 1, "bm25", fuzzy=True)
    assert found.results[0].source.endswith("queries.txt")
    # a complete identifier typed last keeps its own term, as a word does, beside what it begins
    completed = expand(store, "signal post_save")
    assert "post_sav" in completed.terms
    assert completed.prefix == {"post_save": ["post_save_handl"]}


def test_a_short_stem_of_a_longer_word_takes_no_edit_of_its_own(write_corpus: WriteCorpus) -> None:
    # adr/0083: "ocurred" stems to "ocur", one edit from our and cur; the word itself is one
    # edit from occurred, which is what it stands for
    texts = {
        "a.txt": "It occurred twice, and it occurs again.\n",
        "b.txt": "Our dog is a cur, and ours is our own.\n",
        "c.txt": "Our town, our cur.\n",
    }
    store = ingested(write_corpus, "stems", texts)
    reader = store.reader()
    index, lexicon = BM25Index(reader, accelerator="python"), Lexicon(reader, Analyzer().readable)
    typed = expand_query("ocurred", Analyzer(), lexicon, index, prefix=False, fuzzy=True)
    assert typed.fuzzy == {"ocurred": ["occur"]}
    # a short word keeps its one edit on its term (its own stem is the word)
    assert expand_query("occr", Analyzer(), lexicon, index, prefix=False, fuzzy=True).fuzzy
