r"""The odometer as one call: epsilon after every step (or at chosen steps) of a run.

>>> import numpy as np
>>> e = odometer(noise_multiplier=1.0, sample_rate=0.01, steps=100, delta=1e-5)
>>> e.shape, bool(np.all(np.diff(e) >= 0))
((100,), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InvalidParameterError, UnsupportedError
from ..validation import check_int, check_probability
from . import api as _api
from . import rdp as _rdp


@_api._quiet_fp
def odometer(
    *,
    noise_multiplier: float | None = None,
    sample_rate: float | None = None,
    steps: int | None = None,
    delta: float,
    accountant: str = "rdp",
    schedule: Sequence[tuple[float, float, int]] | None = None,
    at: Any = None,
    sampling: str = "poisson",
) -> np.ndarray:
    """Epsilon (upper bound) after each step ``1..T`` (or after each step listed in ``at``).

    ``accountant="rdp"`` is fully vectorised (cumulative RDP curve, conversion per
    step); ``"tight"`` composes once per requested step on one grid, so pass a
    moderate ``at`` (default for tight: 20 evenly spaced steps).
    """
    acc = _api._resolve(accountant, sampling)
    if acc not in ("rdp", "tight"):
        raise UnsupportedError(f"odometer supports accountant='rdp' or 'tight', not {accountant!r}")
    if schedule is not None:
        if noise_multiplier is not None or sample_rate is not None or steps is not None:
            raise InvalidParameterError("give either schedule=... or noise_multiplier/sample_rate/steps, not both")
        segs = _api._check_schedule(schedule)
    else:
        if noise_multiplier is None or sample_rate is None or steps is None:
            raise InvalidParameterError("noise_multiplier, sample_rate and steps are required (or schedule=...)")
        _api._check_sigma(noise_multiplier)
        _api._check_q(sample_rate)
        segs = [(float(noise_multiplier), float(sample_rate), int(_api._check_steps(steps)))]
    d = float(check_probability("delta", delta))
    total = sum(T for *_, T in segs)
    if at is None:
        pts = np.arange(1, total + 1) if acc == "rdp" else np.unique(np.linspace(1, total, min(total, 20)).round().astype(int))
    else:
        pts = np.atleast_1d(np.asarray(check_int("at", at, 0, total)))
    if total == 0:
        return np.zeros(len(pts))
    if acc == "rdp":
        fn = _rdp.wor_rdp if sampling == "without_replacement" else _rdp.sgm_rdp
        bounds = np.cumsum([0] + [T for *_, T in segs])
        out = np.empty(len(pts))
        chunk = 65536
        per_cache: dict[tuple[float, ...], np.ndarray] = {}

        def per_for(orders: np.ndarray) -> np.ndarray:
            key = tuple(orders.tolist())
            if key not in per_cache:
                per_cache[key] = np.stack([fn(noise_multiplier=s, sample_rate=q, orders=orders) for s, q, _ in segs])
            return per_cache[key]

        for c0 in range(0, len(pts), chunk):
            t = pts[c0:c0 + chunk]
            # composed RDP after t steps: sum over segments of min(max(t - start, 0), T_k) * per_k
            cnt = np.clip(t[:, None] - bounds[None, :-1], 0, np.diff(bounds)[None, :])

            def curve(orders: np.ndarray, rows: np.ndarray, cnt: np.ndarray = cnt) -> np.ndarray:
                return cnt[rows] @ per_for(orders)

            e, _ = _rdp.epsilon_for_curves(curve, d, len(t))  # the grid of epsilon(accountant="rdp"), extended at its ends
            out[c0:c0 + chunk] = np.where(t == 0, 0.0, e)
        return out
    out = np.empty(len(pts))
    bounds = np.cumsum([0] + [T for *_, T in segs])
    for i, t in enumerate(pts):
        if t == 0:
            out[i] = 0.0
            continue
        cnt = np.clip(t - bounds[:-1], 0, np.diff(bounds))
        sub = [(s, q, int(c)) for (s, q, _), c in zip(segs, cnt) if c > 0]
        v, _, _, _ = _api._tight_checked(sub, np.array([d]), None, None)  # RDP where the PLD cannot answer
        out[i] = v[0]
    return out


__all__ = ["odometer"]
