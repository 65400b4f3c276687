"""sgm_hockey_stick brackets the privacy loss's root by bisection over its grid instead of evaluating all 801 grid
points (issue 25, session 33): the same bracket, so the same root and the same bits as the full left-to-right scan
(kept here as the reference), in both directions, at random and extreme (q, sigma, epsilon)."""

import random

import mpmath
import pytest

from symdp.verify.oracles_pairs import _npdf_same_bits
from symdp.verify.oracles_tradeoff import _first_sign_change, sgm_hockey_stick


def _full_scan(q, sigma, epsilon, direction):
    qq, s, e = mpmath.mpf(q), mpmath.mpf(sigma), mpmath.mpf(epsilon)
    ee = mpmath.exp(e)
    pdfs = {0: _npdf_same_bits(0, s), 1: _npdf_same_bits(1, s)}

    def mix(x):
        return (1 - qq) * pdfs[0](x) + qq * pdfs[1](x)

    P, Q = (mix, pdfs[0]) if direction == "remove" else (pdfs[0], mix)

    def g(x):
        return P(x) - ee * Q(x)

    grid = [mpmath.mpf(k) / 4 * s + mpmath.mpf(1) / 2 for k in range(-400, 401)]
    signs = [g(x) > 0 for x in grid]
    root = None
    for a, b, sa, sb in zip(grid, grid[1:], signs, signs[1:]):
        if sa != sb:
            root = mpmath.findroot(g, (a, b), solver="anderson")
            break
    if root is None:
        if all(signs):
            return mpmath.quad(g, [-mpmath.inf, mpmath.inf])
        return mpmath.mpf(0)
    if direction == "remove":
        return mpmath.quad(g, [root, root + 20 * s, mpmath.inf])
    return mpmath.quad(g, [-mpmath.inf, root - 20 * s, root])


def _cases():
    rng = random.Random(7)
    out = [("1", "1", "1", "remove"), ("1", "0.5", "0", "add"), ("1e-4", "50", "1e-3", "remove"), ("0.9", "0.1", "8", "add"),
           ("0.01", "1", "0", "remove"), ("0.5", "2", "0.25", "add")]
    for _ in range(10):
        out.append((repr(10 ** rng.uniform(-3, 0)), repr(10 ** rng.uniform(-0.7, 1.3)), repr(rng.uniform(0, 4)),
                    rng.choice(["add", "remove"])))
    return out


@pytest.mark.parametrize("q,sigma,epsilon,direction", _cases())
def test_same_bits_as_the_full_scan(q, sigma, epsilon, direction):
    with mpmath.workdps(30):
        got = sgm_hockey_stick(q=mpmath.mpf(q), sigma=mpmath.mpf(sigma), epsilon=mpmath.mpf(epsilon), direction=direction)
        assert got._mpf_ == _full_scan(q, sigma, epsilon, direction)._mpf_


def test_first_sign_change_is_the_scan_on_monotone_signs():
    for cut in range(-5, 7):
        for up in (True, False):
            signs = {k: (k >= cut) == up for k in range(-5, 6)}
            want = next(((k, k + 1) for k in range(-5, 5) if signs[k] != signs[k + 1]), None)
            got = _first_sign_change(lambda k: 1 if signs[k] else -1, -5, 5)
            assert got == (want if want else (signs[-5], None))
