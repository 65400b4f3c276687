"""Asymptotics helpers: leading terms, series, big-O, expansion checks (and the `derive` CLI)."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from click.testing import CliRunner

from symdp import Expansion, Kind, Source, theorem
from symdp.asymptotics import check_expansion, is_big_o, leading_term, ratio_limit, series
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


def test_no_power_law_leading_term_is_an_error():
    with pytest.raises(InvalidParameterError, match="no power-law"):
        leading_term(sp.exp(eps), eps, "oo")


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
