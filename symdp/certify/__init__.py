r"""Certify DP-SGD training: a torch trainer with a device-resident privacy odometer, accountant
epsilons (tight, RDP, CLT approximation), generalization bounds from the theorem library, and an
empirical membership-inference audit, gathered in a JSON certificate with Markdown/HTML reports.

torch is imported lazily: :func:`certify_hparams` / :func:`certify_ledger` need no torch at all.

>>> from symdp.certify import certify_hparams
>>> cert = certify_hparams(noise_multiplier=2.0, sample_rate=0.01, steps=100, n=10_000, delta=1e-5)
>>> cert["privacy"]["epsilon_upper"] < 1
True
"""

from __future__ import annotations

from .certificate import RunConfig, certify_hparams, certify_ledger, empirical_checks, run, write_report
from .mia import clopper_pearson, epsilon_lower_bound, loss_threshold_audit
from .privacy import epsilons, tradeoff_tpr
from .schema import SCHEMA, SCHEMA_ID, validate


def __getattr__(name: str):  # the torch-dependent trainer, loaded on first use
    if name in ("train_dpsgd", "TrainResult", "per_sample_grads", "clip_and_sum", "add_noise", "poisson_batch"):
        from . import trainer

        return getattr(trainer, name)
    raise AttributeError(f"module 'symdp.certify' has no attribute {name!r}")


__all__ = [
    "SCHEMA", "SCHEMA_ID", "RunConfig", "TrainResult", "add_noise", "certify_hparams", "certify_ledger",
    "clip_and_sum", "clopper_pearson", "empirical_checks", "epsilon_lower_bound", "epsilons",
    "loss_threshold_audit", "per_sample_grads", "poisson_batch", "run", "tradeoff_tpr", "train_dpsgd",
    "validate", "write_report",
]
