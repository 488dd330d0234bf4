#!/usr/bin/env python3
"""Issue 3's skew target from one run's CSVs: each skewed input's auto time against uniform input's at the same
operator, H and RF (the target: no slower than 1.5x).

usage: bench/skew_ratios.py UNIFORM.csv SKEWED.csv [SKEWED.csv ...]

Each file is the CSV of one `ghist_bench --csv` run (the uniform one may be the full grid: only the auto rows are
read). Prints, per skewed distribution and operator, a row per (H, RF) with both times and the ratio, marks ratios
above 1.5 with '!', and last the worst cell of each distribution and operator.
"""
import csv
import sys


def auto_times(path):
    times = {}
    for row in csv.DictReader(open(path)):
        if row.get("variant") != "auto" or row.get("status", "ok") != "ok":
            continue
        try:
            times[(row["dist"], row["op"], int(row["H"]), int(row["RF"]))] = float(row["us"])
        except ValueError:
            continue
    return times


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    uniform = {(op, H, RF): us for (dist, op, H, RF), us in auto_times(argv[0]).items() if dist == "uniform"}
    worst = {}
    for path in argv[1:]:
        rows = sorted(auto_times(path).items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3], kv[0][2]))
        current = None
        for (dist, op, H, RF), us in rows:
            if dist == "uniform" or (op, H, RF) not in uniform:
                continue
            if (dist, op) != current:
                current = (dist, op)
                print(f"\n== {op}, {dist} against uniform ==")
                print(f"{'H':>9} {'RF':>4} {'uniform_us':>11} {'skewed_us':>10} {'ratio':>7}")
            ratio = us / uniform[(op, H, RF)]
            print(f"{H:>9} {RF:>4} {uniform[(op, H, RF)]:>11.1f} {us:>10.1f} {ratio:>7.2f}{' !' if ratio > 1.5 else ''}")
            if ratio > worst.get((dist, op), (0.0,))[0]:
                worst[(dist, op)] = (ratio, H, RF, us, uniform[(op, H, RF)])
    print("\nWorst cells (skewed time / uniform time; the target is <= 1.5):")
    for (dist, op), (ratio, H, RF, us, base) in sorted(worst.items()):
        print(f"  {op:6} {dist:10} {ratio:6.2f} at H={H} RF={RF} ({us:.1f} against {base:.1f} us)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
