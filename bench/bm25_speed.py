"""BM25 speed, side by side: groundkit (pure Python and numpy) against rank_bm25 and bm25s.

Setup (rank_bm25 and bm25s go into a bench-only environment, never into groundkit's own)::

    python3 -m venv .bench && .bench/bin/pip install -e . -r bench/requirements.txt
    .bench/bin/python bench/bm25_speed.py                      # every BEIR dataset + 10k/100k/1M
    .bench/bin/python bench/bm25_speed.py --datasets scifact --synthetic 10000   # a quick run
    .bench/bin/python bench/bm25_speed.py --synthetic 1000000 --datasets --json bench/results/x.json

Corpora: every BEIR-layout dataset under ``--data`` (default ../shared/data/beir; one chunk per
document, title + "\\n\\n" + text) and synthetic Zipfian collections of ``--synthetic`` chunks
(bench/synthetic.py's sampler; ``--chunk-words`` words per chunk on average, 120 by default,
about the 1,000-character default chunk, uniformly from half to 1.5 times that). Every corpus is
tokenized ONCE with groundkit's default analyzer (``Analyzer().terms``; synthetic words are
tokenized once per distinct word, which gives the same terms for space-separated pseudo-words,
checked on a sample) and every system gets the same token lists and the same query terms (empty
queries skipped). k1 = 0.9, b = 0.4.

Systems, each run in its own subprocess so that peak RSS does not mix (systems run one after
another, never in parallel):

* ``gk-python`` / ``gk-numpy``: a ``MemoryStore`` filled with one ``write_document`` per document,
  then ``BM25Index(reader, accelerator=...)``; queries through ``BM25Index.top_k``, with the
  per-snapshot tie-key cache the ``Searcher`` uses (which ranks a collection of up to 250k
  chunks by tie key once its lookups add up to the chunk count, usually in the warm-up pass).
  Each query's result is its two columns, keys and scores, as bm25s returns arrays.
* ``gk-sqlite``: the same documents written into a ``SqliteStore`` file (build docs/s, size on
  disk, open time = reader + ``BM25Index`` construction, warm queries/s on the file for both
  accelerators, and the cost of adding 1,000 more documents). A build that runs past
  ``--sqlite-time-limit`` seconds stops there and reports how far it got.
* ``rank_bm25``: ``BM25Okapi`` (its own idf variant), ``get_scores`` then top k by argpartition.
  Its queries cost O(N) per term, so on big corpora it runs a capped number of queries.
* ``bm25s``: ``method="lucene"``, indexed from the token lists, one ``retrieve`` call over all
  queries with ``n_threads=0`` (single-threaded, numpy backend; numba is not installed).

Indexing docs/s is from token lists to a queryable index (groundkit: including building its
Document/Chunk records and Counter of terms). Queries/s is warm: a full warm-up pass first
(groundkit loads postings lazily, so its cold pass is reported separately in the JSON), then the
best of at least 5 timed passes that together take at least 3 s (best-of filters out
interference from other work on a shared box; the time floor gives every system the same window,
so a burst of that work lasting a second or two cannot cover all of a fast system's passes). Peak
RSS is the worker's own maximum resident set (VmHWM); "index RSS" subtracts what the worker
held right after loading the tokenized corpus. groundkit's Python and numpy paths (memory and
SQLite) are checked to return identical top-k keys and scores; overlap@10 with the other systems
is a sanity check (rank_bm25's idf differs, so its overlap is lower).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir"
SYSTEMS = ("gk-python", "gk-numpy", "gk-sqlite", "rank_bm25", "bm25s")
K1, B = 0.9, 0.4
ROOT = "/bench"
ADDED_DOCS = 1000
TIMED_PASSES = 5  # queries/s is the best of at least these, after one warm-up pass
TIMED_SECONDS = 3.0  # ...and of as many more as it takes for the timed passes to last this long
T = TypeVar("T")

Rankings = dict[int, list[tuple[list[int], list[float]]]]
"""k -> per query, (document indices, scores) best first."""


# ----------------------------------------------------------------------------- preparation


def _machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _rss_kib() -> int:
    """Current resident set of this process, KiB (Linux /proc; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def _peak_kib() -> int:
    """Peak resident set of this process, KiB: VmHWM, which exec resets (ru_maxrss does not:
    a child's ru_maxrss starts at the RSS of the parent it was forked from)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _encode_tokens(tokens: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Token lists as a vocabulary and flat int ids (compact to store and quick to reload)."""
    vocab: dict[str, int] = {}
    ids = array("i")
    offsets = array("q", [0])
    for terms in tokens:
        ids.extend(vocab.setdefault(t, len(vocab)) for t in terms)
        offsets.append(len(ids))
    return {"vocab": list(vocab), "ids": ids.tobytes(), "offsets": offsets.tobytes()}


def _decode_tokens(data: dict[str, Any]) -> list[list[str]]:
    vocab: list[str] = data["vocab"]
    ids, offsets = array("i"), array("q")
    ids.frombytes(data["ids"])
    offsets.frombytes(data["offsets"])
    get = vocab.__getitem__
    return [list(map(get, ids[offsets[n] : offsets[n + 1]])) for n in range(len(offsets) - 1)]


def _synthetic_texts(
    count: int, words: int, seed: int
) -> tuple[list[str], list[list[str]], Callable[[str], list[str]]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from groundkit.analysis.analyzer import Analyzer
    from synthetic import ZipfSampler, vocabulary

    analyzer = Analyzer()
    memo: dict[str, list[str]] = {}

    def terms_of(text: str) -> list[str]:
        out: list[str] = []
        for word in text.split(" "):
            found = memo.get(word)
            if found is None:
                found = memo[word] = analyzer.terms(word)
            out.extend(found)
        return out

    sampler = ZipfSampler(vocabulary(50_000, 3), seed=seed)
    lengths = random.Random(seed + 1)  # lengths vary (words/2 .. 3*words/2): fewer exact ties
    texts = [
        " ".join(sampler.sample(lengths.randint(words // 2, words * 3 // 2))) for _ in range(count)
    ]
    tokens = [terms_of(text) for text in texts]
    for text, terms in zip(texts[:200], tokens[:200], strict=False):
        if analyzer.terms(text) != terms:
            raise AssertionError("per-word tokenization differs from Analyzer().terms")
    return texts, tokens, analyzer.terms


def prepare(spec: str, folder: Path, args: argparse.Namespace) -> None:
    """Write docs.pkl (ids, texts), tokens.pkl and queries.json for corpus ``spec``."""
    from groundkit.analysis.analyzer import Analyzer

    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    extra_texts: list[str] = []
    extra_tokens: list[list[str]] = []
    if spec.startswith("synthetic-"):
        count = int(spec.removeprefix("synthetic-"))
        texts, tokens, _ = _synthetic_texts(count, args.chunk_words, seed=3)
        doc_ids = [f"s{n:07}" for n in range(count)]
        extra_texts, extra_tokens, _ = _synthetic_texts(ADDED_DOCS, args.chunk_words, seed=13)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from synthetic import queries as synthetic_queries

        raw_queries = synthetic_queries(args.synthetic_queries)
    else:
        from groundkit.evaluation.beir import BeirDataset

        dataset = BeirDataset.load(Path(args.data) / spec)
        analyzer = Analyzer()
        doc_ids, texts, tokens = [], [], []
        for doc in dataset.corpus():
            flat = doc.flat
            doc_ids.append(doc.doc_id)
            texts.append(flat)
            tokens.append(analyzer.terms(flat))
        raw_queries = [dataset.queries[q] for q in sorted(dataset.queries)]
    analyzer = Analyzer()
    query_terms = [t for t in (analyzer.terms(q) for q in raw_queries) if t]
    with open(folder / "docs.pkl", "wb") as handle:
        pickle.dump({"doc_ids": doc_ids, "texts": texts, "extra_texts": extra_texts}, handle, 5)
    with open(folder / "tokens.pkl", "wb") as handle:
        pickle.dump({**_encode_tokens(tokens), "extra": _encode_tokens(extra_tokens)}, handle, 5)
    (folder / "queries.json").write_text(json.dumps(query_terms))
    info = {
        "corpus": spec,
        "docs": len(texts),
        "queries": len(query_terms),
        "queries_skipped_empty": len(raw_queries) - len(query_terms),
        "avg_doc_terms": sum(map(len, tokens)) / max(1, len(tokens)),
        "distinct_terms": len({t for terms in tokens for t in terms}),
        "avg_query_terms": sum(map(len, query_terms)) / max(1, len(query_terms)),
        "prepare_s": time.perf_counter() - started,
    }
    (folder / "info.json").write_text(json.dumps(info))


def _load_tokens(folder: Path) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    with open(folder / "tokens.pkl", "rb") as handle:
        data = pickle.load(handle)
    queries = json.loads((folder / "queries.json").read_text())
    return _decode_tokens(data), _decode_tokens(data["extra"]), queries


def _load_docs(folder: Path) -> dict[str, Any]:
    with open(folder / "docs.pkl", "rb") as handle:
        docs: dict[str, Any] = pickle.load(handle)
    return docs


# ----------------------------------------------------------------------------- groundkit


def _write_documents(
    store: Any,
    texts: Sequence[str],
    tokens: Sequence[Sequence[str]],
    identity: dict[str, Any],
    *,
    first: int = 0,
    deadline: float | None = None,
) -> int:
    """One ``write_document`` per text (one chunk each), committed in the indexer's groups of
    ``FILES_PER_COMMIT`` (without its time cap, so runs compare on a fixed grouping); returns
    how many were written (fewer once ``deadline`` passes)."""
    from groundkit.ingestion.indexer import FILES_PER_COMMIT

    written = 0
    for start in range(0, len(texts), FILES_PER_COMMIT):
        with store.batch():
            for offset in range(start, min(start + FILES_PER_COMMIT, len(texts))):
                _write_one(store, first + offset, texts[offset], tokens[offset], identity)
                written += 1
        if deadline is not None and written % 1008 == 0 and time.perf_counter() > deadline:
            break
    return written


def _write_one(
    store: Any, n: int, text: str, terms: Sequence[str], identity: dict[str, Any]
) -> None:
    from groundkit.contracts import Chunk, Document, chunk_id_for, content_hash, document_id_for
    from groundkit.store import IndexedChunk

    source = f"d{n:08}.txt"
    digest = content_hash(text)
    doc_id = document_id_for(source, digest)
    lines = text.count("\n") + 1
    chunk = Chunk(chunk_id_for(doc_id, 0, 0, len(text)), doc_id, 0, text, 0, len(text), 1, lines)
    document = Document(doc_id, source, ROOT, digest, len(text), lines, "bench")
    store.write_document(
        document, [IndexedChunk(chunk, Counter(terms), len(terms))], analyzer_identity=identity
    )


def _doc_index_of(reader: Any) -> Callable[[list[int]], list[int]]:
    """Maps chunk keys to corpus positions, through the stored source names (d00000042.txt)."""

    def convert(keys: list[int]) -> list[int]:
        chunks = reader.chunks(keys)
        documents = reader.documents([c.document_id for c in chunks.values()])
        return [int(documents[chunks[k].document_id].source[1:9]) for k in keys]

    return convert


def _timed(run: Callable[[], T], queries: int, k: int) -> tuple[dict[str, Any], T]:
    """Run ``run`` (one pass over the queries) once to warm up, then at least TIMED_PASSES
    more times and until those passes add up to TIMED_SECONDS; the timings of those passes
    and the last pass's result."""
    passes: list[float] = []
    result: T | None = None
    while len(passes) < 1 + TIMED_PASSES or sum(passes[1:]) < TIMED_SECONDS:
        started = time.perf_counter()
        result = run()
        passes.append(time.perf_counter() - started)
    assert result is not None
    timing = {
        "k": k,
        "queries": queries,
        "cold_s": passes[0],
        "timed_passes": len(passes) - 1,
        "warm_s": min(passes[1:]),
        "qps": queries / min(passes[1:]),
    }
    return timing, result


def _gk_queries(
    index: Any, reader: Any, queries: list[list[str]], ks: list[int], n_docs: int
) -> tuple[dict[str, Any], Rankings]:
    from groundkit.index.ties import CachedTieKeys

    timings: dict[str, Any] = {}
    rankings: Rankings = {}
    convert = _doc_index_of(reader)
    tie_keys = CachedTieKeys.of(reader)  # as the Searcher does
    for k in ks:
        kk = min(k, n_docs)

        def one_pass(kk: int = kk) -> list[Any]:
            return [index.top_k(t, kk, tie_keys) for t in queries]

        timings[str(k)], hits = _timed(one_pass, len(queries), kk)
        rankings[k] = [(convert(list(h.keys)), list(h.scores)) for h in hits]
    return timings, rankings


def worker_gk_memory(
    folder: Path, accelerator: str, ks: list[int]
) -> tuple[dict[str, Any], Rankings]:
    from groundkit.analysis.analyzer import Analyzer
    from groundkit.config import BM25Params
    from groundkit.index.bm25 import BM25Index
    from groundkit.store import MemoryStore

    tokens, _, queries = _load_tokens(folder)
    texts = _load_docs(folder)["texts"]
    after_load = _rss_kib()
    started = time.perf_counter()
    store = MemoryStore("bench")
    _write_documents(store, texts, tokens, Analyzer().identity)
    reader = store.reader()
    index = BM25Index(reader, BM25Params(k1=K1, b=B), accelerator=accelerator)  # type: ignore[arg-type]
    index_s = time.perf_counter() - started
    del tokens
    timings, rankings = _gk_queries(index, reader, queries, ks, len(texts))
    result = {
        "docs": len(texts),
        "index_s": index_s,
        "docs_per_s": len(texts) / index_s,
        "rss_after_load_kib": after_load,
        "queries": timings,
    }
    return result, rankings


def worker_gk_sqlite(
    folder: Path, ks: list[int], time_limit: float
) -> tuple[dict[str, Any], dict[str, Rankings]]:
    from groundkit.analysis.analyzer import Analyzer
    from groundkit.config import BM25Params
    from groundkit.index.bm25 import BM25Index
    from groundkit.store.sqlite import SqliteReader, SqliteStore

    tokens, extra_tokens, queries = _load_tokens(folder)
    docs = _load_docs(folder)
    texts = docs["texts"]
    after_load = _rss_kib()
    path = folder / "groundkit.sqlite"
    for leftover in folder.glob("groundkit.sqlite*"):
        leftover.unlink()
    identity = Analyzer().identity
    started = time.perf_counter()
    with SqliteStore(path) as store:
        written = _write_documents(store, texts, tokens, identity, deadline=started + time_limit)
    build_s = time.perf_counter() - started
    del tokens
    size = sum(p.stat().st_size for p in folder.glob("groundkit.sqlite*"))
    result: dict[str, Any] = {
        "docs": written,
        "complete": written == len(texts),
        "index_s": build_s,
        "docs_per_s": written / build_s,
        "disk_bytes": size,
        "disk_bytes_per_chunk": size / written,
        "rss_after_load_kib": after_load,
        "open_s": {},
        "queries": {},
    }
    rankings: dict[str, Rankings] = {}
    for accelerator in ("python", "numpy"):
        started = time.perf_counter()
        reader = SqliteReader(path)
        index = BM25Index(reader, BM25Params(k1=K1, b=B), accelerator=accelerator)
        result["open_s"][accelerator] = time.perf_counter() - started
        timings, ranked = _gk_queries(index, reader, queries, ks, written)
        result["queries"][accelerator] = timings
        rankings[accelerator] = ranked
        reader.close()
    if docs["extra_texts"]:
        started = time.perf_counter()
        with SqliteStore(path) as store:
            _write_documents(store, docs["extra_texts"], extra_tokens, identity, first=written)
        result["add_docs"] = len(docs["extra_texts"])
        result["add_s"] = time.perf_counter() - started
        result["add_to_docs"] = written
    return result, rankings


# ----------------------------------------------------------------------------- others


def _top_k_numpy(scores: Any, k: int) -> tuple[list[int], list[float]]:
    import numpy as np

    top = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    top = top[np.argsort(-scores[top], kind="stable")]
    return top.tolist(), scores[top].tolist()


def worker_rank_bm25(folder: Path, ks: list[int], cap: int) -> tuple[dict[str, Any], Rankings]:
    from rank_bm25 import BM25Okapi

    tokens, _, queries = _load_tokens(folder)
    n_docs = len(tokens)
    queries = queries[:cap]
    after_load = _rss_kib()
    started = time.perf_counter()
    bm25 = BM25Okapi(tokens, k1=K1, b=B)
    index_s = time.perf_counter() - started
    del tokens
    blob = pickle.dumps(bm25, protocol=5)
    pickle_path = folder / "rank_bm25.pkl"
    pickle_path.write_bytes(blob)
    del blob
    started = time.perf_counter()
    with open(pickle_path, "rb") as handle:
        reopened = pickle.load(handle)
    open_s = time.perf_counter() - started
    del reopened
    timings: dict[str, Any] = {}
    rankings: Rankings = {}
    for k in ks:
        kk = min(k, n_docs)

        def one_pass(kk: int = kk) -> list[tuple[list[int], list[float]]]:
            return [_top_k_numpy(bm25.get_scores(t), kk) for t in queries]

        timings[str(k)], rankings[k] = _timed(one_pass, len(queries), kk)
    result = {
        "docs": n_docs,
        "index_s": index_s,
        "docs_per_s": n_docs / index_s,
        "rss_after_load_kib": after_load,
        "disk_bytes": pickle_path.stat().st_size,
        "open_s": open_s,
        "queries": timings,
    }
    pickle_path.unlink()
    return result, rankings


def worker_bm25s(folder: Path, ks: list[int]) -> tuple[dict[str, Any], Rankings]:
    import bm25s

    tokens, _, queries = _load_tokens(folder)
    n_docs = len(tokens)
    after_load = _rss_kib()
    started = time.perf_counter()
    retriever = bm25s.BM25(method="lucene", k1=K1, b=B)
    retriever.index(tokens, show_progress=False)
    index_s = time.perf_counter() - started
    del tokens
    save_dir = folder / "bm25s-index"
    shutil.rmtree(save_dir, ignore_errors=True)
    retriever.save(str(save_dir), show_progress=False)
    size = sum(p.stat().st_size for p in save_dir.rglob("*") if p.is_file())
    started = time.perf_counter()
    reopened = bm25s.BM25.load(str(save_dir), show_progress=False)
    open_s = time.perf_counter() - started
    del reopened
    shutil.rmtree(save_dir, ignore_errors=True)
    timings: dict[str, Any] = {}
    rankings: Rankings = {}
    for k in ks:
        kk = min(k, n_docs)

        def one_pass(kk: int = kk) -> Any:
            return retriever.retrieve(queries, k=kk, show_progress=False, n_threads=0)

        timings[str(k)], found = _timed(one_pass, len(queries), kk)
        rankings[k] = list(
            zip(found.documents.tolist(), found.scores.astype(float).tolist(), strict=True)
        )
    result = {
        "docs": n_docs,
        "index_s": index_s,
        "docs_per_s": n_docs / index_s,
        "rss_after_load_kib": after_load,
        "disk_bytes": size,
        "open_s": open_s,
        "queries": timings,
    }
    return result, rankings


def run_worker(args: argparse.Namespace) -> None:
    folder = Path(args.folder)
    out = Path(args.out)
    system = args.worker
    if system == "prepare":
        prepare(args.corpus, folder, args)
        return
    rankings: Any
    if system in ("gk-python", "gk-numpy"):
        result, rankings = worker_gk_memory(folder, system.removeprefix("gk-"), args.k)
    elif system == "gk-sqlite":
        result, rankings = worker_gk_sqlite(folder, args.k, args.sqlite_time_limit)
    elif system == "rank_bm25":
        result, rankings = worker_rank_bm25(folder, args.k, args.cap)
    elif system == "bm25s":
        result, rankings = worker_bm25s(folder, args.k)
    else:
        raise SystemExit(f"unknown worker {system}")
    result["peak_rss_kib"] = _peak_kib()
    with open(out.with_suffix(".rank.pkl"), "wb") as handle:
        pickle.dump(rankings, handle, 5)
    out.write_text(json.dumps(result))


# ----------------------------------------------------------------------------- driver


def _spawn(argv: list[str]) -> tuple[int, float]:
    """Run a worker in its own process; (exit code, wall seconds)."""
    started = time.perf_counter()
    code = subprocess.run([sys.executable, __file__, *argv], check=False).returncode
    return code, time.perf_counter() - started


def _rank_cap(n_docs: int, n_queries: int, asked: int | None) -> int:
    if asked is not None:
        return min(asked, n_queries)
    return min(n_queries, max(20, 10_000_000 // max(1, n_docs)))


def _identical(a: Rankings, b: Rankings) -> tuple[bool, str]:
    for k in a:
        for n, (x, y) in enumerate(zip(a[k], b[k], strict=True)):
            if x[0] != y[0] or x[1] != y[1]:
                return False, f"k={k} query {n}: keys or scores differ"
    return True, "identical keys and scores"


def _overlap10(reference: Rankings, other: Rankings, k: int) -> float | None:
    if k not in reference or k not in other:
        return None
    pairs = list(zip(reference[k], other[k], strict=False))
    if not pairs:
        return None
    total = 0.0
    for (mine, _), (theirs, _) in pairs:
        top = mine[:10]
        total += len(set(top) & set(theirs[:10])) / max(1, len(top))
    return total / len(pairs)


def run_corpus(spec: str, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    folder = work / spec
    common = ["--folder", str(folder), "--data", str(args.data)]
    common += ["--chunk-words", str(args.chunk_words)]
    common += ["--synthetic-queries", str(args.synthetic_queries)]
    if not (folder / "info.json").is_file():
        print(f"[{spec}] preparing (tokenizing once) ...", file=sys.stderr, flush=True)
        code, _ = _spawn(["--worker", "prepare", "--corpus", spec, *common, "--out", "-"])
        if code:
            raise SystemExit(f"preparing {spec} failed ({code})")
    info = json.loads((folder / "info.json").read_text())
    report: dict[str, Any] = {"info": info, "systems": {}}
    rankings: dict[str, Any] = {}
    for system in args.systems:
        out = folder / f"{system}.json"
        argv = ["--worker", system, *common, "--out", str(out), "--k", *map(str, args.k)]
        if system == "rank_bm25":
            cap = _rank_cap(info["docs"], info["queries"], args.rank_bm25_queries)
            argv += ["--cap", str(cap)]
        if system == "gk-sqlite":
            argv += ["--sqlite-time-limit", str(args.sqlite_time_limit)]
        print(f"[{spec}] {system} ...", file=sys.stderr, flush=True)
        code, wall = _spawn(argv)
        if code:
            report["systems"][system] = {"error": f"worker exited with {code}"}
            continue
        result = json.loads(out.read_text())
        peak = result["peak_rss_kib"]
        result["index_rss_kib"] = peak - result["rss_after_load_kib"]
        result["worker_wall_s"] = wall
        with open(out.with_suffix(".rank.pkl"), "rb") as handle:
            rankings[system] = pickle.load(handle)
        report["systems"][system] = result
    checks: dict[str, Any] = {}
    reference = rankings.get("gk-python")
    if reference is not None:
        others = {"gk-numpy": rankings.get("gk-numpy")}
        if "gk-sqlite" in rankings and report["systems"]["gk-sqlite"].get("complete"):
            others["gk-sqlite/python"] = rankings["gk-sqlite"]["python"]
            others["gk-sqlite/numpy"] = rankings["gk-sqlite"]["numpy"]
        for name, other in others.items():
            if other is not None:
                ok, why = _identical(reference, other)
                checks[f"gk-python == {name}"] = {"ok": ok, "detail": why}
        for name in ("bm25s", "rank_bm25"):
            if name in rankings:
                checks[f"overlap@10 gk-python vs {name}"] = _overlap10(
                    reference, rankings[name], 10
                )
    report["checks"] = checks
    return report


def _qps(result: dict[str, Any] | None, k: int, accelerator: str | None = None) -> float | None:
    if not result or "error" in result:
        return None
    queries = result["queries"][accelerator] if accelerator else result["queries"]
    entry = queries.get(str(k))
    return None if entry is None else float(entry["qps"])


def _fmt(value: float | None, digits: int = 0) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:,.{digits}f}"


def print_corpus(spec: str, report: dict[str, Any], ks: list[int]) -> dict[str, Any]:
    info, systems = report["info"], report["systems"]
    print(
        f"\n== {spec}: {info['docs']:,} chunks, {info['distinct_terms']:,} distinct terms, "
        f"{info['avg_doc_terms']:.1f} terms/chunk, {info['queries']:,} queries "
        f"({info['avg_query_terms']:.1f} terms; {info['queries_skipped_empty']} empty skipped)"
    )
    header = f"{'system':<20}{'index docs/s':>13}"
    header += "".join(f"{'qps@' + str(k):>11}" for k in ks)
    header += f"{'peak RSS MiB':>13}{'index RSS MiB':>14}{'disk MiB':>10}{'open ms':>9}  queries"
    print(header)
    print("-" * len(header))
    rows: list[tuple[str, dict[str, Any] | None, str | None]] = [
        ("gk-python (memory)", systems.get("gk-python"), None),
        ("gk-numpy (memory)", systems.get("gk-numpy"), None),
        ("gk-python (sqlite)", systems.get("gk-sqlite"), "python"),
        ("gk-numpy (sqlite)", systems.get("gk-sqlite"), "numpy"),
        ("rank_bm25", systems.get("rank_bm25"), None),
        ("bm25s", systems.get("bm25s"), None),
    ]
    for label, result, accelerator in rows:
        if result is None:
            continue
        if "error" in result:
            print(f"{label:<20}{result['error']}")
            continue
        first_sqlite_row = accelerator in (None, "python")
        line = f"{label:<20}"
        line += f"{_fmt(result['docs_per_s']) if first_sqlite_row else '(same file)':>13}"
        line += "".join(f"{_fmt(_qps(result, k, accelerator), 1):>11}" for k in ks)
        peak = result["peak_rss_kib"] / 1024 if first_sqlite_row else None
        delta = result["index_rss_kib"] / 1024 if first_sqlite_row else None
        disk = result.get("disk_bytes")
        open_s = result.get("open_s")
        if isinstance(open_s, dict):
            open_s = open_s.get(accelerator or "python")
        line += f"{_fmt(peak):>13}{_fmt(delta):>14}"
        line += f"{_fmt(disk / 2**20 if disk else None, 1):>10}"
        line += f"{_fmt(open_s * 1000 if open_s is not None else None, 1):>9}"
        queries = result["queries"][accelerator] if accelerator else result["queries"]
        counts = {entry["queries"] for entry in queries.values()}
        line += f"  {'/'.join(map(str, sorted(counts)))}"
        if label == "rank_bm25" and max(counts) < info["queries"]:
            line += f" (capped of {info['queries']})"
        print(line)
    sqlite = systems.get("gk-sqlite")
    if sqlite and "error" not in sqlite:
        note = "" if sqlite["complete"] else " (build STOPPED at the time limit: partial)"
        print(
            f"gk-sqlite: built {sqlite['docs']:,} docs in {sqlite['index_s']:.1f} s{note}; "
            f"{sqlite['disk_bytes_per_chunk']:,.0f} bytes/chunk on disk"
        )
        if "add_s" in sqlite:
            print(
                f"gk-sqlite: adding {sqlite['add_docs']:,} docs to the {sqlite['add_to_docs']:,}"
                f"-doc collection took {sqlite['add_s']:.2f} s"
            )
    for name in ("gk-python", "gk-numpy"):
        result = systems.get(name)
        if result and "error" not in result:
            per_chunk = result["index_rss_kib"] * 1024 / max(1, info["docs"])
            print(f"{name}: index memory {per_chunk:,.0f} bytes/chunk (index RSS / chunks)")
    ratios: dict[str, Any] = {}
    for k in ks:
        py, rank = _qps(systems.get("gk-python"), k), _qps(systems.get("rank_bm25"), k)
        npy, bm = _qps(systems.get("gk-numpy"), k), _qps(systems.get("bm25s"), k)
        if py and rank:
            ratios[f"gk-python/rank_bm25@{k}"] = py / rank
        if npy and bm:
            ratios[f"gk-numpy/bm25s@{k}"] = npy / bm
    if ratios:
        print("ratios: " + ", ".join(f"{name} = {value:.2f}x" for name, value in ratios.items()))
    for name, check in report["checks"].items():
        if isinstance(check, dict):
            print(f"check {name}: {'OK' if check['ok'] else 'FAILED'} ({check['detail']})")
        elif check is not None:
            print(f"check {name}: {check:.3f}")
    report["ratios"] = ratios
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--datasets", nargs="*", default=None, help="BEIR names (default: all)")
    parser.add_argument("--synthetic", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--synthetic-queries", type=int, default=1000)
    parser.add_argument("--chunk-words", type=int, default=120)
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS), choices=SYSTEMS)
    parser.add_argument("--k", type=int, nargs="*", default=[10, 1000])
    parser.add_argument(
        "--rank-bm25-queries",
        type=int,
        default=None,
        help="queries for rank_bm25 (default: all, capped at max(20, 10M / chunks))",
    )
    parser.add_argument("--sqlite-time-limit", type=float, default=1200.0)
    parser.add_argument("--workdir", type=Path, default=None, help="keep prepared corpora here")
    parser.add_argument("--json", type=Path, default=None)
    # worker-only arguments
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cap", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return
    names = args.datasets
    if names is None:
        names = sorted(p.name for p in args.data.iterdir() if (p / "queries.jsonl").is_file())
    specs = [*names, *(f"synthetic-{n}" for n in args.synthetic)]
    machine = _machine()
    print(
        f"machine: {machine['cpu_count']} cores, {machine['cpu_model']}, "
        f"Python {machine['python']}, {machine['platform']}"
    )
    print(f"BM25 k1={K1} b={B}; k = {', '.join(map(str, args.k))} (capped at corpus size)")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bm25-speed-"))
    report: dict[str, Any] = {"machine": machine, "k": args.k, "corpora": {}}
    try:
        for spec in specs:
            corpus = run_corpus(spec, work, args)
            print_corpus(spec, corpus, args.k)
            report["corpora"][spec] = corpus
            sys.stdout.flush()
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print("\n== targets")
    for spec, corpus in report["corpora"].items():
        for name, value in corpus["ratios"].items():
            need = 10.0 if name.startswith("gk-python") else 1.0
            verdict = "MET" if value >= need else "NOT MET"
            print(f"{spec:<18} {name:<24} {value:8.2f}x  (target >= {need:g}x)  {verdict}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
