r"""Build a DP-SGD certificate (schema :mod:`symdp.certify.schema`) and check it against measurements.

Two entry points:

* :func:`certify_ledger` / :func:`certify_hparams`: certify a model trained elsewhere from its
  hyperparameters or its ledger of steps (no training, no empirical section);
* :func:`run` (behind ``symdp certify``): train a model with DP-SGD on the built-in digits data
  with audit canaries, measure, and certify.

>>> cert = certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=100, n=10_000, delta=1e-5)
>>> cert["schema"], cert["mode"]
('symdp.certificate/1', 'hparams')
"""

from __future__ import annotations

import datetime as _dt
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..validation import check_int, check_probability, check_real
from . import bounds as _bounds
from . import privacy as _privacy
from .schema import SCHEMA_ID, validate


# --------------------------------------------------------------------------- provenance
def kernel_hashes() -> dict:
    """sha256 of every generated kernel file (``symdp.generated``) and a combined hash of them all
    (the one copy lives in :func:`symdp._provenance.kernel_hashes`)."""
    from .._provenance import kernel_hashes as _kernel_hashes

    return _kernel_hashes()


def versions() -> dict:
    import symdp

    v: dict[str, Any] = dict(symdp=symdp.__version__, python=platform.python_version(), numpy=np.__version__)
    try:
        import torch

        v["torch"] = torch.__version__
    except ImportError:  # hparams mode works without torch
        v["torch"] = None
    v["kernels"] = kernel_hashes()
    v["provenance"] = symdp.provenance()  # symdp version, generated-kernel hashes, git commit (uniform across artefacts)
    return v


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- the certificate
def _tradeoff(eps: float | None, delta: float, points: int = 101) -> dict | None:
    if eps is None or not math.isfinite(eps):
        return None
    fpr = np.unique(np.concatenate([[0.0], np.geomspace(1e-6, 1.0, points), np.linspace(0.0, 1.0, points)]))
    tpr = _privacy.tradeoff_tpr(fpr, eps, delta)
    return dict(epsilon=eps, delta=delta, fpr=fpr.tolist(), tpr_max=tpr.tolist())


def certify_ledger(
    ledger: Sequence[Sequence[Any]],
    *,
    n: int,
    delta: float,
    confidence: float = 0.95,
    train_error: float | None = None,
    parameters: dict | None = None,
    notes: Sequence[str] = (),
) -> dict:
    """Certificate for a model trained elsewhere with the given ledger of DP-SGD segments
    ``(noise_multiplier, sample_rate, steps)`` on ``n`` examples (Poisson sampling, clipping,
    Gaussian noise of std ``noise_multiplier * C``).  ``train_error`` (0-1, optional) enables the
    PAC-Bayes route."""
    check_int("n", n, 1)
    check_probability("delta", delta)
    check_probability("confidence", confidence)
    if train_error is not None:
        check_real("train_error", train_error, 0.0, 1.0)
    led = _privacy.normalize_ledger(ledger)
    eps = _privacy.epsilons(led, delta)
    upper, upper_from = _privacy.best_upper_bound(eps)
    notes = list(notes)
    for k, e in eps.items():
        if not e["available"]:
            notes.append(f"{k} accountant unavailable: {e['reason']}")
    notes.append("the CLT value is an approximation (Bu et al. 2020), never used as a guarantee")
    params = dict(n=n, delta=delta, ledger=[list(s) for s in led], steps=sum(s[2] for s in led))
    params.update(parameters or {})
    cert = dict(
        schema=SCHEMA_ID,
        created=_now(),
        mode="hparams",
        parameters=params,
        privacy=dict(delta=delta, accountants=eps, epsilon_upper=upper, epsilon_upper_from=upper_from, odometer=None),
        tradeoff=_tradeoff(upper, delta),
        generalization=_bounds.generalization_bounds(upper, delta, n, train_error=train_error, confidence=confidence),
        empirical=None,
        versions=versions(),
        notes=notes,
    )
    return cert


def certify_hparams(*, noise_multiplier: float, sample_rate: float, steps: int, n: int, delta: float,
                    confidence: float = 0.95, train_error: float | None = None) -> dict:
    """Certificate from DP-SGD hyperparameters (one constant segment)."""
    check_int("steps", steps, 0)
    return certify_ledger([(noise_multiplier, sample_rate, steps)], n=n, delta=delta, confidence=confidence,
                          train_error=train_error)


def _check(name: str, lhs: float | None, rhs: float | None, detail: str, *, applies: bool = True) -> dict:
    """One measured-vs-certified check.  ``passed`` is None (rendered "not applicable" / "not evaluated") when
    the certified side comes from a route whose hypotheses fail for this run, or a side is missing: a bound
    that does not apply can neither pass nor fail."""
    if not applies:
        return dict(name=name, passed=None, lhs=None if lhs is None else float(lhs), rhs=None if rhs is None else float(rhs),
                    gap=None, detail="not applicable: " + detail)
    if lhs is None or rhs is None:
        return dict(name=name, passed=None, lhs=lhs, rhs=rhs, gap=None, detail=detail + " (not evaluated: a side is missing)")
    return dict(name=name, passed=bool(lhs <= rhs), lhs=float(lhs), rhs=float(rhs), gap=float(rhs - lhs), detail=detail)


#: an empirical epsilon lower bound at or below this is uninformative (the attack did not beat chance)
UNINFORMATIVE_EPS = 1e-3


def uninformative_audit(audit: dict | None) -> bool:
    """True when the MIA audit's epsilon lower bound says nothing (at most :data:`UNINFORMATIVE_EPS`):
    the attack did not separate members from non-members at the stated confidence."""
    return audit is not None and (audit.get("epsilon_lower") is None or audit["epsilon_lower"] <= UNINFORMATIVE_EPS)


def empirical_checks(cert: dict, empirical: dict) -> list[dict]:
    """Measured vs certified: the audit's lower bound against epsilon_upper, and the measured
    generalization gap (or test error) against each bound that produced a number."""
    checks = []
    audit = empirical.get("audit")
    upper = cert["privacy"]["epsilon_upper"]
    if audit is not None:
        note = (" [uninformative: the empirical lower bound is ~0, the attack did not beat chance at this confidence; "
                "the check cannot detect an invalid certificate]" if uninformative_audit(audit) else "")
        checks.append(_check(
            "empirical epsilon lower bound <= certified epsilon upper bound", audit["epsilon_lower"], upper,
            f"MIA audit ({audit['evaluation_canaries']} evaluation canaries, confidence {1 - audit['alpha']:.2f}) vs "
            f"{cert['privacy']['epsilon_upper_from']} accountant at delta={cert['privacy']['delta']:.3g}" + note))
    for g in cert["generalization"]:
        if g["bound"] is None:
            continue
        why = "" if g["applies"] else f"the route's hypotheses fail for this run ({g['reason']}); bound shown for reference only"
        if g["applies"] and g["bound"] >= 1.0:
            why = "test error estimates the population risk [vacuous: the bound is >= 1 for a [0, 1] loss, so passing says nothing]"
        if g["bound_kind"] == "gap":
            checks.append(_check(f"measured test-train error gap (absolute) <= {g['name']}", empirical["error_gap"], g["bound"],
                                 why or "test error estimates the population risk", applies=g["applies"]))
        else:
            checks.append(_check(f"measured test error <= {g['name']}", empirical["test_error"], g["bound"],
                                 why or "test error estimates the population risk", applies=g["applies"]))
    return checks


# --------------------------------------------------------------------------- train + certify
@dataclass
class RunConfig:
    """Hyperparameters of the built-in ``symdp certify`` run (digits, tanh MLP, DP-SGD)."""

    noise_multiplier: float = 2.0
    batch_size: int = 64  # expected Poisson batch size; sample_rate = batch_size / n
    steps: int = 800  # with the defaults: epsilon about 2.9 at delta = 1e-5 (tight accountant), ~86% test accuracy
    max_grad_norm: float = 1.0
    delta: float = 1e-5
    lr: float = 1.0
    momentum: float = 0.0
    target_epsilon: float | None = None
    num_canaries: int = 200
    hidden: tuple[int, ...] = (64,)
    seed: int = 0
    device: str | None = None
    confidence: float = 0.95
    alpha: float = 0.05
    progress: bool = True
    threads: int | None = 1  # CPU threads for torch (small models run fastest single-threaded); None: leave as is
    notes: list[str] = field(default_factory=list)


def run(cfg: RunConfig | None = None) -> dict:
    """Train on digits with canaries, evaluate, audit and certify; return the certificate."""
    import torch

    cfg = cfg or RunConfig()
    check_int("batch_size", cfg.batch_size, 1)
    if cfg.threads is None:
        return _run(cfg)
    check_int("threads", cfg.threads, 1)
    old = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    try:
        return _run(cfg)
    finally:
        torch.set_num_threads(old)


def _run(cfg: RunConfig) -> dict:
    import torch

    from .data import load_digits_split, make_canaries, mlp
    from .mia import loss_threshold_audit
    from .trainer import per_example_loss, train_dpsgd

    base = load_digits_split(seed=cfg.seed)
    split, canaries = make_canaries(base, num_canaries=cfg.num_canaries, seed=cfg.seed)
    n = len(split.y_train)
    q = min(1.0, cfg.batch_size / n)
    torch.manual_seed(cfg.seed)
    model = mlp(split.x_train.shape[1], split.num_classes, cfg.hidden)
    xtr, ytr = torch.tensor(split.x_train), torch.tensor(split.y_train)
    xte, yte = torch.tensor(split.x_test), torch.tensor(split.y_test)
    res = train_dpsgd(
        model, xtr, ytr, noise_multiplier=cfg.noise_multiplier, sample_rate=q, steps=cfg.steps,
        max_grad_norm=cfg.max_grad_norm, delta=cfg.delta, target_epsilon=cfg.target_epsilon, device=cfg.device,
        optimizer=lambda p: torch.optim.SGD(p, lr=cfg.lr, momentum=cfg.momentum), seed=cfg.seed,
        progress=cfg.progress,
    )
    ltr, ctr = per_example_loss(model, xtr, ytr)
    lte, cte = per_example_loss(model, xte, yte)
    # canaries that are members are part of the training set; keep the clean train/test metrics on
    # the original examples only
    clean = len(base.y_train)
    train_err = 1.0 - float(ctr[:clean].double().mean())
    test_err = 1.0 - float(cte.double().mean())
    closs, _ = per_example_loss(model, torch.tensor(canaries.x), torch.tensor(canaries.y))
    audit = (loss_threshold_audit(closs.numpy(), canaries.member, delta=cfg.delta, alpha=cfg.alpha, seed=cfg.seed)
             if cfg.num_canaries >= 4 else None)
    params = dict(
        max_grad_norm=cfg.max_grad_norm, optimizer=f"{res.optimizer}(lr={cfg.lr}, momentum={cfg.momentum})",
        device=res.device, dataset=f"{split.name} ({n} training, {len(yte)} test examples)",
        model=f"MLP {split.x_train.shape[1]}-{'-'.join(map(str, cfg.hidden))}-{split.num_classes} (tanh)",
        seed=cfg.seed, target_epsilon=cfg.target_epsilon, expected_batch_size=q * n,
        mean_batch_size=float(np.mean(res.batch_sizes)) if res.batch_sizes else 0.0,
        train_seconds=res.seconds, examples_per_second=res.examples_per_second, torch_threads=torch.get_num_threads(),
    )
    cert = certify_ledger(res.ledger, n=n, delta=cfg.delta, confidence=cfg.confidence, train_error=train_err,
                          parameters=params, notes=res.notes + list(cfg.notes))
    cert["mode"] = "trained"
    cert["privacy"]["odometer"] = (
        dict(kind=res.odometer, final_epsilon=res.final_epsilon, log=[list(p) for p in res.epsilon_log],
             note="RDP odometer stepped on the training device every step; read on the host at logging only")
        if res.odometer else None)
    empirical: dict[str, Any] = dict(
        train_loss=float(ltr[:clean].mean()), test_loss=float(lte.mean()), train_error=train_err, test_error=test_err,
        loss_gap=float(lte.mean() - ltr[:clean].mean()), error_gap=abs(test_err - train_err),
        audit=audit.to_dict() if audit is not None else None,
        canary_losses=dict(member=closs.numpy()[canaries.member].tolist(),
                           nonmember=closs.numpy()[~canaries.member].tolist()),
    )
    empirical["checks"] = empirical_checks(cert, empirical)
    cert["empirical"] = empirical
    if audit is not None:
        cert["notes"].append("MIA audit treats canary outcomes as independent trials (standard one-run "
                             "approximation; Steinke et al. 2023 give the rigorous one-run analysis)")
    validate(cert)
    return cert


# --------------------------------------------------------------------------- reports
def _fmt(x: Any, digits: int = 4) -> str:
    """A table cell: numbers to ``digits`` significant digits; '|' (the cell separator) replaced."""
    return _fmt1(x, digits).replace("|", "/")


def _fmt1(x: Any, digits: int) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def _plots(cert: dict, outdir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..audit.plots import save_labelled

    names = []
    tr = cert["tradeoff"]
    if tr is not None:
        fig, ax = plt.subplots(figsize=(4.8, 4.2))
        ax.plot(tr["fpr"], tr["tpr_max"], label=f"largest TPR allowed: ({tr['epsilon']:.3g}, {tr['delta']:.1g})-DP")
        ax.plot([0, 1], [0, 1], ":", color="grey", label="random guess")
        emp = cert.get("empirical") or {}
        a = emp.get("audit")
        if a:
            ax.plot([a["fpr"]], [a["tpr"]], "o", color="C3", label="loss-threshold MIA (canaries)")
            ax.plot([a["fpr_upper"]], [a["tpr_lower"]], "x", color="C3", label="(FPR upper, TPR lower), CP")
        ax.set_xlabel("attack false-positive rate (FPR)")
        ax.set_ylabel("attack true-positive rate (TPR)")
        ax.set_title("membership inference: largest TPR the certificate allows", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        save_labelled(fig, outdir / "tradeoff.png", dpi=120)
        plt.close(fig)
        names.append("tradeoff.png")
    odo = cert["privacy"].get("odometer")
    if odo and odo.get("log"):
        steps, eps = zip(*odo["log"])
        fig, ax = plt.subplots(figsize=(4.8, 3.4))
        ax.plot(steps, eps, label="RDP odometer (upper bound)")
        tight = cert["privacy"]["accountants"]["tight"]
        if tight["available"]:
            ax.axhline(tight["epsilon"], ls="--", color="C2", label="tight accountant, final")
        ax.set_xlabel("training step")
        ax.set_ylabel(f"ε at δ = {cert['privacy']['delta']:.1g} (nats)")
        ax.set_title("privacy spent during training (odometer)", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        save_labelled(fig, outdir / "epsilon.png", dpi=120)
        plt.close(fig)
        names.append("epsilon.png")
    emp = cert.get("empirical")
    if emp and emp.get("canary_losses"):
        cl = emp["canary_losses"]
        fig, ax = plt.subplots(figsize=(4.8, 3.4))
        bins = np.linspace(0, max(cl["member"] + cl["nonmember"] + [1e-9]), 30).tolist()
        ax.hist(cl["nonmember"], bins=bins, alpha=0.6, label="canary not in training set")
        ax.hist(cl["member"], bins=bins, alpha=0.6, label="canary in training set")
        if emp.get("audit"):
            ax.axvline(emp["audit"]["threshold"], color="k", ls=":", label="attack threshold")
        ax.set_xlabel("canary cross-entropy loss (nats)")
        ax.set_ylabel("number of canaries")
        ax.set_title("loss-threshold attack on the canaries", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        save_labelled(fig, outdir / "canaries.png", dpi=120)
        plt.close(fig)
        names.append("canaries.png")
    return names


def check_result(c: dict) -> str:
    """``passed`` / ``FAILED`` / ``not applicable`` / ``not evaluated`` for a check; an uninformative pass says so."""
    if c["passed"] is None:
        return "not applicable" if c["detail"].startswith("not applicable") else "not evaluated"
    if not c["passed"]:
        return "**FAILED**"
    if "[uninformative" in c["detail"]:
        return "passed (uninformative)"
    return "passed (vacuous bound)" if "[vacuous" in c["detail"] else "passed"


def to_markdown(cert: dict, images: Sequence[str] = ()) -> str:
    p, pr = cert["parameters"], cert["privacy"]
    L = ["# symdp DP-SGD certificate", "",
         f"Schema `{cert['schema']}`, created {cert['created']}, mode **{cert['mode']}**.", "", "## Parameters", "",
         "| parameter | value |", "|---|---|"]
    for k, v in p.items():
        L.append(f"| {k} | {_fmt(v)} |")
    L += ["", f"## Privacy at delta = {pr['delta']:.3g}", "",
          "| accountant | epsilon | kind | theorems (verdict) | note |", "|---|---|---|---|---|"]
    for e in pr["accountants"].values():
        kind = "upper bound" if e["is_upper_bound"] else ("approximation" if e["available"] else "unavailable")
        note = e["reason"] or (f"error bound {e['error_bound']:.2g}" if e["error_bound"] is not None else "")
        ths = ", ".join(f"`{i}` ({v})" for i, v in (e.get("verdicts") or {}).items()) or "n/a"
        L.append(f"| {e['label']} | {_fmt(e['epsilon'])} | {kind} | {ths} | {_fmt(note)} |")
    L += ["", f"**Certified: ({_fmt(pr['epsilon_upper'])}, {pr['delta']:.3g})-DP** "
              f"(smallest available upper bound, from the {pr['epsilon_upper_from'] or 'n/a'} accountant).", ""]
    if pr.get("odometer"):
        L.append(f"Training odometer ({pr['odometer']['kind']}): final epsilon {_fmt(pr['odometer']['final_epsilon'])}.")
        L.append("")
    if cert["tradeoff"]:
        t = cert["tradeoff"]
        L += ["## Membership-inference trade-off", "",
              "Largest attack TPR the guarantee allows:", "",
              r"$$ \mathrm{TPR} \le \min\left\{1,\; e^{\varepsilon}\,\mathrm{FPR} + \delta,\; "
              r"1 - e^{-\varepsilon}\left(1 - \delta - \mathrm{FPR}\right)\right\} $$", "",
              "| FPR | max TPR |", "|---|---|"]
        for f in (0.001, 0.01, 0.05, 0.1, 0.5):
            L.append(f"| {f} | {_fmt(float(_privacy.tradeoff_tpr(f, t['epsilon'], t['delta'])))} |")
        L.append("")
    L += ["## Generalization bounds", "", "A route whose hypotheses fail for this run is **not applicable**: its number "
          "is shown for reference only and is not a guarantee.", "",
          "| route | theorems (verdict) | applies | confidence | bound | why |", "|---|---|---|---|---|---|"]
    for g in cert["generalization"]:
        ths = ", ".join(f"`{i}` ({s})" for i, s in g["status"].items()) or "none"
        ap = "yes" if g["applies"] else "**not applicable**"
        bd = f"{_fmt(g['bound'])} ({g['bound_kind']})" + ("" if g["applies"] or g["bound"] is None else ", reference only")
        L.append(f"| {_fmt(g['name'])} | {ths} | {ap} | {_fmt(g['confidence'])} | {bd} | {_fmt(g['reason'])} |")
    L.append(f"\nBounded loss: {_bounds.ZERO_ONE}.\n")
    emp = cert.get("empirical")
    if emp:
        L += ["## Measured", "", "| quantity | value |", "|---|---|"]
        for k in ("train_loss", "test_loss", "loss_gap", "train_error", "test_error", "error_gap"):
            L.append(f"| {k} | {_fmt(emp[k])} |")
        a = emp.get("audit")
        if a:
            L += ["", "### Membership-inference audit", "", a["method"] + ".", "",
                  f"- canaries: {a['num_canaries']} ({a['members']} members); evaluation half {a['evaluation_canaries']}",
                  f"- TPR {a['tpr']:.3f} (lower {a['tpr_lower']:.3f}), FPR {a['fpr']:.3f} (upper {a['fpr_upper']:.3f})",
                  f"- empirical epsilon lower bound: **{a['epsilon_lower']:.3f}** (confidence {1 - a['alpha']:.2f})"
                  + (" **uninformative**: the attack did not beat chance at this confidence, so this lower bound says "
                     "nothing about the certificate's tightness and cannot catch an invalid one" if uninformative_audit(a)
                     else ""), ""]
        L += ["### Checks", "", "| check | measured | certified | margin | result | detail |", "|---|---|---|---|---|---|"]
        for c in emp["checks"]:
            L.append(f"| {_fmt(c['name'])} | {_fmt(c['lhs'])} | {_fmt(c['rhs'])} | {_fmt(c['gap'])} | {check_result(c)} | "
                     f"{_fmt(c['detail'])} |")
        L.append("")
    for im in images:
        L.append(f"![{im}]({im})")
    L += ["", "## Versions", ""]
    v = cert["versions"]
    L.append(f"symdp {v['symdp']}, torch {v['torch']}, numpy {v['numpy']}, python {v['python']}; "
             f"generated kernels sha256 {v['kernels']['combined'] or 'n/a'} over {len(v['kernels']['files'])} files.")
    if cert["notes"]:
        L += ["", "## Notes", ""] + [f"- {s}" for s in cert["notes"]]
    return "\n".join(L) + "\n"


def to_html(markdown: str, outdir: Path, images: Sequence[str]) -> str:
    """A self-contained HTML page: the Markdown tables rendered, images embedded as base64."""
    import base64
    import html
    import re

    def esc(text: str) -> str:  # escape, then the two inline Markdown forms the report uses
        t = html.escape(text)
        t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
        return re.sub(r"`(.+?)`", r"<code>\1</code>", t)

    body = []
    in_table = False
    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = [esc(c.strip()) for c in line.strip("|").split("|")]
            if all(set(c) <= {"-"} for c in cells):
                continue
            if not in_table:
                body.append("<table>")
                in_table = True
                body.append("<tr>" + "".join(f"<th>{c}</th>" for c in cells) + "</tr>")
            else:
                body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("!["):
            continue
        if line.startswith("$$") and line.rstrip().endswith("$$") and len(line.strip()) > 4:
            from ..rendering import math_html

            body.append(math_html(line.strip()[2:-2].strip()))
            continue
        if line.startswith("#"):
            lvl = len(line) - len(line.lstrip("#"))
            body.append(f"<h{lvl}>{esc(line.lstrip('#').strip())}</h{lvl}>")
        elif line.startswith("- "):
            body.append(f"<li>{esc(line[2:])}</li>")
        elif line.strip():
            body.append(f"<p>{esc(line)}</p>")
    if in_table:
        body.append("</table>")
    for im in images:
        data = base64.b64encode((outdir / im).read_bytes()).decode()
        body.append(f'<img class="plot" alt="{html.escape(im)}" src="data:image/png;base64,{data}">')
    style = ("body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;margin:8px 0}"
             "td,th{border:1px solid #bbb;padding:3px 6px;font-size:13px;vertical-align:top}img{margin:6px}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>symdp certificate</title><style>{style}</style></head><body>{''.join(body)}</body></html>"


def write_report(cert: dict, outdir: str | Path) -> dict[str, Path]:
    """Write ``certificate.json``, ``report.md``, ``report.html`` and the plots into ``outdir``."""
    import json

    from .._io import atomic_dir

    validate(cert)
    text = json.dumps(cert, indent=1, allow_nan=False)  # fails before anything is written
    names = dict(json="certificate.json", markdown="report.md", html="report.html")
    with atomic_dir(outdir) as stage:  # nothing appears at outdir unless every file is written
        images = _plots(cert, stage)
        md = to_markdown(cert, images)
        (stage / names["json"]).write_text(text)
        (stage / names["markdown"]).write_text(md)
        (stage / names["html"]).write_text(to_html(md, stage, images))
    return {k: Path(outdir) / v for k, v in names.items()}


class CertificateReport:
    """A certificate for notebooks: ``CertificateReport(cert)`` renders as HTML (``_repr_html_``) and Markdown."""

    def __init__(self, cert: dict) -> None:
        validate(cert)
        self.cert = cert

    def _repr_markdown_(self) -> str:
        return to_markdown(self.cert)

    def _repr_html_(self) -> str:
        page = to_html(to_markdown(self.cert), Path("."), ())
        return page[page.index("<body>") + 6:page.index("</body>")]


__all__ = ["CertificateReport", "RunConfig", "certify_hparams", "certify_ledger", "check_result", "empirical_checks",
           "kernel_hashes", "run", "uninformative_audit", "versions", "write_report"]
