#!/usr/bin/env python3
"""Host model of the partitioned strategy's groups on the benchmark's skewed inputs (no GPU).

For a Zipf(S) input as bench/inputs.hpp makes it (ranks 1/(r + 1)^S, mapped to bins by its multiplicative permutation,
bins RF apart), prints each group's expected share of the input, how much of a group its hottest bin holds, and the
second pass's blocks as assign_group_blocks_kernel gives them (the floors' rule, or the apportionment where the
floors' busiest block is above apportion_slack times the mean load), with the busiest block's load against uniform
input's. Expected shares, not a sample: it says what the plan's blocks are given, not how fast they run.

  usage: bench/skew_group_model.py H RF GROUP_BINS BUDGET [S]
  e.g.   bench/skew_group_model.py 1572864 1 28598 132        (the packed argmax's plan at RF 1, H = 1572864)

GROUP_BINS is the plan's H_chk and BUDGET its grid (ghist_bench's plan column).
"""
import math
import sys

APPORTION_SLACK = 1.04  # kernel_partition.cuh
APPORTION_CANDIDATES = 256


def rank_permutation_multiplier(active):
    if active <= 2:
        return 1
    a = max(1, int(0.6180339887498949 * active))
    while math.gcd(a, active) != 1:
        a += 1
    return a


def zipf_groups(H, RF, group_bins, s):
    active = max(1, H // RF)
    weights = [1.0 / (r + 1) ** s for r in range(active)]
    norm = sum(weights)
    a = rank_permutation_multiplier(active)
    groups = -(-H // group_bins)
    share = [0.0] * groups
    top = [0.0] * groups
    for r, w in enumerate(weights):
        g = (r * a % active) * RF // group_bins
        p = w / norm
        share[g] += p
        top[g] = max(top[g], p)
    return share, top


def blocks_for(totals, budget):
    """assign_group_blocks_kernel's blocks per group (groups with inputs; floats as the kernel's)."""
    total = sum(totals)
    lightest = total / budget
    floors = [max(1, math.floor(t * budget / total)) if t > 0 else 0 for t in totals]
    floors_busiest = max(t / k for t, k in zip(totals, floors) if k > 0)
    if floors_busiest <= APPORTION_SLACK * lightest:
        return floors
    most = max(max(totals), lightest) * 1.0001
    chosen = most
    for k in range(APPORTION_CANDIDATES):
        per_block = most if k == APPORTION_CANDIDATES - 1 else \
            lightest * 2 ** (math.log2(most / lightest) * k / (APPORTION_CANDIDATES - 1))
        if sum(max(1, math.ceil(t / per_block)) for t in totals if t > 0) <= budget:
            chosen = per_block
            break
    return [max(1, math.ceil(t / (chosen * APPORTION_SLACK))) if t > 0 else 0 for t in totals]


def busiest(totals, blocks, budget):
    """The busiest block's load in units of total / budget (1.0: every block of the budget equally loaded)."""
    return max(t / k for t, k in zip(totals, blocks) if k > 0) * budget / sum(totals)


def main(argv):
    if len(argv) not in (5, 6):
        print(__doc__)
        return 2
    H, RF, group_bins, budget = (int(x) for x in argv[1:5])
    s = float(argv[5]) if len(argv) == 6 else 1.1
    share, top = zipf_groups(H, RF, group_bins, s)
    blocks = blocks_for(share, budget)
    ushare, _ = zipf_groups(H, RF, group_bins, 0.0)  # exponent 0: every active bin alike, uniform input
    ublocks = blocks_for(ushare, budget)
    print(f"H = {H}, RF = {RF}, {len(share)} groups of {group_bins} bins, budget {budget}, Zipf({s})")
    print(f"  Zipf:    {sum(blocks)} blocks, busiest block {busiest(share, blocks, budget):.2f}x total / budget")
    print(f"  uniform: {sum(ublocks)} blocks, busiest block {busiest(ushare, ublocks, budget):.2f}x total / budget")
    print("  group   share  blocks  hottest bin's part of the group")
    order = sorted(range(len(share)), key=lambda g: -share[g])
    for g in order[:8] + order[-2:]:
        print(f"  {g:5d}  {share[g]:6.3f}  {blocks[g]:6d}  {top[g] / share[g] if share[g] else 0:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
