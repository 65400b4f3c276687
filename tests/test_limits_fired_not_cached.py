"""A result computed while a wall-clock limit fired is not cached (session 32).

Under load, a proof attempt cut short by its wall-clock limit (the symbolic rung's 8 s) gives a weaker verdict
(SUPPORTED where a quiet machine proves: accounting.sgm_hockey_remove in a loaded CI run).  The verdict caches of
``symdp audit`` and ``symdp verify`` kept such a result for every later run.  Now each task counts the limits that
fired while it ran (:data:`symdp.limits.FIRED`) and a task with any is not cached.
"""

from __future__ import annotations

import time

import pytest

from symdp import limits


def _fire_once() -> None:
    with pytest.raises(limits.TimeLimitExceeded), limits.time_limit(0.02):
        t = time.monotonic()
        while time.monotonic() - t < 2.0:
            pass


def test_the_counter_counts_fired_limits_only():
    n0 = limits.FIRED["time"]
    with limits.time_limit(5.0):
        pass
    assert limits.FIRED["time"] == n0
    _fire_once()
    assert limits.FIRED["time"] == n0 + 1


@pytest.mark.parametrize("fire", [False, True])
def test_audit_task_with_a_fired_limit_is_not_cacheable(monkeypatch, fire):
    from symdp.audit import engine
    from symdp.audit import parallel as P

    real = engine.audit_theorem

    def audit(*a, **k):
        if fire:
            _fire_once()  # as a symbolic rung cut short by its limit would
        return real(*a, **k)

    monkeypatch.setattr(engine, "audit_theorem", audit)
    payload = P._run_one(("claim", "wang2016.example_laplace_mean_dp", False, 0, False))
    assert payload["results"][0]["verdict"] == "HOLDS"
    assert payload["limits_fired"] == (1 if fire else 0)
    assert P._cacheable(payload) is (not fire)


def test_verify_task_with_a_fired_limit_is_not_cached(monkeypatch, tmp_path):
    from symdp.verify import engine
    from symdp.verify import parallel as VP

    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path))
    real = engine.verify_theorem
    calls = []

    def verify(*a, **k):
        calls.append(1)
        _fire_once()
        return real(*a, **k)

    monkeypatch.setattr(engine, "verify_theorem", verify)
    ids = ["wang2016.example_laplace_mean_dp"]
    r1 = VP.verify_parallel(ids, workers=1, use_cache=True)
    r2 = VP.verify_parallel(ids, workers=1, use_cache=True)  # not cached: computed again
    assert len(calls) == 2 and r1[0].evidence.verdict == r2[0].evidence.verdict
    monkeypatch.setattr(engine, "verify_theorem", real)
    VP.verify_parallel(ids, workers=1, use_cache=True)  # no limit fired: cached this time
    monkeypatch.setattr(engine, "verify_theorem", verify)
    VP.verify_parallel(ids, workers=1, use_cache=True)
    assert len(calls) == 2  # the cached row was used


def test_an_outer_deadline_caught_inside_a_cpu_budget_fires_again_at_once():
    """The symbolic rungs catch the Timeout of their own CPU budget; an outer wall-clock deadline that passes inside
    such a block is caught there too, and must fire again as soon as the block exits (time_limit's exit re-arms it;
    cpu_time_limit's did not, so the outer limit waited for its 1 s repeat: CI's test_parser per-claim limit)."""
    swallowed = []
    t_exit = None
    with pytest.raises(limits.TimeLimitExceeded), limits.time_limit(0.05):
        try:
            with limits.cpu_time_limit(30.0):
                t = time.monotonic()
                while time.monotonic() - t < 3.0:
                    pass
        except limits.TimeLimitExceeded:
            swallowed.append(1)
        t_exit = time.monotonic()
        while time.monotonic() - t_exit < 3.0:
            pass
    assert swallowed and t_exit is not None
    assert time.monotonic() - t_exit < 0.5  # well before the 1 s repeat
