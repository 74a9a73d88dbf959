"""The Python half of the static site's worker: what ``web_app/worker.js`` calls under Pyodide.

Each function takes and returns what crosses the JS boundary (strings, numbers, JSON text,
Pyodide's buffer proxies), so the worker stays a thin binding. ``search`` is the core's answer
that the page's JS first answer (``web_app/first_answer.js``) must equal, row for row
(adr/0062); it runs unchanged under CPython, where tests/web/test_first_answer.py compares the
two. State is module-level: one worker holds one collection at a time.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import groundkit
from groundkit.contracts import SearchResult, content_hash
from groundkit.retrieval.citations import citation_root, source_text, verify_citation
from groundkit.retrieval.display import display_spans, plain_text
from groundkit.retrieval.searcher import Searcher
from groundkit.store.memory import MemoryStore
from groundkit.store.static import FilesNeeded, StaticReader

__all__ = [
    "cited_source",
    "fetched",
    "index_folder",
    "missing",
    "open_bundled",
    "open_reader",
    "prefetched",
    "put",
    "search",
    "verify",
]


NOTHING_HERE = ("abstained", "lexical_share", "lexical_bar", "absent_name")
"""The metadata a page answer carries where the search judged its evidence: whether it said
"nothing here", bm25's share and the bar with its source (adr/0069), and the name the
collection lacks where that was why (adr/0080)."""
FLOOR = "floor"
"""The key of a dense or hybrid answer's floor: the similarity floor applied, the best
similarity found and where the floor came from (``self-calibrated``: the site's own, shipped
in its head; ``embedder``: the model's, where the site has none), and hybrid's lexical share
bar with its source (adr/0070)."""


class _Bytes(Protocol):
    """A Pyodide buffer proxy (``to_bytes``), or anything else that gives its bytes so."""

    def to_bytes(self) -> bytes: ...


class _State:
    """The worker's open collection and the last search's results."""

    def __init__(self) -> None:
        self.retriever: Searcher | None = None
        self.reader: StaticReader | None = None
        self.results: list[SearchResult] = []
        self.sources_root: str | None = None
        self.stored_root: str | None = None
        self.fetched: list[list[Any]] = []
        self.given: Any = None  # the page's query embedder (page_semantic), when turned on

    def searcher(self) -> Searcher:
        if self.retriever is None:
            raise groundkit.ConfigurationError("no collection is open in this page")
        return self.retriever


_state = _State()
_prefetched: dict[str, bytes] = {}  # path -> bytes the page fetched ahead (the index head)


def prefetched(path: str, data: _Bytes) -> None:
    _prefetched[path] = data.to_bytes()


def _close() -> None:
    if _state.retriever is not None:
        _state.retriever.close()
    _state.retriever, _state.results = None, []


def _info(kind: str) -> str:
    searcher = _state.searcher()
    status = searcher.reader.status()
    embedder = searcher.embedder
    return json.dumps(
        {
            "kind": kind,
            "documents": status.get("documents"),
            "chunks": status.get("chunks"),
            "modes": ["bm25", "dense", "hybrid"] if embedder is not None else ["bm25"],
            "embedder": None if embedder is None else embedder.identity.to_dict(),
            "groundkit": groundkit.__version__,
            "semantic": _state.given is not None and embedder is _state.given,
        }
    )


def _xhr_fetch(base: str) -> Callable[[str], bytes]:
    """fetch(path) -> bytes by synchronous XHR: allowed in a worker, and what lets the core's
    synchronous reader fetch a postings shard or a source the moment it needs one."""
    from urllib.parse import quote

    from js import XMLHttpRequest  # type: ignore[import-not-found]  # Pyodide's JS bridge

    def fetch(path: str) -> bytes:
        ahead = _prefetched.pop(path, None)
        if ahead is not None:
            _state.fetched.append([path, len(ahead)])
            return ahead
        xhr = XMLHttpRequest.new()
        xhr.open("GET", base + quote(path), False)
        xhr.responseType = "arraybuffer"
        xhr.send()
        if xhr.status != 200:
            raise OSError(f"HTTP {xhr.status} for {base + quote(path)}")
        data: bytes = xhr.response.to_bytes()
        _state.fetched.append([path, len(data)])
        return data

    return fetch


def open_reader(
    reader: StaticReader, sources_root: str | None = None, stored_root: str | None = None
) -> None:
    """Search ``reader`` from now on (what ``open_bundled`` does with the site's own files)."""
    _close()
    _state.given = None
    _state.reader = reader
    _state.retriever = groundkit.Searcher.of(reader)
    _state.sources_root, _state.stored_root = sources_root, stored_root


def open_bundled(
    site_url: str, index_url: str, sources_url: str, sources_root: str, stored_root: str
) -> str:
    reader = StaticReader(
        _xhr_fetch(site_url), index=index_url, sources=sources_url, location="this site's index"
    )
    open_reader(reader, sources_root, stored_root)
    return _info("bundled")


def _static_reader() -> StaticReader | None:
    """The static reader when it is what is being searched (not a dropped folder)."""
    reader = _state.reader
    if reader is None or _state.retriever is None:
        return None
    return reader if _state.retriever.reader is reader else None


def missing(query: str) -> str:
    """Shards the query's terms need that are not loaded yet (fetched ahead, in parallel)."""
    reader = _static_reader()
    if reader is None:
        return json.dumps([])
    return json.dumps(reader.missing(_state.searcher().analyzer.terms(query)))


def put(path: str, data: _Bytes) -> None:
    got = data.to_bytes()
    _state.fetched.append([path, len(got)])
    if _state.reader is not None:
        _state.reader.put(path, got)


def fetched() -> str:
    return json.dumps(_state.fetched)


def index_folder(folder: str, embedder: str | None) -> str:
    """Index the visitor's dropped files in memory and search them from now on."""
    _close()
    store = MemoryStore("dropped")
    made = groundkit.get_embedder(embedder) if embedder else None
    report = groundkit.Indexer(store, embedder=made).ingest(folder)
    _state.retriever = groundkit.Searcher.of(store.reader())
    _state.sources_root = _state.stored_root = None
    info = json.loads(_info("dropped"))
    info["report"] = {
        "summary": report.summary(),
        "refused": [{"source": x.source, "message": x.message} for x in report.refused],
    }
    return json.dumps(info)


def search(
    query: str,
    mode: str,
    top_k: int,
    defer: bool,
    expand: bool = True,
    prefix: bool | None = None,
    fuzzy: bool | None = None,
    group: int = 0,
) -> str:
    """The results as JSON; with ``defer``, ``{"need": [paths]}`` when files are missing (the
    page fetches them all in parallel, puts them, and asks again). ``expand``: prefix and typo
    expansion on in the lexical modes (adr/0046, 0061); ``prefix``/``fuzzy`` set each alone.
    ``group`` > 0: ``top_k`` pages with up to that many passages each, the results page by
    page and ``"groups"`` their sizes (``GroupOptions``, issue 38.4). ``NOTHING_HERE``'s keys
    where the metadata has them, and ``FLOOR`` in dense and hybrid."""
    searcher = _state.searcher()
    reader = _static_reader()
    lexical = bool(expand) and mode != "dense"
    started = time.perf_counter()
    request = groundkit.SearchRequest(
        query,
        top_k,
        mode,  # type: ignore[arg-type]  # validated by SearchRequest itself
        prefix=lexical if prefix is None else prefix,
        fuzzy=lexical if fuzzy is None else fuzzy,
        group=groundkit.GroupOptions(passages=group) if group else None,
    )
    try:
        if reader is not None:
            reader.defer = defer
        response = searcher.search(request)
    except FilesNeeded as needed:
        return json.dumps({"need": needed.paths})
    finally:
        if reader is not None:
            reader.defer = False
    elapsed = (time.perf_counter() - started) * 1000
    _state.results = list(response.results)
    wanted = set(searcher.analyzer.terms(query))
    expansions: dict[str, dict[str, list[str]]] = response.metadata.get("expansions") or {}
    for words in expansions.values():
        for terms in words.values():
            wanted.update(terms)
    answer: dict[str, Any] = {
        "results": [_row(rank, result) for rank, result in enumerate(response.results, 1)],
        "ms": elapsed,
        "stage": response.metadata["stage"],
        "terms": sorted(wanted),
        "expansions": expansions,
    }
    if response.groups is not None:
        answer["groups"] = [len(page.results) for page in response.groups]
    for key in NOTHING_HERE:  # "nothing here" and why, as the response's metadata says it
        if key in response.metadata:
            answer[key] = response.metadata[key]
    floor = _floor(response.metadata)
    if floor is not None:
        answer[FLOOR] = floor
    return json.dumps(answer)


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None  # JSON has no infinity


def _floor(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """``FLOOR``'s value from a dense or hybrid response's metadata; None in bm25."""
    source = metadata.get("floor_source")
    if source is None:
        return None
    floor: dict[str, Any] = {
        "min_similarity": _finite(metadata["min_similarity"]),
        "source": source,
        "dense_best": _finite(metadata.get("dense_best")),
    }
    fusion = metadata.get("fusion")
    if fusion is not None:
        floor["min_lexical_share"] = fusion["min_lexical_share"]
        floor["lexical_share_source"] = fusion["lexical_share_source"]
    return floor


def _row(rank: int, result: SearchResult) -> dict[str, Any]:
    """One result as the page draws it: the citation, its highlights (the core's own) and the
    text a visitor reads, without reST and Markdown markup, with the highlights moved onto it."""
    c = result.citation
    spans = list(result.highlights)
    display, where = plain_text(c.text)  # what a visitor reads; the citation stays c.text
    return {
        "rank": rank,
        "score": result.score,
        "chunk_id": result.chunk_id,
        "source": c.source,
        "start_offset": c.start_offset,
        "end_offset": c.end_offset,
        "start_line": c.start_line,
        "end_line": c.end_line,
        "text": c.text,
        "heading": [plain_text(h)[0] for h in result.metadata.get("heading_path", [])],
        "marks": [list(span) for span in spans],
        "display": display,
        "display_marks": [list(s) for s in display_spans(where, spans)],
        "extracted": c.extractor is not None,
    }


def verify(index: int) -> str:
    searcher = _state.searcher()
    result = _state.results[index]
    if _state.sources_root is None:  # dropped files: the stored root is the MEMFS folder
        check = searcher.verify(result)
    else:  # bundled: the stored root is the build machine's; the site ships a copy of it
        stored = searcher.document_of(result).root
        if stored != _state.stored_root:
            return json.dumps(
                {
                    "verdict": "unresolvable",
                    "reason": f"document root {stored} is not the one this site ships",
                }
            )
        check = verify_citation(result.citation, _state.sources_root)
        if check.verdict == "verified":  # the span alone is not enough: is it the same file?
            changed = _changed_copy(searcher.document_of(result), result.citation)
            if changed is not None:
                return json.dumps({"verdict": "drifted", "reason": changed})
    return json.dumps({"verdict": check.verdict, "reason": check.reason})


def _changed_copy(document: groundkit.Document, citation: groundkit.Citation) -> str | None:
    """Why the site's copy of a source is not the file that was indexed (its text's hash
    differs from the recorded one), or None when it is the same."""
    assert _state.sources_root is not None
    try:
        text = source_text(_state.sources_root, citation.source, extractor=citation.extractor)
    except groundkit.GroundkitError as exc:
        return exc.message
    if content_hash(text) == document.content_hash:
        return None
    return (
        f"the site's copy of {citation.source} is not the file that was indexed (its content "
        "hash differs from the recorded one), although the cited text is still there"
    )


def cited_source(index: int) -> str:
    """The text an extracted (HTML, PDF) result's offsets index: its file, re-extracted."""
    searcher = _state.searcher()
    result = _state.results[index]
    c = result.citation
    if _state.sources_root is None:
        root = citation_root(searcher.document_of(result), searcher.reader.location)
    else:
        root = _state.sources_root
    try:
        return json.dumps({"text": source_text(root, c.source, extractor=c.extractor)})
    except groundkit.GroundkitError as exc:
        return json.dumps({"error": exc.message})


def bench(queries: list[str], repeats: int, mode: str, top_k: int) -> str:
    """Per-query search times in this runtime (web/bench)."""
    searcher = _state.searcher()
    per_query: dict[str, list[float]] = {q: [] for q in queries}
    for _ in range(repeats):
        for q in queries:
            started = time.perf_counter()
            searcher.search(groundkit.SearchRequest(q, top_k, mode))  # type: ignore[arg-type]
            per_query[q].append((time.perf_counter() - started) * 1000)
    medians = {q: sorted(t)[len(t) // 2] for q, t in per_query.items()}
    times = sorted(x for t in per_query.values() for x in t)
    return json.dumps(
        {
            "n": len(times),
            "median_ms": times[len(times) // 2],
            "p95_ms": times[int(len(times) * 0.95)],
            "total_ms": sum(times),
            "sum_of_medians_ms": sum(medians.values()),
            "per_query_median_ms": medians,
        }
    )
