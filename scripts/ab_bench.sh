#!/usr/bin/env bash
# Same-run A/B of ghist_bench builds on the GPU machine: every binary runs every argument set, interleaved, for
# ROUNDS rounds (default 2), so that clock and thermal drift falls on all of them alike. Each run's CSV and printout
# go to $OUT (default ./ab-out), named BINARY-rROUND-sSET.{csv,txt}; at the end they are packed into runs.tgz (the
# device tool brings back only a few files). Compare them with bench/compare_runs.py.
#   usage: SETS="args of set 1;args of set 2" scripts/ab_bench.sh DIR BINARY [BINARY ...]
#   e.g.   SETS="--ops xcg --rf 63 --h 6144,12288 --no-fixed --no-cub --reps 15" \
#            scripts/ab_bench.sh build-carry/bench ghist_bench_base ghist_bench_new
set -u
dir=$1; shift
out=${OUT:-ab-out}
mkdir -p "$out"
IFS=';' read -ra sets <<< "${SETS:?SETS must hold ;-separated argument lists}"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for binary in "$@"; do
    i=0
    for args in "${sets[@]}"; do
      i=$((i + 1))
      # shellcheck disable=SC2086  # each set is a list of arguments
      "$dir/$binary" $args --csv "$out/$binary-r$round-s$i.csv" > "$out/$binary-r$round-s$i.txt" 2>&1 ||
        echo "$binary $args: exit $?"
    done
  done
done
grep -h "read floor" "$out"/*.txt | head -n 3
(cd "$out" && tar czf runs.tgz ./*.csv ./*.txt && rm -f ./*.csv ./*.txt)
