r"""The audit: every claim of the library (and of user claim files) through the verifier, with reports.

The audit does not re-implement checking: each claim is a
:class:`~symdp.theorem.Theorem` and :func:`symdp.verify.verify_theorem` runs the
ladder (symbolic, Z3, interval, numerical search with shrinking and a 50-digit
re-confirmation).  The audit maps verdicts to HOLDS / FAILS / PARTIAL /
UNDECIDED, adds plots, and writes the reports.

>>> from symdp.audit import audit_theorems
>>> from symdp.library import get
>>> [r.verdict for r in audit_theorems([get("he2021.lemma_kl", with_evidence=False)], plots=False)]
['HOLDS']
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import mpmath
import sympy as sp

from ..rendering import clip
from ..theorem import Kind, Theorem, Verdict
from .claims import UserClaim, load_claims
from .report import AuditResult
from .result import statement_latex
from .severity import annotate, inherit_refutation

#: kinds the audit treats as claims (definitions are not claims)
CLAIM_KINDS = (Kind.BOUND, Kind.COMPARISON, Kind.EXPANSION, Kind.IDENTITY, Kind.EQUIVALENCE)

_VERDICT_MAP = {
    Verdict.PROVED: ("HOLDS", "proved"),
    Verdict.SUPPORTED: ("HOLDS", "supported"),
    Verdict.REFUTED: ("FAILS", ""),
    Verdict.PARTIAL: ("PARTIAL", ""),
    Verdict.UNCHECKED: ("UNDECIDED", ""),
}


#: seconds this process spent per audit stage (verify, exact, severity, plot) since the last reset; a parallel
#: task resets it and returns it with its results (``bench/audit.py`` prints where the time goes)
STAGE_SECONDS: dict[str, float] = {}


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Add the wall time of the block to :data:`STAGE_SECONDS` under ``name``."""
    t0 = time.monotonic()
    try:
        yield
    finally:
        STAGE_SECONDS[name] = STAGE_SECONDS.get(name, 0.0) + time.monotonic() - t0


def _kind_label(th: Theorem) -> str:
    if "user-claim" in th.tags:
        return th.kind.value
    if th.kind is Kind.COMPARISON:
        if th.id.startswith("he2021long.consistency") or "consistency" in th.tags:
            return "consistency"
        return "factor" if th.relation == "==" else "tighter-than"
    if th.kind is Kind.BOUND:
        return "valid bound"
    return th.kind.value


def _statement(th: Theorem) -> str:
    st = th.statement()
    if st is None:
        return clip(th.notes, 200) if th.notes else th.title
    s = sp.sstr(st)
    if th.kind is Kind.EXPANSION and th.expansion is not None:
        ex = th.expansion
        s = f"{sp.sstr(th.lhs)} = {sp.sstr(th.rhs)} + O(order {ex.order}) as {ex.var} -> {ex.point}"
    return s


def _functions(th: Theorem) -> tuple[Callable, Callable, set[sp.Symbol], str, str, Any] | None:
    """(f_claim, f_true, symbols, claim label, true label, box) for plotting, or None.  ``box``: for an oracle
    claim the box the verifier searched (:func:`symdp.verify.oracle_search_box`: the entry's domain under the
    oracle's caps and the mapper's default ranges), else the entry's domain."""
    from ..verify import ORACLES, compile_expr, oracle_search_box, sampling_box
    from ..verify import oracle_functions as _oracle_functions

    if th.oracle:
        orc = ORACLES.get(th.oracle)
        if orc is None or orc.mapper_decides:  # no functions to plot (the mapper returns its own evidence)
            return None
        mapped = _oracle_functions(th, orc)
        if not isinstance(mapped, tuple):  # a reason string, or the mapper's own evidence (a limit along a sequence)
            return None
        f_c, f_t, _rel, syms = mapped[:4]  # a mapper may append default ranges
        from .report import truth_label

        if not syms:
            return f_c, f_t, set(syms), "claimed (paper's formula)", truth_label(th.oracle), None
        return (f_c, f_t, set(syms), "claimed (paper's formula)", truth_label(th.oracle),
                oracle_search_box(th, orc, mapped)[0])
    if th.lhs is None or th.rhs is None or th.kind is Kind.EXPANSION:
        return None
    syms = set(th.lhs.free_symbols) | set(th.rhs.free_symbols)
    return (compile_expr(th.rhs), compile_expr(th.lhs), syms, "side claimed larger (rhs)", "side claimed smaller (lhs)",
            sampling_box(th, syms)[0] if syms else None)


#: points of the plots drawn in this process since the last reset, by how they were evaluated ("float64": from the
#: float64 twins of the two sides, "mpmath": the rigorous evaluation); reset and returned like :data:`STAGE_SECONDS`
PLOT_POINTS: dict[str, int] = {}


def _float64_twins(th: Theorem, f_true: Callable | None = None) -> tuple[Callable | None, Callable | None] | None:
    """Float64 (numpy) twins of a claim's two plotted sides ``(rhs, lhs)``, or None.  For a claim with an oracle:
    the twins its oracle mapping recorded on ``f_true`` (its other side, from :func:`_functions`; computed here when
    not given; :mod:`symdp.verify.twins`).  Only a plot uses them, and only where they clearly tell the sides apart
    (:func:`symdp.audit.plots.sweep` checks them against mpmath and evaluates in mpmath near a crossing)."""
    from ..verify.twins import compile_float64, twins_of

    if th.oracle:
        if f_true is None:
            fns = _functions(th)
            if fns is None:
                return None
            f_true = fns[1]
        return twins_of(f_true)
    if th.lhs is None or th.rhs is None:
        return None
    c, t = compile_float64(th.rhs), compile_float64(th.lhs)
    return None if c is None and t is None else (c, t)


def _plot(th: Theorem, res: AuditResult, plot_dir: Path, report_dir: Path) -> None:
    from .plots import plot_claim

    if res.rung == "finite-instances":  # decided on a family of finite instances: no curve in the claim's symbols shows it
        return
    fns = _functions(th)
    if fns is None:
        return
    f_c, f_t, syms, lc, lt, box = fns
    if not syms or box is None:
        return
    names = box.names()
    cx = res.counterexample or {}
    ranges = dict(box.ranges)
    outside = []
    for nm in names:  # a counterexample found above an oracle's cap (the sparse search there) stays inside the plot
        if nm in cx:
            with contextlib.suppress(TypeError, ValueError):
                v = float(cx[nm])
                if math.isfinite(v) and not ranges[nm][0] <= v <= ranges[nm][1]:
                    outside.append(f"{nm} = {cx[nm]} (searched in [{ranges[nm][0]:g}, {ranges[nm][1]:g}])")
                    ranges[nm] = (min(ranges[nm][0], v), max(ranges[nm][1], v))
    if outside and res.rung == "consistency":
        # the counterexample is the special case's (e.g. T = 270 identical steps for a heterogeneous entry whose exact
        # oracle runs to T = 8 only): this entry's oracle is not evaluated there, the special case's plot shows it
        res.extra["plot_skipped"] = (f"no plot: the special case's counterexample has {', '.join(outside)}, outside the "
                                     "range where this entry's oracle is evaluated; the special case's own plot shows it")
        return
    point: dict[str, Any] = {}
    for nm in names:
        lo, hi = ranges[nm]
        if nm in cx:
            v = float(cx[nm])
        else:
            v = math.sqrt(lo * hi) if lo > 0 and hi / lo > 50 else (lo + hi) / 2
        point[nm] = round(v) if nm in box.integers else mpmath.mpf(v)
    # sweep the parameter with the widest (log) range, preferring eps-like names
    pref = [n for n in names if n.startswith("epsilon")] or names
    var = max(pref, key=lambda n: (math.log(ranges[n][1] / ranges[n][0]) if ranges[n][0] > 0 else ranges[n][1] - ranges[n][0]))
    lo, hi = ranges[var]
    fname = th.id.replace("/", "_") + ".png"
    ratio = res.verdict == "HOLDS" and th.kind is Kind.COMPARISON
    from .plots import plot_region_2d
    from .report import plot_labels

    ylabel, lc, lt = plot_labels(th)
    fast = _float64_twins(th, f_t)
    with mpmath.workdps(30):
        plot_claim(
            plot_dir / fname,
            title=f"{res.verdict}: {th.id}\n{clip(th.title, 90)}",
            ylabel=ylabel,
            region=res.region,
            fixed={k: v for k, v in point.items() if k != var},
            f_claim=f_c,
            f_true=f_t,
            point=point,
            var=var,
            lo=lo,
            hi=hi,
            integer=var in box.integers,
            claim_label=lc,
            true_label=lt,
            mark=float(cx[var]) if var in cx else None,
            ratio=ratio,
            fast=fast,
            stats=PLOT_POINTS,
        )
        if res.verdict in ("FAILS", "PARTIAL") and len(names) == 2:  # two free parameters: map where it holds
            yv = next(n for n in names if n != var)
            f2 = th.id.replace("/", "_") + ".region.png"
            _p2, frac, nval = plot_region_2d(plot_dir / f2, title=f"{res.verdict}: {th.id}\nwhere the claim holds", f_claim=f_c, f_true=f_t,
                           point=point, xvar=var, xrange=ranges[var], yvar=yv, yrange=ranges[yv],
                           xinteger=var in box.integers, yinteger=yv in box.integers, n=20,
                           mark=(float(cx[var]), float(cx[yv])) if var in cx and yv in cx else None,
                           fast=fast, stats=PLOT_POINTS)
            res.extra["region_plot"] = str((plot_dir / f2).relative_to(report_dir))
            if nval:
                (xl, xh), (yl, yh) = ranges[var], ranges[yv]
                res.extra["region_map"] = (
                    f"on a grid of {nval} points over {var} in [{xl:g}, {xh:g}] x {yv} in [{yl:g}, {yh:g}] the claim "
                    f"holds at {100 * frac:.0f}% and fails at {100 * (1 - frac):.0f}% (see the region map)")
    res.plot = str((plot_dir / fname).relative_to(report_dir))


def _asymptotic_factor(uc: UserClaim) -> AuditResult:
    th = uc.theorem
    assert uc.ratio is not None and uc.factor is not None and uc.var is not None and uc.point is not None
    lim = sp.limit(sp.simplify(uc.ratio / uc.factor), uc.var, uc.point, dir="+" if uc.point not in (sp.oo, -sp.oo) else "-")
    ok = lim == 1
    return AuditResult(
        id=th.id, kind="factor", title=th.title, source=th.source.cite(), statement=f"{sp.sstr(uc.ratio)} ~ {sp.sstr(uc.factor)} as {uc.var} -> {uc.point}",
        verdict="HOLDS" if ok else "FAILS", strength="proved" if ok else "", rung="symbolic",
        detail=f"limit of ratio / factor = {sp.sstr(lim)}",
    )


def _exact_equality_counterexample(th: Theorem, seconds: float = 5.0) -> tuple[dict[str, str], str] | None:
    """For an equality claim (identity, ``==``) without an oracle: a rational point of the domain where
    ``lhs - rhs`` is provably non-zero (exact rational arithmetic, or SymPy's adaptive-precision evalf with
    ``strict=True``, which raises instead of guessing), with the difference; None when none is found."""
    from sympy.core.evalf import PrecisionExhausted

    from ..verify import time_limit
    from ..verify.core import Timeout as _Timeout

    if th.oracle or th.lhs is None or th.rhs is None or th.expansion is not None:
        return None
    if not (th.kind is Kind.IDENTITY or th.relation == "=="):
        return None
    box = {s: (lo, hi) for s, lo, hi in th.domain}
    try:
        with time_limit(seconds):
            d = th.lhs - th.rhs
            free = sorted(d.free_symbols, key=lambda s: s.name)
            if any(s not in box for s in free):
                return None
            for frac in (sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(5, 7)):
                pt = {}
                for s in free:
                    lo, hi = box[s]
                    v = lo + frac * (hi - lo)
                    pt[s] = sp.ceiling(v) if s.is_integer else v
                v = d.xreplace(pt)
                if v.is_Rational:
                    val = v
                else:
                    try:
                        val = sp.N(v, 15, maxn=1500, strict=True)
                    except (PrecisionExhausted, ValueError, TypeError, ZeroDivisionError):
                        continue
                if val.is_number and val.is_real and val != 0:
                    return {s.name: sp.sstr(x) for s, x in pt.items()}, sp.sstr(sp.N(val, 6) if not val.is_Rational or abs(val.q) > 10**6 else val)
    except _Timeout:
        return None
    except Exception:  # noqa: BLE001 - an extra check must never sink the audit
        return None
    return None


def audit_theorem(th: Theorem, *, deep: bool = False, seed: int = 0, plot_dir: Path | None = None,
                  report_dir: Path | None = None, kind_label: str | None = None) -> AuditResult:
    from ..verify import verify_theorem

    with stage("verify"):
        vr = verify_theorem(th, deep=deep, seed=seed)
    verdict, strength = _VERDICT_MAP[vr.evidence.verdict]
    if verdict == "HOLDS" and strength == "supported":
        with stage("exact"):
            exact = _exact_equality_counterexample(th)
        if exact is not None:  # a numerical search cannot see a 1e-300 difference; exact arithmetic can
            pt, diff = exact
            return AuditResult(
                id=th.id, kind=kind_label or _kind_label(th), title=th.title, source=th.source.cite(),
                statement=_statement(th), verdict="FAILS", rung="symbolic", counterexample=pt or None,
                detail=f"exact evaluation {f'at {pt}' if pt else '(constant difference)'}: lhs - rhs = {diff} (not 0); the numerical search "
                       f"({vr.evidence.detail}) could not resolve the difference",
                extra={"seconds": round(vr.seconds, 2), "refs": list(th.refs)}, latex=statement_latex(th),
            )
    res = AuditResult(
        latex=statement_latex(th),
        id=th.id,
        kind=kind_label or _kind_label(th),
        title=th.title,
        source=th.source.cite(),
        statement=_statement(th),
        verdict=verdict,
        strength=strength,
        rung=vr.evidence.rung,
        detail=vr.evidence.detail,
        certificate=vr.evidence.certificate,
        counterexample=vr.counterexample,
        claimed=vr.claimed,
        actual=vr.actual,
        margin=vr.margin,
        region=vr.region,
        cases=vr.evidence.cases,
        extra={"seconds": round(vr.seconds, 2), "refs": list(th.refs)},
    )
    if report_dir is not None and vr.artifacts:
        # keep the certificates next to the report so a user claim's proof can be replayed
        for rel, text in vr.artifacts.items():
            dest = report_dir / "certificates" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text)
        if res.certificate:
            res.certificate = f"certificates/{res.certificate}"
    with stage("severity"):
        annotate(th, res, seed=seed)
    plot_if_wanted(th, res, plot_dir, report_dir)
    return res


def plot_if_wanted(th: Theorem, res: AuditResult, plot_dir: Path | None, report_dir: Path | None) -> None:
    """Plot a refuted or partial claim, and every comparison, beside its verdict (the full audit and ``--quick``
    draw the same plots); a failed drawing is recorded in ``res.extra['plot_error']``, never raised."""
    if plot_dir is None or report_dir is None:
        return
    if not (res.verdict in ("FAILS", "PARTIAL") or th.kind is Kind.COMPARISON):
        return
    try:
        with stage("plot"):
            _plot(th, res, plot_dir, report_dir)
    except Exception as exc:  # noqa: BLE001 - a plot must never sink the audit; say so instead
        res.extra["plot_error"] = f"{type(exc).__name__}: {exc}"[:200]


def audit_theorems(ths: Iterable[Theorem], *, deep: bool = False, seed: int = 0, plots: bool = True,
                   report_dir: Path | None = None, progress: bool = False, algorithms: bool = True) -> list[AuditResult]:
    """Audit each theorem; algorithm theorems among them also get their mechanism-level result (appended)."""
    ths = list(ths)
    plot_dir = (report_dir / "plots") if (plots and report_dir is not None) else None
    out: list[AuditResult] = []

    def one(th: Theorem) -> AuditResult:
        return audit_theorem(th, deep=deep, seed=seed, plot_dir=plot_dir, report_dir=report_dir)

    if progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("audit"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}")) as bar:
            task = bar.add_task("", total=len(ths))
            for th in ths:
                bar.update(task, description=th.id)
                out.append(one(th))
                bar.advance(task)
    else:
        out = [one(th) for th in ths]
    apply_audit_consistency(out, seed=seed)
    return out + audit_algorithms_for([th.id for th in ths], out, algorithms=algorithms)


def apply_audit_consistency(results: list[AuditResult], *, seed: int = 0) -> list[str]:
    """Issue 12 item 3 at the audit level: an entry whose special case FAILS (or is PARTIAL) cannot HOLD.

    The special-case relation is the verifier's (:func:`symdp.verify.special_cases`: declared tags,
    ``X_sum`` / ``X`` heterogeneous-step pairs, the same statement on a sub-box).  Only special cases
    audited in this run are used here: the ledger's verdicts of an entry's special cases were applied by
    :func:`symdp.verify.verify_theorem` itself (the one consistency rule).  A HOLDS that rests on a numerical search
    becomes FAILS (rung ``consistency``) with the special case's counterexample; a HOLDS that is *proved*
    is kept and flagged (a proof is never overridden by a numerical result; the encodings must be
    re-read).  Results are changed in place; one line per change is returned.
    """
    from ..library import all_theorems, get
    from ..verify import special_cases

    by_id = {r.id: r for r in results}
    ths = list(all_theorems(None, with_evidence=False))
    notes: list[str] = []
    for sc in special_cases(ths):
        g = by_id.get(sc.general)
        if g is None or g.verdict != "HOLDS":
            continue
        s = by_id.get(sc.special)
        if s is None:
            continue
        s_verdict, s_cx, s_claimed, s_actual = s.verdict, s.counterexample, s.claimed, s.actual
        if s_verdict not in ("FAILS", "PARTIAL") or not s_cx:
            continue
        if g.strength == "proved":
            g.extra["consistency_flag"] = (f"special case {sc.special} ({sc.how}) {s_verdict} at {dict(s_cx)} while this "
                                           "entry is proved: re-read both encodings and the special-case relation")
            notes.append(f"{sc.general}: proved, but special case {sc.special} {s_verdict} (kept; flagged)")
            continue
        cx = {str(k): str(v) for k, v in dict(s_cx).items()}
        cx.update({str(k): str(v) for k, v in sc.fixed})
        before = f"HOLDS ({g.strength or 'supported'}: {clip(g.detail, 160)})"
        g.verdict, g.strength, g.rung = "FAILS", "", "consistency"
        g.counterexample = cx
        g.claimed, g.actual, g.margin, g.region = s_claimed, s_actual, None, None
        g.detail = (f"its special case {sc.special} ({sc.how}) {s_verdict} with counterexample {dict(s_cx)}: "
                    f"claimed {s_claimed}, true {s_actual}; that point is a point of this entry; the entry's own "
                    f"search had given {before}")
        g.extra.pop("severity", None)
        with contextlib.suppress(Exception):  # severity is best effort; the verdict change stands
            annotate(get(g.id), g, seed=seed)
        notes.append(f"{sc.general}: HOLDS -> FAILS (special case {sc.special} {s_verdict})")
    return notes


def audit_algorithms_for(ids: Iterable[str], results: list[AuditResult] | None = None, *,
                         algorithms: bool = True) -> list[AuditResult]:
    """Mechanism-level results for the algorithm theorems among ``ids`` (issue 12, item 1), the second
    readings of garbled entries among them (:mod:`symdp.audit.readings`, item 4) and Bu et al.'s experiments
    when its Figure 4 entries are among them (:mod:`symdp.audit.experiments`, item 5).

    The library entries keep the generic "(eps~, delta)-DP steps" reading; their results in
    ``results`` are labelled as such (``extra["reading"]``) and point to the algo.* entry that audits
    the theorem on the real mechanism (:mod:`symdp.audit.algorithms`).
    """
    if not algorithms:
        return []
    from .algorithms import algorithm_claims_for, audit_algorithm

    ids = list(ids)
    out: list[AuditResult] = []
    for ac in algorithm_claims_for(ids):
        res = audit_algorithm(ac)
        annotate(None, res)
        out.append(res)
        for r in results or ():
            if r.id in ac.refines:
                r.extra["reading"] = (f"generic: T abstract (eps~, delta)-DP steps, not the algorithm; {ac.id} audits "
                                      "the theorem on the real mechanism")
                r.extra["mechanism_claim"] = ac.id
                if inherit_refutation(r, res):  # the general entry inherits its mechanism's refutation
                    annotate(None, r)
    from .readings import readings_for

    for rd in readings_for(ids):
        res = audit_theorem(rd.theorem, kind_label=_kind_label(rd.theorem))
        res.extra.update({"reading": rd.reading, "quote": rd.quote, "refines": [rd.refines]})
        out.append(res)
        for r in results or ():
            if r.id == rd.refines:
                r.extra.setdefault("reading", "as printed")
                r.extra["other_reading"] = rd.theorem.id
    from .experiments import audit_experiments, experiments_for

    if experiments_for(ids):
        for res in audit_experiments():
            annotate(None, res)
            out.append(res)
    return out


def library_claims(source: str | None = None) -> list[Theorem]:
    """Every claim of the built-in library (definitions and the papers' assumptions excluded: they are not claims)."""
    from ..library import all_theorems

    return [t for t in all_theorems(source, with_evidence=False) if t.kind in CLAIM_KINDS and not set(t.tags) & NOT_CLAIMS]


#: tags of entries that are not claims: a definition (encoded as an equivalence of properties) or a paper's
#: assumption; they stay in the library (chaining uses them) and are audited when named explicitly
NOT_CLAIMS = frozenset({"definition", "assumption"})


#: wall-clock limits of a claim-file audit in seconds: per claim, per run (per file)
CLAIM_SECONDS = 120.0
RUN_SECONDS = 1800.0


def _undecided(uc: UserClaim, why: str) -> AuditResult:
    th = uc.theorem
    return AuditResult(id=th.id, kind=uc.kind, title=th.title, source=th.source.cite(), statement=_statement(th),
                       verdict="UNDECIDED", detail=why)


def audit_claim_file(path: str | Path, *, deep: bool = False, seed: int = 0, plots: bool = True,
                     report_dir: Path | None = None, claim_seconds: float = CLAIM_SECONDS,
                     run_seconds: float = RUN_SECONDS) -> list[AuditResult]:
    """Audit every claim of a claim file.  A claim that runs past ``claim_seconds`` becomes UNDECIDED with the
    reason, and so does every claim not started within ``run_seconds``; the audit goes on either way."""
    import time as _time

    cf = load_claims(path)  # raises ClaimFileError before anything runs
    plot_dir = (report_dir / "plots") if (plots and report_dir is not None) else None
    out = []
    t0 = _time.monotonic()
    for uc in cf.claims:
        left = run_seconds - (_time.monotonic() - t0)
        if left <= 0:
            out.append(_undecided(uc, f"not checked: the run time limit of {run_seconds:g} s was reached"))
            continue
        limit = min(claim_seconds, left)
        which = "per claim" if limit == claim_seconds else "of the run"
        out.append(audit_user_claim(uc, limit=limit, which=which, deep=deep, seed=seed, plot_dir=plot_dir,
                                    report_dir=report_dir))
    return out


def audit_user_claim(uc: UserClaim, *, limit: float, which: str = "per claim", deep: bool = False, seed: int = 0,
                     plot_dir: Path | None = None, report_dir: Path | None = None) -> AuditResult:
    """One claim of a claim file within ``limit`` seconds (``which`` limit: "per claim" / "of the run"); never
    raises on a claim it cannot handle (UNDECIDED with the reason).  Also the task of a parallel audit."""
    import time as _time

    from ..verify import time_limit
    from ..verify.core import Timeout as _Timeout

    t_claim = _time.monotonic()
    try:
        with time_limit(limit):
            if uc.kind == "factor" and uc.factor_mode == "asymptotic":
                res = _asymptotic_factor(uc)
            else:
                res = audit_theorem(uc.theorem, deep=deep, seed=seed, plot_dir=plot_dir, report_dir=report_dir,
                                    kind_label=uc.kind)
        if res.verdict == "UNDECIDED" and _time.monotonic() - t_claim >= 0.99 * limit:
            # the verifier caught our deadline inside its own budget: name the limit that actually ended it
            res.detail = f"time limit {which} ({limit:.3g} s) reached before a verdict ({res.detail})"
        return res
    except _Timeout:
        return _undecided(uc, f"time limit {which} ({limit:.3g} s) reached before a verdict")
    except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        # one claim SymPy or mpmath cannot handle must not sink the audit of the others: say why instead
        return _undecided(uc, f"could not be checked ({type(exc).__name__}: {clip(str(exc), 160)})")


def ledger_result(th: Theorem, e: dict[str, Any], report_dir: Path | None = None) -> AuditResult:
    """The audit result of ``th`` from its current ledger row ``e`` (``--quick``), annotated. With ``report_dir``,
    the row's certificate (a path under ``proofs/``) is copied to ``report_dir/certificates/`` and the result
    names that copy, as a full audit does, so the report's link works in both modes."""
    verdict, strength = _VERDICT_MAP[Verdict(e["verdict"])]
    res = AuditResult(
        id=th.id, kind=_kind_label(th), title=th.title, source=th.source.cite(), statement=_statement(th),
        verdict=verdict, strength=strength, rung=e.get("rung"), detail=str(e.get("evidence") or ""),
        certificate=e.get("certificate"), counterexample=e.get("counterexample"), claimed=e.get("claimed"),
        actual=e.get("actual"), margin=e.get("margin"), region=e.get("region"), cases=e.get("cases"),
        extra={"from_ledger": True, "refs": list(th.refs)}, latex=statement_latex(th),
    )
    cert = res.certificate
    if report_dir is not None and cert:
        from ..ledger_json import proofs_dir

        root = proofs_dir().resolve()
        src = (root / cert).resolve()
        if src.is_relative_to(root) and src.is_file():  # a ledger row is data: never follow it out of proofs/
            # the certificate and the reductions' files written beside it (``<id>.<reduction>.smt2``)
            for f in sorted({src, *src.parent.glob(f"{th.id}.*")}):  # the certificate is one of the glob's matches
                dest = report_dir / "certificates" / f.relative_to(root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(f.read_bytes())
            res.certificate = f"certificates/{cert}"
    annotate(th, res)
    return res


def quick_from_ledger(ths: list[Theorem]) -> tuple[list[AuditResult], list[Theorem]]:
    """Results for entries whose recorded ledger evidence is current (same statement hash); the rest to run."""
    from ..verify import load_ledger

    led = load_ledger()
    done, todo = [], []
    for th in ths:
        e = led.get(th.id)
        if e is None or e.get("hash") != th.expr_hash():
            todo.append(th)
            continue
        done.append(ledger_result(th, e))
    todo_ids = {t.id for t in todo}
    from .algorithms import algorithm_claims_for

    done_ids = [r.id for r in done]
    from .experiments import experiments_for

    if experiments_for(done_ids) and experiments_for(todo_ids):
        done_ids = [i for i in done_ids if not i.startswith("bu2020.mnist_fig4")]  # todo's audit adds them
    if any(not (set(ac.refines) & todo_ids) for ac in algorithm_claims_for(done_ids)) or experiments_for(done_ids):
        # algorithm theorems whose library entries all came from the ledger: their mechanism-level result too
        kept = [i for i in done_ids if i not in {x for ac in algorithm_claims_for(todo_ids) for x in ac.refines}]
        done += audit_algorithms_for(kept, done)
    return done, todo


__all__ = ["audit_theorem", "audit_theorems", "audit_algorithms_for", "audit_claim_file", "audit_user_claim", "library_claims", "quick_from_ledger", "CLAIM_KINDS"]
