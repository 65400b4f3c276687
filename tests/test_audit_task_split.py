"""The mechanism-level tasks of the parallel audit (issue 25): Bu et al.'s experiments one task each (the same results,
in the serial order), realistic task costs for the hand-out, and the readings of one algorithm theorem chained."""

from __future__ import annotations

import json
from dataclasses import asdict

from symdp.audit import parallel as P
from symdp.audit.experiments import EXPERIMENTS, TABLE1, all_experiments, audit_experiment, experiment
from symdp.audit.report import AuditResult
from symdp.audit.severity import annotate

_FIG4 = [c.refines[0] for _, c in EXPERIMENTS]


def test_experiments_are_one_task_each_in_the_serial_order() -> None:
    tasks = P._tasks(_FIG4, False, 0, False, True)
    exp = [t for t in tasks if t[0] in ("experiment", "experiments")]
    assert [t[1] for t in exp] == [e.id for pair in EXPERIMENTS for e in pair] + [e.id for e in TABLE1]
    assert [experiment(t[1]) for t in exp] == list(all_experiments())
    assert not [t for t in P._tasks(["he2021.lemma_kl"], False, 0, False, True) if t[0] == "experiment"]


def test_an_experiment_task_is_that_experiment_audited() -> None:
    for e in (EXPERIMENTS[0][0], TABLE1[1]):  # the cheap ones (the upper bound settles them)
        got = [AuditResult(**row) for row in P._run_one(("experiment", e.id, False, 0, False))["results"]]
        ref = audit_experiment(e)
        annotate(None, ref)
        assert len(got) == 1 and got[0].id == e.id
        assert json.loads(json.dumps(asdict(ref), default=str)) == asdict(got[0])


def test_costs_order_the_dear_tasks_first() -> None:
    from symdp.verify import load_ledger

    led = load_ledger()
    cost = {t[1]: P._cost(t, led) for t in P._tasks(_FIG4 + ["he2021long.thm7_eps_tilde", "he2021long.thm7_eps",
                                                   "he2021uai.thm7_eps"],
                                                   False, 0, True, True, {"he2021uai.thm7_eps"})}
    assert cost["experiment.bu2020.fig4_bottom_clt"] > cost["experiment.bu2020.fig4_top_ma"]
    assert cost["reading.he2021long.thm7_eps_tilde"] > cost["algo.he2021long.thm7_sgld"] > 0.1
    assert set(P.TASK_SECONDS) >= {e.id for e in all_experiments()}
    # a ledger entry that is plotted (refuted here) costs more than one that is only read
    assert led["he2021uai.thm7_eps"]["verdict"] == "REFUTED"
    assert P._cost(("ledger", "he2021uai.thm7_eps", False, 0, True), led) > P._cost(
        ("ledger", "he2021.lemma_kl", False, 0, True), led)


def test_the_readings_of_one_algorithm_theorem_share_a_chain() -> None:
    ts = [("algo", "algo.he2021long.thm7_sgld", False, 0, False), ("algo", "algo.he2021long.thm8_fl", False, 0, False),
          ("algo", "algo.he2021long.thm7_sgld_split_delta_tilde", False, 0, False), ("algo", "x", False, 0, False)]
    assert P._share_key(ts[0]) == P._share_key(ts[2]) != P._share_key(ts[1])
    assert P._share_key(ts[3]) is None
    assert P.chains(ts, [1.0, 1.0, 1.0, 40.0], workers=1) == [[0, 2], [1], [3]]


def test_a_chained_reading_gets_the_same_result_from_the_shared_screen() -> None:
    # fl and fl_split screen the same points (the same eps'): the second, run after the first in one worker, reads
    # the memoised screen values and reports exactly what it reports alone
    from symdp.audit import pair_oracle as po
    from symdp.audit.algorithms import ALGORITHM_CLAIMS, audit_algorithm

    split = ALGORITHM_CLAIMS["algo.he2021long.thm8_fl_split_delta_tilde"]
    po._pair_delta_float.cache_clear()
    alone = audit_algorithm(split)
    po._pair_delta_float.cache_clear()
    audit_algorithm(ALGORITHM_CLAIMS["algo.he2021long.thm8_fl"])
    hits = po._pair_delta_float.cache_info().hits
    chained = audit_algorithm(split)
    assert po._pair_delta_float.cache_info().hits - hits >= 200  # most of the split reading's points were shared
    assert asdict(chained) == asdict(alone)
    assert alone.verdict == "FAILS"


def test_measured_costs_cover_the_audit_and_hand_out_the_dear_claims_first() -> None:
    """The task-cost file (symdp/audit/task_seconds.json, written by ``bench/audit.py --costs``) names every task of
    the full audit; a claim is ordered by it, not by its ledger row (bu2020.clt_convergence: 0.007 s in the ledger,
    over 4 s of CPU in the audit, where it was handed out last and ran alone at the end)."""
    from symdp.audit.engine import library_claims
    from symdp.verify import load_ledger

    # the ledger row as one `symdp verify` wrote it (0.007 s: another entry had computed the shared PLD brackets
    # first; another run wrote 3.73 s): the row's seconds depend on the verify run, the audit's order must not
    led = dict(load_ledger())
    led["bu2020.clt_convergence"] = {**led["bu2020.clt_convergence"], "seconds": 0.007}
    tasks = P._tasks([t.id for t in library_claims(None)], False, 0, True, True)
    assert {t[1] for t in tasks} <= set(P.TASK_SECONDS)
    clt = next(t for t in tasks if t[1] == "bu2020.clt_convergence")
    assert P._cost(clt, led) == P.TASK_SECONDS["bu2020.clt_convergence"] > 1.0  # measured, not the ledger's 0.007
    cost = [P._cost(t, led) for t in tasks]
    rank = sorted(range(len(tasks)), key=lambda i: -cost[i])
    assert [tasks[i][1] for i in rank].index("bu2020.clt_convergence") < 10
    assert P._cost(("claim", "no.such.claim", False, 0, True), led) == 1.5  # the ledger rule (1 s + 0.5) where nothing was measured


def test_the_parent_lists_and_keys_the_tasks_without_scipy_stats() -> None:
    """The audit's parent lists the tasks and computes their cache keys before the first hand-out, on the cores the
    workers need: scipy.stats (~0.5 s of CPU to import) is imported where the oracles use it, and by the forkserver
    (symdp.audit._warm) for the workers, not by the parent."""
    import subprocess
    import sys

    code = ("import sys\nfrom symdp.audit.engine import library_claims\nfrom symdp.audit import parallel as P\n"
            "ts = P._tasks([t.id for t in library_claims(None)], False, 0, True, True)\n"
            "[P.task_key(t) for t in ts[:3] + ts[-3:]]\nprint('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
    src = (P.Path(P.__file__).with_name("_warm.py")).read_text()
    assert "import scipy.stats" in src
