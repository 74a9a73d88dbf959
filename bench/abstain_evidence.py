"""Evidence features for "nothing here" (issue 40, adr/0071): for every query of a
collection's calibration sets (its pseudo on-topic queries, the shipped off-topic questions)
and of held-out sets, the features each candidate evidence measure is computed from, so the
candidates are compared offline on the same run (``bench/abstain_candidates.py``).

    python bench/abstain_evidence.py --index-dir DIR [--collection NAME] [--hybrid] \
        --set on:bench/calibration/heldout/django-on.txt \
        --set off:bench/calibration/heldout/django-off.txt --out /tmp/django.json

Per query: its content terms with idf and whether the collection lacks them, the current
share (``lexical_evidence``), the BM25 top-20 chunks with their scores and the idf their
matched terms carry, and the most idf any one chunk matches; with ``--hybrid`` the best dense
similarity and hybrid's share (``hybrid_evidence``).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import groundkit
from groundkit.analysis.question_words import content_terms
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import (
    _seed,
    hybrid_evidence,
    off_topic_questions,
    pseudo_on_topic,
)


def pseudo_sentences(retriever: groundkit.Searcher, count: int = 200) -> list[str]:
    """Sentence-level pseudo queries: one seeded sentence of each sampled chunk (5+ words),
    a third of its words dropped at seeded places, at most 12 kept (candidate a)."""
    chunks = sorted(retriever.reader.iter_chunks(), key=lambda chunk: chunk.chunk_id)
    picks = [chunks[i * len(chunks) // count] for i in range(min(count, len(chunks)))]
    out = []
    for i, chunk in enumerate(picks):
        sentences = [s.split() for s in re.split(r"(?<=[.?!])\s+", chunk.text)]
        sentences = [s for s in sentences if 5 <= len(s) <= 40]
        if not sentences:
            continue
        seed = _seed(chunk.chunk_id, str(i))
        words = sentences[seed % len(sentences)]
        kept = [w for j, w in enumerate(words) if (seed >> (j % 60)) % 3 != 0][:12]
        out.append(" ".join(kept))
    return out


def features(retriever: groundkit.Searcher, query: str) -> dict[str, object]:
    scorer = retriever.transport.scorers[0]  # type: ignore[attr-defined]
    index = scorer._lexical
    terms = retriever.analyzer.terms(query)
    content = content_terms(terms, retriever.question_terms()) if terms else []
    idf = [index.term_idf(t) for t in content]
    df = [index.df(t) for t in content]
    per_term: list[dict[int, float]] = []
    for term in dict.fromkeys(content):
        keys, scores, _ = index.term_scores(term)
        per_term.append(dict(zip(keys, scores, strict=True)))
    unique = list(dict.fromkeys(content))
    uidf = {t: index.term_idf(t) for t in unique}
    total: dict[int, float] = {}
    matched: dict[int, float] = {}
    mask: dict[int, int] = {}
    for i, (term, scores) in enumerate(zip(unique, per_term, strict=True)):
        reps = content.count(term)
        for key, value in scores.items():
            total[key] = total.get(key, 0.0) + reps * value
            matched[key] = matched.get(key, 0.0) + reps * uidf[term]
            mask[key] = mask.get(key, 0) | (1 << i)
    top = sorted(total, key=lambda k: (-total[k], k))[:20]
    return {
        "query": query,
        "terms": len(terms),
        "content": content,
        "idf": idf,
        "df": df,
        "share": retriever.lexical_evidence(query),
        "top": [[total[k], matched[k], mask[k]] for k in top],
        "max_matched": max(matched.values(), default=0.0),
        "chunks": scorer.reader.chunk_count,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--collection", default="default")
    parser.add_argument("--hybrid", action="store_true")
    parser.add_argument("--set", action="append", default=[], help="NAME:PATH")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
        sets = {"pseudo": pseudo_on_topic(retriever), "shipped": off_topic_questions()}
        sets["pseudo_sent"] = pseudo_sentences(retriever)
        for item in args.set:
            name, path = item.split(":", 1)
            sets[name] = load_queries(path)
        out: dict[str, list[dict[str, object]]] = {}
        for name, queries in sets.items():
            rows = [features(retriever, q) for q in queries]
            if args.hybrid:
                for row, query in zip(rows, queries, strict=True):
                    try:
                        [(dense, share)] = hybrid_evidence(retriever, [query])
                    except groundkit.errors.InvalidQueryError:
                        dense, share = -1.0, 0.0
                    row["dense"], row["hybrid_share"] = dense, share
            out[name] = rows
    Path(args.out).write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
