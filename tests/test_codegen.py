"""Code generation: the kernel() contract, `symdp codegen --check`, the stability rules,
and one accuracy test per generated kernel (numpy and torch vs a 50-digit mpmath
reference of the *unrewritten* expression, plus torch gradients vs SymPy's derivative)."""

from __future__ import annotations

import json
import math
from functools import cache

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
import torch
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from symdp.cli import main
from symdp.codegen import generate, kernel, manifest
from symdp.codegen.functions import gauss_diff, log_ndtr, ndtr, ndtri, to_elementary
from symdp.codegen.rewrite import RULES, rules_applied, stabilize
from symdp.errors import InvalidParameterError, SymdpError
from symdp.library import get, ids
from symdp.symbols import T, delta, eps, mu, q
from symdp.theorem import Kind, Source, theorem

FLOAT_TINY = 2.2250738585072014e-308
FLOAT_MAX = 1.7976931348623157e308
REL_TOL = 1e-10

# kernels that cannot meet REL_TOL everywhere on their domain: reported visibly as strict xfails
# (shown as x / X in every run; see docs/benchmarks.md "## codegen").  id/side -> reason.
_T_LOG = ("T eps == eps' after rounding is no longer singular (xlogx_collect: finite, limit 0), but T log(...) with "
          "T up to 1e4 scales the few-ulp rounding of the log argument to ~2e-12: numpy and torch then differ by more "
          "than the 1e-12 agreement bound (each is within 1e-10 of the reference at the points seen)")
KNOWN_INACCURATE: dict[str, str] = {
    "he2021uai.cor2_delta/rhs": _T_LOG,
    "he2021uai.cor2_delta_pp/rhs": _T_LOG,
    "he2021long.thm7_delta_tilde/rhs": _T_LOG,
    "he2021long.thm8_delta_tilde/rhs": _T_LOG,
    "he2021long.lemma4_union_step/rhs": "1 - (1 - x/n)**n with x/n > 1 (base < 0, allowed by the hypotheses): "
                                        "the log-space power rule needs 1 + x > 0, gives NaN there",
}


# ---------------------------------------------------------------- contract
def test_kernel_contract_numbers_and_arguments():
    f = kernel("he2021.lemma_kl")
    x = np.array([1e-8, 0.5, 1.0, 50.0])
    ref = [float(mp.mpf(v) * mp.tanh(mp.mpf(v) / 2)) for v in x]
    np.testing.assert_allclose(f(x), ref, rtol=1e-14)
    np.testing.assert_allclose(f(epsilon=x), f(x), rtol=0)
    assert f(x).dtype == np.float64
    ft = kernel("he2021.lemma_kl", "torch")
    xt = torch.tensor(x, requires_grad=True)
    y = ft(epsilon=xt)
    assert y.dtype == torch.float64 and y.requires_grad
    y32 = ft(torch.tensor([1.0], dtype=torch.float32))
    assert y32.dtype == torch.float32
    fm = kernel("he2021.lemma_kl", "mpmath")
    with mp.workdps(50):
        v = fm(mp.mpf(1))
        assert isinstance(v, mp.mpf)
        assert abs(v - mp.tanh(mp.mpf(1) / 2)) < mp.mpf(10) ** -45


def test_kernel_errors():
    with pytest.raises(InvalidParameterError, match="backend"):
        kernel("he2021.lemma_kl", "jax")
    with pytest.raises(InvalidParameterError, match="side"):
        kernel("he2021.lemma_kl", side="middle")
    with pytest.raises(SymdpError, match="no generated lhs kernel"):
        kernel("he2021.lemma_kl", side="lhs")


def test_stale_kernel_raises_and_names_codegen(monkeypatch):
    import importlib

    from symdp import codegen

    mod = importlib.import_module("symdp.generated.numpy_he_tao")
    codegen._kernel.cache_clear()
    monkeypatch.setitem(mod.HASHES, "he2021__lemma_kl", "0" * 16)
    with pytest.raises(SymdpError, match="stale.*symdp codegen"):
        kernel("he2021.lemma_kl")
    codegen._kernel.cache_clear()


def test_codegen_check_passes_on_repository():
    res = CliRunner().invoke(main, ["codegen", "--check"])
    assert res.exit_code == 0, res.output


def _toy_groups(rhs):
    src = Source("classical", "-", "test", "toy")
    th = theorem("toy.bound", "toy", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=rhs, hypotheses=[eps > 0],
                 domain={eps: (sp.Rational(1, 10**8), 50)})
    return [("toy", [th])]


def test_check_fails_after_library_expression_changes(tmp_path):
    out = tmp_path / "gen"
    generate.write(out, groups=_toy_groups(eps * sp.tanh(eps / 2)))
    assert generate.check(out, groups=_toy_groups(eps * sp.tanh(eps / 2))) == []
    stale = generate.check(out, groups=_toy_groups(eps * sp.tanh(eps / 3)))
    assert any(s.startswith("numpy_toy.py") for s in stale) and any("MANIFEST.json" in s for s in stale)
    # the CLI on an empty directory fails and names the files
    res = CliRunner().invoke(main, ["codegen", "--check", "--out", str(tmp_path / "empty")])
    assert res.exit_code == 1
    assert "MANIFEST.json" in res.output


def test_output_is_deterministic_and_headed(tmp_path):
    groups = _toy_groups(eps * (sp.exp(eps) - 1) / (sp.exp(eps) + 1))
    a = generate.render(generate.plan(groups))
    b = generate.render(generate.plan(groups))
    assert a == b
    th = groups[0][1][0]
    assert f"# theorem: toy.bound | side: rhs | hash: {th.expr_hash()}" in a["numpy_toy.py"]
    man = json.loads(a["MANIFEST.json"])
    assert man["entries"]["toy.bound"]["kernels"]["rhs"]["symbols"] == ["epsilon"]


def test_unsupported_entries_are_skipped_with_reason():
    src = Source("classical", "-", "test", "toy")
    f = sp.Function("f")
    i = sp.Symbol("i", integer=True)
    xs = sp.IndexedBase("x")
    ths = [
        theorem("toy.undef", "u", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=f(eps)),
        theorem("toy.sum", "s", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=sp.Sum(xs[i], (i, 1, T))),
        theorem("toy.symsum", "s", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=sp.Sum(eps**i, (i, 1, T))),
        theorem("toy.finite", "s", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=sp.Sum(eps**i, (i, 1, 3))),
        theorem("toy.exp", "e", Kind.EXPANSION, src, lhs=eps, rhs=eps,
                expansion=__import__("symdp.theorem", fromlist=["Expansion"]).Expansion(eps, 0, 2)),
    ]
    p = generate.plan([("toy", ths)])
    reasons = {s.theorem_id: s.reason for s in p.skipped}
    assert "undefined function" in reasons["toy.undef"]
    assert "indexed" in reasons["toy.sum"].lower()
    assert "symbolic range" in reasons["toy.symsum"]
    assert "expansion" in reasons["toy.exp"]
    assert [k.theorem_id for k in p.kernels] == ["toy.finite"]
    man = json.loads(generate.render(p)["MANIFEST.json"])
    assert "undefined function" in man["entries"]["toy.undef"]["skipped"]["rhs"]


def test_degenerate_guard_is_explicit_and_identical(tmp_path, monkeypatch):
    """eps/(e^eps - 1) is 0/0 at eps = 0: the generator adds an explicit branch with the limit 1."""
    src = Source("classical", "-", "test", "toy")
    th = theorem("toy.deg", "d", Kind.BOUND, src, lhs=sp.Symbol("D"), rhs=eps / (sp.exp(eps) - 1),
                 domain={eps: (0, 5)})
    p = generate.plan([("toydeg", [th])])
    (k,) = p.kernels
    assert k.guards == ("epsilon=0",)
    files = generate.render(p)
    vals = []
    for b, call in (("numpy", lambda f: float(f(np.array([0.0, 1e-9]))[0])),
                    ("torch", lambda f: float(f(torch.tensor([0.0, 1e-9], dtype=torch.float64))[0])),
                    ("mpmath", lambda f: float(f(0)))):
        ns: dict = {}
        exec(compile(files[f"{b}_toydeg.py"], f"{b}_toydeg.py", "exec"), ns)  # noqa: S102 - our own generated text
        vals.append(call(ns["toy__deg"]))
    assert vals == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------- stability rules
_x, _y, _z = sp.symbols("x y z", real=True)
_a = sp.Symbol("a", positive=True)
_PHI = lambda v: (1 + sp.erf(v / sp.sqrt(2))) / 2  # noqa: E731

REWRITE_CASES = [
    # (expression, rule expected to fire, sample box for free symbols)
    ((1 + sp.erf(_x / sp.sqrt(2))) / 2, "erf_to_ndtr", (-30, 8)),
    (sp.erfc(_x) / 2, "erf_to_ndtr", (-5, 25)),
    (1 - _PHI(_x), "erf_to_ndtr", (-8, 30)),
    (sp.log(_PHI(_x)), "log_ndtr", (-35, 8)),
    (_PHI(-eps / mu + mu / 2) - sp.exp(eps) * _PHI(-eps / mu - mu / 2), "gauss_diff", None),
    (sp.erfc(eps / mu) - sp.exp(eps) * sp.erfc(eps / mu + mu), "gauss_diff", None),
    (1 - (1 - delta) ** T, "pow_log1p", None),
    (1 - (1 - delta) * (1 - q), "one_minus_prod", None),
    (sp.exp(_x) - 1, "factor_expm1", (-30, 30)),
    (2 - sp.exp(_x) - sp.exp(_y), "one_minus_exp", (-30, 0.5)),
    (_x * (sp.exp(_x) - 1) / (sp.exp(_x) + 1), "tanh_half", (-700, 700)),
    (sp.exp(_x) * sp.exp(_y) * _a ** _x, "logspace_product", (0.1, 30)),
    (sp.exp(_a**2) * sp.erfc(_a), "erfcx", (0.01, 30)),
    (sp.log(1 - sp.exp(-_a)), "log1mexp", (1e-12, 700)),
    (sp.ceiling(sp.Min(T * eps, sp.sqrt(T)) / eps), "ceil_simplify", None),
    (sp.log(1 + _a), "log1p", (1e-12, 1e6)),
    (sp.log(sp.exp(_x) + sp.exp(_y)), "logaddexp", (-50, 50)),
    (sp.erfinv(1 - 2 * _a), "erfinv_to_ndtri", (1e-12, 0.999)),
    (sp.log(sp.gamma(_a + 1)), "log_gamma", (0.1, 100)),
    (sp.erfinv(1 - sp.erfc(_x)), "ndtri_ndtr", (-5, 5)),
    (1 - sp.exp(_x) / (sp.exp(_x) + 1), "one_minus_frac", (-30, 30)),
    # He et al. Cor 2 shape with T eps = x + 2a, eps' = a: the log(T eps - eps') coefficients cancel to O(x + a)
    (sp.exp((_x + 2 * _a) / eps * sp.log(2 * (_x + 2 * _a) / ((_x + _a) * (sp.exp(eps) + 1)))
            - (_x + 3 * _a) * sp.log((_x + 3 * _a) / (_x + _a)) / (2 * eps)), "xlogx_collect", (0.01, 0.9)),
    (2 * _a / sp.sqrt(sp.pi) + sp.exp(_a**2) * sp.erfc(_a) - 1, "erfcx_rem", (1e-6, 20)),
    (sp.log((_a + _x**2) / _a), "log_ratio", (1e-3, 30)),
    (sp.log(_a / mu), "log_ratio", (0.05, 5)),
    (sp.log(q * sp.exp(_x) - q + 1), "log1p_mix", (-40, 40)),
]
_BOXES = {eps: (1e-8, 50.0), mu: (0.05, 5.0), delta: (1e-300, 0.5), T: (1, 10**9), q: (1e-9, 1.0)}


@pytest.mark.parametrize("expr,rule,box", REWRITE_CASES, ids=[c[1] + str(i) for i, c in enumerate(REWRITE_CASES)])
def test_each_rewrite_is_exact(expr, rule, box):
    new, fired = rules_applied(expr)
    assert rule in fired, (expr, new, fired)
    back = to_elementary(new)
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    f_old = sp.lambdify(syms, expr, modules="mpmath")
    f_new = sp.lambdify(syms, back, modules="mpmath")
    rng = np.random.default_rng(0)
    for _ in range(60):
        pt = []
        for s in syms:
            lo, hi = box if box is not None else _BOXES[s]
            if s.is_integer:
                pt.append(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
            elif lo > 0 and hi / lo > 100:
                pt.append(math.exp(rng.uniform(math.log(lo), math.log(hi))))
            else:
                pt.append(rng.uniform(lo, hi))
        with mp.workdps(400):
            mpt = [mp.mpf(v) for v in pt]
            a, b = f_old(*mpt), f_new(*mpt)
            assert abs(a - b) <= mp.mpf(10) ** -100 * max(abs(a), mp.mpf(10) ** -350), (pt, a, b)


def test_rules_are_named_exact_and_ordered():
    assert [r.name for r in RULES] == sorted((r.name for r in RULES), key=lambda n: -next(
        r.priority for r in RULES if r.name == n))
    assert all(r.exact for r in RULES)
    x = sp.Symbol("x")
    assert sp.simplify(to_elementary(stabilize(sp.log(1 + x) + sp.exp(x) - 1)) - (sp.log(1 + x) + sp.exp(x) - 1)) == 0


def test_special_functions_derivatives_and_values():
    x = sp.Symbol("x", real=True)
    for f in (ndtr(x), log_ndtr(x), ndtri(x)):
        d_sym = sp.diff(f, x)
        d_el = sp.diff(to_elementary(f), x)
        for v in (0.3, 0.7) if isinstance(f, ndtri) else (-3.0, 0.0, 2.5):
            assert abs(float(d_sym.subs(x, v).evalf(30)) - float(d_el.subs(x, v).evalf(30))) < 1e-12
    a, b, d = sp.symbols("a b d", real=True)
    g = gauss_diff(a, b, d)
    for _i, s in enumerate((a, b, d)):
        val = {a: -1.3, b: -2.1, d: 0.2}
        assert abs(float(sp.diff(g, s).subs(val).evalf(30)) - float(sp.diff(to_elementary(g), s).subs(val).evalf(30))) < 1e-12


# ---------------------------------------------------------------- one accuracy test per generated kernel
def _kernel_params():
    out = []
    known = set(ids())
    for tid, entry in sorted(manifest()["entries"].items()):
        if tid not in known:
            continue  # manifest older than the library: test_codegen_check_passes_on_repository reports it
        for side in sorted(entry.get("kernels", {})):
            key = f"{tid}/{side}"
            marks = [pytest.mark.xfail(reason=KNOWN_INACCURATE[key])] if key in KNOWN_INACCURATE else []
            out.append(pytest.param(tid, side, id=key, marks=marks))
    return out


#: fallback boxes for symbols a theorem leaves without a domain (issue 3 extremes)
DEFAULT_BOX = {"epsilon": (1e-8, 50.0), "delta": (1e-300, 0.999), "T": (1, 10**9), "q": (1e-9, 1.0),
               "sigma": (0.3, 100.0), "mu": (0.01, 10.0)}


def _box(th, s):
    dom = th.domain_dict()
    if s in dom:
        lo, hi = (float(sp.N(v, 30)) for v in dom[s])
    elif s.name in DEFAULT_BOX:
        lo, hi = DEFAULT_BOX[s.name]
    elif s.is_positive:
        lo, hi = 1e-3, 1e3
    else:
        lo, hi = -10.0, 10.0
    return lo, hi


def _strategy(th, s):
    lo, hi = _box(th, s)
    if s.is_integer:
        ilo, ihi = math.ceil(lo), math.floor(hi)
        if ihi - ilo > 1000 and ilo > 0:
            return st.one_of(st.sampled_from([ilo, ihi]),
                             st.floats(math.log(ilo), math.log(ihi)).map(lambda u: int(min(max(round(math.exp(u)), ilo), ihi))))
        return st.integers(ilo, ihi)
    if lo > 0 and hi / lo > 100:
        return st.one_of(st.sampled_from([lo, hi]),
                         st.floats(math.log(lo), math.log(hi)).map(lambda u: min(max(math.exp(u), lo), hi)))
    return st.one_of(st.sampled_from([lo, hi]), st.floats(lo, hi))


@cache
def _prepared(tid, side):
    th = get(tid, with_evidence=False)
    info = manifest()["entries"][tid]["kernels"][side]
    expr = generate._expand_sums(th.rhs if side == "rhs" else th.lhs)
    by_name = {s.name: s for s in expr.free_symbols}
    syms = [by_name[n] for n in info["symbols"]]
    # plain dummies: a symbol named like a function (``gamma``) must not shadow it in lambdify
    dums = [sp.Dummy(f"a{i}") for i in range(len(syms))]
    rep = dict(zip(syms, dums))
    ref = sp.lambdify(dums, expr.xreplace(rep), modules="mpmath")
    hyps = []
    for h in th.hypotheses:
        if h is sp.true or not isinstance(h, sp.Basic) or not h.free_symbols <= set(syms):
            continue
        if isinstance(h, sp.Equality):
            # an equation defines one variable from the others (e.g. eps' = min{...}); random points almost surely
            # miss it, so requiring it leaves no test case (hypothesis >= 6.170 reports Unsatisfiable): the kernel
            # is checked against mpmath on the domain the inequalities define
            continue
        hyps.append(sp.lambdify(dums, h.xreplace(rep), modules="mpmath"))
    # arguments of floor/ceiling: where one is within rounding of an integer, float64 and exact arithmetic may land
    # on different sides of the jump (0.1/0.01 == 10.0 in float64, 10.00000000000000035 exactly), so such points
    # are not a test of the kernel
    jumps = [sp.lambdify(dums, f.args[0].xreplace(rep), modules="mpmath") for f in expr.atoms(sp.floor, sp.ceiling)]
    hyps.append(lambda *a: not any(_near_integer(j(*a)) for j in jumps))
    return th, syms, ref, hyps


def _near_integer(v) -> bool:
    try:
        return abs(v - mp.nint(v)) <= mp.mpf(10) ** -9 * max(1, abs(v))
    except (TypeError, ValueError):
        return False


def _reference(ref, point):
    """The unrewritten expression in mpmath, precision doubled until two evaluations agree to 1e-30
    (cancellation such as ``1 - erfc(z)/2`` can eat any fixed number of digits)."""
    mags = [abs(v) for v in point if v != 0]
    dps = 60 + (int(max(0.0, -math.log10(min(mags))) + max(0.0, math.log10(max(mags)))) if mags else 0)
    prev = None
    for _ in range(5):
        with mp.workdps(dps):
            try:
                val = ref(*[mp.mpf(v) for v in point])
            except (ZeroDivisionError, ValueError):
                return mp.nan
            if prev is not None and (val == prev or abs(val - prev) <= mp.mpf(10) ** -30 * abs(val)):
                return val
            prev = val
        dps *= 2
    return val


@pytest.mark.parametrize("tid,side", _kernel_params())
def test_kernel_matches_mpmath_reference(tid, side):
    th, syms, ref, hyps = _prepared(tid, side)
    f_np, f_t, f_mp = (kernel(tid, b, side) for b in ("numpy", "torch", "mpmath"))
    if not syms:
        r = float(_reference(ref, []))
        assert math.isclose(float(f_np()), r, rel_tol=REL_TOL) and math.isclose(float(f_t()), r, rel_tol=REL_TOL)
        return
    point_st = st.tuples(*[_strategy(th, s) for s in syms])

    @settings(max_examples=8, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(st.lists(point_st, min_size=1, max_size=4))
    def check(points):
        ok = []
        for pt in points:
            with mp.workdps(60):
                good = all(bool(h(*[mp.mpf(v) for v in pt])) for h in hyps)
            if good:
                ok.append(pt)
        assume(ok)
        cols = [np.array([pt[i] for pt in ok], dtype=np.float64) for i in range(len(syms))]
        y_np = np.asarray(f_np(*cols), dtype=np.float64) * np.ones(len(ok))
        y_t = f_t(*[torch.tensor(c) for c in cols]).detach().numpy() * np.ones(len(ok))
        for i, pt in enumerate(ok):
            r = _reference(ref, pt)
            if isinstance(r, mp.mpc):
                if abs(r.imag) > 1e-30 * max(abs(r.real), 1):
                    continue  # outside the real domain of the expression
                r = r.real
            rf = float(r)
            if not mp.isfinite(r) or abs(r) > FLOAT_MAX:
                continue
            for name, y in (("numpy", y_np[i]), ("torch", y_t[i])):
                assert np.isfinite(y), f"{name} gave {y} where the reference is {mp.nstr(r, 17)} at {dict(zip(map(str, syms), pt))}"
                if abs(r) >= FLOAT_TINY:
                    rel = abs((y - r) / r)
                    assert rel <= REL_TOL, f"{name}: rel err {float(rel):.3g} at {dict(zip(map(str, syms), pt))}: {y!r} vs {mp.nstr(r, 20)}"
            # each back-end is within REL_TOL of the reference above; where the expression is ill-conditioned in
            # float64 (bu2020.delta_clt at (7, 0.01, 0.001, 5): the erfcx difference amplifies 1 ulp by ~4e4) the two
            # back-ends' special functions round differently, so their mutual agreement is held to REL_TOL too
            assert y_np[i] == y_t[i] or abs(y_np[i] - y_t[i]) <= REL_TOL * max(abs(rf), FLOAT_TINY), "numpy and torch disagree"
            with mp.workdps(50):
                ym = f_mp(*[mp.mpf(v) for v in pt])
                if abs(r) >= FLOAT_TINY:
                    assert abs(ym - r) <= mp.mpf(10) ** -25 * abs(r), f"mpmath kernel {ym} vs reference {r}"

    check()


def _grad_params():
    out = []
    for p in _kernel_params():
        tid, side = p.values
        th = get(tid, with_evidence=False)
        expr = th.rhs if side == "rhs" else th.lhs
        if not expr.free_symbols or expr.has(sp.floor, sp.ceiling, sp.sign, sp.Max, sp.Min, sp.Abs, sp.Piecewise):
            continue
        if all(s.is_integer for s in expr.free_symbols):
            continue
        out.append(pytest.param(tid, side, id=f"{tid}/{side}"))
    return out


@pytest.mark.parametrize("tid,side", _grad_params())
def test_torch_gradient_matches_sympy_derivative(tid, side):
    th, syms, _ref, hyps = _prepared(tid, side)
    f_t = kernel(tid, "torch", side)
    expr = generate._expand_sums(th.rhs if side == "rhs" else th.lhs)
    dums = [sp.Dummy(f"a{i}") for i in range(len(syms))]
    rep = dict(zip(syms, dums))
    derivs = {s: sp.lambdify(dums, sp.diff(expr, s).xreplace(rep), modules="mpmath") for s in syms if not s.is_integer}
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(20):
        pt = []
        for s in syms:
            lo, hi = _box(th, s)
            if s.is_integer:
                pt.append(float(rng.integers(math.ceil(lo), math.floor(hi) + 1)))
            elif lo > 0 and hi / lo > 100:
                pt.append(math.exp(rng.uniform(math.log(lo), math.log(hi))))
            else:
                pt.append(rng.uniform(lo, hi))
        with mp.workdps(60):
            if not all(bool(h(*[mp.mpf(v) for v in pt])) for h in hyps):
                continue
        xs = [torch.tensor(v, dtype=torch.float64, requires_grad=not s.is_integer) for v, s in zip(pt, syms)]
        y = f_t(*xs)
        if not torch.isfinite(y):
            continue
        y.backward()
        for s, xt, _v in zip(syms, xs, pt):
            if s.is_integer:
                continue
            with mp.workdps(60):
                try:
                    r = derivs[s](*[mp.mpf(u) for u in pt])
                except (ZeroDivisionError, ValueError):
                    continue
            if isinstance(r, mp.mpc) or not mp.isfinite(r) or abs(r) < 1e-250 or abs(r) > 1e300:
                continue
            g = float(xt.grad)
            assert abs(g - r) <= 1e-7 * abs(r), f"d/d{s}: torch {g!r} vs sympy {mp.nstr(r, 17)} at {pt}"
        checked += 1
        if checked >= 3:
            break
    assert checked > 0 or not syms, "no point of the domain satisfied the hypotheses"


# ---------------------------------------------------------------- degenerate parameters
KNOWN_DEGENERATE = {
    "bu2020.delta_of_eps_gdp_conjugate/lhs/mu": "erfinv(1 - erfc(z)) at mu = 0: numpy/torch NaN, mpmath 0",
}
_DEGEN = {"epsilon": 0.0, "q": 0.0, "p": 0.0, "mu": 0.0, "sigma": math.inf, "delta": 1.0}


def _degenerate_params():
    out = []
    for p in _kernel_params():
        tid, side = p.values
        names = manifest()["entries"][tid]["kernels"][side]["symbols"]
        for n in names:
            if n in _DEGEN:
                key = f"{tid}/{side}/{n}"
                marks = [pytest.mark.xfail(reason=KNOWN_DEGENERATE[key])] if key in KNOWN_DEGENERATE else []
                out.append(pytest.param(tid, side, n, id=key, marks=marks))
    return out


@pytest.mark.parametrize("tid,side,name", _degenerate_params())
def test_degenerate_values_identical_in_every_backend(tid, side, name):
    """q = 0, eps = 0, mu = 0, sigma = inf, delta = 1: numpy, torch and mpmath give the same answer
    (same value, or all non-finite), the others at their domain midpoints."""
    th, syms, _ref, _hyps = _prepared(tid, side)
    pt = []
    for s in syms:
        if s.name == name:
            pt.append(_DEGEN[name])
            continue
        lo, hi = _box(th, s)
        v = math.sqrt(lo * hi) if lo > 0 and hi / lo > 100 else (lo + hi) / 2
        pt.append(float(round(v)) if s.is_integer else v)
    with np.errstate(all="ignore"):
        y_np = float(kernel(tid, "numpy", side)(*pt))
    y_t = float(kernel(tid, "torch", side)(*[torch.tensor(v, dtype=torch.float64) for v in pt]))
    try:
        with mp.workdps(50):
            y_m = kernel(tid, "mpmath", side)(*[mp.mpf(v) for v in pt])
            y_m = float(y_m) if isinstance(y_m, mp.mpf) else float("nan")
    except (ZeroDivisionError, ValueError, TypeError):
        y_m = float("nan")
    if math.isfinite(y_m):
        assert math.isclose(y_np, y_m, rel_tol=1e-9, abs_tol=1e-300), (y_np, y_m)
        assert math.isclose(y_t, y_m, rel_tol=1e-9, abs_tol=1e-300), (y_t, y_m)
    else:
        assert not math.isfinite(y_np) and not math.isfinite(y_t), (y_np, y_t, y_m)
