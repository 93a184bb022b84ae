#!/usr/bin/env python3
"""Reproduces docs/engine.md's accuracy tables: runs `dpsgd train` for each row (seed 1,
δ = 1e-5) and prints the Markdown rows with the last epoch's test accuracy and ε (rounded up,
as the lab shows ε).

    cargo build --release && python3 scripts/accuracy_table.py
"""
import json
import math
import subprocess
import sys

DPSGD = "target/release/dpsgd"
ADULT = [
    ("logistic", "non-private, L = 256, η = 2, 10 epochs",
     "--model logistic --mode non-private --lot-size 256 --lr 2 --epochs 10"),
    ("logistic", "σ = 1, C = 1, L = 256, η = 2, 20 epochs (the page's default)",
     "--model logistic --sigma 1 --clip 1 --lot-size 256 --lr 2 --epochs 20"),
    ("logistic", "σ = 4, C = 4, L = 600, η = 0.1, 10 epochs",
     "--model logistic --sigma 4 --clip 4 --lot-size 600 --lr 0.1 --epochs 10"),
    ("MLP 1000", "non-private, L = 256, η = 1, 10 epochs",
     "--model mlp --hidden 1000 --mode non-private --lot-size 256 --lr 1 --epochs 10"),
    ("MLP 1000", "σ = 1, C = 1, L = 256, η = 1, 20 epochs",
     "--model mlp --hidden 1000 --sigma 1 --clip 1 --lot-size 256 --lr 1 --epochs 20"),
    ("MLP 1000", "σ = 4, C = 4, L = 600, η 0.1 → 0.052, 10 epochs",
     "--model mlp --hidden 1000 --sigma 4 --clip 4 --lot-size 600 --lr 0.1 --lr-end 0.052 --lr-decay-epochs 10 --epochs 10"),
    ("MLP 1000", "per-layer clipping, σ = 1, C = 1, L = 256, η = 1, 20 epochs",
     "--model mlp --hidden 1000 --clipping per-layer --sigma 1 --clip 1 --lot-size 256 --lr 1 --epochs 20"),
    ("logistic", "adaptive C (γ = 0.9), σ = 1, L = 256, η = 2, 20 epochs",
     "--model logistic --sigma 1 --clip 1 --clip-quantile 0.9 --lot-size 256 --lr 2 --epochs 20"),
    ("logistic", "adaptive C (γ = 0.5, the median), σ = 1, L = 256, η = 2, 20 epochs",
     "--model logistic --sigma 1 --clip 1 --clip-quantile 0.5 --lot-size 256 --lr 2 --epochs 20"),
]
OTHER = [
    ("MNIST-10k", "logistic", "non-private, L = 32, η = 0.5, 10 epochs",
     "--dataset mnist --model logistic --mode non-private --lot-size 32 --lr 0.5 --epochs 10"),
    ("MNIST-10k", "PCA-60 → 1000 → 10", "non-private, L = 32, η = 0.5, 10 epochs",
     "--dataset mnist --model mlp --hidden 1000 --pca 60 --mode non-private --lot-size 32 --lr 0.5 --epochs 10"),
    ("MNIST-10k", "PCA-60 → 1000 → 10", "σ = 4, C = 4, L = 600, η 0.1 → 0.052, σ_p = 7, 20 epochs",
     "--dataset mnist --model mlp --hidden 1000 --pca 60 --pca-sigma 7 --sigma 4 --clip 4 --lot-size 600 --lr 0.1 --lr-end 0.052 --lr-decay-epochs 10 --epochs 20"),
    ("MNIST-10k", "PCA-60 → 1000 → 10", "σ = 2, C = 2, L = 200, η = 0.1, σ_p = 2, 20 epochs",
     "--dataset mnist --model mlp --hidden 1000 --pca 60 --pca-sigma 2 --sigma 2 --clip 2 --lot-size 200 --lr 0.1 --epochs 20"),
    ("breast cancer", "logistic", "non-private, L = 32, η = 0.5, 10 epochs",
     "--dataset breast-cancer --model logistic --mode non-private --lot-size 32 --lr 0.5 --epochs 10"),
    ("breast cancer", "logistic", "σ = 4, C = 1, L = 32, η = 0.5, 10 epochs",
     "--dataset breast-cancer --model logistic --sigma 4 --clip 1 --lot-size 32 --lr 0.5 --epochs 10"),
]


def last_epoch(args):
    cmd = [DPSGD, "train", *args.split(), "--seed", "1", "--delta", "1e-5"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def eps(r, name):
    v = r["epsilon"].get(name)
    return "∞" if v is None or v == "inf" else f"{math.ceil(v * 100) / 100:.2f}"


def row(cells, args):
    r = last_epoch(args)
    acc = f"{100 * r['test_acc']:.2f}%"
    print("| " + " | ".join([*cells, acc, eps(r, "moments"), eps(r, "rdp"), eps(r, "pld")]) + " |", flush=True)


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("all", "adult"):
        print("| model | settings | test accuracy | ε (moments) | ε (RDP) | ε (PLD) |\n|---|---|---|---|---|---|")
        for model, settings, args in ADULT:
            row([model, settings], args)
    if which in ("all", "other"):
        print("\n| data set | model | settings | test accuracy | ε (moments) | ε (RDP) | ε (PLD) |\n|---|---|---|---|---|---|---|")
        for data, model, settings, args in OTHER:
            row([data, model, settings], args)
