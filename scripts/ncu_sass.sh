#!/usr/bin/env bash
# One kernel launch of a ghist_bench run under ncu's full set, with per-instruction SASS counts (this machine has no
# cuobjdump; ncu's source page prints SASS with each instruction's executions): where a loop spends its issue slots.
#   usage: scripts/ncu_sass.sh NAME KERNEL_REGEX BINARY ARGS...
#   e.g.   scripts/ncu_sass.sh cas-zipf-12288 shared_memory_kernel build-carry/bench/ghist_bench \
#            --ops cas --h 12288 --rf 1 --no-fixed --no-cub --reps 2 --dist zipf:1.1
# Writes $OUT/NAME.summary.txt (the details page: duration, issue slots, pipes, shared-memory atomics, stalls) and
# $OUT/NAME.sass.csv (the source page), of the third matching launch (the first two are the check and a warm-up).
set -u
name=${1:?usage: $0 NAME KERNEL_REGEX BINARY ARGS...}
kernel=${2:?kernel regex}
shift 2
out=${OUT:-ncu-sass}
mkdir -p "$out"
rep="$out/$name"
ncu --clock-control none --set full -k "regex:$kernel" --launch-skip 2 --launch-count 1 -f -o "$rep" "$@" \
  >"$out/$name.run.txt" 2>&1 || { echo "$name: ncu exit $?"; tail -5 "$out/$name.run.txt"; }
ncu -i "$rep.ncu-rep" --page details >"$out/$name.summary.txt" 2>&1
ncu -i "$rep.ncu-rep" --page source --print-source sass --csv >"$out/$name.sass.csv" 2>&1
rm -f "$rep.ncu-rep"
grep -E "Duration|Executed Instructions |Issue Slots Busy|Registers Per|Local Memory|Achieved Occupancy" \
  "$out/$name.summary.txt" | head -12
