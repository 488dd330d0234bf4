#!/usr/bin/env bash
# Builds a variant of ghist_bench with extra compile definitions, for same-run A/Bs (scripts/ab_bench.sh) without a
# build folder per variant: only the benchmark's translation unit is compiled again (~7 min here), with the same
# command ninja uses in the build folder plus the definitions, and linked with that folder's libghist.a. Run two at
# once on two cores. The experiments' switches are macros (e.g. bench/experiments/*.patch, applied first).
#   usage: scripts/bench_variant.sh OUTPUT "DEFINITIONS"     (build folder: $GHIST_BUILD_DIR, default build-gpu)
#   e.g.   scripts/bench_variant.sh build-carry/ab/ghist_bench_r3 "-DGHIST_WALK_ROUNDS=3 -DGHIST_COMPACT_LOADS=4"
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "$1")
defs=$2
build=${GHIST_BUILD_DIR:-build-gpu}
[ -f "$build/libghist.a" ] || { echo "build $build's libghist.a first (cmake --build $build --target ghist_bench)" >&2; exit 2; }
obj=$(mktemp --suffix=.o)
trap 'rm -f "$obj"' EXIT
commands=$(ninja -C "$build" -t commands ghist_bench)
compile=$(grep -m1 -- "-c .*bench/ghist_bench.cu" <<<"$commands")
link=$(grep -m1 -- "-o bench/ghist_bench " <<<"$commands")
[ -n "$compile" ] && [ -n "$link" ] || { echo "no compile or link command for ghist_bench in $build" >&2; exit 2; }
# The definitions go before the source; the object and the executable to their own paths.
compile=${compile/ -x cu -c / $defs -x cu -c }
compile=${compile/ -o bench\/CMakeFiles\/ghist_bench.dir\/ghist_bench.cu.o/ -o $obj}
compile=$(sed -E 's/ -MD -MT [^ ]+ -MF [^ ]+//' <<<"$compile")
link=${link/bench\/CMakeFiles\/ghist_bench.dir\/ghist_bench.cu.o/$obj}
link=${link/ -o bench\/ghist_bench / -o $out }
mkdir -p "$(dirname "$out")"
(cd "$build" && eval "$compile" && eval "$link")
echo "built $out with: $defs"
