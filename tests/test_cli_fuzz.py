"""CLI fuzz test: every bad input ends with ONE line ``error: ...`` naming the parameter (and its value and the
allowed range for numeric options), exit code 2, no traceback, and nothing written (issue 11, item 4).

Each invocation runs in-process through the ``symdp`` group (the same ``main`` the console script runs, with
its one-line error handling) inside an empty temporary directory, with the default output directories, so a
command that wrote anything (an empty ``symdp-report/``, a half-written certificate) is caught.

Fast tier: a deterministic table (every numeric option of account, calibrate, certify, audit, verify x a list
of bad values: inf, nan, -1, 0 where 0 is outside the range, huge, text, empty, unicode, 1/0, very long
strings), bad --ledger files, bad claim files, bad choices, plus a derandomized hypothesis search over
arbitrary text judged by an independent validity oracle.  Slow tier: a larger hypothesis search.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from symdp.cli import main

#: inputs tried and clean errors, per command (printed by test_zz_summary with -s)
TALLY: Counter[str] = Counter()

# ---- the options under test: (command, names, base args without this option, kind, lo, hi, lo_open, hi_open) ----
ACCOUNT = ["account", "-s", "1.1", "-q", "0.01", "-T", "100", "-d", "1e-5"]
CALIB = ["calibrate", "-e", "1", "-d", "1e-5", "-q", "0.01", "-T", "100"]
CERT = ["certify", "--from-hparams", "--sample-rate", "0.01", "--n", "1000", "--steps", "10"]

INF = math.inf
REAL_OPTIONS = [
    # command base, option (long, short), lo, hi, lo_open, hi_open
    (ACCOUNT, ("--noise-multiplier", "-s"), 0, INF, True, True),
    (ACCOUNT, ("--sample-rate", "-q"), 0, 1, True, False),
    (ACCOUNT, ("--delta", "-d"), 0, 1, True, True),
    (["account", "-s", "1.1", "-q", "0.01", "-T", "100"], ("--epsilon", "-e"), 0, INF, False, True),
    (CALIB, ("--target-epsilon", "-e"), 0, INF, True, True),
    (CALIB, ("--delta", "-d"), 0, 1, True, True),
    (CALIB, ("--sample-rate", "-q"), 0, 1, True, False),
    (["calibrate", "-e", "1", "-d", "1e-5", "-q", "0.01"], ("--noise-multiplier", "-s"), 0, INF, True, True),
    (CERT, ("--noise-multiplier",), 0, INF, True, True),
    (CERT, ("--sample-rate",), 0, 1, True, False),
    (CERT, ("--train-error",), 0, 1, False, False),
    (CERT, ("--max-grad-norm",), 0, INF, True, True),
    (CERT, ("--delta",), 0, 1, True, True),
    (CERT, ("--lr",), 0, INF, True, True),
    (CERT, ("--momentum",), 0, 1, False, True),
    (CERT, ("--target-epsilon",), 0, INF, True, True),
    (CERT, ("--confidence",), 0, 1, True, True),
]
INT_OPTIONS = [
    (ACCOUNT, ("--steps", "-T"), 0, 10**12),
    (CALIB, ("--steps", "-T"), 1, 10**12),
    (CERT, ("--n",), 1, 10**12),
    (CERT, ("--steps",), 1, 10**12),
    (CERT, ("--batch-size",), 1, 10**7),
    (CERT, ("--canaries",), 0, 10**6),
    (CERT, ("--seed",), 0, 2**32 - 1),
    (CERT, ("--threads",), 0, 4096),
    (["audit", "--claims", "missing.toml"], ("--seed",), 0, 2**32 - 1),
    (["verify", "--no-write", "no.such.id"], ("--seed",), 0, 2**32 - 1),
]
CHOICE_OPTIONS = [
    (ACCOUNT, ("--accountant", "-a")),
    (ACCOUNT, ("--sampling",)),
    (CALIB, ("--accountant", "-a")),
    (["audit", "--claims", "missing.toml"], ("--fail-on",)),
    (["derive", "he2021.lemma_kl", "--series", "epsilon"], ("--side",)),
]

#: bad for every numeric option (each range here is within [0, 1e12] and finite)
UNIVERSAL_BAD = [
    "inf", "-inf", "+inf", "Infinity", "nan", "NaN", "-nan", "-1", "-0.5", "-1e-300", "1e400", "-1e400", "abc", "",
    " ", "1/0", "1,5", "0x10", "é", "∞", "１e", "1e", "--", "None", "True", "[1]", "{}", "1 2", "\x00", "\n",
    "9" * 5000, "x" * 10000, "1" + "0" * 400, "-" + "9" * 70,
]


def _bad_for_range(lo: float, hi: float, lo_open: bool, hi_open: bool) -> list[str]:
    out = list(UNIVERSAL_BAD)
    if lo_open:
        out += ["0", "0.0", "-0", "0e5"]
    if hi < INF:
        out += [repr(hi * 1.5 + 1), "1e13", "1e300"]
        if hi_open:
            out += [repr(float(hi))]
    return out


def _valid_real(text: str, lo: float, hi: float, lo_open: bool, hi_open: bool) -> bool:
    """Independent oracle: is ``text`` a finite real in the interval (Python's float syntax, <= 64 chars)?"""
    s = text.strip()
    if not s or len(s) > 64:
        return False
    try:
        v = float(s)
    except ValueError:
        return False
    if not math.isfinite(v):
        return False
    return (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)


def _valid_int(text: str, lo: int, hi: int) -> bool:
    s = text.strip().replace("_", "")
    if not s or len(s) > 64:
        return False
    try:
        v = int(s)
    except ValueError:
        try:
            f = float(s)
        except ValueError:
            return False
        if not math.isfinite(f) or f != math.floor(f) or abs(f) >= 2**63:
            return False
        v = int(f)
    return lo <= v <= hi


def _run(tmp: Path, args: list[str]) -> tuple[int, str, str]:
    """Run ``symdp ARGS`` in the empty directory ``tmp``; return (exit code, stdout, stderr)."""
    before = sorted(os.listdir(tmp))
    runner = CliRunner()
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        res = runner.invoke(main, args, catch_exceptions=True)
    finally:
        os.chdir(cwd)
    after = sorted(os.listdir(tmp))
    assert after == before, f"symdp {args[:6]} wrote {sorted(set(after) - set(before))}"
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"symdp {args[:8]} raised {type(res.exception).__name__}: {res.exception}")
    return res.exit_code, res.stdout, res.stderr


def _assert_clean(tmp: Path, args: list[str], names: tuple[str, ...], value: str | None, *, rng: bool = True,
                  tally: str = "") -> None:
    code, out, err = _run(tmp, args)
    shown = args if len(" ".join(args)) < 300 else [a[:40] for a in args]
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, f"symdp {shown}: exit {code}, stderr {err[-400:]!r}"
    assert "Traceback" not in out + err, f"symdp {shown}: traceback"
    assert len(lines) == 1, f"symdp {shown}: {len(lines)} error lines: {err[:600]!r}"
    line = lines[0]
    assert line.startswith("error: "), line
    assert any(n in line for n in names), f"symdp {shown}: the error does not name {names}: {line}"
    if value is not None:
        probe = repr(value)[1:-1][:10]  # the message shows the value's repr (cut at 40 characters)
        assert probe in line, f"symdp {shown}: the error does not show the value {value[:20]!r}: {line}"
    if rng:
        assert "allowed" in line or "one of" in line, f"symdp {shown}: the error gives no allowed range: {line}"
    TALLY[f"{tally or args[0]} inputs"] += 1
    TALLY[f"{tally or args[0]} clean errors"] += 1


def _with(base: list[str], opt: str, value: str) -> list[str]:
    return [*base, f"{opt}={value}"] if value.startswith("-") and opt.startswith("--") else [*base, opt, value]


# ---- the deterministic table --------------------------------------------------------------------------------------

@pytest.mark.parametrize("base, names, lo, hi, lo_open, hi_open", REAL_OPTIONS, ids=lambda v: v if isinstance(v, str) else None)
def test_real_options_refuse_bad_values(tmp_path, base, names, lo, hi, lo_open, hi_open):
    for value in _bad_for_range(lo, hi, lo_open, hi_open):
        assert not _valid_real(value, lo, hi, lo_open, hi_open), value  # the table itself is right
        for opt in names:
            if value.startswith("-") and not opt.startswith("--"):
                args = [*base, opt + value]  # -s-1: click's short-option form of a negative value
            else:
                args = _with(base, opt, value)
            _assert_clean(tmp_path, args, names, value if value.strip() and "\x00" not in value else None)


@pytest.mark.parametrize("base, names, lo, hi", INT_OPTIONS, ids=lambda v: v if isinstance(v, str) else None)
def test_integer_options_refuse_bad_values(tmp_path, base, names, lo, hi):
    bad = [*UNIVERSAL_BAD, "1.5", "1e-3", repr(hi + 1), str(10**30), "2.5e12"] + (["0"] if lo > 0 else [])
    for value in bad:
        if _valid_int(value, lo, hi):
            continue  # "-0" style values that are valid integers for this range
        for opt in names[:1]:
            _assert_clean(tmp_path, _with(base, opt, value), names, value if value.strip() and "\x00" not in value else None)


@pytest.mark.parametrize("base, names", CHOICE_OPTIONS, ids=lambda v: v if isinstance(v, str) else None)
def test_choice_options_refuse_unknown_values(tmp_path, base, names):
    for value in ["", "nope", "TIGHT ", "é", "x" * 500, "-1"]:
        _assert_clean(tmp_path, _with(base, names[0], value), names, None)


@pytest.mark.parametrize(
    "args, names",
    [
        (["certify", "--hidden", "0"], ("--hidden",)),
        (["certify", "--from-hparams", "--sample-rate", "0.01", "--n", "1000", "--steps", "10", "--out", ""], ("--out",)),
        (["certify", "--from-hparams", "--sample-rate", "0.01", "--n", "1000", "--steps", "10", "--out", " "], ("--out",)),
        (["audit", "he2021.lemma_kl", "--no-plots", "--out", ""], ("--out",)),
        (["sweep", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5", "--out", "o.csv", "--scheduler", "inf"],
         ("scheduler",)),
        (["sweep", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5", "--out", "o.csv", "--scheduler",
          "tcp://localhost:99999"], ("scheduler",)),
        (["certify", "--hidden", "abc"], ("--hidden",)),
        (["certify", "--hidden", ""], ("--hidden",)),
        (["certify", "--hidden", "1," * 40], ("--hidden",)),
        (["certify", "--hidden", "10000000"], ("--hidden",)),
        (["certify", "--device", "cuda:x"], ("--device",)),
        (["certify", "--device", "../../etc"], ("--device",)),
        (["certify", "--device", ""], ("--device",)),
        (["certify", "--from-hparams", "--n", "10"], ("--sample-rate",)),
        (["certify", "--from-hparams", "--ledger", "missing.json"], ("--ledger",)),
        (["account", "-s", "1", "-q", "0.1", "-T", "10"], ("--delta", "--epsilon")),
        (["account", "-s", "1", "-q", "0.1", "-T", "10", "-d", "1e-5", "-e", "1"], ("--delta", "--epsilon")),
        (["calibrate", "-e", "1", "-d", "1e-5", "-q", "0.1"], ("--steps", "--noise-multiplier")),
        (["account", "-q", "0.1", "-T", "10", "-d", "1e-5"], ("--noise-multiplier", "-s")),
        (["account", "-s", "1", "-q", "0.1", "-T", "10", "-d", "1e-5", "--bogus"], ("--bogus",)),
        (["nosuchcommand"], ("nosuchcommand",)),
        (["show", "no.such.entry"], ("no.such.entry",)),
        (["list", "--kind", "nope"], ("--kind",)),
        (["list", "--source", "nope"], ("--source",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", "abc"], ("at",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", "1/0"], ("at",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", ""], ("at",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--at", "__import__('os')"], ("at",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--order", "-1"], ("order",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--order", "100000"], ("order",)),
        (["derive", "he2021.lemma_kl", "--series", "epsilon", "--order", "abc"], ("order",)),
    ],
)
def test_other_bad_invocations(tmp_path, args, names):
    _assert_clean(tmp_path, args, names, None, rng=False, tally="other")


# ---- files: --ledger and claim files ----------------------------------------------------------------------------

BAD_LEDGERS = {
    "empty": b"",
    "blank": b"  \n ",
    "malformed": b'{"n": ',
    "null": b"null",
    "list": b"[1, 2, 3]",
    "string": b'"ledger"',
    "deep_list": b"[" * 100_000 + b"]" * 100_000,
    "deep_dict": b'{"a":' * 5000 + b"1" + b"}" * 5000,
    "nested_ok_json": json.dumps({"n": 10, "ledger": [[[[[[[[[[1]]]]]]]]]]}).encode(),
    "non_utf8": b'\xff\xfe{"n": 1}',
    "latin1": '{"n": 1000, "ledger": [[1, 0.1, 10]], "é": 1}'.encode("latin-1"),
    "nan": b'{"n": 1000, "ledger": [[NaN, 0.01, 10]]}',
    "infinity": b'{"n": 1000, "ledger": [[Infinity, 0.01, 10]]}',
    "huge_float": b'{"n": 1000, "ledger": [[1e400, 0.01, 10]]}',
    "no_n": b'{"ledger": [[1, 0.01, 10]]}',
    "no_ledger": b'{"n": 1000}',
    "empty_ledger": b'{"n": 1000, "ledger": []}',
    "zero_steps": b'{"n": 1000, "ledger": [[1, 0.01, 0]]}',
    "sigma_0": b'{"n": 1000, "ledger": [[0, 0.01, 10]]}',
    "q_0": b'{"n": 1000, "ledger": [[1, 0, 10]]}',
    "q_2": b'{"n": 1000, "ledger": [[1, 2, 10]]}',
    "steps_float": b'{"n": 1000, "ledger": [[1, 0.01, 1.5]]}',
    "steps_neg": b'{"n": 1000, "ledger": [[1, 0.01, -3]]}',
    "steps_str": b'{"n": 1000, "ledger": [[1, 0.01, "10"]]}',
    "bool_sigma": b'{"n": 1000, "ledger": [[true, 0.01, 10]]}',
    "short_segment": b'{"n": 1000, "ledger": [[1, 0.01]]}',
    "n_zero": b'{"n": 0, "ledger": [[1, 0.01, 10]]}',
    "n_float": b'{"n": 10.5, "ledger": [[1, 0.01, 10]]}',
    "n_huge": b'{"n": 1e300, "ledger": [[1, 0.01, 10]]}',
    "delta_1": b'{"n": 1000, "delta": 1, "ledger": [[1, 0.01, 10]]}',
    "delta_str": b'{"n": 1000, "delta": "1e-5", "ledger": [[1, 0.01, 10]]}',
    "train_error_2": b'{"n": 1000, "train_error": 2, "ledger": [[1, 0.01, 10]]}',
    "unknown_key": b'{"n": 1000, "ledger": [[1, 0.01, 10]], "exec": "rm -rf /"}',
    "too_many_segments": json.dumps({"n": 10, "ledger": [[1, 0.01, 1]] * 100_001}).encode(),
}


@pytest.mark.parametrize("name", sorted(BAD_LEDGERS))
def test_bad_ledger_files(tmp_path, name):
    d = tmp_path / "in"
    d.mkdir()
    f = d / f"{name}.json"
    f.write_bytes(BAD_LEDGERS[name])
    work = tmp_path / "work"
    work.mkdir()
    _assert_clean(work, ["certify", "--ledger", str(f)], ("--ledger",), None, rng=False, tally="certify --ledger")


_HEAD = '[symbols]\nx = { range = [0.1, 1.0] }\n'
_CLAIM = '[[claim]]\nid = "c{i}"\nkind = "tighter"\na = "{a}"\nb = "x"\n'

BAD_CLAIM_FILES = {
    "gamma_huge": _HEAD + _CLAIM.format(i=0, a="gamma(10**9)"),
    "binomial_huge": _HEAD + _CLAIM.format(i=0, a="binomial(10**9, 5*10**8)"),
    "binomial_symbolic_huge": _HEAD + _CLAIM.format(i=0, a="binomial(x, 10**9)"),
    "factorial": _HEAD + _CLAIM.format(i=0, a="factorial(10**9)"),
    "complex_power": _HEAD + _CLAIM.format(i=0, a="2**sqrt(-1)"),
    "complex_log": _HEAD + _CLAIM.format(i=0, a="log(-x)"),
    "division_by_zero": _HEAD + _CLAIM.format(i=0, a="1/0"),
    "exp_overflow": _HEAD + _CLAIM.format(i=0, a="exp(10**6)"),
    "power_tower": _HEAD + _CLAIM.format(i=0, a="9**9**9**9"),
    "nested_exp_39": _HEAD + _CLAIM.format(i=0, a="exp(" * 39 + "x" + ")" * 39),
    "nested_exp_4": _HEAD + _CLAIM.format(i=0, a="exp(exp(exp(exp(x))))"),
    "deep_parens": _HEAD + _CLAIM.format(i=0, a="(" * 300 + "x" + ")" * 300),
    "code": _HEAD + _CLAIM.format(i=0, a="__import__('os').system('touch pwned')"),
    "attribute": _HEAD + _CLAIM.format(i=0, a="x.__class__"),
    "lambda": _HEAD + _CLAIM.format(i=0, a="(lambda: 1)()"),
    "too_many_claims": _HEAD + "".join(_CLAIM.format(i=i, a="x") for i in range(501)),
    "long_expression": _HEAD + _CLAIM.format(i=0, a="x+" * 2000 + "x"),
    "empty": "",
    "not_toml": "[symbols\n",
    "no_claims": _HEAD,
    "no_symbols": _CLAIM.format(i=0, a="x"),
    "bad_range": '[symbols]\nx = { range = [1, 0] }\n' + _CLAIM.format(i=0, a="x"),
    "nan_range": '[symbols]\nx = { range = [nan, 1] }\n' + _CLAIM.format(i=0, a="x"),
    "inf_range": '[symbols]\nx = { range = [0, inf] }\n' + _CLAIM.format(i=0, a="x"),
    "oo_inside": _HEAD + _CLAIM.format(i=0, a="x + oo"),
    "unknown_name": _HEAD + _CLAIM.format(i=0, a="y"),
    "unicode_name": _HEAD + _CLAIM.format(i=0, a="ξ + 1"),
}


@pytest.mark.parametrize("name", sorted(BAD_CLAIM_FILES))
def test_bad_claim_files(tmp_path, name):
    d = tmp_path / "in"
    d.mkdir()
    f = d / f"{name}.toml"
    f.write_text(BAD_CLAIM_FILES[name], encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    _assert_clean(work, ["audit", "--claims", str(f)], (str(f), "line ", "[symbols]"), None, rng=False,
                  tally="audit --claims")
    assert not (work / "pwned").exists()


def test_bad_claim_file_bytes(tmp_path):
    for name, data in {"non_utf8": b"\xff\xfe[symbols]\n", "nul": b"[symbols]\x00\n", "huge": b"#" * 1_000_001}.items():
        f = tmp_path / f"{name}.toml"
        f.write_bytes(data)
        work = tmp_path / f"work_{name}"
        work.mkdir()
        _assert_clean(work, ["audit", "--claims", str(f)], (str(f), "line ", "[symbols]"), None, rng=False,
                  tally="audit --claims")


# ---- hypothesis: arbitrary text, judged by the independent validity oracle ---------------------------------------

_TEXT = st.one_of(
    st.text(max_size=40),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda v: f"{v:.3e}"),
    st.integers(-(10**40), 10**40).map(str),
    st.sampled_from(UNIVERSAL_BAD),
    st.text(alphabet="0123456789.eE+-_ infINFaN", max_size=12),
)
_OPTIONS = [(b, n, ("real", lo, hi, lo_open, hi_open)) for b, n, lo, hi, lo_open, hi_open in REAL_OPTIONS] + [
    (b, n, ("int", lo, hi)) for b, n, lo, hi in INT_OPTIONS
]


def _fuzz_one(tmp: Path, i: int, value: str) -> None:
    base, names, spec = _OPTIONS[i]
    valid = _valid_real(value, *spec[1:]) if spec[0] == "real" else _valid_int(value, *spec[1:])
    assume(not valid)  # a valid value would run the command (e.g. train a model); the table covers validity
    opt = names[0]
    _assert_clean(tmp, _with(base, opt, value), names, None, tally="hypothesis")


@settings(derandomize=True, max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(i=st.integers(0, len(_OPTIONS) - 1), value=_TEXT)
def test_fuzz_options_fast(tmp_path, i, value):
    _fuzz_one(tmp_path, i, value)


@pytest.mark.slow
@settings(derandomize=True, max_examples=5000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(i=st.integers(0, len(_OPTIONS) - 1), value=_TEXT)
def test_fuzz_options_slow(tmp_path, i, value):
    _fuzz_one(tmp_path, i, value)


@settings(derandomize=True, max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=200))
def test_fuzz_ledger_bytes(tmp_path, data):
    try:
        spec = json.loads(data.decode("utf-8"))
        assume(not (isinstance(spec, dict) and "ledger" in spec))  # almost never: random bytes
    except (UnicodeDecodeError, ValueError, RecursionError):
        pass
    f = tmp_path / "l.json"
    f.write_bytes(data)
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    _assert_clean(work, ["certify", "--ledger", str(f)], ("--ledger",), None, rng=False, tally="hypothesis ledger")


def test_zz_summary(capsys):
    """Print the inputs tried and clean errors (run with -s); every input tried ended in a clean error."""
    with capsys.disabled():
        for k in sorted(TALLY):
            print(f"  {k}: {TALLY[k]}")
    inputs = sum(v for k, v in TALLY.items() if k.endswith("inputs"))
    clean = sum(v for k, v in TALLY.items() if k.endswith("clean errors"))
    assert inputs == clean


def test_scheduler_without_port_is_refused_without_a_traceback_at_exit(tmp_path):
    """``--scheduler inf`` (no HOST:PORT): the one-line error came, then, when the interpreter exited, the half-built
    Dask Client's __del__ printed a TimeoutError traceback 10 s later; the address is now refused before a Client is
    built.  A real process, since the traceback appears only at interpreter exit."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    args = ["sweep", "--sigma", "1", "--q", "0.01", "--steps", "10", "--delta", "1e-5", "--out", "o.csv", "--scheduler", "inf"]
    r = subprocess.run([sys.executable, "-m", "symdp.cli", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(lines) == 1, r.stderr[-1500:]
    assert lines[0].startswith("error: ") and "scheduler" in lines[0]
    assert os.listdir(tmp_path) == []
