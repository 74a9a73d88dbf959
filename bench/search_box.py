"""Search-box quality beside MiniSearch, Orama and Pagefind: typos and a cut last word (issue 40).

    python bench/search_box.py [--work bench/.bench/search_box]
        [--corpora django scifact cranfield] [--django-asked bench/data/django-judged*.jsonl]
        [--out bench/results/search_box.json] [--seed 40]

Corpora: Django 5.2's docs (the sdist's ``docs/**/*.txt``, one document per file) and BEIR
SciFact (one document per abstract, title and text); ``--corpora cranfield`` adds BEIR
Cranfield (1,400 aeronautics abstracts, a domain no rule was tuned on). groundkit ingests the
same text as files (``groundkit ingest``, built once under ``--work``) and is compared at page
level (its pages as the page's grouped search ranks them, adr/0074: its CPU times include
grouping 100 passages, where runs before walked 30); the peers
(``bench/search_box_peers/peers.mjs``: MiniSearch 7.2 ``fuzzy: 0.2, prefix: true``, Orama 3.1
at tolerance 0, 1 and 2 with its default prefix matching, Pagefind 1.6 through its Node
indexing API and its own search runtime) get one document per file or abstract.
Queries, seeded (``--seed``; another seed is a held-out set) and deterministic: Django's section
titles (every k-th reST heading of two to eight words; ``--django-asked`` takes the judged
sets' questions, keywords and tasks instead), SciFact's claims and Cranfield's questions
(every k-th of queries.jsonl). Variants: one typo (a word of 5+ letters, never its
first letter), two typos (two edits in the longest word of 8+ letters, else one in each of two
words of 5+ letters), the last word (4+ letters) cut to 50-70% of its length.
hit@3, per system: the clean query's own top page is in the variant's top 3 (issue 40's
measure); each peer's target is its own clean top page (same options), groundkit's the clean
query's top page with exact bm25 for every option set ("own top": prefix+fuzzy's clean top).
A query without a target for a system, or a variant that does not apply, is not counted.
The misses of groundkit list what came instead and ``response.metadata["expansions"]``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zlib
from pathlib import Path
from typing import Any

import groundkit

REPO = Path(__file__).resolve().parent.parent
PEERS = REPO / "bench" / "search_box_peers"
SEED = 40
WORD = re.compile(r"[A-Za-z]+")
HEADING_MARKS = set("=-~^\"'*#+`:.")
TITLE = re.compile(r"[A-Za-z][A-Za-z' -]*[A-Za-z]")
VARIANTS = ("typo1", "typo2", "cut")
GROUNDKIT = {
    "groundkit exact": {},
    "groundkit prefix+fuzzy": {"prefix": True, "fuzzy": True},
    "groundkit prefix": {"prefix": True},
    "groundkit fuzzy": {"fuzzy": True},
}
OWN_TOP = "groundkit prefix+fuzzy (own top)"
"""prefix+fuzzy with the target its own clean top page, as each peer's is."""
USED = {  # which option sets each variant is reported for
    "typo1": ("groundkit exact", "groundkit prefix+fuzzy", "groundkit fuzzy"),
    "typo2": ("groundkit exact", "groundkit prefix+fuzzy", "groundkit fuzzy"),
    "cut": ("groundkit exact", "groundkit prefix+fuzzy", "groundkit prefix"),
}


# -- corpora -----------------------------------------------------------------------------------


def django_docs(cache: Path) -> Path:
    """Django 5.2's ``docs/`` from its sdist: web/e2e's copy if built, else ``pip download``."""
    found = sorted(cache.glob("django-5.2*/docs"))
    if found:
        return found[-1]
    cache.mkdir(parents=True, exist_ok=True)
    local = sorted((REPO / "web" / "e2e" / "build" / "django-sdist").glob("django-5.2*.tar.gz"))
    if local:
        shutil.copy(local[-1], cache)
    else:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        subprocess.run([*command, "django==5.2.*", "-d", str(cache)], check=True)
    sdist = sorted(cache.glob("[Dd]jango-5.2*.tar.gz"))[-1]
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if "/docs/" in m.name and m.isfile()]
        archive.extractall(cache, members=members, filter="data")
    return sorted(cache.glob("[Dd]jango-5.2*/docs"))[-1]


def django_corpus(work: Path) -> tuple[Path, dict[str, str]]:
    """The folder groundkit ingests and ``{relative path: text}`` for the peers."""
    docs = django_docs(work / "django-sdist")
    files = sorted(p for p in docs.rglob("*.txt") if p.is_file())
    return docs, {p.relative_to(docs).as_posix(): p.read_text("utf-8") for p in files}


def beir_corpus(work: Path, data: Path) -> tuple[Path, dict[str, str]]:
    """One ``ID.txt`` per document of the BEIR folder ``data`` (title, blank line, text),
    written once under ``work`` (``scifact-corpus``, ``cranfield-corpus``)."""
    folder = work / f"{data.name}-corpus"
    texts: dict[str, str] = {}
    with gzip.open(data / "corpus.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            doc = json.loads(line)
            texts[f"{doc['_id']}.txt"] = f"{doc['title']}\n\n{doc['text']}\n"
    if not folder.exists():
        partial = folder.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for name, text in texts.items():
            (partial / name).write_text(text, "utf-8")
        partial.rename(folder)
    return folder, texts


def ingest(folder: Path, index_dir: Path) -> float:
    """``groundkit ingest`` once (a lexical collection); returns its CPU seconds, 0 if cached."""
    if (index_dir / "ready").exists():
        return 0.0
    shutil.rmtree(index_dir, ignore_errors=True)
    started = time.time()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "groundkit",
            "ingest",
            str(folder),
            "--index-dir",
            str(index_dir),
            "--extensions",
            ".txt",
            "--quiet",
            "--json",
            "--no-calibrate",  # ranking is measured: no "nothing here" bar (adr/0072)
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"groundkit ingest failed ({done.returncode}):\n{done.stderr[-2000:]}")
    (index_dir / "ready").write_text(done.stdout)
    return round(time.time() - started, 1)


# -- queries -----------------------------------------------------------------------------------


def rst_headings(texts: dict[str, str]) -> list[str]:
    """Section titles (a line underlined by one repeated mark) of two to eight plain words."""
    seen: set[str] = set()
    out: list[str] = []
    for name in sorted(texts):
        lines = texts[name].splitlines()
        for above, below in itertools.pairwise(lines):
            title = above.strip()
            mark = below.strip()
            if not title or len(mark) < len(title) or set(mark) - HEADING_MARKS:
                continue
            if len(set(mark)) != 1 or not TITLE.fullmatch(title):
                continue
            if 2 <= len(title.split()) <= 8 and title.lower() not in seen:
                seen.add(title.lower())
                out.append(title)
    return out


def every_kth(items: list[Any], count: int, salt: str, seed: int = SEED) -> list[Any]:
    """``count`` items, every k-th from a seeded offset (deterministic, spread over the list)."""
    k = max(1, len(items) // count)
    offset = zlib.crc32(f"{seed}:{salt}".encode()) % k
    return items[offset::k][:count]


def rng_for(seed: int, *parts: str) -> random.Random:
    return random.Random(zlib.crc32(":".join((str(seed), *parts)).encode()))


def edit(word: str, rng: random.Random, original: str = "") -> str:
    """One edit (deletion, transposition, substitution, insertion), never the first letter,
    that gives neither ``word`` nor ``original`` back (two edits must not cancel out)."""
    for _ in range(50):
        at = rng.randrange(1, len(word))
        kind = rng.randrange(4)
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
        if kind == 0:
            out = word[:at] + word[at + 1 :]
        elif kind == 1 and at + 1 < len(word):
            out = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
        elif kind == 2:
            out = word[:at] + letter + word[at + 1 :]
        else:
            out = word[:at] + letter + word[at:]
        if out.lower() not in (word.lower(), original.lower()):
            return out
    raise AssertionError(f"no edit of {word!r}")


def replace(text: str, match: re.Match[str], word: str) -> str:
    return text[: match.start()] + word + text[match.end() :]


def one_typo(qid: str, text: str, seed: int = SEED) -> str | None:
    words = [m for m in WORD.finditer(text) if len(m.group()) >= 5]
    if not words:
        return None
    rng = rng_for(seed, qid, "typo1")
    match = words[rng.randrange(len(words))]
    return replace(text, match, edit(match.group(), rng))


def two_typos(qid: str, text: str, seed: int = SEED) -> str | None:
    rng = rng_for(seed, qid, "typo2")
    words = list(WORD.finditer(text))
    long = [m for m in words if len(m.group()) >= 8]
    if long:
        match = max(long, key=lambda m: len(m.group()))  # the first on a tie
        first = edit(match.group(), rng)
        return replace(text, match, edit(first, rng, match.group()))
    five = [m for m in words if len(m.group()) >= 5]
    if len(five) < 2:
        return None
    a, b = sorted(rng.sample(five, 2), key=lambda m: m.start())
    text = replace(text, b, edit(b.group(), rng))  # the later one first: offsets hold
    return replace(text, a, edit(a.group(), rng))


def cut(qid: str, text: str, seed: int = SEED) -> str | None:
    words = list(WORD.finditer(text))
    if not words or len(words[-1].group()) < 4:
        return None
    last = words[-1]
    keep = max(2, round(len(last.group()) * rng_for(seed, qid, "cut").uniform(0.5, 0.7)))
    return text[: last.start()] + last.group()[:keep]


def variants(qid: str, text: str, seed: int = SEED) -> dict[str, str | None]:
    return {
        "typo1": one_typo(qid, text, seed),
        "typo2": two_typos(qid, text, seed),
        "cut": cut(qid, text, seed),
    }


# -- systems -----------------------------------------------------------------------------------


def run_peers(texts: dict[str, str], queries: list[str], work: Path) -> dict[str, Any]:
    """``peers.mjs`` over the same documents; ``{system: [[doc id, ...] per query]}``, kept
    under ``work`` by a digest of the input and the peers' lock file (rerun only on a change)."""
    if not (PEERS / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEERS, check=True)
    work.mkdir(parents=True, exist_ok=True)
    docs = [{"id": name, "text": text} for name, text in texts.items()]
    payload = json.dumps({"docs": docs, "queries": queries})
    digest = hashlib.sha256(payload.encode())
    for part in ("peers.mjs", "package-lock.json"):
        digest.update((PEERS / part).read_bytes())
    answer = work / f"peers-{digest.hexdigest()[:16]}.json"
    if not answer.exists():
        request = work / "peers-in.json"
        request.write_text(payload, "utf-8")
        partial = answer.with_suffix(".partial")
        command = ["node", str(PEERS / "peers.mjs"), str(request), str(partial)]
        subprocess.run([*command, str(work / "pagefind")], check=True)
        partial.rename(answer)
        request.unlink()
    out: dict[str, Any] = json.loads(answer.read_text("utf-8"))
    return out


def page_of(source: str, root: Path) -> str:
    path = Path(source)
    return path.relative_to(root).as_posix() if path.is_absolute() else path.as_posix()


def groundkit_pages(
    retriever: groundkit.Searcher, root: Path, query: str, options: dict[str, bool]
) -> tuple[list[str], Any, float]:
    """The top 3 pages, as the page's grouped search ranks them (adr/0074), the expansions and
    the CPU seconds."""
    started = time.process_time()
    response = retriever.search(
        query,
        top_k=3,
        mode="bm25",
        highlight=False,
        prefix=options.get("prefix", False),
        fuzzy=options.get("fuzzy", False),
        group=groundkit.GroupOptions(1),
    )
    spent = time.process_time() - started
    pages = [page_of(group.source, root) for group in response.groups or ()]
    return pages, response.metadata.get("expansions"), spent


# -- one corpus --------------------------------------------------------------------------------


def run_corpus(
    name: str,
    root: Path,
    texts: dict[str, str],
    queries: dict[str, str],
    work: Path,
    seed: int = SEED,
) -> dict[str, Any]:
    build_s = ingest(root, work / f"{name}-index")
    # the peers get exactly the files groundkit indexed (its default excludes drop _theme/)
    indexed = set(json.loads((work / f"{name}-index" / "ready").read_text())["indexed"])
    left_out = sorted(set(texts) - indexed)
    texts = {page: text for page, text in texts.items() if page in indexed}
    rows = [(qid, clean, variants(qid, clean, seed)) for qid, clean in queries.items()]
    flat: list[str] = []
    for _, clean, forms in rows:
        flat += [clean, *(forms[v] or "" for v in VARIANTS)]
    peers = run_peers(texts, flat, work / name)
    versions = peers.pop("versions")
    counts: dict[str, dict[str, list[int]]] = {v: {} for v in VARIANTS}
    misses: list[dict[str, Any]] = []
    peer_misses: dict[str, list[str]] = {}
    cpu: dict[str, list[float]] = {}
    clean_agree = 0
    with groundkit.Searcher.open(work / f"{name}-index") as retriever:
        for i, (qid, clean, forms) in enumerate(rows):
            base = i * (1 + len(VARIANTS))
            for system, answers in peers.items():
                target = answers[base][:1]
                for j, variant in enumerate(VARIANTS, start=1):
                    if forms[variant] is None or not target:
                        continue
                    tally = counts[variant].setdefault(system, [0, 0])
                    found = target[0] in answers[base + j][:3]
                    tally[0] += found
                    tally[1] += 1
                    if not found:
                        peer_misses.setdefault(system, []).append(f"{qid} {variant}")
            exact, _, spent = groundkit_pages(retriever, root, clean, {})
            cpu.setdefault("clean exact", []).append(spent)
            both, _, spent = groundkit_pages(
                retriever, root, clean, GROUNDKIT["groundkit prefix+fuzzy"]
            )
            cpu.setdefault("clean prefix+fuzzy", []).append(spent)
            clean_agree += exact[:1] == both[:1]
            for variant in VARIANTS:
                text = forms[variant]
                if text is None or not exact:
                    continue
                for system in USED[variant]:
                    got, expansions, spent = groundkit_pages(
                        retriever, root, text, GROUNDKIT[system]
                    )
                    cpu.setdefault(f"{variant} {system.removeprefix('groundkit ')}", []).append(
                        spent
                    )
                    tally = counts[variant].setdefault(system, [0, 0])
                    hit = exact[0] in got
                    tally[0] += hit
                    tally[1] += 1
                    if system == "groundkit prefix+fuzzy" and both:
                        # the peers' measure: the target is this option set's own clean top
                        own = counts[variant].setdefault(OWN_TOP, [0, 0])
                        own[0] += both[0] in got
                        own[1] += 1
                    if not hit and system != "groundkit exact":
                        misses.append(
                            {
                                "id": qid,
                                "clean": clean,
                                "variant": variant,
                                "system": system,
                                "query": text,
                                "target": exact[0],
                                "got": got,
                                "expansions": expansions,
                            }
                        )
    return {
        "documents": len(texts),
        "left_out_by_ingest": left_out,
        "queries": len(rows),
        "ingest_s": build_s,
        "peer_versions": versions,
        "hit@3": {v: {s: f"{h}/{n}" for s, (h, n) in sorted(c.items())} for v, c in counts.items()},
        "clean_top1_same_exact_vs_prefix+fuzzy": f"{clean_agree}/{len(rows)}",
        "groundkit_cpu_ms_median": {k: round(1000 * median(v), 2) for k, v in sorted(cpu.items())},
        "groundkit_misses": misses,
        "peer_misses": peer_misses,
        "queries_and_variants": [{"id": q, "clean": c, **f} for q, c, f in rows],
    }


def median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def print_corpus(name: str, found: dict[str, Any]) -> None:
    print(f"== {name}: {found['documents']} documents, {found['queries']} queries")
    systems = sorted({s for v in VARIANTS for s in found["hit@3"][v]})
    print(f"  {'system':30}" + "".join(f"{v:>10}" for v in VARIANTS))
    for system in systems:
        cells = [found["hit@3"][v].get(system, "-") for v in VARIANTS]
        print(f"  {system:30}" + "".join(f"{c:>10}" for c in cells))
    agree = found["clean_top1_same_exact_vs_prefix+fuzzy"]
    print(f"  clean top page, exact == prefix+fuzzy: {agree}")
    print(f"  groundkit CPU ms (median): {found['groundkit_cpu_ms_median']}")
    for miss in found["groundkit_misses"]:
        print(
            f"  miss [{miss['system'].removeprefix('groundkit ')}, {miss['variant']}] "
            f"{miss['query']!r} (clean {miss['clean']!r}): want {miss['target']}, got "
            f"{miss['got']}; expansions {json.dumps(miss['expansions'])}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=REPO / "bench" / ".bench" / "search_box",
        help="where the corpora, collections and peers' indexes are kept (default: %(default)s)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("/work/shared/data/beir/scifact"),
        help="the BEIR SciFact folder (default: %(default)s)",
    )
    parser.add_argument(
        "--cranfield",
        type=Path,
        default=Path("/work/shared/data/beir/cranfield"),
        help="the BEIR Cranfield folder (default: %(default)s)",
    )
    parser.add_argument(
        "--corpora",
        nargs="+",
        choices=["django", "scifact", "cranfield"],
        default=["django", "scifact"],
        help="the corpora, in order (default: django scifact)",
    )
    parser.add_argument(
        "--django-queries", type=int, default=60, help="how many headings (default: 60)"
    )
    parser.add_argument(
        "--django-asked",
        type=Path,
        nargs="+",
        metavar="JSONL",
        help="ask these Django queries instead of headings: judged sets' questions, keywords "
        "and tasks (bench/data/django-judged*.jsonl, each line's 'query'), all of them, in "
        "order; --seed then picks only the typos and cuts, and --django-queries is unused",
    )
    parser.add_argument(
        "--scifact-queries",
        type=int,
        default=50,
        help="how many claims, or Cranfield questions (default: 50)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "bench" / "results" / "search_box.json",
        help="write the report here as JSON (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help=f"picks the queries and their variants (default {SEED}; another seed gives a "
        "held-out set: other headings and claims where the offset differs, other edits)",
    )
    args = parser.parse_args()
    if args.django_asked and "django" not in args.corpora:
        parser.error("--django-asked asks Django's docs: add django to --corpora")
    args.work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"seed": args.seed}
    for name in args.corpora:
        if name == "django":
            root, texts = django_corpus(args.work)
            if args.django_asked:  # the same queries for every seed: only the edits differ
                titles = [
                    json.loads(line)["query"]
                    for path in args.django_asked
                    for line in path.read_text("utf-8").splitlines()
                    if line.strip()
                ]
                default = set(titles)
            else:
                headings = rst_headings(texts)
                titles = every_kth(headings, args.django_queries, "django", args.seed)
                default = set(every_kth(headings, args.django_queries, "django"))
            queries = {f"h{i:03d}": t for i, t in enumerate(titles)}
        else:
            data = args.data if name == "scifact" else args.cranfield
            root, texts = beir_corpus(args.work, data)
            with open(data / "queries.jsonl", encoding="utf-8") as lines:
                claims = [json.loads(line) for line in lines]
            picked = every_kth(claims, args.scifact_queries, name, args.seed)
            default = {c["text"] for c in every_kth(claims, args.scifact_queries, name)}
            queries = {c["_id"]: c["text"] for c in picked}
        report[name] = found = run_corpus(name, root, texts, queries, args.work, args.seed)
        found[f"queries_also_in_seed_{SEED}"] = sum(text in default for text in queries.values())
        print_corpus(name, found)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
