"""The Opacus adapter (issue 14 item 4): instance and name, Opacus's history/len, Opacus's tests with symdp.

The tests below are Opacus 1.6's ``opacus/tests/accountants_test.py`` and
``privacy_engine_test.py::test_make_private_with_epsilon`` with symdp plugged in (same parameters,
same assertions where they are accountant-independent, the safe-direction checks where the
reference value was another accountant's).  The slow test runs Opacus's own accountant test module
unchanged with the adapter loaded (registered names and the calibration wrapper in place).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")

from opacus import PrivacyEngine  # noqa: E402
from opacus.accountants import RDPAccountant, create_accountant, registry  # noqa: E402

from symdp.accountants import epsilon  # noqa: E402
from symdp.accountants.opacus_adapter import SymdpAccountant, SymdpRDPAccountant, register  # noqa: E402


def get_noise_multiplier(**kw):
    """Opacus's ``opacus.accountants.utils.get_noise_multiplier`` as seen after the adapter is imported."""
    import opacus.accountants.utils as u

    return u.get_noise_multiplier(**kw)
from symdp.errors import InvalidParameterError  # noqa: E402


def _dpa_pld_eps(sigma: float, q: float, steps: int, delta: float, pess: bool = True) -> float:
    from dp_accounting.pld import privacy_loss_distribution as PLD

    p = PLD.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=1e-4,
                                    pessimistic_estimate=pess, use_connect_dots=pess)
    return float(p.self_compose(steps).get_epsilon_for_delta(delta))


# ---------------------------------------------------------------- accepted as an instance and by name
def test_privacy_engine_accepts_an_instance_and_a_name():
    acc = SymdpAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine(accountant=acc)
        assert engine.accountant is acc
        by_name = PrivacyEngine(accountant="symdp")
        assert isinstance(by_name.accountant, SymdpAccountant) and by_name.accountant is not acc
        assert isinstance(PrivacyEngine(accountant="symdp-rdp").accountant, SymdpRDPAccountant)
    rdp_inst = SymdpAccountant("rdp")
    assert rdp_inst.mechanism() == "symdp-rdp" and rdp_inst.accountant == "rdp"
    with pytest.raises(InvalidParameterError, match="accountant='clt'"):
        SymdpAccountant("clt")
    # the registry holds no strong reference: a dropped instance leaves it
    n = len(registry._ACCOUNTANTS)
    tmp = SymdpAccountant()
    assert len(registry._ACCOUNTANTS) == n + 1
    del tmp
    gc.collect()
    assert len(registry._ACCOUNTANTS) == n


# ---------------------------------------------------------------- AccountingTest with symdp
def test_history_and_len_as_opacus():
    # Opacus test_rdp_accountant: 1.5, 0.04, int(90 / 0.04) steps
    steps = int(90 / 0.04)
    ours, theirs = SymdpAccountant(), RDPAccountant()
    for _ in range(steps):
        ours.step(noise_multiplier=1.5, sample_rate=0.04)
        theirs.step(noise_multiplier=1.5, sample_rate=0.04)
    assert ours.history == theirs.history == [(1.5, 0.04, steps)]
    assert len(ours) == len(theirs) == 1 and ours.steps == steps
    ours.step(noise_multiplier=1.0, sample_rate=0.04)
    theirs.step(noise_multiplier=1.0, sample_rate=0.04)
    assert ours.history == theirs.history and len(ours) == len(theirs) == 2
    with pytest.raises(InvalidParameterError, match="noise_multiplier"):
        ours.step(noise_multiplier=-1.0, sample_rate=0.04)
    assert len(ours) == 2 and ours.steps == steps + 1  # a rejected step records nothing


def test_epsilon_is_an_upper_bound_between_the_peers():
    steps = int(90 / 0.04)
    acc = SymdpAccountant()
    acc.history = [(1.5, 0.04, steps)]
    eps = acc.get_epsilon(delta=1e-5)
    # Opacus's RDP value (test_rdp_accountant) is looser; dp_accounting's optimistic PLD is below the truth
    assert eps < 7.32911117143
    assert _dpa_pld_eps(1.5, 0.04, steps, 1e-5, pess=False) <= eps <= _dpa_pld_eps(1.5, 0.04, steps, 1e-5) * 1.005
    acc_r = SymdpAccountant("rdp")
    acc_r.history = list(acc.history)
    assert acc_r.get_epsilon(delta=1e-5) == pytest.approx(7.32911117143, rel=0.01)
    assert acc_r.get_epsilon(delta=1e-5) >= eps


@pytest.mark.parametrize("kw", [pytest.param({"epochs": 90}, marks=pytest.mark.slow), {"steps": 2000}])
def test_get_noise_multiplier_symdp(kw):
    # Opacus test_get_noise_multiplier_rdp_epochs / _steps with accountant="symdp"
    sigma = get_noise_multiplier(target_epsilon=8, target_delta=1e-5, sample_rate=0.04, accountant="symdp", **kw)
    steps = kw.get("steps") or int(kw["epochs"] / 0.04)
    acc = create_accountant("symdp")
    acc.history = [(sigma, 0.04, steps)]
    e = acc.get_epsilon(delta=1e-5)
    assert e <= 8 and e >= 8 * (1 - 1e-4)
    rdp_sigma = get_noise_multiplier(target_epsilon=8, target_delta=1e-5, sample_rate=0.04, accountant="rdp", **kw)
    assert sigma < rdp_sigma  # the tight accountant needs less noise than Opacus's RDP


@pytest.mark.slow
@pytest.mark.parametrize("epsilon_t,epochs,sample_rate,delta", [(1.0, 10, 1e-2, 1e-5), (3.7, 40, 5e-2, 1e-6), (9.5, 100, 1e-3, 1e-4)])
def test_get_noise_multiplier_overshoot_symdp(epsilon_t, epochs, sample_rate, delta):
    # Opacus test_get_noise_multiplier_overshoot (a few of its hypothesis cases): never over the target
    sigma = get_noise_multiplier(target_epsilon=epsilon_t, target_delta=delta, sample_rate=sample_rate,
                                 epochs=epochs, accountant="symdp")
    acc = create_accountant(mechanism="symdp")
    acc.history = [(sigma, sample_rate, int(epochs / sample_rate))]
    assert acc.get_epsilon(delta=delta) <= epsilon_t


def test_state_dict_round_trip_and_mechanism_check():
    steps = int(90 / 0.04)
    acc = SymdpAccountant()
    for _ in range(steps - 1000):
        acc.step(noise_multiplier=1.5, sample_rate=0.04)
    sd = acc.state_dict({"dummy_k": "dummy_v"})
    assert sd["history"] == acc.history and sd["history"] is not acc.history
    assert sd["mechanism"] == "symdp" and sd["dummy_k"] == "dummy_v"
    new = SymdpAccountant()
    new.load_state_dict(sd)
    assert new.history == acc.history and new.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    with pytest.raises(ValueError):
        SymdpRDPAccountant().load_state_dict(sd)  # mechanism mismatch, as Opacus checks
    with pytest.raises(ValueError):
        new.load_state_dict(RDPAccountant().state_dict())


# ---------------------------------------------------------------- privacy_engine_test: make_private_with_epsilon
@pytest.mark.parametrize("make", [SymdpAccountant, pytest.param(lambda: "symdp", marks=pytest.mark.slow)])
def test_make_private_with_epsilon_places_2(make):
    # Opacus's BasePrivacyEngineTest sizes: 512 examples, batches of 64, 2 epochs, target (2.0, 1e-5)
    torch.manual_seed(42)
    data = torch.utils.data.TensorDataset(torch.randn(512, 8), torch.randint(0, 10, (512,)))
    dl = torch.utils.data.DataLoader(data, batch_size=64, drop_last=False)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0)
    target_eps, target_delta, epochs = 2.0, 1e-5, 2
    total_steps = epochs * len(dl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine = PrivacyEngine(accountant=make())
        model, opt, pdl = engine.make_private_with_epsilon(
            module=model, optimizer=opt, data_loader=dl, target_epsilon=target_eps, target_delta=target_delta,
            epochs=epochs, max_grad_norm=1.0,
        )
        steps = 0
        for _ in range(epochs):
            for x, y in pdl:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
                steps += 1
                if steps >= total_steps:
                    break
    got = engine.get_epsilon(target_delta)
    assert round(abs(target_eps - got), 2) == 0  # unittest's assertAlmostEqual(..., places=2)
    assert got <= target_eps  # and on the safe side
    assert engine.accountant.steps == total_steps and len(engine.accountant) == 1
    assert got == pytest.approx(float(epsilon(noise_multiplier=opt.noise_multiplier, sample_rate=1 / len(dl),
                                              steps=total_steps, delta=target_delta).epsilon), rel=1e-12)


def test_other_accountants_calibration_is_untouched():
    import opacus.privacy_engine as pe

    register()
    register()  # idempotent: wrapped once
    orig = pe.get_noise_multiplier.__wrapped__
    assert orig.__module__ == "opacus.accountants.utils" and not hasattr(orig, "__wrapped__")
    assert pe.get_noise_multiplier(target_epsilon=8, target_delta=1e-5, sample_rate=0.04, epochs=90,
                                   accountant="rdp") == pytest.approx(1.416, abs=1e-4)  # Opacus's own value


@pytest.mark.slow
def test_opacus_own_accountant_tests_pass_with_symdp_plugged_in():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "opacus.tests.accountants_test", "-q", "-p", "no:cacheprovider",
         "-p", "symdp.accountants.opacus_adapter", "-o", "addopts="],
        capture_output=True, text=True, timeout=1200,
    )
    assert out.returncode == 0, out.stdout[-3000:]
