#!/usr/bin/env python3
"""Reads the DIAG lines that group_histogram_kernel prints when built with GHIST_DIAG_BLOCK_TIMES
(bench/experiments/second_pass_diag_and_walks.patch) from each ghist_bench printout given, splits them into launches
(blocks that started within 20 us of the one before belong to one launch) and prints, for the last launch: per group
(largest shares first) its blocks, share of the records, records per block, block times and ns per record; the
spread of block times and of the SMs' end times; the latest blocks. Then per group over the last three launches its
records per run and ns per record, and the SMs whose last block ended latest with both of their blocks.

  usage: bench/experiments/second_pass_diag_parse.py ghist_bench_printout.txt [...]
"""
import collections
import statistics as st
import sys


def launches(path):
    rows = []
    for line in open(path):
        if line.startswith("DIAG"):
            rows.append({k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])})
    rows.sort(key=lambda r: r["t0"])
    if not rows:
        return []
    out, cur = [], [rows[0]]
    for r in rows[1:]:
        if r["t0"] - cur[-1]["t0"] > 20000:
            out.append(cur)
            cur = [r]
        else:
            cur.append(r)
    out.append(cur)
    return out


def by_group(launch):
    groups = collections.defaultdict(list)
    for r in launch:
        groups[r["g"]].append(r)
    return groups


def last_launch(path, L):
    last = L[-1]
    begin = min(r["t0"] for r in last)
    end = max(r["t0"] + r["dt"] for r in last)
    total = sum(r["records"] for r in last)
    print(f"== {path}: {len(L)} launches, the last {len(last)} blocks over {(end - begin) / 1000:.1f} us")
    print("   g  K  share%  records/block (min-max)   block us (min/med/max)  ns/record  slots copies")
    groups = by_group(last)
    for g in sorted(groups, key=lambda g: -sum(r["records"] for r in groups[g]))[:12]:
        B = groups[g]
        dts = [r["dt"] / 1000 for r in B]
        print(f"{g:4d} {len(B):2d} {100 * sum(r['records'] for r in B) / total:6.2f}  "
              f"{min(r['records'] for r in B):9d}-{max(r['records'] for r in B):9d}  "
              f"{min(dts):7.1f}/{st.median(dts):7.1f}/{max(dts):7.1f}  "
              f"{st.median(r['dt'] / max(1, r['records']) for r in B):8.3f}  {B[0]['slots']:3d} {B[0]['copies']:3d}")
    dts = sorted(r["dt"] / 1000 for r in last)
    print(f"   blocks us: min {dts[0]:.1f} median {st.median(dts):.1f} p90 {dts[int(0.9 * len(dts))]:.1f} "
          f"max {dts[-1]:.1f}")
    ends = collections.defaultdict(int)
    for r in last:
        ends[r["sm"]] = max(ends[r["sm"]], r["t0"] + r["dt"] - begin)
    e = sorted(v / 1000 for v in ends.values())
    print(f"   SM end us: min {e[0]:.1f} median {st.median(e):.1f} max {e[-1]:.1f} ({len(e)} SMs)")


def per_group_over_launches(L):
    seen = collections.defaultdict(list)
    for launch in L[-3:]:
        for g, B in by_group(launch).items():
            runs = sum(r["runs"] for r in B)
            seen[g].append((len(B), sum(r["records"] for r in B) / max(1, runs),
                            st.median(r["dt"] / max(1, r["records"]) for r in B)))
    print("   per group, last three launches: K, records per run walked, ns per record of each launch")
    for g in sorted(seen):
        v = seen[g]
        print(f"   g{g:3d} K={v[0][0]:3d} records/run {v[0][1]:6.0f} ns/record " + " ".join(f"{x[2]:.2f}" for x in v))


def slowest_sms(L):
    last = L[-1]
    begin = min(r["t0"] for r in last)
    sms = collections.defaultdict(list)
    for r in last:
        sms[r["sm"]].append(r)
    print("   the SMs whose last block ended latest, with their blocks (group k/K, us, runs, records):")
    for sm, B in sorted(sms.items(), key=lambda kv: -max(r["t0"] + r["dt"] for r in kv[1]))[:6]:
        print(f"   sm {sm:3d} " + " | ".join(f"g{r['g']} {r['k']}/{r['K']} {r['dt'] / 1000:.0f} us {r['runs']} runs "
                                       f"{r['records']} rec" for r in B))


for path in sys.argv[1:]:
    L = launches(path)
    if not L:
        print(path, ": no DIAG lines")
        continue
    last_launch(path, L)
    per_group_over_launches(L)
    slowest_sms(L)
