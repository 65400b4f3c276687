r"""The theorem calculus: chain implications into new closed forms; register user theorems.

:func:`chain` feeds each step's conclusion into the next step's premise
(:mod:`symdp.library.implications` gives every entry's typed form): the
premise's pattern variables are renamed apart, unified with the conclusion's
parameters (a bare symbol binds; a pattern such as ``2 eps~ tau / N`` is
solved for its one unknown), and substituted into the step's conclusion and
hypotheses.  Every hypothesis of every step is kept, rewritten in the chain's
variables (the Gaussian calibration's ``eps < 1`` becomes a condition on
sigma), with the step it came from; the result's verdict is the weakest of the
steps' ledger verdicts, and an approximate step (the GDP central limit
theorem) makes the whole result an approximation.

>>> d = chain(["classical.gaussian_mechanism_calibration", "bridge.bbg2018_poisson_eps",
...            "classical.dwork_roth_advanced_composition_eps", "bridge.group_privacy_dp", "he2021uai.thm1_small_eps"])
>>> d.conclusion.kind
'Generalization'
>>> sorted(s.name for s in d.free_symbols)
['Delta', 'N', 'T', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'delta', 'deltatilde', 'q', 'sigma']

Symbols that are not premise variables are shared by name between steps (the
library uses one canonical symbol per quantity: the ``T`` of composition is
the ``T`` of the run).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy as sp

from . import properties as P
from .calculus_eval import BIND_DIGITS, EVAL_DIGITS, _numeric, decide, evaluate
from .errors import InvalidParameterError, InvalidTypeError
from .library.implications import ADJACENCY_BRIDGES, BRIDGES_FOR, Implication, implication, register_implication
from .rendering import clip
from .theorem import Evidence, Kind, Property, Source, Theorem, Verdict

__all__ = ["BRANCH", "VERDICT_ORDER", "WORKED_CHAINS", "Derivation", "Step", "chain", "decide", "evaluate", "invert", "load_theorems", "register",
           "weakest"]

#: strongest first; the weakest of a chain's step verdicts is the chain's verdict
VERDICT_ORDER = (Verdict.PROVED, Verdict.SUPPORTED, Verdict.PARTIAL, Verdict.UNCHECKED, Verdict.REFUTED)


#: the worked chains of issue 10 (examples/derive/ runs them; bench/derive.py times them), adjacency-correct
#: (issue 22): Poisson subsampling and 003's NoisySGD are add/remove, He et al. and Dwork et al. 2015 replace-one,
#: so each add/remove chain crosses to replace-one by group privacy (its cost: 2 eps, (1 + e^eps) delta; 2 mu)
GROUP_DP = "bridge.group_privacy_dp"
WORKED_CHAINS: dict[str, tuple[str, ...]] = {
    # (i) Gaussian mechanism -> Poisson subsampling -> composition -> group privacy -> He et al. Thm 1
    "gaussian_poisson_dwork_roth_he_thm1": ("classical.gaussian_mechanism_calibration", "bridge.bbg2018_poisson_eps",
                                            "classical.dwork_roth_advanced_composition_eps", GROUP_DP,
                                            "he2021uai.thm1_small_eps"),
    "gaussian_poisson_he_thm4_he_thm1": ("classical.gaussian_mechanism_calibration", "bridge.bbg2018_poisson_eps",
                                         "he2021.cor1_delta_at_thm4_eps", GROUP_DP, "he2021uai.thm1_small_eps"),
    "gaussian_poisson_kairouz_he_thm1": ("classical.gaussian_mechanism_calibration", "bridge.bbg2018_poisson_eps",
                                         "classical.kairouz2017_eps3", GROUP_DP, "he2021uai.thm1_small_eps"),
    # (ii) NoisySGD -> GDP (CLT) -> group privacy (2 mu) -> duality -> He et al. Thm 1 / Dwork et al. 2015
    "noisysgd_clt_duality_he_thm1": ("bu2020.clt_mu", "bridge.group_privacy_gdp", "bu2020.delta_of_eps_gdp",
                                     "he2021uai.thm1_small_eps"),
    "noisysgd_clt_duality_dwork2015": ("bu2020.clt_mu", "bridge.group_privacy_gdp", "bu2020.delta_of_eps_gdp",
                                       "classical.dwork2015_high_prob"),
    # ... at a fixed delta: the duality solved for epsilon (implicit function eps_mu(delta))
    "noisysgd_clt_eps_of_delta_he_thm1": ("bu2020.clt_mu", "bridge.group_privacy_gdp", "bridge.gdp_eps_of_delta",
                                          "he2021uai.thm1_small_eps"),
    # (iii) 001's SGLD: Gaussian step -> tau-of-N mini-batch -> composition -> Thm 1 (long version)
    "sgld_001": ("he2021long.thm7_eps_tilde", "he2021long.thm7_subsampling", "he2021long.thm7_eps", "he2021long.thm1"),
    # (iv) DP-SGD as the accountants see it: subsampled Gaussian RDP (exact) -> T-fold RDP composition ->
    # (eps, delta) (Canonne-Kamath-Steinke) -> group privacy -> He et al. Thm 1 (long version)
    "sgm_rdp_cks_he_thm1": ("bridge.mtz2019_sgm_rdp", "bridge.mironov2017_rdp_composition", "accounting.rdp_to_dp_cks",
                            GROUP_DP, "he2021long.thm1"),
    # (v) Wang et al.'s hierarchy (Table 1): pure DP -> KL-privacy (He et al. Lemma 2) -> On-Average KL-privacy ->
    # on-average generalization (Thm 4 with Remark 2's dispersion gamma), for the Laplace mean release of
    # Wang et al. Sec. 6 (4 gamma-DP): the gap 4 tanh(2 gamma) in the sampler's gamma; the posterior-sampling
    # premise of Thm 4 stays a premise of the derivation
    "laplace_mean_dp_kl_okl_generalization": ("wang2016.example_laplace_mean_dp", "he2021.lemma_kl",
                                              "bridge.wang2016_kl_to_on_average_kl", "wang2016.remark2_dispersion"),
}


def weakest(verdicts: Iterable[Verdict]) -> Verdict:
    vs = list(verdicts)
    if not vs:
        return Verdict.UNCHECKED
    return max(vs, key=VERDICT_ORDER.index)


@dataclass(frozen=True)
class Step:
    """One step of a derivation: the entry, its citation, its verdict and what chaining bound."""

    id: str
    citation: str
    verdict: Verdict
    binding: tuple[tuple[str, str], ...]
    approximate: bool
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "citation": self.citation, "verdict": self.verdict.value,
                "binding": dict(self.binding), "approximate": self.approximate, "note": self.note}


@dataclass(frozen=True)
class Derivation:
    """The result of :func:`chain`: premises -> conclusion with every hypothesis and its provenance."""

    ids: tuple[str, ...]
    premises: tuple[P.Prop, ...]
    conclusion: P.Prop
    hypotheses: tuple[tuple[sp.Basic, str], ...]  # (hypothesis, step id)
    steps: tuple[Step, ...]
    approximate: bool
    bound: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def verdict(self) -> Verdict:
        return weakest(s.verdict for s in self.steps)

    @property
    def free_symbols(self) -> set[sp.Symbol]:
        out = set(self.conclusion.free_symbols)
        for h, _ in self.hypotheses:
            out |= {s for s in h.free_symbols if isinstance(s, sp.Symbol)}
        return out

    def closed_form(self, param: str | None = None) -> sp.Expr:
        """The conclusion's parameter ``param`` (default: its first) as one closed form."""
        ps = self.conclusion.params()
        if param is None:
            param = next(iter(ps))
        if param not in ps:
            raise InvalidParameterError(f"param={param!r} is not a parameter of {self.conclusion.kind}; "
                                        f"allowed: {', '.join(ps)}")
        return ps[param]

    def rate(self, param: str, var: str, at: str = "oo", *, seconds: float = 20.0) -> dict[str, Any]:
        """The rate of the conclusion's ``param`` as ``var -> at`` (:func:`symdp.asymptotics.rate`) and whether
        that limit stays inside the chain's hypotheses (:func:`symdp.asymptotics.limit_region`): a rate whose
        limit leaves them says so (``"region": "leaves"``, with the hypotheses that fail)."""
        from . import asymptotics

        syms = {s.name: s for s in self.free_symbols}
        if var not in syms:
            raise InvalidParameterError(f"var={var!r} is not a symbol of the chain; allowed: {', '.join(sorted(syms))}")
        r = asymptotics.rate(self.closed_form(param), syms[var], at, seconds=seconds / 2)
        out = r.to_json()
        reg = asymptotics.limit_region(self.hypotheses, syms[var], at, seconds=seconds / 2)
        out.update(reg)
        if reg["region"] == "leaves":
            out["describe"] = (f"{out['describe']} -- but the limit {var} -> {at} leaves the chain's hypotheses "
                               f"({len(reg['fails'])} fail): no step's theorem covers it")
        elif reg["region"] == "unknown":
            out["describe"] = f"{out['describe']} -- unknown whether the limit {var} -> {at} stays inside the hypotheses"
        return out

    def values(self) -> dict[str, sp.Float]:
        """The conclusion's parameters as numbers, those with no free symbol left (every symbol bound);
        a value that is not a real number is an error naming it."""
        out: dict[str, sp.Float] = {}
        for n, e in self.conclusion.params().items():
            if e.free_symbols:
                continue
            v = sp.Float(e, EVAL_DIGITS) if e.is_Number else sp.N(e, EVAL_DIGITS)
            if not (v.is_real and v.is_finite):
                raise InvalidParameterError(f"{self.conclusion.kind} {n} = {clip(sp.sstr(v), 60)} at "
                                            f"{', '.join(f'{k}={x}' for k, x in self.bound)} is not a real number")
            out[n] = v
        return out

    def theorem(self, param: str | None = None, id: str | None = None) -> Theorem:
        """The derivation as a :class:`Theorem` bounding ``param`` (registrable with :func:`register`)."""
        ps = self.conclusion.params()
        param = param or next(iter(ps))
        rhs = self.closed_form(param)
        lhs = sp.Symbol(f"{self.conclusion.kind}_{param}", real=True)
        locator = " -> ".join(self.ids)
        return Theorem(
            id=id or "derived." + "__".join(i.lstrip(BRANCH).replace(".", "_") for i in self.ids) + f".{param}",
            title=f"{self.conclusion.kind} {param} derived by chaining {locator}",
            kind=Kind.BOUND, source=Source("derived", "", "symdp.chain", locator),
            lhs=lhs, relation="<=", rhs=rhs,
            hypotheses=tuple(h for h, _ in self.hypotheses),
            quantity=f"{param} of {self.conclusion}" + (" (APPROXIMATION)" if self.approximate else ""),
            premises=tuple(Property(p.kind, tuple(p.params().values()), p.subject_of()) for p in self.premises),
            conclusion=Property(self.conclusion.kind, tuple(ps.values()), self.conclusion.subject_of()),
            notes="; ".join(f"{s.id}: {s.citation} [{s.verdict.value}]" for s in self.steps),
            tags=("derived",) + (("approximation",) if self.approximate else ()),
            evidence=Evidence(self.verdict, detail=f"weakest verdict of the {len(self.steps)} chained steps"),
        )

    def latex(self) -> str:
        ps = self.conclusion.params()
        body = r",\quad ".join(f"{sp.latex(sp.Symbol(n))} = {sp.latex(e)}" for n, e in ps.items())
        hyps = r",\ ".join(sp.latex(h) for h, _ in self.hypotheses)
        tag = r"\ \text{(approximation)}" if self.approximate else ""
        return rf"\text{{{self.conclusion.subject_of()} is {self.conclusion.kind}}}: {body}{tag}" + (
            rf"\quad\text{{for }} {hyps}" if hyps else "")

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self.latex()}$"

    def to_json(self) -> dict[str, Any]:
        return {
            "chain": list(self.ids),
            "premises": [p.to_json() for p in self.premises],
            "conclusion": self.conclusion.to_json(),
            "closed_form": {n: sp.sstr(e) for n, e in self.conclusion.params().items()},
            "hypotheses": [{"hypothesis": sp.sstr(h), "from": s} for h, s in self.hypotheses],
            "steps": [s.to_json() for s in self.steps],
            "verdict": self.verdict.value,
            "approximate": self.approximate,
            "bound": dict(self.bound),
            "values": {n: sp.sstr(v, full_prec=False) for n, v in self.values().items()},
            "notes": list(self.notes),
            "latex": self.latex(),
        }


def _rename_apart(imp: Implication, taken: set[sp.Symbol]) -> tuple[dict[sp.Symbol, sp.Symbol], dict[sp.Symbol, sp.Symbol]]:
    """Fresh stand-ins for the premise's pattern variables (so a variable named like a symbol of
    the chain so far, e.g. ``delta``, is not confused with it); returns (forward, backward)."""
    fwd: dict[sp.Symbol, sp.Symbol] = {}
    for v in imp.pattern_variables():
        fwd[v] = sp.Dummy(v.name, **v.assumptions0)
    return fwd, {d: v for v, d in fwd.items()}


def _mismatch(prev: P.Prop, need: P.Prop, step: str) -> InvalidParameterError:
    have_t, need_t = P.property_type(prev), P.property_type(need)
    bridges = BRIDGES_FOR.get((have_t, need_t), ())
    hint = (f"; insert the bridge theorem {' or '.join(bridges)} between them" if bridges
            else "; no bridge theorem in the library connects them (a step that starts a second mechanism is "
                 f"written '{BRANCH}{step}')")
    return InvalidParameterError(
        f"chain step {step!r} needs a premise {need_t} but the previous step concludes {have_t}{hint}")


def _adjacency(prev: P.Prop, need: P.Prop, step: str, carried: str) -> tuple[str, str]:
    """The neighbouring relation the chain carries past ``step`` (and a note when ``step`` fixes it).

    ``carried`` is the relation fixed so far ("any" until a step names one).  A premise stated for a
    relation other than the one the chain carries is an error naming the bridge that converts them."""
    have = P.adjacency_of(prev) or P.ANY_ADJACENCY
    if have == P.ANY_ADJACENCY:
        have = carried
    want = P.adjacency_of(need) or P.ANY_ADJACENCY
    if want == P.ANY_ADJACENCY:
        return have, ""
    if have == P.ANY_ADJACENCY:
        return want, (f"{step} fixes the neighbouring relation to {P.ADJACENCY_TEXT[want]}: the earlier steps' "
                      f"sensitivities are {P.ADJACENCY_TEXT[want]} sensitivities")
    if have == want:
        return want, ""
    kind = P.property_type(prev)
    bridges = ADJACENCY_BRIDGES.get((kind, have, want), ())
    hint = (f"; insert the bridge theorem {' or '.join(bridges)} (group privacy) between them" if bridges
            else f"; no bridge theorem in the library turns {P.ADJACENCY_TEXT[have]} {kind} into "
                 f"{P.ADJACENCY_TEXT[want]} {kind}")
    raise InvalidParameterError(
        f"chain step {step!r} needs a premise {kind} under {P.ADJACENCY_TEXT[want]} adjacency but the previous step "
        f"concludes {kind} under {P.ADJACENCY_TEXT[have]} adjacency{hint}")


def _simplify_zero(e: sp.Expr) -> bool:
    if e == 0:
        return True
    try:
        return bool(sp.simplify(e) == 0)
    except Exception:  # noqa: BLE001 - SymPy may raise on exotic forms: not provably zero
        return False


def _unify(prev: P.Prop, need: P.Prop, fwd: Mapping[sp.Symbol, sp.Symbol], step: str) -> dict[sp.Symbol, sp.Expr]:
    """Bindings of the premise's (renamed) pattern variables that make ``need`` equal ``prev``."""
    a, b = P.canonical(prev), P.canonical(need)
    if P.property_type(a) != P.property_type(b):
        raise _mismatch(prev, need, step)
    have, want = a.params(), b.params()
    if set(have) != set(want):
        raise _mismatch(prev, need, step)
    dummies = set(fwd.values())
    binding: dict[sp.Symbol, sp.Expr] = {}
    order = sorted(want, key=lambda n: 0 if want[n] in dummies else 1)
    for name in order:
        pat = want[name].xreplace(binding)
        val = have[name]
        unknown = [s for s in pat.free_symbols if s in dummies and s not in binding]
        if isinstance(pat, sp.Dummy) and pat in dummies:
            binding[pat] = val
            continue
        if not unknown:
            if not _simplify_zero(pat - val):
                raise InvalidParameterError(
                    f"chain step {step!r}: premise {b.kind} parameter {name} = {sp.sstr(pat)} does not match the "
                    f"previous conclusion's {sp.sstr(val)}")
            continue
        if len(unknown) > 1:
            raise InvalidParameterError(
                f"chain step {step!r}: premise parameter {name} = {sp.sstr(pat)} has {len(unknown)} unknowns; "
                "allowed: at most one per parameter")
        u = unknown[0]
        try:
            sols = sp.solve(sp.Eq(pat, val), u, dict=False)
        except Exception as exc:  # noqa: BLE001 - SymPy's solver raises many types; report it as one line
            raise InvalidParameterError(
                f"chain step {step!r}: cannot solve premise parameter {name} = {sp.sstr(pat)} for {u.name} "
                f"({type(exc).__name__})") from None
        if len(sols) != 1:
            raise InvalidParameterError(
                f"chain step {step!r}: cannot solve premise parameter {name} = {sp.sstr(pat)} for {u.name} "
                f"against {sp.sstr(val)} ({len(sols)} solutions)")
        binding[u] = sols[0]
    return binding


#: conclusion parameters that are probabilities (in [0, 1]) and those that are nonnegative (gaps, epsilons, ...)
PROBABILITY_PARAMS = {"ApproxDP": ("delta",), "MaxInformation": ("beta",), "Generalization": ("failure",)}
NONNEGATIVE_PARAMS = {"ApproxDP": ("eps",), "Generalization": ("gap",), "GDP": ("mu",), "zCDP": ("rho",),
                      "RDP": ("eps_alpha",), "MaxInformation": ("k",), "OnAverageKL": ("eps",),
                      "KLPrivacy": ("eps",), "OnAverageGeneralization": ("gap",)}


def _nontrivial(h: sp.Basic) -> bool:
    return h is not True and not isinstance(h, sp.logic.boolalg.BooleanTrue)


def _range_hypotheses(binding: Mapping[sp.Symbol, sp.Expr]) -> list[sp.Basic]:
    """The declared range of each premise variable, as a hypothesis on what it was bound to (a premise
    ``eps`` declared positive bound to ``eps - 1/2`` keeps ``eps - 1/2 > 0``)."""
    out: list[sp.Basic] = []
    for var, val in binding.items():
        if isinstance(val, sp.Symbol) and val.name == var.name:
            continue
        if var.is_positive:
            h = sp.StrictGreaterThan(val, 0)
        elif var.is_nonnegative:
            h = sp.GreaterThan(val, 0)
        else:
            continue
        if _nontrivial(h):
            out.append(h)
    return out


def _conclusion_ranges(c: P.Prop) -> list[sp.Basic]:
    """Probabilities in [0, 1] and gaps / epsilons >= 0: a printed conclusion outside them is no bound."""
    ps = P.canonical(c).params()
    kind = P.canonical(c).kind
    out: list[sp.Basic] = []
    for name in PROBABILITY_PARAMS.get(kind, ()):
        out += [sp.GreaterThan(ps[name], 0), sp.LessThan(ps[name], 1)]
    for name in NONNEGATIVE_PARAMS.get(kind, ()):
        if name in ps:
            out.append(sp.GreaterThan(ps[name], 0))
    return [h for h in out if _nontrivial(h)]


def _step_hypotheses(imp: Implication, th: Theorem) -> tuple[sp.Basic, ...]:
    return tuple(imp.hypotheses) if imp.replaces_hypotheses else (*th.hypotheses, *imp.hypotheses)


def _citation(th: Theorem) -> str:
    return th.source.cite()


def _parse_binding(bind: Mapping[str, Any] | None) -> dict[str, sp.Expr]:
    out: dict[str, sp.Expr] = {}
    for name, value in (bind or {}).items():
        if isinstance(value, sp.Basic):
            out[name] = value
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidTypeError(f"bind[{name!r}]={value!r}: expected a number or a SymPy expression")
        else:
            out[name] = sp.Integer(value) if isinstance(value, int) else sp.nsimplify(value, rational=True)
    return out


#: the limits one :func:`chain` call (with its ``bind``) runs under by default
CHAIN_SECONDS = 60.0
CHAIN_MEMORY_MB = 4096.0


def chain(ids: Sequence[str], *, bind: Mapping[str, Any] | None = None, simplify: bool = False,
          seconds: float = CHAIN_SECONDS, memory_mb: float | None = CHAIN_MEMORY_MB,
          ignore_extra: bool = False) -> Derivation:
    """Chain library (or registered user) entries: each conclusion feeds the next premise.

    ``bind`` substitutes values (numbers or SymPy expressions) for named symbols of the result
    (e.g. ``{"Delta": 1, "T": 1000}``); a name the result does not contain is an error, and so is a
    value that violates a hypothesis (each is evaluated numerically once its symbols are bound, and
    the error shows its sides' values); with every symbol bound the conclusion's parameters are
    numbers, computed step by step (each step's conclusion is a number before the next step uses it,
    so a long chain stays fast; the values and refusals are the symbolic path's).  With ``simplify`` the closed forms are simplified (slower; the default keeps them as
    substituted).  The derivation runs under ``seconds`` and ``memory_mb`` (:mod:`symdp.limits`); past
    either it raises a one-line :class:`~symdp.limits.LimitExceeded` naming the chain.  With ``ignore_extra``
    a name of ``bind`` that is not a symbol of the chain is dropped instead of refused (``Derivation.bound``
    lists the names used): one bind serves every prefix of a chain (the referee's use).
    """
    from .library import get
    from .limits import LimitExceeded, in_limited_child, run_limited

    if isinstance(ids, str):
        ids = [i for i in ids.split(",") if i.strip()]
    ids = tuple(i.strip() for i in ids)
    if not ids:
        raise InvalidParameterError("chain=(): allowed: at least one theorem id")
    bare = [_strip_branch(i)[0] for i in ids]
    imps = [implication(i) for i in bare]  # errors (unknown id, no implication) here; library loaded once, shared
    ths = [get(i) for i in bare]
    values = _parse_binding(bind)
    if in_limited_child():
        return _chain(ids, imps, ths, values, simplify, ignore_extra)
    try:
        d = run_limited(_chain, ids, imps, ths, values, simplify, ignore_extra, seconds=seconds, memory_mb=memory_mb)
    except LimitExceeded as exc:
        raise type(exc)(f"chain {','.join(ids)}{' with bind' if values else ''}: {exc}; allowed: at most "
                        f"{seconds:g} s and {memory_mb or 0:g} MiB (fewer steps or fewer unbound symbols)") from None
    # a relation rebuilt from its pickle is re-evaluated: drop those SymPy now decides True, refuse a False one
    for h, where in d.hypotheses:
        if isinstance(h, sp.logic.boolalg.BooleanFalse):
            raise InvalidParameterError(f"chain {','.join(ids)}: a hypothesis of {where} is false")
    kept = tuple((h, w) for h, w in d.hypotheses if _nontrivial(h))
    return d if len(kept) == len(d.hypotheses) else replace(d, hypotheses=kept)


#: a chain id starting with this marker starts a new branch: its premises are not fed by the previous step
#: (they become premises of the derivation, its pattern variables renamed apart with the branch's number),
#: and a later multi-premise step unifies its premises with the branches' conclusions
BRANCH = "+"


def _strip_branch(i: str) -> tuple[str, bool]:
    return (i[len(BRANCH):].strip(), True) if i.startswith(BRANCH) else (i, False)


def _branch_renaming(imp: Implication, number: int) -> dict[sp.Symbol, sp.Symbol]:
    """A branch's own copy of its premise variables (``sigma`` -> ``sigma_2``): a second mechanism is not the first."""
    return {v: sp.Symbol(f"{v.name}_{number}", **v.assumptions0) for v in imp.pattern_variables()}


def _assign(opened: list[tuple[P.Prop, str, str]], needs: list[P.Prop], step: str) -> dict[int, int]:
    """Which open conclusion (index into ``opened``) feeds which premise (index into ``needs``).

    Every premise takes an unused open conclusion of its property type (kind, mechanism), earliest first;
    the previous step's conclusion (the last open one) must feed one of them, else the mismatch error
    naming the bridge.  When the earliest-first assignment leaves it unused, it feeds the first premise
    of its type and the others are assigned earliest first."""
    last = len(opened) - 1
    types = [P.property_type(c) for c, _, _ in opened]

    def fill(out: dict[int, int]) -> dict[int, int]:
        used = set(out.values())
        for j, need in enumerate(needs):
            if j in out:
                continue
            t = P.property_type(need)
            oi = next((o for o in range(len(opened)) if o not in used and types[o] == t), None)
            if oi is not None:
                out[j] = oi
                used.add(oi)
        return out

    got = fill({})
    if last in got.values():
        return got
    first = next((j for j, need in enumerate(needs) if P.property_type(need) == types[last]), None)
    if first is None:
        typed = next((n for n in needs if not isinstance(P.canonical(n), P.OtherProperty)), needs[0])
        raise _mismatch(opened[last][0], typed, step)
    return fill({first: last})


def _chain(ids: tuple[str, ...], imps: list[Implication], ths: list[Theorem], values: dict[str, sp.Expr],
           simplify: bool, ignore_extra: bool = False) -> Derivation:
    """The derivation; with every symbol bound to a number, step by step (:class:`_StepNumbers`: each step's
    conclusion parameters become numbers before the next step unifies with them, so no tree grows), else (or
    where the step-by-step path cannot follow the chain) symbolically and then bound (:func:`_bind`)."""
    d: Derivation | None = None
    if values and all(v.is_number for v in values.values()):
        num = _StepNumbers(values)
        try:
            steps = _chain_steps(ids, imps, ths, num)
        except (_Fallback, InvalidParameterError):  # the symbolic path gives the same result or error
            steps = None
        if steps is not None:
            try:
                d = num.bind(steps, ignore_extra)  # a violated hypothesis is refused here, as _bind refuses it
            except _Fallback:
                d = None
    if d is None:
        d = _chain_steps(ids, imps, ths, None)
        if values and ignore_extra:
            names = {x.name for x in d.free_symbols | {x for p in d.premises for x in p.free_symbols}}
            values = {k: v for k, v in values.items() if k in names}
        if values:
            d = _bind(d, values)
    if simplify:
        ps = {n: sp.simplify(e) for n, e in d.conclusion.params().items()}
        d = Derivation(d.ids, d.premises, _replace_params(d.conclusion, ps), d.hypotheses, d.steps, d.approximate,
                       d.bound, d.notes)
    return d


def _chain_steps(ids: tuple[str, ...], imps: list[Implication], ths: list[Theorem],
                 num: _StepNumbers | None) -> Derivation:
    premises: tuple[P.Prop, ...] = ()
    hyps: list[tuple[sp.Basic, str]] = []
    steps: list[Step] = []
    approximate = False
    notes: list[str] = []
    # conclusions no later step has used yet: (conclusion, neighbouring relation it carries, step id)
    opened: list[tuple[P.Prop, str, str]] = []
    branches = 1
    conclusion: P.Prop
    for k, (raw, imp, th) in enumerate(zip(ids, imps, ths)):
        branch = _strip_branch(raw)[1]
        if k == 0 or branch:
            ren: dict[sp.Symbol, sp.Symbol] = {}
            if k > 0:
                branches += 1
                ren = _branch_renaming(imp, branches)
                notes.append(f"{imp.id} starts branch {branches}: its premises are premises of the derivation"
                             + (f" (renamed {', '.join(f'{a} -> {b}' for a, b in ren.items())})" if ren else ""))
            conclusion = imp.conclusion.xreplace(ren)
            premises = premises + tuple(p.xreplace(ren) for p in imp.premises)
            hyps += [(h.xreplace(ren), imp.id) for h in _step_hypotheses(imp, th)]
            steps.append(Step(imp.id, _citation(th), th.evidence.verdict,
                              tuple((a.name, b.name) for a, b in ren.items()), imp.approximate, imp.note))
            approximate = approximate or imp.approximate
            if imp.note:
                notes.append(imp.note)
            if num is not None:
                conclusion = num.collapse(conclusion, k + 1)
            opened.append((conclusion, P.adjacency_of(conclusion) or P.ANY_ADJACENCY, imp.id))
            continue
        if not imp.premises:
            raise InvalidParameterError(f"chain step {imp.id!r} has no premise to unify with")
        fwd, back = _rename_apart(imp, set())
        needs = [p.xreplace(fwd) for p in imp.premises]
        assignment = _assign(opened, needs, imp.id)
        last = len(opened) - 1
        binding: dict[sp.Symbol, sp.Expr] = {}
        relations: dict[str, str] = {}  # fixed relation -> the step whose conclusion carries it
        adj_notes: list[str] = []
        # the previous step's premise first (its errors are the linear chain's), then the others in order
        for j in sorted(assignment, key=lambda j: (assignment[j] != last, j)):
            prev, carried, src = opened[assignment[j]]
            need = needs[j].xreplace(binding)
            binding.update(_unify(prev, need, fwd, imp.id))
            rel, adj_note = _adjacency(prev, need, imp.id, carried)
            if adj_note:
                adj_notes.append(adj_note)
            if rel != P.ANY_ADJACENCY:
                relations.setdefault(rel, src)
        if len(relations) > 1:
            (r1, s1), (r2, s2) = list(relations.items())[:2]
            kind = P.property_type(opened[last][0])
            bridges = sorted({b for (_, have, want), bs in ADJACENCY_BRIDGES.items() for b in bs if have in (r1, r2)
                              and want in (r1, r2)})
            raise InvalidParameterError(
                f"chain step {imp.id!r} combines a conclusion of {s1} under {P.ADJACENCY_TEXT[r1]} adjacency with one "
                f"of {s2} under {P.ADJACENCY_TEXT[r2]} adjacency"
                + (f"; insert the bridge theorem {' or '.join(bridges)} (group privacy) on the {P.ADJACENCY_TEXT['add_remove']} "
                   f"branch" if bridges else f"; no bridge theorem in the library converts {kind} between them"))
        adjacency = next(iter(relations), P.ANY_ADJACENCY)
        notes += list(dict.fromkeys(adj_notes))
        if len(assignment) > 1 or next(iter(assignment)) != 0:
            fed = "; ".join(f"premise {j + 1} ({P.property_type(needs[j])}) <- {opened[o][2]}"
                            for j, o in sorted(assignment.items()))
            notes.append(f"{imp.id} unifies {fed}")
        unbound = {d: v for d, v in back.items() if d not in binding}
        full: dict[sp.Basic, sp.Basic] = {**binding, **unbound}

        def tr(e: sp.Basic, fwd: dict[sp.Symbol, sp.Symbol] = fwd, full: dict[sp.Basic, sp.Basic] = full) -> sp.Basic:
            return e.xreplace(fwd).xreplace(full)

        conclusion = imp.conclusion.xreplace(fwd).xreplace(full)
        own = P.adjacency_of(conclusion)
        if own == P.ANY_ADJACENCY:
            conclusion = P.with_adjacency(conclusion, adjacency)
        elif own is not None:
            adjacency = own
        # premises no earlier conclusion feeds are premises of the derivation, listed explicitly
        premises = premises + tuple(needs[j].xreplace(full) for j in range(len(needs)) if j not in assignment)
        for h in _step_hypotheses(imp, th):
            hyps.append((tr(h), imp.id))
        hyps += [(h, f"{imp.id} (premise ranges)") for h in _range_hypotheses(
            {back[d]: v for d, v in binding.items()})]
        steps.append(Step(imp.id, _citation(th), th.evidence.verdict,
                          tuple((back[d].name, sp.sstr(num.show(v) if num is not None else v)) for d, v in binding.items()),
                          imp.approximate, imp.note))
        approximate = approximate or imp.approximate
        if imp.note:
            notes.append(imp.note)
        opened = [o for i, o in enumerate(opened) if i not in set(assignment.values())]
        if num is not None:
            conclusion = num.collapse(conclusion, k + 1)
        opened.append((conclusion, adjacency, imp.id))
    if len(opened) > 1:
        left = ", ".join(f"{s} ({P.property_type(c)})" for c, _, s in opened[:-1])
        raise InvalidParameterError(f"chain {','.join(ids)}: the conclusion of {left} is used by no later step; "
                                    f"allowed: every branch ('{BRANCH}ID') feeds a later step with several premises")
    hyps += [(h, "range of the conclusion") for h in _conclusion_ranges(conclusion)]
    # drop hypotheses that became trivially true, keep everything else (with provenance)
    kept: list[tuple[sp.Basic, str]] = []
    seen: set[tuple[sp.Basic, str]] = set()
    for h, s in hyps:
        if h is True or isinstance(h, sp.logic.boolalg.BooleanTrue):
            continue
        key = (h, s)  # structural equality and hash (srepr of the large trees cost seconds)
        if key not in seen:
            seen.add(key)
            kept.append((h, s))
    return Derivation(ids, premises, conclusion, tuple(kept), tuple(steps), approximate, (), tuple(dict.fromkeys(notes)))


def _replace_params(p: P.Prop, ps: Mapping[str, sp.Expr]) -> P.Prop:
    from dataclasses import replace

    if isinstance(p, (P.Mechanism, P.OtherProperty)):
        return p
    return replace(p, **dict(ps))


def _check_binding(symbols: Iterable[sp.Symbol], values: Mapping[str, sp.Expr]
                   ) -> tuple[dict[sp.Basic, sp.Basic], dict[sp.Symbol, sp.Expr]]:
    """Each bound name a symbol of the chain (``symbols``) and inside its declared range: the substitution
    (numbers at :data:`BIND_DIGITS`) and the values as given (rational, for ties within rounding)."""
    by_name: dict[str, sp.Symbol] = {}
    for s in symbols:
        by_name.setdefault(s.name, s)
    m: dict[sp.Basic, sp.Basic] = {}
    exact: dict[sp.Symbol, sp.Expr] = {}  # the values as given (rational), for ties within rounding
    for name, v in values.items():
        if name not in by_name:
            raise InvalidParameterError(f"bind {name}={sp.sstr(v)}: {name!r} is not a symbol of the chain; "
                                        f"allowed: {', '.join(sorted(by_name))}")
        sym = by_name[name]
        if v.is_number:
            checks = [("positive", v.is_positive, "> 0"), ("nonnegative", v.is_nonnegative, ">= 0"),
                      ("integer", v.is_integer, "an integer"), ("real", v.is_real, "a real number")]
            for assumption, ok, allowed in checks:
                if getattr(sym, f"is_{assumption}") and ok is not True:
                    raise InvalidParameterError(f"bind {name}={sp.sstr(v)} is out of range; allowed: {allowed}")
        m[sym] = _numeric(v)
        exact[sym] = v
    return m, exact


def _bind(d: Derivation, values: Mapping[str, sp.Expr]) -> Derivation:
    import mpmath

    m, exact = _check_binding(d.free_symbols | {s for p in d.premises for s in p.free_symbols}, values)
    at = ", ".join(f"{k}={sp.sstr(v)}" for k, v in values.items())
    hyps: list[tuple[sp.Basic, str]] = []
    for h, s in d.hypotheses:
        if not isinstance(h, sp.core.relational.Relational):
            hv = h.xreplace(m)
            if hv is sp.false:
                raise InvalidParameterError(f"bind {at}: violates hypothesis {clip(sp.sstr(h), 200)} of {s}")
            if hv is not sp.true:
                hyps.append((hv, s))
            continue
        if h.free_symbols <= set(m):
            ok, shown = decide(h, m, exact)
            if ok is False:
                raise InvalidParameterError(f"bind {at}: violates hypothesis {clip(sp.sstr(h), 200)} of {s} ({shown})")
            if ok is None:
                raise InvalidParameterError(
                    f"bind {at}: hypothesis {clip(sp.sstr(h), 200)} of {s} cannot be decided at these values ({shown})")
            continue
        # partly bound: substitute without letting SymPy decide a comparison of large numeric trees
        hyps.append((sp.Rel(h.lhs.xreplace(m), h.rhs.xreplace(m), h.rel_op, evaluate=False), s))

    def value(e: sp.Expr) -> sp.Expr:
        if not e.free_symbols <= set(m):
            return e.xreplace(m)
        v = evaluate(e, m)
        with mpmath.workdps(EVAL_DIGITS):
            if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v):
                raise InvalidParameterError(f"bind {at}: the conclusion {clip(sp.sstr(e), 120)} is not a real number "
                                            f"there ({mpmath.nstr(v, 8)}); allowed: values inside every hypothesis")
            return sp.Float(mpmath.nstr(v, EVAL_DIGITS), EVAL_DIGITS)

    concl = d.conclusion
    if not isinstance(concl, (P.Mechanism, P.OtherProperty)):
        concl = _replace_params(concl, {n: value(e) for n, e in concl.params().items()})
    else:
        concl = concl.xreplace(m)
    return Derivation(d.ids, tuple(p.xreplace(m) for p in d.premises), concl, tuple(hyps),
                      d.steps, d.approximate, tuple((k, sp.sstr(v)) for k, v in values.items()), d.notes)


class _Fallback(Exception):
    """The step-by-step path cannot follow this chain (a symbol left unbound, a value that is not a real number
    part way): the symbolic path decides it."""


#: a refused hypothesis standing on at most this many placeholders is shown as the symbolic path shows it
_EXPAND_PLACEHOLDERS = 12
#: bits of an exact rational kept for a conclusion parameter (a tie within rounding is decided exactly with it)
_EXACT_BITS = 20000


class _StepNumbers:
    """A chain with every symbol bound, evaluated step by step: each step's compound conclusion parameters are
    replaced by a placeholder symbol (``eps[3]``: the eps step 3 concludes) whose number (:data:`BIND_DIGITS`
    digits; exact where it is a rational function of rational values) the next steps use, so no closed form
    grows.  Every hypothesis is decided at the bound values exactly as :func:`_bind` decides it on the full
    closed form (:func:`decide`, exact rational ties included), in the same order, with the same errors."""

    def __init__(self, values: Mapping[str, sp.Expr]) -> None:
        self.values = dict(values)
        self.env: dict[sp.Symbol, sp.Expr] = {}    # bound symbols and placeholders -> numbers
        self.exact: dict[sp.Symbol, sp.Expr] = {}  # -> exact rationals, where known
        self.deps: dict[sp.Symbol, set[sp.Symbol]] = {}  # placeholder -> the chain's symbols it stands on
        self.expr: dict[sp.Symbol, sp.Expr] = {}  # placeholder -> its closed form in earlier placeholders

    def _bound(self, x: sp.Symbol) -> bool:
        if x in self.env:
            return True
        v = self.values.get(x.name)
        if v is None:
            return False
        self.env[x], self.exact[x] = _numeric(v), v
        return True

    def _real(self, syms: Iterable[sp.Basic]) -> set[sp.Symbol]:
        out: set[sp.Symbol] = set()
        for x in syms:
            if isinstance(x, sp.Symbol):
                out |= self.deps.get(x, {x})
        return out

    def collapse(self, c: P.Prop, k: int) -> P.Prop:
        import mpmath

        if isinstance(c, (P.Mechanism, P.OtherProperty)):
            return c
        new: dict[str, sp.Expr] = {}
        for n, e in c.params().items():
            if isinstance(e, sp.Symbol) or e.is_Number:
                new[n] = e
                continue
            if not all(self._bound(x) for x in e.free_symbols):
                raise _Fallback(n)
            v = evaluate(e, self.env, BIND_DIGITS)
            with mpmath.workdps(BIND_DIGITS):
                if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v):
                    raise _Fallback(n)
                num = sp.Float(mpmath.nstr(v, BIND_DIGITS + 5), BIND_DIGITS + 5)
            assume = ({"positive": True} if e.is_positive else {"nonnegative": True} if e.is_nonnegative
                      else {"real": True} if e.is_real else {})
            ph = sp.Dummy(f"{n}[{k}]", **assume)
            self.env[ph] = num
            self.deps[ph] = self._real(e.free_symbols)
            self.expr[ph] = e
            syms = tuple(e.free_symbols)
            if all(isinstance(self.exact.get(x), sp.Rational) for x in syms) and e.is_rational_function(*syms):
                r = e.xreplace(self.exact)
                if r.is_Rational and int(r.p).bit_length() + int(r.q).bit_length() <= _EXACT_BITS:
                    self.exact[ph] = r
            new[n] = ph
        return _replace_params(c, new)

    def show(self, e: sp.Basic) -> sp.Basic:
        """``e`` with each placeholder replaced by its number (15 digits), for display."""
        return e.xreplace({x: sp.Float(self.env[x], 15) for x in e.free_symbols if x in self.deps})

    def _where(self, e: sp.Basic) -> str:
        phs = sorted((x for x in e.free_symbols if x in self.deps), key=lambda x: x.name)
        return "".join(f"; {x.name} = {sp.sstr(sp.Float(self.env[x], 12), full_prec=False)} (the {x.name.split('[')[0]} "
                       f"step {x.name.split('[')[1].rstrip(']')} of the chain concludes)" for x in phs)

    def expand(self, h: sp.Basic) -> sp.Basic | None:
        """``h`` with its placeholders replaced by their closed forms (the symbolic path's hypothesis), where it
        stands on at most :data:`_EXPAND_PLACEHOLDERS` of them (a refusal then reads exactly as the symbolic
        path's); None where it stands on more (the closed form is the tree this path avoids)."""
        closure: set[sp.Symbol] = set()
        todo = [x for x in h.free_symbols if x in self.expr]
        while todo:
            x = todo.pop()
            if x not in closure:
                closure.add(x)
                todo += [y for y in self.expr[x].free_symbols if y in self.expr]
        if len(closure) > _EXPAND_PLACEHOLDERS:
            return None
        # bottom up, as the symbolic path builds them: each closed form from its predecessors' full closed forms
        full: dict[sp.Basic, sp.Basic] = {}
        for x in sorted(closure, key=list(self.expr).index):
            full[x] = self.expr[x].xreplace(full)
        return h.xreplace(full)

    def bind(self, d: Derivation, ignore_extra: bool = False) -> Derivation:
        """``d`` (the chain with placeholders) at the bound values; with ``ignore_extra`` a bound name that is not a
        symbol of the chain is dropped, not refused."""
        import mpmath

        params = d.conclusion.params()
        if any(not all(x.name in self.values for x in self._real(h.free_symbols)) for h, _ in d.hypotheses) or any(
                not all(x.name in self.values for x in self._real(e.free_symbols)) for e in params.values()):
            raise _Fallback("a symbol is left unbound")
        symbols = self._real(d.free_symbols | {x for p in d.premises for x in p.free_symbols})
        values = self.values
        if ignore_extra:
            names = {x.name for x in symbols}
            values = {k: v for k, v in values.items() if k in names}
        m, exact = _check_binding(symbols, values)  # the names and ranges, as _bind checks them
        env = {**self.env, **m}
        ex = {**self.exact, **exact}
        at = ", ".join(f"{k}={sp.sstr(v)}" for k, v in values.items())
        floats = {x: self.env[x] for x in self.deps}
        hyps: list[tuple[sp.Basic, str]] = []
        for h0, s in d.hypotheses:
            h = h0
            if isinstance(h, sp.core.relational.Relational):
                ok, shown = decide(h, env, ex)
                if ok is True:
                    continue
                hx = self.expand(h)  # refused: decided again on the symbolic path's hypothesis, and shown as it
                if hx is not None:
                    h = hx
                    if isinstance(h, sp.core.relational.Relational):
                        ok, shown = decide(h, env, ex)
                        if ok is True:
                            continue
            if not isinstance(h, sp.core.relational.Relational):
                if h is sp.true or h is True:
                    continue
                hv = h.xreplace(floats).xreplace(m)
                if hv is sp.false:
                    raise InvalidParameterError(f"bind {at}: violates hypothesis {clip(sp.sstr(h), 200)} of {s}"
                                                f"{self._where(h)}")
                if hv is not sp.true:
                    hyps.append((hv, s))
                continue
            if ok is False:
                raise InvalidParameterError(f"bind {at}: violates hypothesis {clip(sp.sstr(h), 200)} of {s} ({shown})"
                                            f"{self._where(h)}")
            if ok is None:
                raise InvalidParameterError(
                    f"bind {at}: hypothesis {clip(sp.sstr(h), 200)} of {s} cannot be decided at these values ({shown})"
                    f"{self._where(h)}")

        def value(e: sp.Expr) -> sp.Expr:
            v = evaluate(e, env)
            with mpmath.workdps(EVAL_DIGITS):
                if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v):
                    raise _Fallback("not a real number")
                return sp.Float(mpmath.nstr(v, EVAL_DIGITS), EVAL_DIGITS)

        concl = d.conclusion
        if not isinstance(concl, (P.Mechanism, P.OtherProperty)):
            concl = _replace_params(concl, {n: value(e) for n, e in params.items()})
        else:
            concl = concl.xreplace(floats).xreplace(m)
        return Derivation(d.ids, tuple(p.xreplace(floats).xreplace(m) for p in d.premises), concl, tuple(hyps),
                          d.steps, d.approximate, tuple((k, sp.sstr(v)) for k, v in values.items()), d.notes)


# ---------------------------------------------------------------------------------------- user theorems
def register(th: Theorem, *, premises: Sequence[P.Prop] = (), conclusion: P.Prop | None = None,
             replace: bool = False) -> Theorem:
    """Register a user theorem beside the library's: ``symdp.get``, ``kernel``, ``invert``,
    ``verify``, ``audit``, ``derive`` and the accountants then accept its id.  With a typed
    ``conclusion`` (and ``premises``) it also chains."""
    from .library import register as _reg
    from .library.implications import unregister_implication

    out = _reg(th, replace=replace)
    if conclusion is not None:
        register_implication(Implication(th.id, tuple(premises), conclusion))
    else:  # replaced without a conclusion: the old typed implication must not keep chaining
        unregister_implication(th.id)
    return out


def load_theorems(path: str, *, register_them: bool = True) -> list[Theorem]:
    """Read a TOML theorem file (the safe grammar of claim files: parsed, never executed)."""
    from .library.implications import load_theorem_file

    return load_theorem_file(path, register_them=register_them)


def invert(th: Theorem | str, var: str, value: Any, *, side: str = "rhs", **others: Any) -> Any:
    """Solve ``rhs(var, others) = value`` for ``var`` on the safe side (see :mod:`symdp.inverse`)."""
    from .inverse import invert as _inv

    return _inv(th, var, value, side=side, **others)
