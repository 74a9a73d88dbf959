"""The indexer: the only writer. Path -> checks -> chunks -> terms -> one transaction per file.

With an embedder, each chunk's vector is written in the same transaction as the chunk.
Unchanged files (same fingerprint of content, chunker settings, analyzer and embedding
identities) are skipped; changed ones are replaced; files gone from a re-ingested folder are
removed; refused files and folders are reported and whatever was stored for them (or under
them) before is kept: nothing is removed because it could not be read.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundkit import codec
from groundkit.analysis.analyzer import Analyzer
from groundkit.chunking import Span, chunk_text, kind_for
from groundkit.config import IngestSettings
from groundkit.contracts import Chunk, Document, chunk_id_for, content_hash, document_id_for
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError, IngestionError
from groundkit.extract.extractor import Extraction, ExtractorIdentity
from groundkit.extract.extractor_registry import extractor_for_source
from groundkit.extract.language import declared_language
from groundkit.identities import bind_analyzer, bound_embedder
from groundkit.ingestion.discover import Refusal, SourceFile, discover
from groundkit.ingestion.fetch import fetch
from groundkit.ingestion.language_check import check_language
from groundkit.ingestion.page_archive import archive_page, normalized_url
from groundkit.ingestion.report import IngestReport
from groundkit.lines import LineIndex
from groundkit.source_files import check_text, decode_text, read_bytes
from groundkit.store.protocols import CollectionStore, IndexedChunk
from groundkit.vectors.packing import pack_vector

__all__ = ["COMMIT_SECONDS", "FILES_PER_COMMIT", "Indexer", "IngestProgress"]

FILES_PER_COMMIT = 8192
COMMIT_SECONDS = 2.0
"""Files are committed in groups of up to FILES_PER_COMMIT, or of what COMMIT_SECONDS of
writing got through, whichever is smaller: large groups amortise the pages every document
touches, the time cap bounds what a killed process loses and how long the write lock is held
(adr/0002-storage.md, adr/0038-ingest-speed-third-pass.md). Each file stays atomic on its
own (a savepoint)."""


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """Sent after each file: ``done`` of ``total`` files, the last one's source and outcome."""

    done: int
    """Files handled so far."""
    total: int
    """Files to handle in all."""
    source: str
    """The file just handled."""
    outcome: str
    """What happened to it: ``indexed``, ``unchanged``, ``replaced`` or ``refused``."""


ProgressCallback = Callable[[IngestProgress], None]


class Indexer:
    """Writes files into one collection store with one analyzer."""

    def __init__(
        self,
        store: CollectionStore,
        *,
        analyzer: Analyzer | None = None,
        settings: IngestSettings | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        self.analyzer = bind_analyzer(store.location, store.analyzer_identity(), analyzer)
        self._analyzer_identity = self.analyzer.identity  # built once, not per document
        self.settings = settings or IngestSettings()
        self.embedder = bound_embedder(store, embedder)
        chunker = codec.encode(self.settings.chunker.identity())
        self._fingerprint_salt = f"{chunker}\0{self.analyzer.identity_json}"
        if self.embedder is not None:  # lexical fingerprints stay as they were before vectors
            self._fingerprint_salt += f"\0{self.embedder.identity.to_json()}"

    def fingerprint(self, digest: str, extractor: str | None = None) -> str:
        """What must be unchanged for a file to be skipped: content, chunking, identities.

        ``digest`` is the text's hash for a text file, and the bytes' hash for an extracted one
        (with its ``extractor`` identity), so that one is skipped before any extraction.
        """
        key = f"{digest}\0{self._fingerprint_salt}"
        if extractor is not None:
            key += f"\0{extractor}"
        return hashlib.sha256(key.encode()).hexdigest()

    def ingest(
        self,
        path: str | Path,
        *,
        progress: ProgressCallback | None = None,
        select: Callable[[str], bool] | None = None,
    ) -> IngestReport:
        """Ingest a file or folder. ``select`` (a source -> bool) limits the ingest to the
        sources it admits (one shard's share of a corpus, ``groundkit.shards``)."""
        started = time.perf_counter()
        found = discover(path, self.settings.extensions, self.settings.exclude)
        files = found.files if select is None else [f for f in found.files if select(f.source)]
        root = str(found.root)
        report = IngestReport(root=root, collection=self.store.location)
        report.refused.extend(r for r in found.refused if select is None or select(r.source))
        report.skipped = dict(found.skipped)
        report.excluded = list(found.excluded)
        report.extensions = tuple(self.settings.extensions)
        self._in_groups(
            [f.source for f in files],
            lambda n: self._ingest_file(root, files[n], report),
            progress,
        )
        if found.is_directory:
            present = {f.source for f in found.files}
            self._remove_absent(root, present, {r.source for r in found.refused}, report)
        return self._finish(report, started)

    def ingest_texts(
        self,
        root: str | Path,
        texts: Iterable[tuple[str, str]],
        *,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Ingest ``(source, text)`` pairs as the text files ``root/source`` holding them,
        reading no file (a dataset's corpus in memory), under a text file's rules; documents
        under ``root`` not among them are removed. Citations verify where ``root/source``
        holds that text, which the caller sees to."""
        started = time.perf_counter()
        base = str(Path(root).resolve())
        report = IngestReport(root=base, collection=self.store.location)
        report.extensions = tuple(self.settings.extensions)
        pairs = list(texts)
        self._in_groups(
            [source for source, _ in pairs],
            lambda n: self._ingest_memory(base, *pairs[n], report),
            progress,
        )
        self._remove_absent(base, {source for source, _ in pairs}, set(), report)
        return self._finish(report, started)

    def _in_groups(
        self,
        sources: Sequence[str],
        one: Callable[[int], str],
        progress: ProgressCallback | None,
    ) -> None:
        """``one(n)`` for each of ``sources``, committed in groups of FILES_PER_COMMIT or what
        COMMIT_SECONDS got through."""
        total = len(sources)
        done = 0
        while done < total:
            with self.store.batch():  # one commit group: FILES_PER_COMMIT files or COMMIT_SECONDS
                group_started = time.perf_counter()
                while done < total:
                    outcome = one(done)
                    done += 1
                    if progress is not None:
                        progress(IngestProgress(done, total, sources[done - 1], outcome))
                    if (
                        done % FILES_PER_COMMIT == 0
                        or time.perf_counter() - group_started >= COMMIT_SECONDS
                    ):
                        break

    def _remove_absent(
        self, root: str, present: set[str], refused: set[str], report: IngestReport
    ) -> None:
        """Remove the documents under ``root`` not ``present`` (keeping those under a refused
        path: nothing is removed because it could not be read)."""
        for document in self.store.documents_under(root):
            if document.source not in present and not _under_any(document.source, refused):
                report.generation = self.store.remove_document(document.document_id)
                report.removed.append(document.source)

    def _finish(self, report: IngestReport, started: float) -> IngestReport:
        report.refused.sort(key=lambda r: r.source)
        report.elapsed_s = time.perf_counter() - started
        if not report.generation:
            reader = self.store.reader()
            try:
                report.generation = reader.generation
            finally:
                reader.close()
        return report

    def ingest_url(
        self,
        url: str,
        *,
        archive: Path,
        allow: tuple[str, ...] = (),
        timeout_s: float = 30.0,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Fetch ``url`` once into the page archive ``archive`` and ingest it (its
        ``source_class`` is ``"snapshot"``, the stored name of a fetched page's class).

        The document's root is the URL; an earlier fetch of the same URL is replaced. A
        refused fetch (SSRF guard, size, time, type) is reported like a refused file.
        """
        started = time.perf_counter()
        root = normalized_url(url)
        report = IngestReport(root=root, collection=self.store.location)
        report.extensions = tuple(self.settings.extensions)
        try:
            fetched = fetch(
                url, max_bytes=self.settings.max_file_bytes, timeout_s=timeout_s, allow=allow
            )
            source, created = archive_page(archive, fetched)
        except IngestionError as exc:
            report.refused.append(Refusal.of(exc, root))
            return report
        with self.store.batch():
            outcome = self._ingest_file(
                root, SourceFile(source, archive / source), report, read_root=str(archive)
            )
            if outcome in ("indexed", "replaced", "unchanged"):
                for document in self.store.documents_under(root):
                    if document.source != source:  # an older fetch of this URL
                        report.generation = self.store.remove_document(document.document_id)
                        report.removed.append(document.source)
            elif created:  # refused (a duplicate, undecodable): no document cites it
                (archive / source).unlink(missing_ok=True)
        if progress is not None:
            progress(IngestProgress(1, 1, root, outcome))
        report.elapsed_s = time.perf_counter() - started
        return report

    def _ingest_file(
        self,
        root: str,
        source_file: SourceFile,
        report: IngestReport,
        *,
        read_root: str | None = None,
    ) -> str:
        """Ingest one file; ``read_root`` (the page archive) is where it is read from, when
        that is not its recorded ``root`` (a URL)."""
        source = source_file.source
        existing = self.store.find_document(root, source)
        try:
            found = extractor_for_source(source)
            data = read_bytes(read_root or root, source, max_bytes=self.settings.max_file_bytes)
            extractor = None if found is None else found.identity.to_json()
            if found is not None:
                # An extracted file is fingerprinted by its bytes, so an unchanged PDF is
                # skipped without being extracted again.
                fingerprint = self.fingerprint(hashlib.sha256(data).hexdigest(), extractor)
                if existing is not None and existing.fingerprint == fingerprint:
                    report.unchanged.append(source)
                    return "unchanged"
                extraction = found.extract(data, name=source)
            else:
                decoded = decode_text(data, name=source)
                extraction = Extraction(decoded, kind_for(source, decoded))
            check_language(extraction, self.analyzer, source)
        except IngestionError as exc:
            report.refused.append(Refusal.of(exc, source))
            return "refused"
        return self._ingest_extraction(
            root,
            source,
            extraction,
            existing,
            report,
            extractor=extractor,
            fingerprint=None if extractor is None else fingerprint,
            fetched_page=read_root is not None,
        )

    def _ingest_memory(self, root: str, source: str, text: str, report: IngestReport) -> str:
        """Ingest one in-memory text as the text file ``root/source`` (``ingest_texts``)."""
        try:
            checked = check_text(text, name=source, max_bytes=self.settings.max_file_bytes)
            extraction = Extraction(checked, kind_for(source, checked))
            check_language(extraction, self.analyzer, source)
        except IngestionError as exc:
            report.refused.append(Refusal.of(exc, source))
            return "refused"
        existing = self.store.find_document(root, source)
        return self._ingest_extraction(root, source, extraction, existing, report)

    def _ingest_extraction(
        self,
        root: str,
        source: str,
        extraction: Extraction,
        existing: Document | None,
        report: IngestReport,
        *,
        extractor: str | None = None,
        fingerprint: str | None = None,
        fetched_page: bool = False,
    ) -> str:
        """Store a read source unless unchanged or a duplicate (``fingerprint``: an extracted
        file's, from its bytes; a text's is taken here); its outcome."""
        text = extraction.text
        text_hash = content_hash(text)
        if fingerprint is None:
            fingerprint = self.fingerprint(text_hash)
            if existing is not None and existing.fingerprint == fingerprint:
                report.unchanged.append(source)
                return "unchanged"
        document_id = document_id_for(source, text_hash)
        twin = self.store.find_document_by_id(document_id)
        if twin is not None and (twin.root, twin.source) != (root, source):
            report.refused.append(
                Refusal(
                    source,
                    "duplicate",
                    f"{source}: identical to {twin.source} already ingested from {twin.root}; "
                    "it was not stored twice (if that folder moved here, run `groundkit "
                    f"relocate {twin.root} {root}`; to index it here instead, `groundkit remove "
                    f"{twin.root}` first)",
                )
            )
            return "refused"
        document, chunks = self.build(
            root,
            source,
            text,
            text_hash,
            fingerprint,
            extraction=extraction,
            extractor=extractor,
            fetched_page=fetched_page,
        )
        report.generation = self.store.write_document(
            document,
            chunks,
            analyzer_identity=self._analyzer_identity,
            embedding=None if self.embedder is None else self.embedder.identity,
            replaces=None if existing is None else existing.document_id,
        )
        report.chunks_written += len(chunks)
        (report.indexed if existing is None else report.replaced).append(source)
        report.classes[source] = document.source_class
        if extractor is not None:
            report.extractors[source] = ExtractorIdentity.from_json(extractor).describe()
        return "indexed" if existing is None else "replaced"

    def build(
        self,
        root: str,
        source: str,
        text: str,
        text_hash: str,
        fingerprint: str,
        *,
        extraction: Extraction | None = None,
        extractor: str | None = None,
        fetched_page: bool = False,
    ) -> tuple[Document, list[IndexedChunk]]:
        """The document record and analyzed chunks of one decoded (or extracted) source."""
        lines = LineIndex(text)
        document_id = document_id_for(source, text_hash)
        if extraction is None:
            spans = chunk_text(text, kind=kind_for(source, text), settings=self.settings.chunker)
        else:
            spans = self._extracted_spans(extraction)
        vectors = self._vectors([text[span.start : span.end] for span in spans])
        language = None if extraction is None else declared_language(extraction)
        chunks: list[IndexedChunk] = []
        for index, span in enumerate(spans):
            start_line, end_line = lines.span(span.start, span.end)
            passage = text[span.start : span.end]
            metadata: dict[str, object] = {
                "heading_path": list(span.heading_path),
                "kind": span.kind,
            }
            pages = None if extraction is None else extraction.pages_of(span.start, span.end)
            if pages is not None:
                metadata["pages"] = list(pages)
            if language is not None:
                metadata["language"] = language
            chunk = Chunk(
                chunk_id=chunk_id_for(document_id, index, span.start, span.end),
                document_id=document_id,
                chunk_index=index,
                text=passage,
                start_offset=span.start,
                end_offset=span.end,
                start_line=start_line,
                end_line=end_line,
                metadata=metadata,
            )
            terms = self.analyzer.chunk_terms(passage, span.heading_path, language)
            chunks.append(IndexedChunk(chunk, Counter(terms), len(terms), vectors[index]))
        document = Document(
            document_id=document_id,
            source=source,
            root=root,
            content_hash=text_hash,
            char_count=len(text),
            line_count=lines.line_count,
            fingerprint=fingerprint,
            source_class=(
                "snapshot" if fetched_page else "text" if extractor is None else "extracted"
            ),
            extractor=extractor,
        )
        return document, chunks

    def _extracted_spans(self, extraction: Extraction) -> list[Span]:
        """Chunks of an extraction; with pages, each page is chunked on its own (no chunk
        straddles a page break, so a citation names the page it is on)."""
        text, settings = extraction.text, self.settings.chunker
        if not extraction.page_starts:
            return chunk_text(text, kind=extraction.structure, settings=settings)
        ends = [*extraction.page_starts[1:], len(text)]
        spans: list[Span] = []
        for start, end in zip(extraction.page_starts, ends, strict=True):
            for span in chunk_text(text[start:end], kind=extraction.structure, settings=settings):
                spans.append(
                    Span(start + span.start, start + span.end, span.heading_path, span.kind)
                )
        return spans

    def _vectors(self, passages: list[str]) -> list[bytes | None]:
        """Packed vectors of ``passages`` (all None without an embedder)."""
        if self.embedder is None:
            return [None] * len(passages)
        dimensions = self.embedder.identity.dimensions
        embedded = self.embedder.embed_documents(passages) if passages else []
        if len(embedded) != len(passages):
            raise ConfigurationError(
                f"embedder {self.embedder.identity.model!r} returned {len(embedded)} vectors for "
                f"{len(passages)} passages; it does not honour the Embedder protocol"
            )
        return [pack_vector(vector, dimensions) for vector in embedded]


def _under_any(source: str, refused: set[str]) -> bool:
    """Whether ``source`` is a refused file or lies under a refused folder (kept, not removed)."""
    if "." in refused or source in refused:
        return True
    parts = source.split("/")
    return any("/".join(parts[:n]) in refused for n in range(1, len(parts)))
