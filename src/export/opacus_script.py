#!/usr/bin/env python3
"""A DP-SGD Lab run, exported to Opacus (written by `dpsgd export-opacus` or the page's
"Export as Opacus script"; issue #41 section 4). Written for Opacus @OPACUS_VERSION@ and PyTorch:

    python3 -m venv venv && venv/bin/pip install opacus==@OPACUS_VERSION@ torch
    venv/bin/python @SCRIPT_NAME@@USAGE_ARGS@

The run: @RUN_IN_WORDS@
Data: @DATA_IN_WORDS@
Releases before training: @BEFORE_IN_WORDS@

Opacus accounts the training steps alone: each epoch prints one JSON line with `epsilon`
and `delta` (Opacus's @ACCOUNTANT@ accountant at delta = @DELTA@, the training steps only) and
`test_acc` (on a file of your own, marked `not_private`: your test rows, exactly).
Every number below is the lab run's own.
"""

import gzip
import json
import math
import os
import sys

import numpy as np
import torch
from opacus import GradSampleModule, PrivacyEngine
from opacus.optimizers import DPOptimizer, DPPerLayerOptimizer
from opacus.utils.uniform_sampler import UniformWithReplacementSampler
from torch import nn

DATA = @DATA_KIND@  # "csv": prepared features beside this script; "idx": image files
DATASET = @DATASET@
IDX_FILES = @IDX_FILES@  # train images, train labels, test images, test labels
PCA_BASIS = @PCA_BASIS@  # the run's DP-PCA basis (d x k, written beside this script), or None
CLASSES = @CLASSES@  # the class names, in the order of the class index (the CSVs' last column)
MODEL = @MODEL@  # "logistic" (softmax regression) or "mlp" (ReLU hidden layers)
HIDDEN = @HIDDEN@  # hidden layer widths of the MLP
N_TRAIN = @N_TRAIN@  # training examples N, as the lab counted them
LOT_SIZE = @LOT_SIZE@  # expected lot size L
SAMPLE_RATE = @SAMPLE_RATE@  # Poisson sampling rate q = L/N
STEPS_PER_EPOCH = @STEPS_PER_EPOCH@  # lots per epoch: N/L rounded, as the lab counts them
EPOCHS = @EPOCHS@
TOTAL_STEPS = @TOTAL_STEPS@  # the run's steps (fewer than EPOCHS x STEPS_PER_EPOCH when an epsilon budget stops it)
SIGMA = @SIGMA@  # the lab's noise multiplier: noise std SIGMA * C (per layer: SIGMA * C_l)
CLIPPING = @CLIPPING@  # "flat" (one bound) or "per_layer" (one per layer)
CLIP = @CLIP@  # flat clipping bound C
LAYER_CLIPS = @LAYER_CLIPS@  # per-layer bounds C_l, output layer last (per_layer only)
# Opacus's noise multiplier: its noise std is NOISE_MULTIPLIER * sqrt(sum of the bounds' squares),
# so flat clipping gives it SIGMA, and per-layer clipping with k equal bounds SIGMA / sqrt(k) --
# the lab's noise SIGMA * C_l on every layer, and the multiplier the lab accounts.
NOISE_MULTIPLIER = @NOISE_MULTIPLIER@
LR = @LR@  # learning rate; plain SGD (no momentum, no weight decay), Algorithm 1
LR_END = @LR_END@  # linear decay to LR_END over LR_DECAY_EPOCHS epochs, then constant
LR_DECAY_EPOCHS = @LR_DECAY_EPOCHS@
DELTA = @DELTA@
ACCOUNTANT = @ACCOUNTANT_NAME@  # Opacus's "rdp" or "prv"
# The Renyi orders the lab minimises over (src/privacy/accountant/rdp.rs), for Opacus's RDP
# accountant: its default orders stop at 63, and after few steps with a small q the best order
# lies above (the paper's Fashion-MNIST run: epsilon 4% higher after its first epoch). Opacus
# gives NaN for whole orders above about 1,000, which the minimum skips.
RDP_ORDERS = @RDP_ORDERS@
# Opacus's PRV epsilon is its estimate plus this error bound (its default, 0.01, is 8% of the
# paper's Fashion-MNIST epsilon after one epoch; this one keeps within 1% of the lab's PLD there).
PRV_EPS_ERROR = @PRV_EPS_ERROR@
SEED = @SEED@  # the lab run's seed, for this script's own draws (not the lab's draws)


def lr_at(epoch):
    """The lab's learning rate in epoch `epoch` (0-based): linear decay, then constant."""
    if LR_END is not None and LR_DECAY_EPOCHS > 0:
        t = min(epoch / LR_DECAY_EPOCHS, 1.0)
        return LR + (LR_END - LR) * t
    if LR_END is not None and epoch > 0:
        return LR_END
    return LR


def here(name):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), name)


def read_prepared(name):
    """A CSV the lab wrote: its prepared features, then the class index in the last column."""
    table = np.loadtxt(here(name), delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    return table[:, :-1].astype(np.float32), table[:, -1].astype(np.int64)


def read_idx(path):
    """An IDX file (gzipped or not): its array, as the lab decodes it (src/data/idx.rs)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def read_images(data_dir, images, labels):
    """Images as the lab prepares them: one row of pixels each, divided by 255."""
    x = read_idx(os.path.join(data_dir, images))
    y = read_idx(os.path.join(data_dir, labels))
    return x.reshape(x.shape[0], -1).astype(np.float32) / 255.0, y.astype(np.int64)


def load_data():
    if DATA == "csv":
        return read_prepared("train.csv"), read_prepared("test.csv")
    if DATA == "idx":
        data_dir = sys.argv[1] if len(sys.argv) > 1 else "."
        train = read_images(data_dir, IDX_FILES[0], IDX_FILES[1])
        test = read_images(data_dir, IDX_FILES[2], IDX_FILES[3])
        if PCA_BASIS is not None:
            basis = np.loadtxt(here(PCA_BASIS), delimiter=",", dtype=np.float32, ndmin=2)
            train, test = (train[0] @ basis, train[1]), (test[0] @ basis, test[1])
        return train, test
    sys.exit("unknown DATA " + repr(DATA))


class Affine(nn.Module):
    """A dense layer as one parameter tensor, the bias its last input column: Opacus's
    per-layer clipping bounds each parameter tensor, the lab each layer's weights and bias
    together."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = nn.Linear(n_in + 1, n_out, bias=False)

    def forward(self, x):
        return self.linear(torch.cat([x, torch.ones(x.shape[0], 1, dtype=x.dtype)], dim=1))


def build_model(d, k):
    """The lab's model (src/model/mlp.rs): softmax regression starting at zero, or ReLU layers
    with He initialisation, a Glorot-initialised output layer and zero biases."""
    widths = [d] + (HIDDEN if MODEL == "mlp" else []) + [k]
    layers = []
    for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
        last = i == len(widths) - 2
        if CLIPPING == "per_layer":
            layer = Affine(n_in, n_out)
            weight = layer.linear.weight
        else:
            layer = nn.Linear(n_in, n_out)
            weight = layer.weight
            nn.init.zeros_(layer.bias)
        with torch.no_grad():
            weight.zero_()
            if MODEL == "mlp":
                std = math.sqrt(2.0 / (n_in + n_out) if last else 2.0 / n_in)
                weight[:, :n_in].normal_(0.0, std)
        layers.append(layer)
        if not last:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        right = (model(x).argmax(dim=1) == y).sum().item()
    model.train()
    return right / max(1, len(y))


def main():
    if SEED is not None:
        torch.manual_seed(SEED)
    (x_train, y_train), (x_test, y_test) = load_data()
    if len(y_train) != N_TRAIN:
        sys.exit(f"the training set has {len(y_train)} examples, the lab's run {N_TRAIN}")
    x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train)
    x_test, y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)
    classes = int(max(y_train.max().item(), y_test.max().item())) + 1
    engine = PrivacyEngine(accountant=ACCOUNTANT)
    model = GradSampleModule(build_model(x_train.shape[1], classes), loss_reduction="mean")
    sgd = torch.optim.SGD(model.parameters(), lr=lr_at(0), momentum=0.0, weight_decay=0.0)
    # What engine.make_private would assemble, put together here so that the mechanism is the
    # lab's exactly: make_private takes q = 1/len(data_loader) and len(data_loader) steps an
    # epoch, which differ from q = L/N and round(N/L) unless L divides N.
    if CLIPPING == "per_layer":
        optimizer = DPPerLayerOptimizer(sgd, noise_multiplier=NOISE_MULTIPLIER,
                                        max_grad_norm=LAYER_CLIPS, expected_batch_size=LOT_SIZE)
    else:
        optimizer = DPOptimizer(sgd, noise_multiplier=NOISE_MULTIPLIER,
                                max_grad_norm=CLIP, expected_batch_size=LOT_SIZE)
    optimizer.attach_step_hook(engine.accountant.get_optimizer_hook_fn(sample_rate=SAMPLE_RATE))
    lots = UniformWithReplacementSampler(num_samples=N_TRAIN, sample_rate=SAMPLE_RATE,
                                         steps=STEPS_PER_EPOCH)
    criterion = nn.CrossEntropyLoss()
    steps = 0
    for epoch in range(EPOCHS):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(epoch)
        for lot in lots:
            if steps == TOTAL_STEPS:
                break
            optimizer.zero_grad()
            criterion(model(x_train[lot]), y_train[lot]).backward()
            optimizer.step()
            steps += 1
        if ACCOUNTANT == "rdp":
            epsilon = engine.accountant.get_epsilon(delta=DELTA, alphas=RDP_ORDERS)
        else:
            epsilon = engine.accountant.get_epsilon(delta=DELTA, eps_error=PRV_EPS_ERROR)
        # epsilon at its delta, for the training steps alone (the releases before training,
        # above, spend more); on a file of one's own the test rows are private too, and their
        # exact accuracy is covered by no epsilon.
        line = {"epoch": epoch + 1, "steps": steps, "epsilon": epsilon, "delta": DELTA,
                "epsilon_covers": "the training steps only",
                "test_acc": accuracy(model, x_test, y_test)}
        if DATASET == "own":
            line["not_private"] = ["test_acc"]
        print(json.dumps(line), flush=True)
        if steps == TOTAL_STEPS:
            break


if __name__ == "__main__":
    main()
