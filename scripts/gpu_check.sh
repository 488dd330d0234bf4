#!/usr/bin/env bash
# The full GPU check, in one command on a machine with a CUDA GPU:
#   1. build for sm_90 (skipped with --no-build when a carried build folder is used),
#   2. all host and GPU tests,
#   3. compute-sanitizer memcheck and racecheck on a short subset (Sanitizer.*, the error tests; the lock class's
#      shared-memory locks, SanitizerLocks.*, under memcheck and synccheck only: racecheck does not model locks;
#      the huge histograms', the byte kernels' and the CUB drop-in's own subsets),
#   4. which atomic instructions sm_90 got for each operator class (SASS of the test binary),
#   5. the benchmark summary (when the benchmark was built),
# and prints a summary last. Logs go to $OUT (or ./gpu-check-logs). Exit status: non-zero if any step failed.
# Options: --no-build (use the build in $GHIST_BUILD_DIR), --part tests|bench (only steps 2-4 or only step 5, for
# machines that limit the time of one command; the default runs both), --no-host (skip the host tests: for a
# build folder that holds only the carried GPU executables, whose host tests ran where they were built).
set -u
cd "$(dirname "$0")/.."
build=${GHIST_BUILD_DIR:-build-gpu}
logs=${OUT:-gpu-check-logs}
mkdir -p "$logs"
declare -a summary
record() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }
failed=0

build_first=1
host_tests=1
part=all
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build_first=0 ;;
    --no-host) host_tests=0 ;;
    --part) part=$2; shift ;;
    *) echo "usage: $0 [--no-build] [--no-host] [--part tests|bench]" >&2; exit 2 ;;
  esac
  shift
done
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }

if [ $build_first = 1 ]; then
  if cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DGHIST_BUILD_BENCH=ON >"$logs/build.log" 2>&1 &&
     cmake --build "$build" >>"$logs/build.log" 2>&1; then record build ok; else record build FAILED; failed=1; fi
fi

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader \
  >"$logs/gpu.txt" 2>&1 || true
gpu=$(head -n1 "$logs/gpu.txt")

run_step() {  # name, log file, command...
  local name=$1 log=$2; shift 2
  local start=$SECONDS
  if "$@" >"$logs/$log" 2>&1; then record "$name" "ok ($((SECONDS - start)) s)"
  else record "$name" "FAILED (exit $?, $((SECONDS - start)) s; see $log)"; failed=1; fi
}

tests="$build/tests"
if want tests; then
[ $host_tests = 1 ] && run_step "host tests" host_tests.log ctest --test-dir "$build" -L host -j "$(nproc)" --output-on-failure
# GHIST_GPU_TEST_SHARDS=N: the main GPU tests as N gtest shards at once on the one GPU (their CPU reference runs then
# use N cores), for a device lease short of time: 262 s in one process on a lent H200.
shards=${GHIST_GPU_TEST_SHARDS:-1}
run_shards() {  # the main GPU tests in $shards shards at once; fails if any shard fails
  local pids=() rc=0 i
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$tests/ghist_gpu_tests" --gtest_brief=1 \
      >"$logs/gpu_tests_shard$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { echo "shard $i failed"; rc=1; }; done
  cat "$logs"/gpu_tests_shard*.log && rm -f "$logs"/gpu_tests_shard*.log
  return $rc
}
if [ "$shards" -gt 1 ]; then run_step "gpu tests ($shards shards)" gpu_tests.log run_shards
else run_step "gpu tests" gpu_tests.log "$tests/ghist_gpu_tests" --gtest_brief=1; fi
# The feature areas' GPU test executables (tests/<area>/ghist_gpu_<area>_tests).
for exe in "$tests"/*/ghist_gpu_*_tests; do
  [ -x "$exe" ] || continue
  area=$(basename "$exe"); area=${area#ghist_gpu_}; area=${area%_tests}
  run_step "gpu tests ($area)" "gpu_tests_$area.log" "$exe" --gtest_brief=1
done
# Issue 4's drop-in example, built twice (cub::DeviceHistogram, ghist::cub_compat): both builds must print the same.
[ -x "$tests/cub_compat/cub_drop_in_cub" ] && [ -x "$tests/cub_compat/cub_drop_in_ghist" ] &&
  run_step "cub drop-in example" cub_drop_in.log sh examples/cub_drop_in/compare.sh \
    "$tests/cub_compat/cub_drop_in_cub" "$tests/cub_compat/cub_drop_in_ghist"
subset='Sanitizer.*:SanitizerLocks.*:errors_fixture.*:GpuConvenience.*'
run_step "sanitizer memcheck" memcheck.log compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$tests/ghist_gpu_tests" --gtest_filter="$subset" --gtest_brief=1
# The partitioned strategy's 16-bit records and head sectors (its kernels with tiles, partial tiles and empty groups).
[ -x "$tests/huge/ghist_gpu_huge_tests" ] &&
  run_step "sanitizer memcheck (huge)" memcheck_huge.log compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$tests/huge/ghist_gpu_huge_tests" --gtest_filter='HugeSanitizer.*' --gtest_brief=1
[ -x "$tests/huge/ghist_gpu_huge_tests" ] &&
  run_step "sanitizer racecheck (huge)" racecheck_huge.log compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$tests/huge/ghist_gpu_huge_tests" --gtest_filter='HugeSanitizer.*' --gtest_brief=1
# The byte kernels (pair counters with their atomics and flushes, tails split over the blocks, blocks adding into
# the bins): small inputs of every distribution and misaligned starts.
if [ -x "$tests/bytes/ghist_gpu_bytes_tests" ]; then
  bytes_subset='ByteTunings.PairCountersFlushEveryTile:ByteTunings.PairCountersQuarterAtomicsFlushEveryTile:ByteHistogramGpu.ZeroSamples'
  run_step "sanitizer memcheck (bytes)" memcheck_bytes.log compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$tests/bytes/ghist_gpu_bytes_tests" --gtest_filter="$bytes_subset" --gtest_brief=1
  run_step "sanitizer racecheck (bytes)" racecheck_bytes.log compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$tests/bytes/ghist_gpu_bytes_tests" --gtest_filter="$bytes_subset" --gtest_brief=1
fi
# The CUB drop-in's own kernels: the small-even path and the interleaved channels (rows with and without gaps).
if [ -x "$tests/cub_compat/ghist_gpu_cub_compat_tests" ]; then
  compat_subset='CubCompatGpuEvenSmall.*:CubCompatBytes.InterleavedChannels:CubCompatBytes.PitchedRows'
  run_step "sanitizer memcheck (cub_compat)" memcheck_cub_compat.log compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$tests/cub_compat/ghist_gpu_cub_compat_tests" --gtest_filter="$compat_subset" --gtest_brief=1
  run_step "sanitizer racecheck (cub_compat)" racecheck_cub_compat.log compute-sanitizer --tool racecheck \
    --error-exitcode 9 "$tests/cub_compat/ghist_gpu_cub_compat_tests" --gtest_filter="$compat_subset" --gtest_brief=1
fi
run_step "sanitizer racecheck" racecheck.log compute-sanitizer --tool racecheck --error-exitcode 9 \
  "$tests/ghist_gpu_tests" --gtest_filter='Sanitizer.*' --gtest_brief=1
run_step "sanitizer synccheck" synccheck.log compute-sanitizer --tool synccheck --error-exitcode 9 \
  "$tests/ghist_gpu_tests" --gtest_filter='Sanitizer.*:SanitizerLocks.*' --gtest_brief=1

# Which instruction each hardware atomic became on this architecture: per probe kernel, the atomic opcodes in its
# SASS (ATOMS = shared, ATOMG/RED = global; *.CAS or *.CAST.SPIN = a compare-and-swap loop, not a native operation).
if command -v cuobjdump >/dev/null && [ -x "$tests/ghist_atomic_sass_probe" ]; then
  cuobjdump -sass "$tests/ghist_atomic_sass_probe" 2>/dev/null | awk '
    /Function :/ { if (name != "") print name ": " (ops == "" ? "-" : ops); name = $3; ops = ""; delete seen }
    match($0, /(ATOMS|ATOMG|ATOM|RED|REDG)\.[A-Z0-9.]+/) { op = substr($0, RSTART, RLENGTH); if (!(op in seen)) { seen[op] = 1; ops = ops " " op } }
    END { if (name != "") print name ": " (ops == "" ? "-" : ops) }' |
    sed -E 's/_ZN5probe[0-9]+//; s/EP[a-z]+[a-z]*$//' | sort >"$logs/atomics_sass.txt"
  record "atomic SASS probe" "$(wc -l <"$logs/atomics_sass.txt") kernels, see atomics_sass.txt"
fi
fi  # tests

if want bench; then
if [ -x "$build/bench/ghist_bench" ]; then
  run_step "benchmark" bench.log "$build/bench/ghist_bench" --quick --csv "$logs/bench.csv"
fi
# The feature areas' benchmarks (bench/<area>/ghist_<area>_bench --quick), each with its own log.
for exe in "$build"/bench/*/ghist_*_bench; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe" .bench); name=${name#ghist_}; name=${name%_bench}
  run_step "benchmark ($name)" "bench_$name.log" "$exe" --quick
done
fi  # bench

echo
echo "==== ghist GPU check: $gpu, commit ${GHIST_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}, $(date -u +%F) ===="
[ -f "$logs/gpu_tests.log" ] && grep -E "tests from .* ran|PASSED|FAILED" "$logs/gpu_tests.log" | tail -n 24
grep -H "ERROR SUMMARY\|RACECHECK SUMMARY" "$logs"/memcheck*.log "$logs"/racecheck*.log "$logs"/synccheck.log 2>/dev/null
[ -f "$logs/atomics_sass.txt" ] && { echo "atomic instructions per probe kernel (sm_90 SASS):"; cat "$logs/atomics_sass.txt"; }
[ -f "$logs/bench.log" ] && tail -n 62 "$logs/bench.log"
for f in "$logs"/bench_*.log; do [ -f "$f" ] && { echo "---- $(basename "$f")"; tail -n 40 "$f"; }; done
echo
printf '%s\n' "${summary[@]}"
echo "overall: $([ $failed = 0 ] && echo PASS || echo FAIL)"
exit $failed
