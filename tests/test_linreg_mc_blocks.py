"""linreg_mc walks its n_mc x n arrays in blocks of rows (issue 25): the estimates must be the same bits as the
whole-array computation it replaced (kept here as the reference), for either set of keys."""

import numpy as np
import pytest

from symdp.library.kl_privacy import _mean_se, linreg_mc


def _whole_arrays(*, gamma: float, n: int, k: int, n_mc: int, seed: int) -> dict[str, tuple[float, float]]:
    """The previous implementation (session 32), every array in memory at once."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, (n_mc, n))
    y = x + rng.uniform(-1.0, 1.0, (n_mc, n))
    S = np.einsum("ij,ij->i", x, x)
    mu = np.einsum("ij,ij->i", x, y) / S
    v = 1.0 / (2.0 * gamma * S)
    h = mu + np.sqrt(v) * rng.standard_normal(n_mc)
    xt = rng.uniform(-1.0, 1.0, n_mc)
    yt = xt + rng.uniform(-1.0, 1.0, n_mc)
    train = np.mean((y - x * h[:, None]) ** 2, axis=1)
    gen = (yt - xt * h) ** 2 - train
    x2, y2 = x.copy(), y.copy()
    x2[:, :k] = rng.uniform(-1.0, 1.0, (n_mc, k))
    y2[:, :k] = x2[:, :k] + rng.uniform(-1.0, 1.0, (n_mc, k))
    S2 = np.einsum("ij,ij->i", x2, x2)
    mu2 = np.einsum("ij,ij->i", x2, y2) / S2
    v2 = 1.0 / (2.0 * gamma * S2)
    ratio = v / v2
    okl = 0.5 * (ratio - 1.0 - np.log(ratio) + (mu - mu2) ** 2 / v2)
    return {"gen": _mean_se(gen), "okl": _mean_se(okl)}


@pytest.mark.parametrize("gamma,n,k,n_mc,seed", [
    (1.0, 10, 1, 20_000, 0),  # several blocks of 6553 rows, the last one short
    (0.3, 200, 3, 7_001, 2),  # 327-row blocks
    (5.0, 1, 1, 3_000, 7),  # one column: k = n
    (2.0, 77, 77, 2_500, 3),  # every point replaced
    (1e-3, 1, 1, 2, 11),  # the smallest sample
])
def test_same_bits_as_whole_arrays(gamma, n, k, n_mc, seed):
    ref = _whole_arrays(gamma=gamma, n=n, k=k, n_mc=n_mc, seed=seed)
    assert linreg_mc(gamma=gamma, n=n, k=k, n_mc=n_mc, seed=seed) == ref
    assert linreg_mc(gamma=gamma, n=n, k=k, n_mc=n_mc, seed=seed, keys=("gen",)) == {"gen": ref["gen"]}
    assert linreg_mc(gamma=gamma, n=n, k=k, n_mc=n_mc, seed=seed, keys=("okl",)) == {"okl": ref["okl"]}


def test_other_seed_other_draws_and_bad_key():
    a = linreg_mc(gamma=1.0, n=5, n_mc=1000, seed=0)
    b = linreg_mc(gamma=1.0, n=5, n_mc=1000, seed=1)
    assert a["gen"] != b["gen"] and a["okl"] != b["okl"]
    with pytest.raises(ValueError):
        linreg_mc(gamma=1.0, n=5, n_mc=1000, keys=("kl",))
