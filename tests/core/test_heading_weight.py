"""A chunk's headings count among its terms (adr/0065), and bm25 leaves out a question's framing
words (adr/0060): what a chunk's postings hold, how old collections keep theirs, what a search
scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.analysis.analyzer import HEADING_WEIGHT, Analyzer
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher
from groundkit.store import CollectionStore, MemoryStore
from groundkit.store.static import StaticReader, unpack
from groundkit.store.static_export import export_static
from groundkit.store.static_layout import HEAD

PAGES = {
    "formsets.md": "# Formsets\n\nA layer of abstraction to work with many forms on one page.\n\n"
    "## Validation\n\nEach form is cleaned, then the whole set.\n",
    "notes.md": "# Release notes\n\nThe formset gained an option. A formset can now order"
    " its forms.\n",
}


def test_chunk_terms_add_the_heading_path_weight_times() -> None:
    text, path = "Each form is cleaned.", ("Formsets", "Validation")
    body = Analyzer().terms(text)
    assert Analyzer(headings=0).chunk_terms(text, path, None) == body
    assert Analyzer(headings=1).chunk_terms(text, path, None) == [*body, "formset", "valid"]
    weighted = [*body, *["formset", "valid"] * HEADING_WEIGHT]
    assert Analyzer().chunk_terms(text, path, None) == weighted
    assert Analyzer().chunk_terms(text, (), None) == body


def test_the_weight_is_in_the_identity_and_old_identities_read_as_zero() -> None:
    assert Analyzer().identity["headings"] == HEADING_WEIGHT > 1
    assert "headings" not in Analyzer(headings=0).identity  # the bytes of every older collection
    old = Analyzer.from_identity(Analyzer(headings=0).identity, subject="c")
    assert old.headings == 0
    for bad in (0, -1, 1.5, "1", True):
        with pytest.raises(IndexIdentityError):
            Analyzer.from_identity({**Analyzer().identity, "headings": bad}, subject="c")
    with pytest.raises(ConfigurationError, match="heading weight"):
        Analyzer(headings=-1)


def test_several_languages_carry_the_weight_once() -> None:
    pytest.importorskip("snowballstemmer")  # the languages extra (tox accel)
    multi = Analyzer.for_languages("de,fr")
    assert multi.identity["headings"] == HEADING_WEIGHT
    assert all("headings" not in part for part in multi.identity["parts"])
    assert Analyzer.from_identity(multi.identity, subject="c") == multi


def test_a_page_s_title_finds_its_chunks_that_never_name_it(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    Indexer(store).ingest(write_corpus(PAGES))
    with Searcher.of(store.reader()) as retriever:
        found = retriever.search("formsets", top_k=5, highlight=False).results
    assert found[0].source == "formsets.md"
    validation = [r for r in found if r.content.startswith("## Validation")]
    assert validation and "formset" not in validation[0].content.lower()


def test_a_collection_from_before_keeps_its_postings_and_refuses_a_mix(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(PAGES)
    Indexer(store, analyzer=Analyzer(headings=0)).ingest(root)
    again = Indexer(store)  # no analyzer named: the collection's own, weight 0
    assert again.analyzer.headings == 0
    (root / "formsets.md").write_text(PAGES["formsets.md"] + "\nMore.\n", encoding="utf-8")
    assert again.ingest(root).replaced == ["formsets.md"]
    reader = store.reader()
    held = reader.chunks(sorted(key for key, _ in reader.postings("formset")))
    assert held and all("formset" in chunk.text.lower() for chunk in held.values())
    reader.close()
    with pytest.raises(IndexIdentityError, match="built with analyzer"):
        Indexer(store, analyzer=Analyzer())


def test_the_static_export_rebuilds_the_weighted_postings(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    store = MemoryStore("pages")
    root = write_corpus(PAGES)
    Indexer(store).ingest(root)
    export_static(store.reader(), tmp_path / "index", root)  # checks its postings
    static = StaticReader(lambda path: (tmp_path / "index" / path).read_bytes())
    assert sorted(static.postings("formset")) == sorted(store.reader().postings("formset"))
    assert len(static.postings("formset")) == 3  # the title's, its section's, the notes'


QUESTIONS = {
    "hydrants.md": "# Hydrants\n\nFlush hydrants every spring. Crews open each hydrant.\n",
    "leaks.md": "# Leaks\n\nReport a leak to the office. A crew will repair it.\n",
    "faq.md": "# Questions\n\nHow do I pay? What do I do? How can I call?\n",
}


@pytest.mark.parametrize(
    "prefix,fuzzy", [(False, False), (True, False), (False, True), (True, True)]
)
def test_bm25_leaves_out_the_framing_words_of_a_question(
    store: CollectionStore, write_corpus: WriteCorpus, prefix: bool, fuzzy: bool
) -> None:
    Indexer(store).ingest(write_corpus(QUESTIONS))
    with Searcher.of(store.reader()) as retriever:

        def scored(query: str) -> list[tuple[str, float]]:
            found = retriever.search(query, top_k=5, prefix=prefix, fuzzy=fuzzy).results
            return [(r.chunk_id, r.score) for r in found]

        assert scored("how do I flush the hydrants") == scored("flush hydrants")
        assert scored("how do I")  # nothing but framing words: they are the query
        response = retriever.search("how do I report a leak", top_k=3, prefix=prefix, fuzzy=fuzzy)
        assert response.results[0].source == "leaks.md"
        assert response.metadata["query_terms"] >= 2


def test_the_static_head_ships_the_framing_terms(write_corpus: WriteCorpus, tmp_path: Path) -> None:
    store = MemoryStore("q")
    root = write_corpus(QUESTIONS)
    Indexer(store).ingest(root)
    export_static(store.reader(), tmp_path / "index", root)
    head = unpack((tmp_path / "index" / HEAD).read_bytes(), HEAD)
    with Searcher.of(store.reader()) as retriever:
        assert head["question_terms"] == sorted(retriever.question_terms())
    assert {"how", "what", "do"} <= set(head["question_terms"])
