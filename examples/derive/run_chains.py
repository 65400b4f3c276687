"""Run the three worked chains of the theorem calculus (issue 10) and print each closed form,
its hypotheses (with the step each came from), provenance and verdict, and a rate.

    python examples/derive/run_chains.py

The same from the command line:

    symdp derive --chain classical.gaussian_mechanism_calibration,bridge.bbg2018_poisson_eps,\
classical.dwork_roth_advanced_composition_eps,bridge.group_privacy_dp,he2021uai.thm1_small_eps --rate T --at oo
"""

from __future__ import annotations

import sympy as sp

from symdp.asymptotics import rate
from symdp.calculus import WORKED_CHAINS, chain

SHOW = {
    # (i) Gaussian -> Poisson -> Dwork-Roth advanced composition -> He et al. Thm 1
    "gaussian_poisson_dwork_roth_he_thm1": ("gap", "T", "oo"),
    # (ii) NoisySGD -> GDP CLT -> duality -> He et al. Thm 1 (an approximation: the CLT step)
    "noisysgd_clt_duality_he_thm1": ("gap", "epsilon", "0"),
    # (iii) 001's SGLD
    "sgld_001": ("gap", "N", "oo"),
}


def main() -> None:
    for name, (param, var, at) in SHOW.items():
        d = chain(WORKED_CHAINS[name])
        print(f"== {name}: {' -> '.join(d.ids)}")
        print(f"   conclusion: {d.conclusion.subject_of()} is {d.conclusion.kind}"
              + ("  (APPROXIMATION)" if d.approximate else ""))
        expr = d.closed_form(param)
        text = sp.sstr(expr)
        print(f"   {param} = {text[:400]}{' ...' if len(text) > 400 else ''}")
        print(f"   hypotheses ({len(d.hypotheses)}):")
        for h, step in d.hypotheses:
            ht = sp.sstr(h)
            print(f"     {ht[:150]}{' ...' if len(ht) > 150 else ''}   [from {step}]")
        for s in d.steps:
            print(f"   step {s.id}: {s.citation} [{s.verdict.value}]" + ("  approximate" if s.approximate else ""))
        print(f"   verdict (weakest step): {d.verdict.value}")
        print(f"   rate of {param} as {var} -> {at}: {rate(expr, var, at, seconds=20).describe()}\n")
    # a numerical instance of chain (i): DP-SGD-like setting
    d = chain(WORKED_CHAINS["gaussian_poisson_dwork_roth_he_thm1"],
              bind={"Delta": 1, "sigma": 40, "q": 0.01, "T": 100, "delta": 1e-8, "deltatilde": 1e-6})
    print("chain (i) at Delta=1, sigma=40, q=0.01, T=100, delta=1e-8, deltatilde=1e-6:")
    print(f"   gap <= {float(d.closed_form('gap')):.6g}, failure <= {float(d.closed_form('failure')):.6g}")
    print(f"   remaining conditions: {[sp.sstr(h)[:80] for h, _ in d.hypotheses]}")


if __name__ == "__main__":
    main()
