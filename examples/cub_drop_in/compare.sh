#!/bin/sh
# Runs the two builds of cub_drop_in ($1: cub::DeviceHistogram, $2: ghist::cub_compat) and fails unless they print
# the same histogram. Exits 77 (CTest: skipped) when there is no CUDA device.
a=$("$1"); ra=$?
[ "$ra" -eq 77 ] && { echo "no CUDA device: skipped"; exit 77; }
b=$("$2"); rb=$?
printf 'cub:\n%s\nghist:\n%s\n' "$a" "$b"
[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] || { echo "exit codes: cub $ra, ghist $rb"; exit 1; }
[ "$a" = "$b" ] || { echo "the two builds print different histograms"; exit 1; }
