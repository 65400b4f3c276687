r"""Built-in data and model for ``symdp certify``: scikit-learn's bundled digits and a small MLP.

Nothing is downloaded: ``sklearn.datasets.load_digits`` ships with scikit-learn.
Canaries for the membership-inference audit are *mislabeled* held-out images
(the label is replaced by a different class chosen at random), which a model
can only fit by memorising them; each canary is included in the training set
independently with probability 1/2, so the attack's ground truth is known.

>>> from symdp.certify.data import load_digits_split
>>> d = load_digits_split(seed=0)
>>> d.x_train.shape[1], d.num_classes
(64, 10)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_int, check_probability, check_real


@dataclass(frozen=True)
class Split:
    """Train / test arrays (float32 features scaled to [0, 1], int64 labels)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    num_classes: int
    name: str = "sklearn digits"


@dataclass(frozen=True)
class Canaries:
    """Audit canaries: ``x``/``y`` (mislabeled), ``member[i]`` True when canary i is in the training set."""

    x: np.ndarray
    y: np.ndarray
    member: np.ndarray


def load_digits_split(*, test_fraction: float = 0.25, seed: int = 0) -> Split:
    """The 8x8 digits (1797 images, 10 classes), shuffled with ``seed`` and split train/test."""
    from sklearn.datasets import load_digits

    check_probability("test_fraction", test_fraction)
    ds = load_digits()
    x = (ds.data / 16.0).astype(np.float32)
    y = ds.target.astype(np.int64)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(y))
    n_test = round(test_fraction * len(y))
    te, tr = perm[:n_test], perm[n_test:]
    return Split(x[tr], y[tr], x[te], y[te], num_classes=10)


def make_canaries(split: Split, *, num_canaries: int, seed: int = 0, inclusion: float = 0.5) -> tuple[Split, Canaries]:
    """Take ``num_canaries`` images out of the *test* set, mislabel them, and insert each into the
    training set with probability ``inclusion`` (independently).

    Returns the new split (canaries removed from test, members appended to train) and the canaries.
    """
    check_int("num_canaries", num_canaries, 0, len(split.y_test) // 2)
    check_probability("inclusion", inclusion)
    rng = np.random.default_rng(seed + 7919)
    idx = rng.permutation(len(split.y_test))
    c_idx, keep = idx[:num_canaries], idx[num_canaries:]
    cx = split.x_test[c_idx]
    shift = rng.integers(1, split.num_classes, size=num_canaries)
    cy = (split.y_test[c_idx] + shift) % split.num_classes  # always a wrong label
    member = rng.random(num_canaries) < inclusion
    new = Split(
        x_train=np.concatenate([split.x_train, cx[member]]),
        y_train=np.concatenate([split.y_train, cy[member]]),
        x_test=split.x_test[keep],
        y_test=split.y_test[keep],
        num_classes=split.num_classes,
        name=split.name + f" + {int(member.sum())} canaries",
    )
    return new, Canaries(cx, cy.astype(np.int64), member)


def synthetic_split(*, n: int = 512, d: int = 16, num_classes: int = 4, seed: int = 0, noise: float = 1.0) -> Split:
    """A Gaussian-mixture classification task (for tests and benchmarks)."""
    check_int("n", n, 2)
    check_int("d", d, 1)
    check_int("num_classes", num_classes, 2)
    check_real("noise", noise, 0.0, lo_open=True)
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(num_classes, d)).astype(np.float32) * 2
    y = rng.integers(0, num_classes, size=2 * n)
    x = (centers[y] + noise * rng.normal(size=(2 * n, d))).astype(np.float32)
    return Split(x[:n], y[:n].astype(np.int64), x[n:], y[n:].astype(np.int64), num_classes, name="synthetic")


def mlp(in_features: int, num_classes: int, hidden: tuple[int, ...] = (64,)):
    """A small tanh MLP (no batch norm: per-sample gradients need per-sample independence)."""
    import torch.nn as nn

    layers: list[nn.Module] = []
    prev = in_features
    for h in hidden:
        check_int("hidden width", h, 1)
        layers += [nn.Linear(prev, h), nn.Tanh()]
        prev = h
    layers.append(nn.Linear(prev, num_classes))
    return nn.Sequential(*layers)
