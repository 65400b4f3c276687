"""symdp.certify: the DP-SGD trainer, the MIA audit, the certificate and its checks (CPU, fast)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

torch = pytest.importorskip("torch")

from symdp.certify import certificate as C  # noqa: E402
from symdp.certify import mia, privacy  # noqa: E402
from symdp.certify.data import load_digits_split, make_canaries, mlp, synthetic_split  # noqa: E402
from symdp.certify.schema import SCHEMA_ID, validate  # noqa: E402
from symdp.certify.trainer import (  # noqa: E402
    add_noise,
    clip_and_sum,
    per_sample_grads,
    poisson_batch,
    train_dpsgd,
)
from symdp.errors import InvalidParameterError, SymdpError, UnsupportedError  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny models: one thread is fastest, and avoids oversubscribing a shared CPU."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _has_odometer() -> bool:
    try:
        from symdp.accountants import RDPOdometer  # noqa: F401
    except ImportError:
        return False
    return True


def _has_accountant() -> bool:
    import symdp.accountants as A

    return hasattr(A, "epsilon")


needs_odometer = pytest.mark.skipif(not _has_odometer(), reason="symdp.accountants.RDPOdometer not built yet")
needs_accountant = pytest.mark.skipif(not _has_accountant(), reason="symdp.accountants.epsilon not built yet")


def _tiny(seed=0, d=5, k=3, hidden=(7,)):
    torch.manual_seed(seed)
    model = mlp(d, k, hidden).double()
    x = torch.randn(11, d, dtype=torch.float64)
    y = torch.randint(0, k, (11,))
    return model, x, y


# --------------------------------------------------------------------------- trainer pieces
def test_per_sample_grads_equal_a_loop_over_examples():
    model, x, y = _tiny()
    params = {k: p.detach() for k, p in model.named_parameters()}
    g = per_sample_grads(model, params, {}, x, y)
    for i in range(len(y)):
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        for name, p in model.named_parameters():
            torch.testing.assert_close(g[name][i], p.grad, rtol=1e-10, atol=1e-12)


def test_clipping_bounds_each_norm_and_keeps_small_gradients():
    model, x, y = _tiny(1)
    params = {k: p.detach() for k, p in model.named_parameters()}
    g = per_sample_grads(model, params, {}, x, y)
    _, norms = clip_and_sum(g, 1e9)
    C_ = float(norms.median())  # half the examples get clipped
    for i in range(len(y)):
        one = {k: v[i:i + 1] for k, v in g.items()}
        s, nrm = clip_and_sum(one, C_)
        flat = torch.cat([v.flatten() for v in s.values()])
        assert float(flat.norm()) <= C_ * (1 + 1e-12)
        if float(nrm) < C_ * 0.999:  # unclipped: unchanged up to the 1e-6 guard
            torch.testing.assert_close(flat, torch.cat([v[0].flatten() for v in one.values()]), rtol=1e-5, atol=0)
    # the batch sum is the sum of the individually clipped gradients
    s_all, _ = clip_and_sum(g, C_)
    parts = [clip_and_sum({k: v[i:i + 1] for k, v in g.items()}, C_)[0] for i in range(len(y))]
    for k in s_all:
        torch.testing.assert_close(s_all[k], sum(p[k] for p in parts))


def test_noise_has_std_sigma_C_over_expected_batch():
    sigma, C_, qn = 1.3, 0.7, 25.0
    gen = torch.Generator().manual_seed(1234)
    z = {"w": torch.zeros(400, 500, dtype=torch.float64)}
    out = add_noise(z, noise_multiplier=sigma, max_grad_norm=C_, expected_batch_size=qn, generator=gen)["w"].flatten()
    std = sigma * C_ / qn
    m = out.numel()
    assert abs(float(out.mean())) < 5 * std / math.sqrt(m)
    # sample std within 5 standard errors (se of s is about std / sqrt(2m))
    assert abs(float(out.std()) - std) < 5 * std / math.sqrt(2 * m)
    # and it is Gaussian (KS test at a fixed seed)
    assert stats.kstest(out[:20000].numpy() / std, "norm").pvalue > 1e-3


def test_poisson_batch_sizes_are_binomial():
    n, q, draws = 1000, 0.1, 3000
    gen = torch.Generator().manual_seed(7)
    sizes = np.array([poisson_batch(n, q, gen).numel() for _ in range(draws)], dtype=float)
    mean, var = n * q, n * q * (1 - q)
    assert abs(sizes.mean() - mean) < 5 * math.sqrt(var / draws)
    assert abs(sizes.var(ddof=1) - var) < 5 * var * math.sqrt(2 / (draws - 1))
    idx = poisson_batch(n, q, gen)
    assert torch.equal(idx, torch.unique(idx)) and int(idx.max()) < n
    # every example is included with probability q (marginals), not just the right total
    counts = np.zeros(n)
    for _ in range(500):
        counts[poisson_batch(n, q, gen).numpy()] += 1
    assert stats.chisquare(counts).pvalue > 1e-4


def test_one_step_equals_the_dpsgd_formula():
    """A full trainer step with SGD(lr=1) moves the parameters by exactly -(clipped sum + noise) / (q n)."""
    model, x, y = _tiny(2)
    before = {k: p.detach().clone() for k, p in model.named_parameters()}
    n, q, sigma, C_, seed = len(y), 0.5, 0.8, 0.3, 5
    train_dpsgd(model, x, y, noise_multiplier=sigma, sample_rate=q, steps=1, max_grad_norm=C_, delta=1e-5,
                optimizer=lambda p: torch.optim.SGD(p, lr=1.0), odometer=None, progress=False, seed=seed, device="cpu")
    idx = poisson_batch(n, q, torch.Generator().manual_seed(seed))
    ref = mlp(5, 3, (7,)).double()
    ref.load_state_dict(before)
    g = per_sample_grads(ref, before, {}, x[idx], y[idx])
    s, _ = clip_and_sum(g, C_)
    priv = add_noise(s, noise_multiplier=sigma, max_grad_norm=C_, expected_batch_size=q * n,
                     generator=torch.Generator().manual_seed(seed + 1))
    for k, p in model.named_parameters():
        torch.testing.assert_close(p.detach(), before[k] - priv[k])


def test_empty_batches_still_add_noise_and_bad_input_is_refused():
    model, x, y = _tiny(3)
    w0 = model[0].weight.detach().clone()
    r = train_dpsgd(model, x, y, noise_multiplier=1.0, sample_rate=1e-9, steps=3, max_grad_norm=1.0, delta=1e-5,
                    odometer=None, progress=False)
    assert r.batch_sizes == [0, 0, 0] and not torch.equal(w0, model[0].weight.detach())
    for kw, name in ((dict(noise_multiplier=-1.0), "noise_multiplier"), (dict(sample_rate=0.0), "sample_rate"),
                     (dict(delta=1.0), "delta"), (dict(steps=2.5), "steps"), (dict(max_grad_norm=0.0), "max_grad_norm")):
        args = dict(noise_multiplier=1.0, sample_rate=0.5, steps=1, max_grad_norm=1.0, delta=1e-5)
        args.update(kw)
        with pytest.raises(InvalidParameterError, match=name):
            train_dpsgd(model, x, y, odometer=None, progress=False, **args)


def test_trainer_learns_on_digits_quickly():
    d = load_digits_split(seed=0)
    torch.manual_seed(0)
    model = mlp(64, 10, (32,))
    x, y = torch.tensor(d.x_train), torch.tensor(d.y_train)
    r = train_dpsgd(model, x, y, noise_multiplier=0.8, sample_rate=128 / len(y), steps=150, max_grad_norm=1.0,
                    delta=1e-5, odometer=None, progress=False, optimizer=lambda p: torch.optim.SGD(p, lr=1.0))
    acc = (model(torch.tensor(d.x_test)).argmax(1) == torch.tensor(d.y_test)).float().mean()
    assert r.steps == 150 and float(acc) > 0.8


def test_budget_without_odometer_is_refused_before_training():
    model, x, y = _tiny(4)
    w0 = model[0].weight.detach().clone()
    with pytest.raises(UnsupportedError):
        train_dpsgd(model, x, y, noise_multiplier=1.0, sample_rate=0.5, steps=3, max_grad_norm=1.0, delta=1e-5,
                    odometer=None, target_epsilon=1.0, progress=False)
    assert torch.equal(w0, model[0].weight.detach())  # nothing changed


# --------------------------------------------------------------------------- odometer
@needs_odometer
@needs_accountant
def test_odometer_matches_the_rdp_accountant():
    from symdp.accountants import epsilon

    model, x, y = _tiny(5)
    r = train_dpsgd(model, x, y, noise_multiplier=1.1, sample_rate=0.3, steps=40, max_grad_norm=1.0, delta=1e-5,
                    progress=False, log_every=10)
    ref = epsilon(noise_multiplier=1.1, sample_rate=0.3, steps=40, delta=1e-5, accountant="rdp").epsilon
    assert r.final_epsilon == pytest.approx(ref, rel=1e-6)
    assert [s for s, _ in r.epsilon_log] == [10, 20, 30, 40]
    eps = [e for _, e in r.epsilon_log]
    assert all(a < b for a, b in itertools.pairwise(eps))
    tight = epsilon(noise_multiplier=1.1, sample_rate=0.3, steps=40, delta=1e-5, accountant="tight").epsilon
    assert tight <= r.final_epsilon * (1 + 1e-9)


@needs_odometer
def test_budget_stop_is_exact():
    model, x, y = _tiny(6)
    full = train_dpsgd(mlp(5, 3, (7,)).double(), x, y, noise_multiplier=1.0, sample_rate=0.3, steps=60,
                       max_grad_norm=1.0, delta=1e-5, progress=False, log_every=1)
    target = full.epsilon_log[24][1] + 1e-9  # epsilon after 25 steps
    r = train_dpsgd(model, x, y, noise_multiplier=1.0, sample_rate=0.3, steps=60, max_grad_norm=1.0, delta=1e-5,
                    progress=False, target_epsilon=target)
    assert r.steps == 25 and r.stopped_at_budget and r.final_epsilon <= target


# --------------------------------------------------------------------------- audit
def test_clopper_pearson_matches_beta_quantiles_and_brackets_the_estimate():
    lo = mia.clopper_pearson(30, 100, 0.05, "lower")
    up = mia.clopper_pearson(30, 100, 0.05, "upper")
    assert lo == pytest.approx(stats.beta.ppf(0.05, 30, 71)) and up == pytest.approx(stats.beta.ppf(0.95, 31, 70))
    assert lo < 0.3 < up
    assert mia.clopper_pearson(0, 10, 0.05, "lower") == 0.0 and mia.clopper_pearson(10, 10, 0.05, "upper") == 1.0
    with pytest.raises(InvalidParameterError):
        mia.clopper_pearson(11, 10, 0.05, "lower")


def test_audit_is_sound_and_has_power_on_randomized_response():
    """Membership leaked through eps-randomized response: the lower bound stays below eps and comes close."""
    eps, m = 1.0, 40000
    rng = np.random.default_rng(0)
    member = rng.random(m) < 0.5
    truth = rng.random(m) < math.exp(eps) / (1 + math.exp(eps))
    said_member = np.where(truth, member, ~member)
    losses = np.where(said_member, 0.0, 1.0) + 1e-3 * rng.random(m)  # low loss = "member"
    a = mia.loss_threshold_audit(losses, member, delta=0.0, alpha=0.05)
    assert 0.8 * eps < a.epsilon_lower <= eps


def test_audit_finds_nothing_without_leakage():
    rng = np.random.default_rng(1)
    member = rng.random(1000) < 0.5
    a = mia.loss_threshold_audit(rng.random(1000), member, delta=1e-5)
    assert a.epsilon_lower < 0.5


# --------------------------------------------------------------------------- certificate
def test_tradeoff_curve_properties():
    f = np.linspace(0, 1, 201)
    t = privacy.tradeoff_tpr(f, 0.0, 0.0)
    np.testing.assert_allclose(t, f)
    t = privacy.tradeoff_tpr(f, 1.5, 1e-3)
    assert np.all(np.diff(t) >= -1e-15) and np.all(t <= 1) and np.all(t >= f)
    assert t[0] == pytest.approx(1e-3)
    with pytest.raises(InvalidParameterError):
        privacy.tradeoff_tpr(f, -1.0, 0.1)


def test_hparams_certificate_follows_the_schema(tmp_path):
    cert = C.certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=100, n=10_000, delta=1e-5)
    validate(cert)
    assert cert["schema"] == SCHEMA_ID and cert["empirical"] is None
    assert cert["privacy"]["accountants"]["clt"]["is_upper_bound"] is False  # an approximation, always
    assert set(cert["versions"]["kernels"]) == {"files", "combined"}
    paths = C.write_report(cert, tmp_path)
    assert json.loads(paths["json"].read_text())["parameters"]["steps"] == 100
    assert "approximation" in paths["markdown"].read_text()
    bad = dict(cert)
    bad.pop("privacy")
    with pytest.raises(SymdpError):
        validate(bad)
    bad = json.loads(json.dumps(cert))
    bad["parameters"]["delta"] = 2.0
    with pytest.raises(SymdpError):
        validate(bad)


@needs_accountant
def test_hparams_epsilons_order_tight_le_rdp():
    cert = C.certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=1000, n=10_000, delta=1e-5)
    acc = cert["privacy"]["accountants"]
    assert acc["tight"]["epsilon"] <= acc["rdp"]["epsilon"]
    assert cert["privacy"]["epsilon_upper"] == min(acc["tight"]["epsilon"], acc["rdp"]["epsilon"])


def test_lower_le_upper_check_passes_and_fails_correctly():
    cert = C.certify_hparams(noise_multiplier=1.0, sample_rate=0.01, steps=100, n=10_000, delta=1e-5)
    cert["privacy"]["epsilon_upper"], cert["privacy"]["epsilon_upper_from"] = 1.0, "test"
    audit = dict(epsilon_lower=0.4, evaluation_canaries=100, alpha=0.05)
    emp = dict(audit=audit, error_gap=0.01, test_error=0.1)
    ok = C.empirical_checks(cert, emp)[0]
    assert ok["passed"] is True and ok["gap"] == pytest.approx(0.6)
    audit["epsilon_lower"] = 1.7
    bad = C.empirical_checks(cert, emp)[0]
    assert bad["passed"] is False and bad["gap"] == pytest.approx(-0.7)
    cert["privacy"]["epsilon_upper"] = None
    assert C.empirical_checks(cert, emp)[0]["passed"] is None


def test_trained_certificate_end_to_end(tmp_path):
    cfg = C.RunConfig(steps=30, batch_size=64, num_canaries=40, progress=False, hidden=(16,))
    cert = C.run(cfg)
    validate(cert)
    emp = cert["empirical"]
    assert cert["mode"] == "trained" and 0 <= emp["train_error"] <= 1 and emp["audit"]["num_canaries"] == 40
    check = emp["checks"][0]
    assert check["name"].startswith("empirical epsilon")
    if cert["privacy"]["epsilon_upper"] is not None:
        assert check["passed"] is True  # the audit never beats a valid upper bound here
    paths = C.write_report(cert, tmp_path)
    html = paths["html"].read_text()
    assert "data:image/png;base64" in html and (tmp_path / "canaries.png").exists()


def test_canaries_are_mislabeled_and_half_included():
    base = load_digits_split(seed=0)
    split, can = make_canaries(base, num_canaries=200, seed=0)
    assert len(split.y_train) == len(base.y_train) + can.member.sum()
    assert len(split.y_test) == len(base.y_test) - 200
    assert 70 < can.member.sum() < 130
    s = synthetic_split(n=50)
    assert s.x_train.shape == (50, 16)


def test_ledger_is_validated_and_merged():
    assert privacy.normalize_ledger([(1.0, 0.1, 5), (1.0, 0.1, 7), (2.0, 0.1, 0)]) == [(1.0, 0.1, 12)]
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        privacy.normalize_ledger([(1.0, 0.0, 5)])
    with pytest.raises(InvalidParameterError):
        privacy.normalize_ledger([(1.0, 0.1)])


# --------------------------------------------------------------------------- CLI
def test_cli_from_hparams_and_ledger(tmp_path):
    from click.testing import CliRunner

    from symdp.cli import main

    r = CliRunner().invoke(main, ["certify", "--from-hparams", "--noise-multiplier", "1.1", "--sample-rate", "0.004",
                                  "--steps", "100", "--n", "60000", "--out", str(tmp_path / "a"), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["parameters"]["n"] == 60000
    led = tmp_path / "ledger.json"
    led.write_text(json.dumps({"n": 1000, "delta": 1e-6, "ledger": [[1.0, 0.1, 10], [2.0, 0.2, 5]]}))
    r = CliRunner().invoke(main, ["certify", "--ledger", str(led), "--out", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    cert = json.loads((tmp_path / "b" / "certificate.json").read_text())
    assert cert["parameters"]["ledger"] == [[1.0, 0.1, 10], [2.0, 0.2, 5]] and cert["parameters"]["delta"] == 1e-6
    r = CliRunner().invoke(main, ["certify", "--from-hparams", "--noise-multiplier", "1.0", "--out", str(tmp_path / "c")])
    assert r.exit_code != 0 and "--sample-rate" in r.output
    r = CliRunner().invoke(main, ["certify", "--from-hparams", "--sample-rate", "0", "--n", "10",
                                  "--out", str(tmp_path / "d")])
    assert r.exit_code == 2 and "--sample-rate" in r.output and len(r.output.strip().splitlines()) == 1


def test_cli_trains_a_tiny_run(tmp_path):
    from click.testing import CliRunner

    from symdp.cli import main

    r = CliRunner().invoke(main, ["certify", "--steps", "10", "--canaries", "20", "--hidden", "8", "--no-progress",
                                  "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    cert = json.loads((tmp_path / "certificate.json").read_text())
    assert (tmp_path / "report.html").exists() and cert["mode"] == "trained" and cert["parameters"]["steps"] == 10
    assert (tmp_path / "tradeoff.png").exists() == (cert["tradeoff"] is not None)


@pytest.mark.slow
def test_default_run_is_fast_and_useful():
    """`symdp certify` with no arguments: under 3 minutes on a 2-core CPU, a useful model, a sound audit."""
    import time

    t0 = time.perf_counter()
    cert = C.run(C.RunConfig(progress=False))
    assert time.perf_counter() - t0 < 180
    emp = cert["empirical"]
    assert emp["test_error"] < 0.25
    eps = cert["privacy"]["epsilon_upper"]
    assert eps is not None and 1.0 < eps < 5.0
    assert emp["checks"][0]["passed"] is True


@needs_odometer
def test_budget_counts_steps_already_spent_by_a_resumed_odometer():
    from symdp.certify.trainer import make_odometer

    model, x, y = _tiny(7)
    odo = make_odometer("cpu")
    odo.step(1.0, 0.3, steps=20)
    spent = float(odo.epsilon(1e-5))
    fresh = make_odometer("cpu")
    fresh.step(1.0, 0.3, steps=30)
    target = float(fresh.epsilon(1e-5)) + 1e-9  # room for 10 more steps only
    r = train_dpsgd(model, x, y, noise_multiplier=1.0, sample_rate=0.3, steps=100, max_grad_norm=1.0, delta=1e-5,
                    progress=False, odometer=odo, target_epsilon=target)
    assert r.steps == 10 and spent < r.final_epsilon <= target


@pytest.mark.slow
def test_audit_detects_leakage_in_a_nearly_non_private_run():
    """With almost no noise the canaries are memorised: the audit finds eps > 0, still below the certificate."""
    cert = C.run(C.RunConfig(noise_multiplier=0.05, steps=1500, lr=0.5, hidden=(256,), max_grad_norm=20.0,
                             batch_size=128, progress=False))
    check = cert["empirical"]["checks"][0]
    assert cert["empirical"]["audit"]["epsilon_lower"] > 0.5 and check["passed"] is True
    json.dumps(cert, allow_nan=False)
