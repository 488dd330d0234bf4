#!/usr/bin/env python3
"""Compares ghist_bench builds measured in the same run (scripts/ab_bench.sh).

usage: bench/compare_runs.py DIR BASE OTHER [OTHER ...]
       bench/compare_runs.py --sets DIR BINARY

Reads DIR/NAME-r*.csv for each binary NAME (the CSV of ghist_bench --csv), keeps the rows of ghist's auto plan, and
prints per cell (operator, distribution, H, RF, and the argument set of scripts/ab_bench.sh: the same cell in two
sets, say with the race factor told and unknown, stays two rows) the median over the rounds of each binary's time
(each round's time is already a median of its runs) and the ratio OTHER / BASE; a cell more than 3% faster is
marked '<', slower '>'.
With --sets it compares the argument sets of one binary instead (say auto against --groups 8): a row per cell
(operator, distribution, H, RF), a column per set with the median over the rounds and, in brackets, the fastest
and slowest round, and each set's ratio to set 1 ('-' where a set did not measure the cell).
Rows whose status is not "ok" (a result that differed from the CPU backend) are listed after the table.
"""
import collections
import csv
import glob
import re
import statistics
import sys


def read_rows(path, bad):
    """The auto rows of one CSV that matched the CPU backend; the others go to `bad`."""
    for row in csv.DictReader(open(path)):
        if row.get("variant") != "auto":
            continue
        if row.get("status", "ok") != "ok":
            bad.append(f"{path}: {row}")
            continue  # a mismatched cell has no time; it is listed at the end
        yield row


def set_index(path):
    named_set = re.search(r"-s(\d+)\.csv$", path)
    return int(named_set.group(1)) if named_set else 0


def compare_sets(folder, name):
    times = collections.defaultdict(list)  # (cell, set) -> one time per round
    bad = []
    files = sorted(glob.glob(f"{folder}/{name}-r*.csv"))
    if not files:
        print(f"no {folder}/{name}-r*.csv", file=sys.stderr)
        return 2
    for path in files:
        for row in read_rows(path, bad):
            cell = (row["op"], row.get("dist", ""), int(row["H"]), int(row["RF"]))
            times[(cell, set_index(path))].append(float(row["us"]))
    sets = sorted({s for _, s in times})
    cells = sorted({c for c, _ in times}, key=lambda c: (c[0], c[1], c[3], c[2]))
    print(f"{'op':7}{'dist':10}{'H':>9}{'RF':>4} " + " ".join(f"{'set ' + str(s):>22}" for s in sets) + "  ratios to set " +
          str(sets[0]))
    for cell in cells:
        columns, ratios = [], []
        first = times.get((cell, sets[0]))
        for s in sets:
            t = times.get((cell, s))
            if not t:
                columns.append(f"{'-':>22}")
                ratios.append("-")
                continue
            m = statistics.median(t)
            columns.append(f"{m:8.1f} [{min(t):5.0f},{max(t):5.0f}]")
            ratios.append(f"{m / statistics.median(first):.3f}" if first else "-")
        print(f"{cell[0]:7}{cell[1]:10}{cell[2]:>9}{cell[3]:>4} " + " ".join(columns) + "  " + " ".join(ratios[1:]))
    for line in bad:
        print("NOT OK:", line)
    return 1 if bad else 0


def main(argv):
    if argv[:1] == ["--sets"]:
        if len(argv) != 3:
            print(__doc__.strip(), file=sys.stderr)
            return 2
        return compare_sets(argv[1], argv[2])
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder, names = argv[0], argv[1:]
    times = {name: collections.defaultdict(list) for name in names}
    bad = []
    for name in names:
        files = sorted(glob.glob(f"{folder}/{name}-r*.csv"))
        if not files:
            print(f"no {folder}/{name}-r*.csv", file=sys.stderr)
            return 2
        for path in files:
            for row in read_rows(path, bad):
                cell = (row["op"], row.get("dist", ""), int(row["H"]), int(row["RF"]), set_index(path))
                times[name][cell].append(float(row["us"]))
    base = names[0]
    print(f"{'op':7}{'dist':10}{'H':>9}{'RF':>4}{'set':>4} " + " ".join(f"{n[-14:]:>14}" for n in names) + "  ratio")
    for cell in sorted(times[base], key=lambda c: (c[0], c[1], c[4], c[3], c[2])):
        medians = [statistics.median(times[n][cell]) if times[n][cell] else float("nan") for n in names]
        ratios = [m / medians[0] for m in medians[1:]]
        mark = " <" if any(r < 0.97 for r in ratios) else (" >" if any(r > 1.03 for r in ratios) else "")
        print(f"{cell[0]:7}{cell[1]:10}{cell[2]:>9}{cell[3]:>4}{cell[4]:>4} " + " ".join(f"{m:14.1f}" for m in medians) +
              "  " + " ".join(f"{r:.3f}" for r in ratios) + mark)
    for line in bad:
        print("NOT OK:", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
