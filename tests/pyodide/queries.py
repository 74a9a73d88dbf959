"""Runs a fixed set of queries over a stored collection and writes what came back as JSON.

The cross-runtime check (``test_cross_runtime.py``) runs this same file twice over the same
SQLite file: in CPython and inside Pyodide. Scores are written with ``float.hex`` so equal text
means bit-identical floats. Standard library and groundkit only; runs on Python 3.11+.

    python tests/pyodide/queries.py INDEX_DIR OUT.json [--site SITE_DIR OUT2.json]
                                    [--queries QUERIES.json]

With ``--site``, the same queries also run over a built site's static index (``index/``, read
with ``groundkit.site.open_site``, as the browser page reads it), in the same process.
``--queries`` replaces the fixed set with a JSON list of ``[query, top_k, threshold]``.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
from pathlib import Path
from typing import Any

import groundkit

# (query, top_k, score_threshold): everyday questions, a lone stopword-heavy phrase, French with
# accents, numbers and abbreviations, Unicode punctuation, one that matches nothing, a threshold,
# off-topic questions.
QUERIES: tuple[tuple[str, int, float | None], ...] = (
    ("how do I report a leak", 5, None),
    ("chlorine residual target", 10, None),
    ("boil water advisory when to lift", 10, None),
    ("lead service line replacement", 5, None),
    ("Avis aux résidents rinçage du réseau", 5, None),
    ("SCADA alarm low reservoir level", 10, None),
    ("PPE for sodium hypochlorite handling", 10, None),
    ("drought stage 3 restrictions lawn watering", 10, None),
    ("BWA E. coli positive sample", 10, None),
    ("trench deeper than 1.5 m shoring", 5, None),
    ("water interruption – Orchard Road", 5, None),
    ("payment options direct debit late fee", 20, None),
    ("the of and", 5, None),
    ("zyzzyva quokka", 5, None),
    ("hydrant flushing discoloured water", 10, 2.0),
    # off-topic: the calibrated sample says "nothing here" (adr/0069)
    ("what is the best way to clean a tap", 5, None),
    ("how do I bake a chocolate cake", 5, None),
)


def run(
    index_dir: str,
    *,
    site: bool = False,
    queries: tuple[tuple[str, int, float | None], ...] = QUERIES,
) -> dict[str, Any]:
    """Everything the queries return, minus timings; ``runtime`` says where it ran."""
    answers: list[dict[str, Any]] = []
    if site:
        from groundkit.site import open_site

        opened = open_site(index_dir)
    else:
        opened = groundkit.Searcher.open(index_dir)
    with opened as retriever:
        for query, top_k, threshold in queries:
            response = retriever.search(query, top_k=top_k, score_threshold=threshold)
            metadata = {k: v for k, v in response.metadata.items() if k != "timings_ms"}
            results = []
            for result in response.results:
                verification = retriever.verify(result)
                results.append(
                    {
                        "chunk_id": result.chunk_id,
                        "document_id": result.document_id,
                        "score": result.score.hex(),
                        "content": result.content,
                        "citation": dataclasses.asdict(result.citation),
                        "metadata": dict(result.metadata),
                        "verdict": verification.verdict,
                    }
                )
            answers.append(
                {
                    "query": query,
                    "top_k": top_k,
                    "score_threshold": threshold,
                    "metadata": metadata,
                    "results": results,
                }
            )
        generation = retriever.generation
    return {
        "runtime": {
            "platform": sys.platform,
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "generation": generation,
        "answers": answers,
    }


def main(argv: list[str]) -> int:
    queries = QUERIES
    if "--queries" in argv:
        at = argv.index("--queries")
        listed = json.loads(Path(argv[at + 1]).read_text(encoding="utf-8"))
        queries = tuple((str(q), int(k), t) for q, k, t in listed)
        argv = argv[:at] + argv[at + 2 :]
    if len(argv) not in (2, 5) or (len(argv) == 5 and argv[2] != "--site"):
        print("usage: queries.py INDEX_DIR OUT.json [--site SITE_DIR OUT2.json]", file=sys.stderr)
        return 2
    jobs = [(argv[0], argv[1], False)] + ([(argv[3], argv[4], True)] if len(argv) == 5 else [])
    for where, out, site in jobs:
        answers = run(where, site=site, queries=queries)
        text = json.dumps(answers, ensure_ascii=False, indent=1, sort_keys=True)
        Path(out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
