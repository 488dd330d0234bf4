#!/usr/bin/env bash
# Builds the ghist command-line tool and runs it on the bundled example: a 20-bin histogram of
# examples/data/samples.txt, on the GPU when one is present and on the CPU backend otherwise (it says which).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GHIST_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target ghist_cli
"$build/tools/ghist" --bins 20 examples/data/samples.txt
