#!/usr/bin/env bash
# Builds ghist and runs every test: host tests always, GPU tests when a CUDA device is present (skipped otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
