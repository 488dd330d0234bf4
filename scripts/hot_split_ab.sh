#!/usr/bin/env bash
# The heavy-hitter split's A/B on the GPU machine (bench/NOTES.md, forty-first session): one ghist_bench binary over
# skewed inputs without and with the split (--hot-split off / on), over uniform input with the race factor unknown
# (off / planner), then ncu kernel times of the split at two sizes; CSVs and printouts packed into $OUT/all.tgz.
#   usage: scripts/hot_split_ab.sh BINARY
#   e.g.   scripts/hot_split_ab.sh build-carry/bench/ghist_bench
set -u
bin=${1:?usage: $0 BINARY}
out=${OUT:-hot-split-ab}
mkdir -p "$out"
for dist in zipf:1.1 one_bin; do
  name=${dist%%:*}
  for m in off on; do
    "$bin" --no-fixed --no-cub --ops xcg --dist "$dist" --hot-split "$m" --csv "$out/$name-$m.csv" >"$out/$name-$m.txt" 2>&1 ||
      echo "$name $m: exit $?"
  done
done
for m in off planner; do
  extra=(); [ "$m" = off ] && extra=(--hot-split off)
  "$bin" --no-fixed --no-cub --rf-unknown --ops xcg "${extra[@]}" --csv "$out/unknown-$m.csv" \
    >"$out/unknown-$m.txt" 2>&1 || echo "unknown $m: exit $?"
done
ncu --clock-control none --metrics gpu__time_duration.sum --print-summary per-kernel "$bin" --ops xcg \
  --h 12288,786432 --rf 1 --no-fixed --no-cub --reps 3 --dist zipf:1.1 --hot-split on >"$out/ncu.txt" 2>&1
(cd "$out" && tar czf all.tgz ./*.csv ./*.txt && rm -f ./*.csv)
grep -E "hot_|gpu__time" "$out/ncu.txt" | sed -E 's/\(ghist::detail::element_source.*//' | cut -c1-140
