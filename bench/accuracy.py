#!/usr/bin/env python3
"""accuracy.py CORPUS_TSV RESULTS_JSONL: the table of ./dev.sh accuracy.

RESULTS_JSONL has a line per scenario run (tests/integration/checks/
corpus.py): {"case", "variant", "rank", "diff"}; rank is the place of the
true cause among explain's findings (null: not among them), diff whether
diff's "Most likely cause" named it (null: the scenario is no pair).
Prints a row per case and variant of CORPUS_TSV (a run that left no line,
a skip or a crash, says so), then #1 %, top-3 % and diff % of those that
ran."""
import json
import sys


def rows(tsv):
    for line in open(tsv):
        if line.startswith("#") or not line.strip():
            continue
        name, variants = line.rstrip("\n").split("\t")[:2]
        for v in variants.split(","):
            yield name, v


def main():
    tsv, results = sys.argv[1], sys.argv[2]
    got = {}
    for line in open(results):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        got[(r.get("case"), r.get("variant"))] = r
    ran = first = top3 = pairs = diff_ok = 0
    print("%-28s %-8s %-8s %s" % ("case", "variant", "rank", "diff"))
    for name, v in rows(tsv):
        r = got.get((name, v))
        if r is None:
            print("%-28s %-8s %-8s %s" % (name, v, "-", "(no result: skipped or failed to run)"))
            continue
        ran += 1
        rank = r.get("rank")
        first += rank == 1
        top3 += rank is not None and rank <= 3
        d = r.get("diff")
        if d is not None:
            pairs += 1
            diff_ok += bool(d)
        print("%-28s %-8s %-8s %s" % (name, v, rank if rank is not None else "missed",
                                     "-" if d is None else ("right" if d else "wrong")))
    if ran == 0:
        print("no scenario ran")
        return 1
    print()
    print("explain: true cause #1 in %d of %d (%.0f %%), in the top 3 in %d (%.0f %%)"
          % (first, ran, 100.0 * first / ran, top3, 100.0 * top3 / ran))
    if pairs:
        print("diff: most likely cause right in %d of %d pairs (%.0f %%)"
              % (diff_ok, pairs, 100.0 * diff_ok / pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
