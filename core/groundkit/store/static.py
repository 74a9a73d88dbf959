"""A read-only collection in small static files, fetched as a query needs them (the browser).

``export_static`` (``groundkit.store.static_export``) writes, under one folder::

    collection.bin          counters, identities, documents, and per chunk: key, length,
                            document, chunk index (what opening and tie-breaking need); the
                            idf table and bm25's lexical bar where one was shipped (adr/0069),
                            the dense floor and hybrid's share with vectors (adr/0070)
    postings/<shard>.bin    the postings of a range of terms in code-point order (the head holds
                            each shard's first term), so the completions of a prefix are in one
                            or two shards (sites before adr/0062: the terms whose crc32 falls in
                            the shard)
    chunks/<block>.bin      chunk records (offsets, lines, metadata), ``BLOCK`` chunks a file
    terms/<block>.bin       the sorted term list, ``TERMS_BLOCK`` terms a file (a prefix reads
                            only the blocks it falls in; the head holds each block's first term)
    words/<block>.bin       the sorted surface words typo tolerance measures edits against
                            (``analysis.tokenize.surface_words``), ``TERMS_BLOCK`` a file
    texts/<block>.bin       chunk records with their texts, ``TEXT_BLOCK`` a file: what the
                            page's JS path reads of a result (adr/0062)
    vectors.bin             packed vectors, only in a dense collection

Every file is zlib-deflated JSON (vectors: deflated float32 bytes), so any static host serves
it small (``static_layout``). This reader slices chunk text from the shipped source
(``sources/``), which ``build-site`` has verified holds every chunk. ``StaticReader`` implements the
``CollectionReader`` protocol over a ``fetch(path) -> bytes`` callable, so the core's BM25,
ties and joins run unchanged and rank exactly as over the collection it was exported from
(adr/0018-browser-worker-and-urls.md).
"""

from __future__ import annotations

import json
import zlib
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from groundkit.contracts import Chunk, Document, chunk_id_for
from groundkit.errors import StorageError
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.protocols import TieKey
from groundkit.store.static_layout import (
    BLOCK,
    FORMAT,
    HEAD,
    block_path,
    range_shard_of,
    shard_of,
    shard_path,
    terms_path,
    words_path,
)

__all__ = ["Fetch", "FilesNeeded", "StaticReader", "unpack"]

_SOURCE_CACHE = 64
"""Decoded source files held at once."""

Fetch = Callable[[str], bytes]
"""Bytes of a file of the static collection, by its path relative to the site."""


class FilesNeeded(Exception):  # noqa: N818 - a request, not a failure
    """Raised instead of fetching while ``StaticReader.defer`` is set: the files one call
    needs, so that a caller able to fetch in parallel can fetch them all, ``put`` them and
    call again (the browser's worker; synchronous fetches go one at a time)."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(f"{len(paths)} files needed: {', '.join(paths[:5])}")
        self.paths = paths


def unpack(data: bytes, name: str) -> Any:
    try:
        return json.loads(_inflate(data, name))
    except ValueError as exc:
        raise StorageError(
            f"static collection: {name} is not valid ({exc})", subject=name
        ) from None


def _inflate(data: bytes, name: str) -> bytes:
    try:
        return zlib.decompress(data)
    except zlib.error as exc:
        raise StorageError(
            f"static collection: {name} is damaged ({exc}); rebuild the site", subject=name
        ) from None


class StaticReader:
    """A ``CollectionReader`` over a static collection; files are fetched on first use.

    ``fetch`` reads a path relative to the site: ``index + name`` for the collection's files,
    ``sources + source`` for a document's text. ``put`` hands over bytes fetched ahead (the
    browser fetches a query's shards in parallel before searching).
    """

    def __init__(
        self, fetch: Fetch, *, index: str = "", sources: str = "sources/", location: str = ""
    ) -> None:
        self._fetch = fetch
        self._index = index
        self._sources = sources
        self._location = location or f"static collection {index or '.'}"
        self._ready: dict[str, bytes] = {}
        self.defer = False
        """While set, a call that needs files not yet loaded raises ``FilesNeeded`` naming them
        all, instead of fetching them one by one."""
        head = unpack(self._get(index + HEAD), HEAD)
        if head.get("format") != FORMAT:
            raise StorageError(
                f"{self._location}: format {head.get('format')!r} is not {FORMAT}; rebuild the "
                "site with this version of groundkit",
                subject=self._location,
            )
        self._head = head
        self._shards = int(head["shards"])
        self._postings_firsts: list[str] | None = head.get("postings_firsts")
        self._docs = [Document(*row) for row in head["documents"]]
        self._by_id = {d.document_id: d for d in self._docs}
        self._keys: list[int] = head["keys"]
        self._lengths: list[int] = head["lengths"]
        self._doc_of: list[int] = head["document"]
        self._index_of: list[int] = head["chunk_index"]
        self._slot = {key: slot for slot, key in enumerate(self._keys)}
        self._postings: dict[int, dict[str, tuple[list[int], list[int]]]] = {}
        self._blocks: dict[int, list[list[Any]]] = {}
        self._term_firsts: list[str] | None = head.get("term_blocks")
        self._term_blocks: dict[int, list[str]] = {}
        self._word_blocks: int | None = head.get("word_blocks")
        stored = head.get("idf")
        self._idf = None if stored is None else {int(df): float(idf) for df, idf in stored}
        self._words: list[str] | None = None
        self._texts: dict[str, str] = {}
        self._by_chunk_id: dict[str, int] | None = None
        self._embedding = (
            None if head["embedding"] is None else EmbeddingIdentity.from_dict(head["embedding"])
        )

    # ---- fetching ----
    def _get(self, path: str) -> bytes:
        ready = self._ready.pop(path, None)
        if ready is not None:
            return ready
        try:
            return self._fetch(path)
        except StorageError:
            raise
        except Exception as exc:  # the fetch is the host's: an OSError, a JS error, ...
            raise StorageError(
                f"{self._location}: cannot fetch {path} ({exc}); is the site complete?",
                subject=path,
            ) from exc

    def missing(self, terms: Iterable[str]) -> list[str]:
        """Paths of the postings shards ``terms`` need that are not loaded yet."""
        shards = {self._shard_of(term) for term in terms}
        return [self._index + shard_path(s) for s in sorted(shards) if s not in self._postings]

    def _shard_of(self, term: str) -> int:
        firsts = self._postings_firsts
        return shard_of(term, self._shards) if firsts is None else range_shard_of(term, firsts)

    def put(self, path: str, data: bytes) -> None:
        """Bytes of ``path`` fetched ahead; used (once) instead of fetching it."""
        self._ready[path] = data

    def _require(self, paths: Iterable[str]) -> None:
        if self.defer:
            missing = sorted({p for p in paths if p not in self._ready})
            if missing:
                raise FilesNeeded(missing)

    def _shard(self, shard: int) -> dict[str, tuple[list[int], list[int]]]:
        found = self._postings.get(shard)
        if found is None:
            name = shard_path(shard)
            self._require([self._index + name])
            found = {}
            for term, (gaps, tfs) in unpack(self._get(self._index + name), name).items():
                keys, key = [], 0
                for gap in gaps:
                    key += gap
                    keys.append(key)
                found[term] = (keys, tfs)
            self._postings[shard] = found
        return found

    def _block(self, block: int) -> list[list[Any]]:
        found = self._blocks.get(block)
        if found is None:
            name = block_path(block)
            found = unpack(self._get(self._index + name), name)
            self._blocks[block] = found
        return found

    def _text(self, document: Document) -> str:
        text = self._texts.get(document.source)
        if text is None:
            path = self._sources + document.source
            try:
                text = self._get(path).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise StorageError(
                    f"{self._location}: {document.source} is not valid UTF-8 ({exc.reason})",
                    subject=document.source,
                ) from None
            if len(self._texts) >= _SOURCE_CACHE:
                self._texts.clear()
            self._texts[document.source] = text
        return text

    # ---- CollectionReader ----
    @property
    def location(self) -> str:
        return self._location

    @property
    def generation(self) -> int:
        return int(self._head["generation"])

    @property
    def chunk_count(self) -> int:
        return len(self._keys)

    @property
    def total_length(self) -> int:
        return int(self._head["total_length"])

    @property
    def analyzer_identity(self) -> dict[str, Any] | None:
        found = self._head["analyzer"]
        return None if found is None else dict(found)

    @property
    def embedding_identity(self) -> EmbeddingIdentity | None:
        return self._embedding

    def vectors(self) -> Iterator[tuple[int, bytes]]:
        if self._embedding is None:
            return
        self._require([self._index + "vectors.bin"])
        data = _inflate(self._get(self._index + "vectors.bin"), "vectors.bin")
        keys: list[int] = self._head["vector_keys"]
        width = len(data) // len(keys) if keys else 0
        for i, key in enumerate(keys):
            yield key, data[i * width : (i + 1) * width]

    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        return zip(self._keys, self._lengths, strict=True)

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        found = self._shard(self._shard_of(term)).get(term)
        return [] if found is None else list(zip(*found, strict=True))

    def indexed_terms(self, prefix: str = "") -> list[str]:
        firsts = self._term_firsts
        if firsts is None:
            raise StorageError(
                f"{self._location} has no term list (built before prefix and typo-tolerant "
                "search); rebuild the site with this version of groundkit",
                subject=self._location,
            )
        # the blocks a prefix can fall in: from the last block starting at or before it to the
        # last one starting inside its range
        low = max(bisect_right(firsts, prefix) - 1, 0)
        high = bisect_right(firsts, prefix + "\U0010ffff") if prefix else len(firsts)
        wanted = range(low, max(high, low + 1)) if firsts else range(0)
        self._require(self._index + terms_path(b) for b in wanted if b not in self._term_blocks)
        terms: list[str] = []
        for block in wanted:
            found = self._term_blocks.get(block)
            if found is None:
                name = terms_path(block)
                found = self._term_blocks[block] = unpack(self._get(self._index + name), name)
            terms.extend(t for t in found if t.startswith(prefix))
        return terms

    def stored_idf(self) -> dict[int, float] | None:
        return self._idf

    def shipped_lexical_bar(self) -> dict[str, Any] | None:
        found = self._head.get("lexical_bar")
        return None if found is None else dict(found)

    def shipped_dense_floor(self) -> dict[str, Any] | None:
        found = self._head.get("dense_floor")  # absent: a site from before adr/0070
        return None if found is None else dict(found)

    def indexed_words(self) -> list[str]:
        if self._words is None:
            blocks = self._word_blocks
            if blocks is None:
                raise StorageError(
                    f"{self._location} has no word list (built before typo tolerance measured "
                    "edits on words); rebuild the site with this version of groundkit",
                    subject=self._location,
                )
            self._require(self._index + words_path(b) for b in range(blocks))
            words: list[str] = []
            for block in range(blocks):
                name = words_path(block)
                words.extend(unpack(self._get(self._index + name), name))
            self._words = words
        return self._words

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]:
        if self.defer:
            slots = [self._slot[key] for key in keys if key in self._slot]
            blocks = {s // BLOCK for s in slots} - set(self._blocks)
            sources = {self._docs[self._doc_of[s]].source for s in slots} - set(self._texts)
            self._require(
                [self._index + block_path(b) for b in blocks]
                + [self._sources + source for source in sources]
            )
        out: dict[int, Chunk] = {}
        for key in keys:
            slot = self._slot.get(key)
            if slot is None:
                continue
            row = self._block(slot // BLOCK)[slot % BLOCK]
            out[key] = self._chunk(slot, row)
        return out

    def chunk_by_id(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id. Ids are not stored, so the first call reads every chunk
        block (the whole ``chunks/`` folder) and keeps an id map; searches never need it."""
        if self._by_chunk_id is None:
            found: dict[str, int] = {}
            for at in range(len(self._keys)):
                start, end, _, _, _, stored_id, _ = self._block(at // BLOCK)[at % BLOCK]
                document = self._docs[self._doc_of[at]]
                own = chunk_id_for(document.document_id, self._index_of[at], start, end)
                found[stored_id or own] = at
            self._by_chunk_id = found
        slot = self._by_chunk_id.get(chunk_id)
        return None if slot is None else self._chunk(slot, self._block(slot // BLOCK)[slot % BLOCK])

    def _chunk(self, slot: int, row: list[Any]) -> Chunk:
        start, end, start_line, end_line, metadata, stored_id, stored_text = row
        document = self._docs[self._doc_of[slot]]
        index = self._index_of[slot]
        text = stored_text if stored_text is not None else self._text(document)[start:end]
        return Chunk(
            chunk_id=stored_id or chunk_id_for(document.document_id, index, start, end),
            document_id=document.document_id,
            chunk_index=index,
            text=text,
            start_offset=start,
            end_offset=end,
            start_line=start_line,
            end_line=end_line,
            metadata=metadata,
        )

    def _tie_key(self, slot: int) -> TieKey:
        document = self._docs[self._doc_of[slot]]
        return (document.content_hash, self._index_of[slot], document.source)

    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        slots = ((key, self._slot.get(key)) for key in keys)
        return {key: self._tie_key(slot) for key, slot in slots if slot is not None}

    def iter_tie_keys(self) -> Iterator[tuple[int, TieKey]]:
        for slot, key in enumerate(self._keys):
            yield key, self._tie_key(slot)

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]:
        return {i: self._by_id[i] for i in document_ids if i in self._by_id}

    def iter_documents(self) -> Iterator[Document]:
        yield from sorted(self._docs, key=lambda d: (d.root, d.source))

    def source_counts(self) -> list[tuple[str, str, int]]:
        counts = Counter((d.root, d.source_class) for d in self._docs)
        return [(root, kind, n) for (root, kind), n in sorted(counts.items())]

    def iter_chunks(self) -> Iterator[Chunk]:
        order = sorted(
            range(len(self._keys)),
            key=lambda s: (self._docs[self._doc_of[s]].document_id, self._index_of[s]),
        )
        for slot in order:
            yield self._chunk(slot, self._block(slot // BLOCK)[slot % BLOCK])

    def status(self) -> dict[str, Any]:
        return {
            "location": self._location,
            "store": "static",
            "schema_version": FORMAT,
            "documents": len(self._docs),
            "chunks": self.chunk_count,
            "terms": int(self._head["terms"]),
            "generation": self.generation,
            "analyzer": self.analyzer_identity,
            "embedding": None if self._embedding is None else self._embedding.to_dict(),
            "vectors": len(self._head.get("vector_keys") or []),
            "size_bytes": None,
        }

    def integrity_problems(self) -> list[str]:
        problems = []
        if sum(self._lengths) != self.total_length:
            problems.append(f"chunk lengths sum to {sum(self._lengths)}, not {self.total_length}")
        if len(self._slot) != len(self._keys):
            problems.append("chunk keys repeat")
        return problems

    def close(self) -> None:
        """Nothing to release: fetched files are dropped with the reader."""

    def __enter__(self) -> StaticReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
