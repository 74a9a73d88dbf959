"""Chunking: span invariants on any text, Markdown structure, sentence splits with overlap, and
bounded work on pathological input."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from groundkit.chunking import KINDS, Span, chunk_text, kind_for_path
from groundkit.chunking.blocks import HEADING_CHARS, text_blocks
from groundkit.chunking.pack import pack
from groundkit.config import ChunkerSettings
from groundkit.errors import ConfigurationError

DEFAULT = ChunkerSettings()
TINY = ChunkerSettings(target_chars=64, overlap_chars=0)
SETTINGS = [
    TINY,
    ChunkerSettings(target_chars=64, overlap_chars=32),
    ChunkerSettings(target_chars=100, overlap_chars=10),
    DEFAULT,
]
MB5 = 5 * 1024 * 1024


def check_invariants(text: str, spans: list[Span], chunker: ChunkerSettings, kind: str) -> None:
    """The guarantees of ``chunk_text``; linear, so it also runs on the 5 MB inputs.

    The size bound is strict: no chunk is longer than ``target_chars``. A heading is packed with
    the block after it as one unit, and a unit over the target is split like any other, so a
    heading line never pushes a chunk past the target.
    """
    if not text.strip():
        assert spans == []
        return
    reached = 0  # everything before this index that is not whitespace is covered
    previous: Span | None = None
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert span.end - span.start <= chunker.target_chars
        assert not text[span.start].isspace() and not text[span.end - 1].isspace()
        if previous is not None:
            assert span.start > previous.start and span.end > previous.end
        assert text[reached : span.start].strip() == "", "non-whitespace left out of every chunk"
        reached = max(reached, span.end)
        assert span.kind in KINDS
        if kind == "text":
            assert (span.kind, span.heading_path) == ("text", ())
        else:
            assert span.kind != "text"
            assert all(len(title) <= HEADING_CHARS for title in span.heading_path)
        previous = span
    assert text[reached:].strip() == ""


def chunks(text: str, kind: str = "markdown", chunker: ChunkerSettings = DEFAULT) -> list[str]:
    return [text[s.start : s.end] for s in chunk_text(text, kind=kind, settings=chunker)]


FRAGMENTS = [
    "# ", "## ", "### ", "###### ", "####### ", "#", " #", "    # ", "```", "~~~", "````",
    "```py", "- ", "* ", "+ ", "1. ", "2) ", "  - ", "---", "===", "***", "- - -", "\n", "\n\n",
    "\n\n\n", "   ", "\t", "\r\n", "\r", ". ", "! ", "? ", "。", "\uff01", "word", "Sentence. ",
    " \u3000 ", "\u2028", "\x0b", "\x1c", "é", "漢字", "...", "> ", "=====", "-----", ".. ",
    ".. code-block:: py", "::", "#. ", "(a) ", ".. _x:", "   ", "~~~~~~",
]  # fmt: skip
markdownish = st.lists(
    st.one_of(
        st.sampled_from(FRAGMENTS),
        st.text(max_size=20),
        st.text(alphabet="ab", min_size=50, max_size=300),  # long words
        st.text(alphabet="ab .", min_size=50, max_size=300),  # long sentences
    ),
    max_size=60,
).map("".join)
separators = st.text(alphabet=" \n\t#-`~*1.\u3002!?ab", max_size=2000)  # dense in boundaries


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(st.text(), markdownish, separators),
    kind=st.sampled_from(["markdown", "rst", "text"]),
    chunker=st.sampled_from(SETTINGS),
)
@example(  # a whitespace cut must land after the piece's start, not just after the last cut
    text="0" * 31 + ".  " + "0" * 65, kind="text", chunker=TINY
)
def test_spans_are_trimmed_ordered_bounded_and_cover_everything(
    text: str, kind: str, chunker: ChunkerSettings
) -> None:
    spans = chunk_text(text, kind=kind, settings=chunker)
    check_invariants(text, spans, chunker, kind)
    assert spans == chunk_text(text, kind=kind, settings=chunker)  # deterministic


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), markdownish, separators))
def test_plain_text_within_the_target_is_its_paragraphs_packed(text: str) -> None:
    """Plain text no longer than the target skips the paragraph scan: one trimmed span, the
    same as packing its paragraphs gives."""
    chunker = ChunkerSettings(target_chars=min(max(len(text), 64), 100_000), overlap_chars=0)
    packed = pack(text, text_blocks(text), markdown=False, settings=chunker)
    assert chunk_text(text, kind="text", settings=chunker) == packed


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("a.md", "markdown"),
        ("docs/B.MD", "markdown"),
        ("x.Markdown", "markdown"),
        ("a.txt", "text"),
        ("sub/c.rst", "rst"),
        ("C.REST", "rst"),
        ("md", "text"),
        ("a.md.txt", "text"),
    ],
)
def test_kind_for_path(source: str, kind: str) -> None:
    assert kind_for_path(source) == kind


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ConfigurationError):
        chunk_text("x", kind="html", settings=DEFAULT)


def test_blank_text_gives_no_chunks() -> None:
    for text in ("", " ", "\n\n\t \r\n", "\u3000\u2028"):
        assert chunk_text(text, kind="markdown", settings=DEFAULT) == []
        assert chunk_text(text, kind="text", settings=DEFAULT) == []


NESTED = """Preamble before any heading.

# Pumps

Pumps lift water.

## Centrifugal

Impellers spin.

### Seals

Mechanical seals leak less.

## Piston  ##

Pistons push.

# Valves

Valves control flow.

Setext title
------------

Under setext.
"""


def test_heading_paths_follow_the_nesting_and_headings_start_their_chunks() -> None:
    spans = chunk_text(NESTED, kind="markdown", settings=DEFAULT)
    got = [(NESTED[s.start : s.end].splitlines()[0], s.heading_path) for s in spans]
    assert got == [
        ("Preamble before any heading.", ()),
        ("# Pumps", ("Pumps",)),
        ("## Centrifugal", ("Pumps", "Centrifugal")),
        ("### Seals", ("Pumps", "Centrifugal", "Seals")),
        ("## Piston  ##", ("Pumps", "Piston")),
        ("# Valves", ("Valves",)),
        ("Setext title", ("Valves", "Setext title")),
    ]
    assert all(s.kind == "section" for s in spans)
    assert NESTED[spans[3].start : spans[3].end] == "### Seals\n\nMechanical seals leak less."


def test_an_oversized_section_keeps_its_heading_in_its_first_chunk() -> None:
    body = "The pump lifts water from the well. " * 20
    code = "x = 1\n" * 30
    text = f"# Intro\n\n## Pumping station\n\n{body}\n\n```\n{code}```\n"
    spans = chunk_text(text, kind="markdown", settings=ChunkerSettings(target_chars=200))
    check_invariants(text, spans, ChunkerSettings(target_chars=200), "markdown")
    assert text[spans[0].start : spans[0].end] == "# Intro"
    assert text[spans[1].start :].startswith("## Pumping station\n\nThe pump")
    assert {s.heading_path for s in spans[1:]} == {("Intro", "Pumping station")}
    assert spans[1].kind == "section"
    assert spans[-1].kind == "code"  # pieces wholly inside the fenced block say so


def test_fenced_code_is_not_parsed_for_headings() -> None:
    text = "# Real\n\n```python\n# not a heading\nx = 1\n```\n\n~~~\n```\n## nor this\n~~~\nafter\n"
    spans = chunk_text(text, kind="markdown", settings=DEFAULT)
    assert {s.heading_path for s in spans} == {("Real",)}
    alone = "```\n# not a heading\n\n\nstill code\n```"
    assert [
        (s.kind, s.heading_path) for s in chunk_text(alone, kind="markdown", settings=DEFAULT)
    ] == [("code", ())]
    unclosed = "An introduction too long to share.\n\n````\n# not a heading\n```\n\n# nor this\n"
    spans = chunk_text(unclosed, kind="markdown", settings=TINY)
    assert [s.heading_path for s in spans] == [(), ()]
    assert [s.kind for s in spans] == ["section", "code"]
    assert unclosed[spans[1].start : spans[1].end] == "````\n# not a heading\n```\n\n# nor this"


def test_list_items_are_grouped_into_list_chunks() -> None:
    items = "".join(f"- item number {i}\n  continued {i}\n" for i in range(12))
    text = f"{items}\n# Next\n\n1. one\n2. two\n"
    chunker = ChunkerSettings(target_chars=100, overlap_chars=0)
    spans = chunk_text(text, kind="markdown", settings=chunker)
    check_invariants(text, spans, chunker, "markdown")
    lists = [s for s in spans if s.heading_path == ()]
    assert len(lists) > 1 and all(s.kind == "list" for s in lists)
    for span in lists:  # whole items only: each chunk starts at a marker, ends an item
        chunk = text[span.start : span.end]
        assert chunk.startswith("- item") and chunk.rsplit("\n", 1)[-1].startswith("  continued")
    assert [text[s.start : s.end] for s in spans if s.heading_path] == ["# Next\n\n1. one\n2. two"]
    whole = chunk_text(items, kind="markdown", settings=DEFAULT)
    assert [(s.start, s.end, s.kind) for s in whole] == [(0, len(items.rstrip()), "list")]


def test_mixed_blocks_in_one_section_are_a_section() -> None:
    text = "Intro paragraph.\n\n- a\n- b\n\n```\ncode\n```"
    assert [s.kind for s in chunk_text(text, kind="markdown", settings=DEFAULT)] == ["section"]


def test_plain_text_packs_paragraphs_up_to_the_target() -> None:
    paragraphs = [f"Paragraph {i} talks about valves." for i in range(10)]
    text = "\n\n".join(paragraphs) + "\n"
    chunker = ChunkerSettings(target_chars=80, overlap_chars=0)
    got = chunks(text, "text", chunker)
    assert got == [
        "\n\n".join(paragraphs[i : i + 2]) for i in range(0, 10, 2)
    ]  # 2 x 33 + 2 = 68 fits in 80, 3 x 33 + 4 does not
    assert chunks("# Not a heading\n\ntext", "text") == ["# Not a heading\n\ntext"]


def test_a_long_paragraph_splits_at_sentences_with_overlap() -> None:
    sentences = [f"Sentence {i} says that pumps move water uphill." for i in range(40)]
    text = " ".join(sentences)
    chunker = ChunkerSettings(target_chars=200, overlap_chars=50)
    spans = chunk_text(text, kind="text", settings=chunker)
    check_invariants(text, spans, chunker, "text")
    assert len(spans) > 5
    for before, after in itertools.pairwise(spans):
        assert text[before.start : before.end].endswith("uphill.")  # a sentence end
        overlap = before.end - after.start
        assert 50 <= overlap <= 50 + 25  # starts about 50 back, moved back to a word start
        assert text[after.start - 1] == " "


def test_without_sentences_split_at_whitespace_then_hard() -> None:
    words = " ".join(["pump"] * 100)
    chunker = ChunkerSettings(target_chars=64, overlap_chars=16)
    for chunk in chunks(words, "text", chunker):
        assert set(chunk.split()) == {"pump"}  # whole words only
    word = "x" * 300
    spans = chunk_text(word, kind="text", settings=chunker)
    check_invariants(word, spans, chunker, "text")
    assert all(s.end - s.start == 64 for s in spans[:-1])
    assert all(a.end - b.start == 16 for a, b in itertools.pairwise(spans))


def test_cjk_sentence_ends_need_no_space() -> None:
    text = "水泵把水送上山。" * 30
    chunker = ChunkerSettings(target_chars=64, overlap_chars=0)
    got = chunks(text, "text", chunker)
    assert all(c.endswith("。") for c in got)
    assert "".join(got) == text


def test_zero_overlap_pieces_do_not_overlap() -> None:
    text = "Short one. " * 100
    chunker = ChunkerSettings(target_chars=64, overlap_chars=0)
    spans = chunk_text(text, kind="text", settings=chunker)
    assert all(a.end < b.start for a, b in itertools.pairwise(spans))


def test_long_headings_are_cut_in_the_path_but_kept_in_the_chunk() -> None:
    text = "# " + "h" * 5000 + "\n\nbody"
    spans = chunk_text(text, kind="markdown", settings=DEFAULT)
    check_invariants(text, spans, DEFAULT, "markdown")
    assert spans[0].heading_path == ("h" * HEADING_CHARS,)
    assert spans[0].start == 0


@pytest.mark.parametrize("kind", ["markdown", "rst", "text"])
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("=" * MB5, id="5MB-adornment"),
        pytest.param("Title\n=====\n\n" * 50_000, id="rst-titles"),
        pytest.param(".. note::\n" + "   body\n" * 100_000, id="rst-directive"),
        pytest.param(".. setting:: X\n" * 100_000, id="rst-labels"),
        pytest.param("a::\n\n" + "    x\n" * 100_000, id="rst-literal"),
        pytest.param("x" * MB5, id="5MB-word"),
        pytest.param(" \n\t\r\u3000" * (MB5 // 5), id="5MB-whitespace"),
        pytest.param("a" + " " * MB5 + "b", id="5MB-space-run"),
        pytest.param("a" + "\n" * MB5 + "b", id="5MB-blank-lines"),
        pytest.param("." * MB5, id="5MB-dots"),
        pytest.param("漢" * MB5, id="5MB-cjk-no-punctuation"),
        pytest.param("#" * MB5, id="5MB-hashes"),
        pytest.param("`" * MB5, id="5MB-backticks"),
        pytest.param(("word " * 200_000 + "\n") * 5, id="very-long-lines"),
        pytest.param("".join(f"{'#' * (i % 6 + 1)} h{i}\n" for i in range(5000)), id="headings"),
        pytest.param("```\n" + "# x\n" * 100_000, id="unclosed-fence"),
        pytest.param("- a\n" * 100_000, id="list-items"),
    ],
)
def test_pathological_input_finishes(text: str, kind: str) -> None:
    # Not timed: a hang or a quadratic blow-up shows as a stuck test run.
    spans = chunk_text(text, kind=kind, settings=DEFAULT)
    check_invariants(text, spans, DEFAULT, kind)


def test_thousands_of_headings_each_start_a_chunk() -> None:
    text = "".join(f"# Title {i}\n\n## Sub {i}\n\ntext {i}\n\n" for i in range(3000))
    spans = chunk_text(text, kind="markdown", settings=DEFAULT)
    assert len(spans) == 6000
    assert spans[-1].heading_path == ("Title 2999", "Sub 2999")
    assert text[spans[-1].start : spans[-1].end] == "## Sub 2999\n\ntext 2999"
