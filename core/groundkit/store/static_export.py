"""Write a collection as a static collection (``groundkit.store.static``) for the browser.

The postings are re-derived from each chunk's text with the collection's own analyzer and then
compared, term by term, with the store's: an export that would rank differently fails
(``StorageError``) instead of shipping.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.question_words import question_terms
from groundkit.analysis.tokenize import surface_words
from groundkit.config import IngestSettings
from groundkit.contracts import Document, chunk_id_for
from groundkit.errors import StorageError
from groundkit.index.bm25 import bm25_idf
from groundkit.source_files import read_text
from groundkit.store.protocols import CollectionReader
from groundkit.store.static_layout import (
    BLOCK,
    FORMAT,
    HEAD,
    TERMS_BLOCK,
    TEXT_BLOCK,
    block_path,
    pack,
    shard_path,
    terms_path,
    texts_path,
    words_path,
)

__all__ = ["POSTINGS_PER_SHARD", "StaticExport", "export_static"]

POSTINGS_PER_SHARD = 2048
"""Aim for about this many postings a shard (a few KB deflated): the shard count is the
smallest power of two that reaches it, so a query fetches a few small files."""
_MAX_SHARDS = 1 << 16
_BATCH = 512


@dataclass(frozen=True)
class StaticExport:
    """What ``export_static`` wrote."""

    files: int
    bytes: int
    shards: int
    postings_bytes: int
    chunks_bytes: int
    head_bytes: int
    vectors_bytes: int
    terms_bytes: int
    texts_bytes: int = 0
    """The chunk rows with their texts that the page's JS path reads (``texts/``), deflated."""


def _shard_count(postings: int) -> int:
    shards = 1
    while shards < _MAX_SHARDS and postings / shards > POSTINGS_PER_SHARD:
        shards *= 2
    return shards


@dataclass
class _Chunks:
    """The chunks read in key order: their rows, texts and owners, and the postings their text
    gives."""

    rows: list[list[Any]] = field(default_factory=list)
    doc_of: list[int] = field(default_factory=list)
    index_of: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


class _Files:
    """Writes the files under ``target``, counting them and their bytes by kind."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.count = 0
        self.sizes = {"postings": 0, "chunks": 0, "head": 0, "vectors": 0, "terms": 0, "texts": 0}

    def write(self, name: str, data: bytes, kind: str) -> None:
        path = self.target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.sizes[kind] += len(data)
        self.count += 1

    def blocks(self, items: list[Any], size: int, path: Callable[[int], str], kind: str) -> None:
        """``items`` packed ``size`` a file, the n-th at ``path(n)``."""
        for block in range(0, len(items), size):
            self.write(path(block // size), pack(items[block : block + size]), kind)


def export_static(
    reader: CollectionReader,
    out: str | Path,
    sources: str | Path,
    *,
    root: str | None = None,
    lexical_bar: Mapping[str, Any] | None = None,
    dense_floor: Mapping[str, Any] | None = None,
) -> StaticExport:
    """Write ``reader``'s collection under ``out``; ``sources`` holds each document's file at
    its ``source`` path (the site's copies), from which the chunk text is sliced. ``root``
    replaces each document's recorded root (a site publishes no path of the builder's machine;
    a relative root is read under the site, ``citation_root``). ``lexical_bar``: bm25's bar
    to ship in the head (``LexicalBar.to_dict()``; the page then abstains as the collection
    does, adr/0069), or None (it never abstains in bm25). ``dense_floor``: the dense floor
    and hybrid's share to ship (``FloorRecord.to_dict()``, adr/0070), or None (the
    embedder's own floor applies)."""
    identity = reader.analyzer_identity
    analyzer = (
        Analyzer() if identity is None else Analyzer.from_identity(identity, subject="export")
    )
    documents = sorted(reader.iter_documents(), key=lambda d: (d.root, d.source))
    if root is not None:
        documents = [dataclasses.replace(d, root=root) for d in documents]
    lengths = dict(reader.chunk_lengths())
    keys = sorted(lengths)
    chunks = _read_chunks(reader, documents, Path(sources), analyzer, lengths)
    postings = chunks.postings
    _check_postings(reader, postings)
    by_shard, firsts = _shard_postings(postings)
    files = _Files(Path(out))
    for shard, terms_of in sorted(by_shard.items()):
        files.write(shard_path(shard), pack(terms_of), "postings")
    files.blocks(chunks.rows, BLOCK, block_path, "chunks")
    lexicon = sorted(postings)
    files.blocks(lexicon, TERMS_BLOCK, terms_path, "terms")
    # the rows again, each with its text: all the page's JS path reads of a result
    passages = [[*row[:6], text] for row, text in zip(chunks.rows, chunks.texts, strict=True)]
    files.blocks(passages, TEXT_BLOCK, texts_path, "texts")
    words = surface_words(map(analyzer.readable, chunks.texts))
    files.blocks(words, TERMS_BLOCK, words_path, "terms")
    vector_keys: list[int] | None = None
    embedding = reader.embedding_identity
    if embedding is not None:
        vectors = list(reader.vectors())
        vector_keys = [key for key, _ in vectors]
        files.write("vectors.bin", zlib.compress(b"".join(v for _, v in vectors), 9), "vectors")
    # 0 too: the ideal score bm25's abstention divides by counts a query's unknown terms
    held = sorted({0} | {len(pairs) for pairs in postings.values()})
    head = {
        "format": FORMAT,
        "generation": reader.generation,
        "analyzer": identity,
        "embedding": None if embedding is None else embedding.to_dict(),
        "total_length": reader.total_length,
        "terms": len(postings),
        "shards": len(firsts),
        "postings_firsts": firsts,
        "term_blocks": lexicon[::TERMS_BLOCK],
        "word_blocks": -(-len(words) // TERMS_BLOCK),
        "text_block": TEXT_BLOCK,  # chunk rows with their texts per texts/<block>.bin
        # every term's idf as this machine's log computes it: Pyodide's and a browser's log
        # may differ from it in the last bit, and the page must rank as this collection does
        "idf": [[df, bm25_idf(len(keys), df)] for df in held],
        # the terms bm25 leaves out of a question (adr/0060), as this analyzer makes them
        "question_terms": sorted(question_terms(analyzer.languages, analyzer.terms)),
        "documents": [_document_row(d) for d in documents],
        "keys": keys,
        "lengths": [lengths[key] for key in keys],
        "document": chunks.doc_of,
        "chunk_index": chunks.index_of,
        "vector_keys": vector_keys,
        "lexical_bar": None if lexical_bar is None else dict(lexical_bar),
        "dense_floor": None if dense_floor is None else dict(dense_floor),
    }
    files.write(HEAD, pack(head), "head")
    sizes = files.sizes
    return StaticExport(
        files=files.count,
        bytes=sum(sizes.values()),
        shards=len(firsts),
        postings_bytes=sizes["postings"],
        chunks_bytes=sizes["chunks"],
        head_bytes=sizes["head"],
        vectors_bytes=sizes["vectors"],
        terms_bytes=sizes["terms"],
        texts_bytes=sizes["texts"],
    )


def _read_chunks(
    reader: CollectionReader,
    documents: list[Document],
    sources: Path,
    analyzer: Analyzer,
    lengths: dict[int, int],
) -> _Chunks:
    """Every chunk in key order, its text re-analyzed: a count of terms other than the
    store's means another analyzer built the collection (``StorageError``)."""
    position = {d.document_id: i for i, d in enumerate(documents)}
    keys = sorted(lengths)
    texts: dict[str, str] = {}
    out = _Chunks()
    max_bytes = IngestSettings().max_file_bytes
    for at in range(0, len(keys), _BATCH):
        batch = keys[at : at + _BATCH]
        found = reader.chunks(batch)
        for key in batch:
            chunk = found.get(key)
            if chunk is None or chunk.document_id not in position:
                raise StorageError(f"chunk {key} has no record or document; verify the collection")
            document = documents[position[chunk.document_id]]
            text = texts.get(document.source)
            if text is None:
                texts.clear()  # documents' chunks come in key order, mostly one file at a time
                if document.extractor is not None:
                    # offsets index the extracted text (HTML, PDF), not the shipped file: each
                    # chunk's own text is stored (the page cannot slice it from the bytes)
                    text = ""
                else:
                    text = read_text(sources, document.source, max_bytes=max_bytes)
                texts[document.source] = text
            start, end = chunk.start_offset, chunk.end_offset
            own_id = chunk_id_for(document.document_id, chunk.chunk_index, start, end)
            out.rows.append(
                [
                    start,
                    end,
                    chunk.start_line,
                    chunk.end_line,
                    dict(chunk.metadata),
                    None if own_id == chunk.chunk_id else chunk.chunk_id,
                    None if text[start:end] == chunk.text else chunk.text,
                ]
            )
            out.doc_of.append(position[chunk.document_id])
            out.index_of.append(chunk.chunk_index)
            out.texts.append(chunk.text)
            language = chunk.metadata.get("language")
            headings = chunk.metadata.get("heading_path")
            terms = analyzer.chunk_terms(
                chunk.text,
                [h for h in headings if isinstance(h, str)] if isinstance(headings, list) else [],
                language if isinstance(language, str) else None,
            )
            if len(terms) != lengths[key]:
                raise StorageError(
                    f"chunk {chunk.chunk_id}: {len(terms)} terms, the store says {lengths[key]}; "
                    "the collection was built with another analyzer: re-ingest it"
                )
            for term, tf in Counter(terms).items():
                out.postings.setdefault(term, []).append((key, tf))
    return out


def _shard_postings(
    postings: dict[str, list[tuple[int, int]]],
) -> tuple[dict[int, dict[str, list[list[int]]]], list[str]]:
    """Each shard's terms with their gap-coded keys and frequencies, and each shard's first
    term. Shards hold ranges of terms in code-point order, about equal in postings: the
    completions of a prefix are neighbours, so a prefix reads one or two shards (adr/0062)."""
    total = sum(len(p) for p in postings.values())
    per_shard = total / _shard_count(total)
    by_shard: dict[int, dict[str, list[list[int]]]] = {}
    firsts: list[str] = []
    filled = 0.0
    for term in sorted(postings):
        pairs = sorted(postings[term])
        if not firsts or filled >= per_shard * len(firsts):
            firsts.append(term)
        filled += len(pairs)
        ordered = [key for key, _ in pairs]
        gaps = [b - a for a, b in zip([0, *ordered[:-1]], ordered, strict=True)]
        by_shard.setdefault(len(firsts) - 1, {})[term] = [gaps, [tf for _, tf in pairs]]
    return by_shard, firsts


def _document_row(d: Document) -> list[Any]:
    return [
        d.document_id,
        d.source,
        d.root,
        d.content_hash,
        d.char_count,
        d.line_count,
        d.fingerprint,
        d.source_class,
        d.extractor,  # an extracted document's identity (a row of 8 from older sites reads too)
    ]


def _check_postings(reader: CollectionReader, postings: dict[str, list[tuple[int, int]]]) -> None:
    stored_terms = reader.status().get("terms")
    if stored_terms is not None and stored_terms != len(postings):
        raise StorageError(
            f"the chunks' text gives {len(postings)} terms, the store holds {stored_terms}; "
            "verify the collection (groundkit verify) or re-ingest it"
        )
    for term, pairs in postings.items():
        if sorted(reader.postings(term)) != sorted(pairs):
            raise StorageError(
                f"term {term!r}: the store's postings differ from the chunks' text; "
                "verify the collection or re-ingest it"
            )
