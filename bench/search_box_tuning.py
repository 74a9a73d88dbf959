"""The search-box variants over every Django heading and SciFact claim but a held-out seed's.

    python bench/search_box_tuning.py [--work bench/.bench/search_box] [--held-out 2026]
        [--corpora django scifact]
        [--step 1] [--misses] [--out bench/results/search_box_tuning.json]

``bench/search_box.py``'s collections, variants (seed 40's edits) and measure (hit@3: the clean
exact top page in the variant's top 3, "own": prefix+fuzzy's clean top), groundkit only, over
all the queries its sets are drawn from, less those the held-out seed picks: a set large
enough to compare expansion rules on (adr/0068) while the held-out set stays unseen.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import groundkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_box as sb  # the bench's own sets

BOTH = {"prefix": True, "fuzzy": True}


def queries(name: str, work: Path, data: Path, held_out: int) -> tuple[Path, dict[str, str]]:
    if name == "django":
        root, texts = sb.django_corpus(work)
        items = sb.rst_headings(texts)
        held = set(sb.every_kth(items, 60, "django", held_out))
        return root, {f"h{i:04d}": t for i, t in enumerate(items) if t not in held}
    with open(data / "queries.jsonl", encoding="utf-8") as lines:
        claims = [json.loads(line) for line in lines]
    held = {c["_id"] for c in sb.every_kth(claims, 50, "scifact", held_out)}
    return work / "scifact-corpus", {c["_id"]: c["text"] for c in claims if c["_id"] not in held}


def run(name: str, args: argparse.Namespace) -> dict[str, Any]:
    root, found = queries(name, args.work, args.data, args.held_out)
    found = dict(list(found.items())[:: args.step])
    counts: dict[str, list[int]] = {}
    misses: list[str] = []
    with groundkit.Searcher.open(args.work / f"{name}-index") as searcher:
        for qid, clean in found.items():
            exact, _, _ = sb.groundkit_pages(searcher, root, clean, {})
            both, _, _ = sb.groundkit_pages(searcher, root, clean, BOTH)
            if not exact:
                continue
            kept = counts.setdefault("clean top kept", [0, 0, 0])
            kept[0] += both[:1] == exact[:1]
            kept[2] += 1
            for variant, text in sb.variants(qid, clean).items():
                if text is None:
                    continue
                got, expansions, _ = sb.groundkit_pages(searcher, root, text, BOTH)
                tally = counts.setdefault(variant, [0, 0, 0])
                tally[0] += exact[0] in got
                tally[1] += bool(both) and both[0] in got
                tally[2] += 1
                if args.misses and exact[0] not in got:
                    misses.append(f"{variant} {text!r}: want {exact[0]}, got {got} {expansions}")
    return {
        "queries": len(found),
        "hit@3": {k: f"{h}/{n}" for k, (h, _, n) in counts.items()},
        "hit@3 own top": {k: f"{o}/{n}" for k, (_, o, n) in counts.items() if k in sb.VARIANTS},
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=sb.REPO / "bench" / ".bench" / "search_box")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/beir/scifact"))
    parser.add_argument("--held-out", type=int, default=2026, help="the seed whose picks to skip")
    parser.add_argument(
        "--corpora", nargs="+", choices=["django", "scifact"], default=["django", "scifact"]
    )
    parser.add_argument("--step", type=int, default=1, help="every step-th query only")
    parser.add_argument("--misses", action="store_true", help="list the variants missed")
    parser.add_argument(
        "--out", type=Path, default=sb.REPO / "bench" / "results" / "search_box_tuning.json"
    )
    args = parser.parse_args()
    report = {"held_out_seed": args.held_out}
    for name in args.corpora:
        found = report[name] = run(name, args)
        print(name, found["queries"], found["hit@3"], "own", found["hit@3 own top"], flush=True)
        for miss in found["misses"]:
            print("  miss", miss)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
