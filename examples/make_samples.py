#!/usr/bin/env python3
"""Writes the small example inputs of the ghist CLI into examples/data/ (deterministic; the outputs are committed).

  samples.txt   5000 numbers, one per line: a mixture of two normal distributions (3000 around -2, 2000 around 3)
  keys.i32      5000 raw little-endian int32 keys in 0..15, skewed towards small keys (product ids of sales)
  weights.f64   5000 raw little-endian float64 weights, one per key (sale amounts)
  people.csv    200 rows "name,height_cm,weight_kg" with a header (CSV columns, 2-D histograms)
  gradient.ppm  a 32x24 binary PPM (P6, 8-bit RGB): a colour gradient (per-channel image histograms)
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

    with open(os.path.join(HERE, "people.csv"), "w") as f:
        f.write("name,height_cm,weight_kg\n")
        for i in range(200):
            h = rng.gauss(172.0, 9.0)
            w = 22.0 * (h / 100.0) ** 2 + rng.gauss(0.0, 7.0)
            name = f"\"Person {i}, jr.\"" if i % 50 == 7 else f"person{i}"
            f.write(f"{name},{h:.1f},{w:.1f}\n")

    width, height = 32, 24
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            pixels += bytes((x * 255 // (width - 1), y * 255 // (height - 1), (x + y) * 4 % 256))
    with open(os.path.join(HERE, "gradient.ppm"), "wb") as f:
        f.write(b"P6\n# ghist example: a colour gradient\n%d %d\n255\n" % (width, height) + bytes(pixels))


if __name__ == "__main__":
    main()
