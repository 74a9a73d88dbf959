"""The chunks a ``SearchFilter`` admits in one read view: a collection's, or a shard's.

One implementation for the retriever and every shard, so a filtered sharded search admits in
each shard exactly the chunks one collection would admit (filtering happens before the merge).
"""

from __future__ import annotations

from groundkit.retrieval.request import SearchFilter
from groundkit.store.protocols import CollectionReader

__all__ = ["FilterCache"]

_FILTERS_CACHED = 32  # chunk sets of recent filters kept per read view


class FilterCache:
    """Admitted chunk keys per filter, computed once per filter for one read view."""

    def __init__(self, reader: CollectionReader) -> None:
        self._reader = reader
        self._found: dict[tuple[object, ...], frozenset[int]] = {}

    def allowed(self, where: SearchFilter) -> frozenset[int]:
        """The chunk keys ``where`` admits in this read view."""
        found = self._found.get(where.key())
        if found is not None:
            return found
        reader = self._reader
        keys = [key for key, tie in reader.iter_tie_keys() if where.admits_source(tie[2])]
        if where.needs_chunks:
            chunks = reader.chunks(keys)
            documents = reader.documents(sorted({c.document_id for c in chunks.values()}))
            keys = [
                key
                for key, chunk in chunks.items()
                if chunk.document_id in documents
                and where.admits(chunk, documents[chunk.document_id])
            ]
        found = frozenset(keys)
        if len(self._found) >= _FILTERS_CACHED:
            self._found.clear()
        self._found[where.key()] = found
        return found
