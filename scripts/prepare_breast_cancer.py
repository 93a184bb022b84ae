#!/usr/bin/env python3
"""Prepare the Breast Cancer Wisconsin (Diagnostic) data for the lab: www/data/breast_cancer.csv.

Source: sklearn/datasets/data/breast_cancer.csv inside the scikit-learn wheel (BSD-3-Clause;
the data: Wolberg, Street & Mangasarian, UCI Machine Learning Repository, CC BY 4.0), downloaded
with pip so the script is reproducible from a package registry alone:

    python3 scripts/prepare_breast_cancer.py

The output is a plain CSV with a header: the 30 features by name and the label column
`diagnosis` (malignant or benign), 569 rows. The lab reads it with the same CSV loader as a
student's own file, splits it 80/20 with a fixed seed and standardises the features.
"""
import csv
import glob
import io
import os
import subprocess
import sys
import tempfile
import zipfile

WHEEL = "scikit-learn==1.9.1"
BASE = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
        "concave points", "symmetry", "fractal dimension"]
NAMES = [f"mean {b}" for b in BASE] + [f"{b} error" for b in BASE] + [f"worst {b}" for b in BASE]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "www", "data", "breast_cancer.csv")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "--only-binary=:all:", "--python-version", "3.11", "-d", tmp, WHEEL], check=True)
        wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            text = z.read("sklearn/datasets/data/breast_cancer.csv").decode()
    rows = list(csv.reader(io.StringIO(text)))
    n, d, *targets = rows[0]  # "569,30,malignant,benign"
    assert int(n) == 569 and int(d) == 30, rows[0]
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(NAMES + ["diagnosis"])
        for r in rows[1:]:
            w.writerow(r[:30] + [targets[int(r[30])]])
    print(f"wrote {out}: {len(rows) - 1} rows, {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()
