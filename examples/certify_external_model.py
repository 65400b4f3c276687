"""Certify DP-SGD runs with symdp.certify: a model trained elsewhere, and a short training run.

    python examples/certify_external_model.py [outdir]     (default: a new temporary directory)

1. A model trained elsewhere (e.g. with Opacus) with a learning-rate-style schedule of noise:
   certify it from its ledger of (noise_multiplier, sample_rate, steps) segments.
2. Train a small model on the built-in digits data with a privacy budget, and certify it, including the
   membership-inference audit with canaries and the measured-vs-certified checks.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from symdp.certify import RunConfig, certify_ledger, run, write_report

# written under a temporary directory unless one is given: an example never litters the working tree
out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="symdp-certify-example-"))

# 1. certify without training: 60k examples, two phases of noise
cert = certify_ledger([(1.1, 256 / 60_000, 2000), (1.5, 512 / 60_000, 1000)], n=60_000, delta=1e-5,
                      train_error=0.02)
acc = cert["privacy"]["accountants"]
print(f"external model: tight eps = {acc['tight']['epsilon']:.3f}, RDP eps = {acc['rdp']['epsilon']:.3f}, "
      f"CLT (approximation) = {acc['clt']['epsilon']:.3f}")
write_report(cert, out / "external")

# 2. train with a budget: the run stops before the odometer would exceed epsilon = 1.5
cert = run(RunConfig(steps=2000, target_epsilon=1.5, progress=True))
print(f"trained: {cert['parameters']['steps']} steps, certified eps = {cert['privacy']['epsilon_upper']:.3f}, "
      f"empirical lower bound = {cert['empirical']['audit']['epsilon_lower']:.3f}, "
      f"test error = {cert['empirical']['test_error']:.3f}")
print("reports:", write_report(cert, out / "trained"))
