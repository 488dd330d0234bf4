#!/usr/bin/env python3
"""Writes the small example inputs of the ghist CLI into examples/data/ (deterministic; the outputs are committed).

  samples.txt   5000 numbers, one per line: a mixture of two normal distributions (3000 around -2, 2000 around 3)
  keys.i32      5000 raw little-endian int32 keys in 0..15, skewed towards small keys (product ids of sales)
  weights.f64   5000 raw little-endian float64 weights, one per key (sale amounts)
"""
import os
import random
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def main():
    rng = random.Random(2026)
    samples = [rng.gauss(-2.0, 0.8) for _ in range(3000)] + [rng.gauss(3.0, 1.5) for _ in range(2000)]
    rng.shuffle(samples)
    with open(os.path.join(HERE, "samples.txt"), "w") as f:
        f.write("# ghist example: a mixture of N(-2, 0.8) (3000 values) and N(3, 1.5) (2000 values)\n")
        f.writelines(f"{x:.4f}\n" for x in samples)

    n = 5000
    keys = rng.choices(range(16), weights=[1.0 / (k + 1) for k in range(16)], k=n)
    weights = [round(rng.lognormvariate(2.5, 0.6), 2) for _ in range(n)]
    with open(os.path.join(HERE, "keys.i32"), "wb") as f:
        f.write(struct.pack(f"<{n}i", *keys))
    with open(os.path.join(HERE, "weights.f64"), "wb") as f:
        f.write(struct.pack(f"<{n}d", *weights))


if __name__ == "__main__":
    main()
