"""Asymptotics helpers: leading terms, series, big-O, expansion checks (and the `derive` CLI)."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from click.testing import CliRunner

from symdp import Expansion, Kind, Source, theorem
from symdp.asymptotics import check_expansion, is_big_o, leading_term, rate, ratio_limit, series
from symdp.cli import main
from symdp.errors import InvalidParameterError
from symdp.symbols import T, eps, p, sigma

SRC = Source("test", "", "test", "n/a")


def test_kl_bound_is_eps_squared_over_two_at_zero_and_eps_at_infinity():
    kl = eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1)
    assert sp.simplify(leading_term(kl, eps, 0) - eps**2 / 2) == 0
    assert sp.simplify(leading_term(kl, eps, "oo") - eps) == 0
    assert ratio_limit(kl, eps**2 / 2, eps, 0) == 1


def test_clt_mu_large_sigma():
    mu = p * sp.sqrt(T * (sp.exp(1 / sigma**2) - 1))
    assert sp.simplify(leading_term(mu, sigma, "oo") - p * sp.sqrt(T) / sigma) == 0
    s = series(mu, sigma, "oo", 4).removeO()
    assert sp.simplify(s - (p * sp.sqrt(T) / sigma + p * sp.sqrt(T) / (4 * sigma**3))) == 0


def test_big_o():
    assert is_big_o(eps**3, eps**2, eps, 0)
    assert not is_big_o(eps, eps**2, eps, 0)


def test_exponential_leading_term_and_unknown_is_an_error():
    assert sp.simplify(leading_term(sp.exp(eps), eps, "oo") - sp.exp(eps)) == 0
    # faster than any exponential: no rate of the form C v^a log^b exp(c v) -> a one-line error
    with pytest.raises(InvalidParameterError, match="no leading term"):
        leading_term(sp.exp(sp.exp(eps)), eps, "oo", seconds=5)


def test_rate_powers_logs_exponentials_agree_with_sympy_limits():
    cases = [
        (eps * sp.log(eps), "oo", (1, 1, 0)),
        (eps * sp.tanh(eps / 2), 0, (2, 0, 0)),
        (3 * sp.exp(-2 * eps) * eps**2, "oo", (2, 0, -2)),
        (sp.sqrt(eps) / sp.log(eps) ** 2, "oo", (sp.Rational(1, 2), -2, 0)),
    ]
    for f, at, (a, b, c) in cases:
        r = rate(f, eps, at)
        assert (r.power, r.log_power, r.exp_rate) == (a, b, c), (f, r)
        # independent check: f / term -> 1 by a plain SymPy limit
        p0 = sp.oo if at == "oo" else 0
        assert sp.limit(f / r.term(), eps, p0) == 1


def test_is_big_o_is_tristate_and_never_false_for_unknown():
    assert is_big_o(eps**3, eps**2, eps, 0) is True
    assert is_big_o(eps, eps**2, eps, 0) is False
    assert is_big_o(sp.log(eps), eps, eps, "oo") is True
    assert is_big_o(eps, sp.log(eps), eps, "oo") is False
    # oscillating ratio without a limit but bounded: True; an intractable one within 1 s: None, not False
    assert is_big_o(sp.sin(1 / eps) * eps, eps, eps, 0) is True
    hard = sp.erfc(sp.exp(sp.exp(eps)) * sp.gamma(eps)) * sp.besselj(eps, sp.exp(eps))
    assert is_big_o(hard, sp.exp(-eps), eps, "oo", seconds=1) in (True, False, None)


def test_time_limit_answers_unknown_instead_of_hanging():
    import time

    from symdp.calculus import chain

    d = chain(["bu2020.clt_mu", "bridge.group_privacy_gdp", "bu2020.delta_of_eps_gdp", "he2021uai.thm1_small_eps"])
    t0 = time.monotonic()
    r = rate(d.closed_form("failure"), "T", "oo", seconds=2)
    assert time.monotonic() - t0 < 8
    assert r.describe() == "unknown" or r.known


def test_compare_bounds():
    from symdp.asymptotics import compare

    res = compare(eps**2 / 2, eps * sp.tanh(eps / 2), eps, 0)
    assert res["a_is_O_b"] is True and res["b_is_O_a"] is True and res["ratio_limit"] == "1"


@pytest.mark.parametrize("at", ["abc", "", "1/0", "__import__('os').system('true')", "nan", "1e999x"])
def test_derive_at_is_whitelisted(at):
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", at])
    assert res.exit_code == 2, res.output
    assert "--at " in res.output and "allowed" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("order", ["-1", "0", "100000", "abc", "3.5"])
def test_derive_order_is_bounded(order):
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--series", "epsilon", "--order", order])
    assert res.exit_code == 2 and "--order " in res.output and "1..20" in res.output, res.output


def test_check_expansion_true_and_false():
    good = theorem("t.good", "tanh", Kind.EXPANSION, SRC, lhs=eps * sp.tanh(eps / 2), rhs=eps**2 / 2 - eps**4 / 24,
                   expansion=Expansion(eps, sp.Integer(0), 6))
    bad = theorem("t.bad", "tanh", Kind.EXPANSION, SRC, lhs=eps * sp.tanh(eps / 2), rhs=eps**2 / 2 - eps**4 / 12,
                  expansion=Expansion(eps, sp.Integer(0), 6))
    assert check_expansion(good)[0] is True
    assert check_expansion(bad)[0] is False


def test_derive_cli_series():
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", "0", "--order", "5", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert sp.simplify(sp.sympify(out["leading_term"]) - sp.Symbol("epsilon") ** 2 / 2) == 0
    assert "epsilon**4/24" in out["series"]
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--series", "nope"])
    assert res.exit_code == 2 and "nope" in res.output


def test_derive_compare_cli():
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--compare", "classical.dwork2010_kl", "--rate",
                                    "epsilon", "--at", "0", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    # eps tanh(eps/2) ~ eps^2/2 and eps (e^eps - 1) ~ eps^2: each is O(the other), ratio -> 1/2
    assert out["a_is_O_b"] is True and out["b_is_O_a"] is True and out["ratio_limit"] == "1/2"
    res = CliRunner().invoke(main, ["derive", "he2021.lemma_kl", "--compare", "classical.dwork2010_kl"])
    assert res.exit_code == 2 and "--rate" in res.output
