"""The groundkit search site against Pagefind, cold, in Debian's chromium, on one folder of text.

Setup (once): ``(cd web/e2e && npm ci)`` for the Pyodide runtime and ``(cd web/bench && npm ci)``
for Pagefind 1.6 and playwright-core; Debian's ``/usr/bin/chromium``. Then::

    python bench/site_vs_pagefind.py --quick                    # the bundled sample, 2 runs each
    python bench/site_vs_pagefind.py --django                   # Django's docs/ (pip download)
    python bench/site_vs_pagefind.py FOLDER --runs 5 --json bench/results/x.json

Both sites are built from the same folder: ``groundkit build-site FOLDER --pyodide-dir`` (the
runtime copied in), and Pagefind over one minimal HTML page per text file (``<main>`` around
the escaped text, the file's path as title) with a page that calls Pagefind's JS API directly
(no debounce; its default UI waits 300 ms). One server on 127.0.0.1 serves both
(``bench/precompressed_server.py``: ``http.server``, plus ``.br``/``.gz`` siblings sent with
``Content-Encoding`` when ``--precompress`` wrote them). Runs are interleaved (groundkit,
Pagefind, groundkit, ...); each run is a fresh chromium process (``web/bench/drive.mjs``):
navigation, the first query typed as soon as the box exists, its results on screen; then
warm queries (each query once, then timed ``--repeats`` times) through each page's own search
call (groundkit: a worker round trip; Pagefind: ``search()`` and ``data()`` of the top 10).
Reported: medians over the runs, and ratios groundkit / Pagefind. Bytes are response
bodies as this server sends them (compressed only with ``--precompress``, then for both sites
alike); "gzip" adds what a host serving gzip -9 pre-compressed files would send (each fetched
file's plain copy gzip -9; Pagefind's and groundkit's index files, and groundkit's
snapshot.bin.gz, are compressed already).
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
E2E = REPO / "web" / "e2e"
WEB_BENCH = REPO / "web" / "bench"
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst")
SAMPLE_QUERIES = [
    "how do I report a leak",
    "chlorine residual target",
    "boil water notice",
    "who fixes a burst main",
    "lead service line replacement",
    "pay my bill online",
]
DJANGO_QUERIES = [
    "how do I add a custom management command",
    "queryset select_related vs prefetch_related",
    "configure static files in production",
    "csrf token ajax request",
    "custom user model",
    "database transactions atomic",
    "form validation clean method",
    "middleware order",
    "timezone aware datetime",
    "signals post_save",
]
PAGEFIND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pagefind search</title></head>
<body><input id="q" type="search" autofocus><ol id="results"></ol>
<script type="module">
const box = document.querySelector("#q");
const list = document.querySelector("#results");
let pagefind = null, seq = 0;
async function go() {
  const q = box.value, my = ++seq;
  if (!pagefind || !q) return;
  const r = await pagefind.search(q);
  const data = await Promise.all(r.results.slice(0, 10).map((x) => x.data()));
  if (my !== seq) return;
  list.replaceChildren(...data.map((d) => {
    const li = document.createElement("li");
    li.dataset.url = d.url;
    li.innerHTML = `<b>${d.meta.title}</b> ${d.excerpt}`;
    return li;
  }));
  list.dataset.query = q;
}
box.addEventListener("input", go);
pagefind = await import("./pagefind/pagefind.js");
window.pagefind = pagefind;
await pagefind.init();
go();
</script></body></html>
"""


def django_docs(cache: Path) -> Path:
    """Django's ``docs/`` folder from its sdist (``pip download``), unpacked once into cache."""
    found = sorted(cache.glob("django-*/docs"))
    if found:
        return found[-1]
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "django",
            "-d",
            str(cache),
        ],
        check=True,
    )
    sdist = sorted(cache.glob("[Dd]jango-*.tar.gz"))[-1]
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if "/docs/" in m.name and m.isfile()]
        archive.extractall(cache, members=members, filter="data")
    return sorted(cache.glob("[Dd]jango-*/docs"))[-1]


def text_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)


def build_pagefind(folder: Path, out: Path) -> dict[str, Any]:
    """One HTML page per text file, then ``pagefind --site``; returns timings and sizes."""
    files = text_files(folder)
    for path in files:
        rel = path.relative_to(folder).as_posix()
        text = path.read_text("utf-8", errors="replace")
        page = out / "docs" / (rel + ".html")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(rel)}'
            f"</title></head><body><main><h1>{html.escape(rel)}</h1><pre>"
            f"{html.escape(text)}</pre></main></body></html>",
            encoding="utf-8",
        )
    (out / "index.html").write_text(PAGEFIND_PAGE, encoding="utf-8")
    binary = WEB_BENCH / "node_modules" / ".bin" / "pagefind"
    started = time.perf_counter()
    subprocess.run([str(binary), "--site", str(out)], check=True, capture_output=True)
    return {"build_s": round(time.perf_counter() - started, 1), "files": len(files)}


def build_groundkit(
    folder: Path, out: Path, snapshot: bool, precompress: str | None
) -> dict[str, Any]:
    """``groundkit build-site``; files it refuses (exit 4: Django's 3 PDFs without the ``pdf``
    extra) are named with the reason and left out, as Pagefind's side (text files only) is."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "groundkit",
            "build-site",
            str(folder),
            "-o",
            str(out),
            "--pyodide-dir",
            str(E2E / "node_modules" / "pyodide"),
            "--json",
            *(["--snapshot"] if snapshot else []),
            *(["--precompress", precompress] if precompress else []),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 4):
        raise SystemExit(
            f"groundkit build-site failed (exit {done.returncode}):\n{done.stderr[-2000:]}"
        )
    refused = json.loads(done.stdout)["ingest"]["refused"] if done.returncode == 4 else []
    for refusal in refused:
        print(f"build-site refused {refusal['source']}: {refusal['message']}", flush=True)
    return {"build_s": round(time.perf_counter() - started, 1), "refused": len(refused)}


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def serve(root: Path, mbit: float | None = None) -> tuple[subprocess.Popen[str], int]:
    shaping = [] if mbit is None else ["--mbit", str(mbit)]
    server = subprocess.Popen(
        [
            sys.executable,
            "-u",
            str(REPO / "bench" / "precompressed_server.py"),
            str(root),
            *shaping,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    port = int(line.split("port ")[1].split()[0])
    return server, port


def gzip_bytes(root: Path, urls: list[list[Any]], cache: dict[str, int]) -> int:
    total = 0
    for url, sent in urls:
        path = root / url.split("?")[0].lstrip("/")
        if path.is_dir():
            path = path / "index.html"
        key = str(path)
        if key not in cache:  # gzip -9 of the file as stored, or the file if that is smaller
            data = path.read_bytes() if path.is_file() else None
            cache[key] = sent if data is None else min(len(gzip.compress(data, 9)), len(data))
        total += cache[key]
    return total


def by_part(urls: list[list[Any]]) -> dict[str, int]:
    """Bytes before the first result by what they were: runtime, wheel, index, sources, page."""
    parts: dict[str, int] = {}
    for url, sent in urls:
        name = url.split("/", 2)[-1]
        if name.startswith("pyodide/"):
            part = "runtime"
        elif name.endswith(".whl"):
            part = "wheel"
        elif name.startswith(("index/", "pagefind/")):
            part = "index"
        elif name.startswith("sources/"):
            part = "sources"
        else:
            part = "page"
        parts[part] = parts.get(part, 0) + sent
    return parts


def drive(
    url: str, kind: str, queries: list[str], repeats: int, shot: Path | None, again: bool = False
) -> Any:
    command = [
        "node",
        str(WEB_BENCH / "drive.mjs"),
        "--url",
        url,
        "--kind",
        kind,
        "--queries",
        json.dumps(queries),
        "--repeats",
        str(repeats),
    ]
    if shot is not None:
        command += ["--shot", str(shot)]
    if again:
        command.append("--repeat-visit")
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} run failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median(runs: list[dict[str, Any]], key: str, sub: str | None = None) -> float:
    return statistics.median(r[key][sub] if sub else r[key] for r in runs)


def measure_network(
    work: Path, queries: list[str], runs: int, repeats: int, mbit: float | None, again: bool
) -> dict[str, Any]:
    """Cold runs (and repeat visits) of both sites over one network; medians and ratios."""
    server, port = serve(work, mbit)
    results: dict[str, list[dict[str, Any]]] = {"groundkit": [], "pagefind": []}
    gz_cache: dict[str, int] = {}
    label = "loopback" if mbit is None else f"{mbit:g} Mbit/s"
    try:
        for run in range(runs):
            for kind, path in (("groundkit", "gk"), ("pagefind", "pf")):
                shot = work / f"{path}-{run}.png" if run == 0 and mbit is None else None
                url = f"http://127.0.0.1:{port}/{path}/"
                r = drive(url, kind, queries, repeats, shot, again)
                urls = r.pop("urls_before_first_result")
                r["gzip_bytes_before_first_result"] = gzip_bytes(work, urls, gz_cache)
                r["bytes_before_first_result_by_part"] = by_part(urls)
                assert not r["offsite"], r["offsite"]
                results[kind].append(r)
                repeat = r.get("repeat_visit")
                print(
                    f"{label} run {run + 1} {kind:9}: first result "
                    f"{r['navigation_to_first_result_ms']} ms, "
                    f"{r['bytes_before_first_result'] / 1e6:.2f} MB before it "
                    f"(gzip {r['gzip_bytes_before_first_result'] / 1e6:.2f}), warm median "
                    f"{r['warm']['median_ms']:.1f} ms, longest task "
                    f"{max(r['long_tasks_ms'], default=0)} ms, renderers {r['renderer_rss_mb']} MB"
                    + (
                        ""
                        if repeat is None
                        else f"; repeat visit {repeat['navigation_to_first_result_ms']} ms, "
                        f"{repeat['bytes_sent'] / 1e3:.1f} kB sent"
                    ),
                    flush=True,
                )
    finally:
        server.terminate()
    summary: dict[str, Any] = {}
    for kind, runs_of in results.items():
        summary[kind] = {
            "navigation_to_first_result_ms": median(runs_of, "navigation_to_first_result_ms"),
            "navigation_to_input_ms": median(runs_of, "navigation_to_input_ms"),
            "bytes_before_first_result": median(runs_of, "bytes_before_first_result"),
            "gzip_bytes_before_first_result": median(runs_of, "gzip_bytes_before_first_result"),
            "warm_query_median_ms": median(runs_of, "warm", "median_ms"),
            "browser_cpu_s_to_first_result": median(runs_of, "browser_cpu_s_to_first_result"),
            "keystroke_p99_ms": median(runs_of, "keystrokes", "p99_ms"),
            "keystroke_max_ms": median(runs_of, "keystrokes", "max_ms"),
            "longest_task_ms": max(max(r["long_tasks_ms"], default=0) for r in runs_of),
            "renderer_rss_mb": median(runs_of, "renderer_rss_mb"),
        }
        if again:
            summary[kind]["repeat_first_result_ms"] = median(
                runs_of, "repeat_visit", "navigation_to_first_result_ms"
            )
            summary[kind]["repeat_bytes_sent"] = median(runs_of, "repeat_visit", "bytes_sent")
        parts = {part for r in runs_of for part in r["bytes_before_first_result_by_part"]}
        summary[kind]["bytes_before_first_result_by_part"] = {
            part: statistics.median(
                r["bytes_before_first_result_by_part"].get(part, 0) for r in runs_of
            )
            for part in sorted(parts)
        }
    ratios = {
        key: round(summary["groundkit"][key] / summary["pagefind"][key], 2)
        if summary["pagefind"][key]
        else None
        for key in summary["groundkit"]
        if not isinstance(summary["groundkit"][key], dict)
    }
    gk_parts = summary["groundkit"]["bytes_before_first_result_by_part"]
    pf_parts = summary["pagefind"]["bytes_before_first_result_by_part"]
    ratios["index_bytes_before_first_result"] = (
        round(gk_parts.get("index", 0) / pf_parts["index"], 2) if pf_parts.get("index") else None
    )
    return {"median": summary, "ratio_groundkit_over_pagefind": ratios, "all_runs": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", help="a folder of .txt/.md/.rst files")
    parser.add_argument("--quick", action="store_true", help="the bundled sample, 2 runs each")
    parser.add_argument("--django", action="store_true", help="Django's docs (pip download)")
    parser.add_argument("--runs", type=int, default=None, help="cold runs each (default 5)")
    parser.add_argument(
        "--snapshot", action="store_true", help="build groundkit's site with --snapshot"
    )
    parser.add_argument(
        "--precompress",
        choices=("gzip", "brotli"),
        help="build groundkit's site with --precompress, write the same siblings for "
        "Pagefind's files, and serve them as gzip_static/brotli_static hosts do",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed passes of warm queries")
    parser.add_argument(
        "--networks",
        nargs="+",
        default=["loopback"],
        metavar="NET",
        help="loopback, or a link speed in Mbit/s shared by every request (10, 50): each run "
        "once per network (default: loopback)",
    )
    parser.add_argument(
        "--repeat-visit",
        action="store_true",
        help="after each cold run, visit again with the browser's HTTP cache warm and report "
        "its time to first result and the bytes the server sent for it",
    )
    parser.add_argument("--queries", help="a JSON list of queries (the first one is timed cold)")
    parser.add_argument("--work", help="build folder (default: a temporary one)")
    parser.add_argument("--json", dest="json_out", help="write the results here too")
    args = parser.parse_args(argv)
    if args.quick:
        import groundkit

        folder, queries, runs = groundkit.sample_corpus(), SAMPLE_QUERIES, args.runs or 2
    elif args.django:
        folder = django_docs(Path(args.work or tempfile.gettempdir()) / "django-sdist")
        queries, runs = DJANGO_QUERIES, args.runs or 5
    elif args.folder:
        folder, queries, runs = Path(args.folder), SAMPLE_QUERIES, args.runs or 5
    else:
        parser.error("give FOLDER, --quick or --django")
    if args.queries:
        queries = json.loads(Path(args.queries).read_text("utf-8"))
    work = Path(args.work or tempfile.mkdtemp(prefix="site-vs-pagefind-")) / "sites"
    shutil.rmtree(work, ignore_errors=True)
    sources = sum(p.stat().st_size for p in text_files(folder))
    print(f"corpus {folder}: {len(text_files(folder))} files, {sources / 1e6:.2f} MB", flush=True)
    gk_build = build_groundkit(folder, work / "gk", args.snapshot, args.precompress)
    pf_build = build_pagefind(folder, work / "pf")
    if args.precompress:
        from groundkit.site.precompress import precompress

        precompress(sorted(p for p in (work / "pf").rglob("*") if p.is_file()), args.precompress)
    gk_site = tree_bytes(work / "gk")
    gk_runtime = tree_bytes(work / "gk" / "pyodide") + sum(  # the snapshot included
        p.stat().st_size for p in (work / "gk").glob("*.whl")
    )
    print(f"built: groundkit {gk_build['build_s']} s, Pagefind {pf_build['build_s']} s", flush=True)
    per_network: dict[str, Any] = {}
    for network in args.networks:
        mbit = None if network == "loopback" else float(network)
        per_network[network] = measure_network(
            work, queries, runs, args.repeats, mbit, args.repeat_visit
        )
    first = per_network[args.networks[0]]
    report = {
        "corpus": {"folder": str(folder), "files": len(text_files(folder)), "bytes": sources},
        "runs": runs,
        "groundkit_snapshot": args.snapshot,
        "precompressed": args.precompress,
        "queries": queries,
        "machine": {
            "cpus": os.cpu_count(),
            "load": os.getloadavg(),
            "python": platform.python_version(),
        },
        "sites": {
            "groundkit_bytes": gk_site,
            "groundkit_without_runtime_and_wheel_bytes": gk_site - gk_runtime,
            "groundkit_without_runtime_over_sources": round((gk_site - gk_runtime) / sources, 2),
            "pagefind_bytes": tree_bytes(work / "pf" / "pagefind"),
            "groundkit_build_s": gk_build["build_s"],
            "groundkit_refused_files": gk_build["refused"],
            "pagefind_build_s": pf_build["build_s"],
        },
        "median": first["median"],
        "ratio_groundkit_over_pagefind": first["ratio_groundkit_over_pagefind"],
        "networks": per_network,
    }
    print(json.dumps({"sites": report["sites"]}, indent=1))
    for network, found in per_network.items():
        print(f"== {network}: " + json.dumps(found["ratio_groundkit_over_pagefind"]))
        for kind in ("groundkit", "pagefind"):
            median_of = found["median"][kind]
            repeat = median_of.get("repeat_first_result_ms")
            print(
                f"  {kind:9} cold first result {median_of['navigation_to_first_result_ms']} ms"
                + ("" if repeat is None else f", repeat visit {repeat} ms, "
                   f"{median_of['repeat_bytes_sent'] / 1e3:.1f} kB sent again")
            )  # fmt: skip
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
