"""The one time-and-memory-limit module (issue 21): symdp.limits."""

from __future__ import annotations

import sys
import time

import pytest

from symdp.errors import SymdpError
from symdp.limits import LimitExceeded, MemoryLimitExceeded, TimeLimitExceeded, run_limited, time_limit

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork and RLIMIT_AS are used on Linux")


def _spin(seconds: float) -> int:
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


def _allocate(mb: int) -> int:
    return len(bytearray(mb * 2**20))


def _fail() -> None:
    raise ValueError("boom")


def test_run_limited_returns_the_value_and_reraises_the_functions_error() -> None:
    assert run_limited(sum, [1, 2, 3], seconds=5) == 6
    with pytest.raises(ValueError, match="boom"):
        run_limited(_fail, seconds=5)


@linux
def test_run_limited_kills_at_the_time_limit() -> None:
    t0 = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as info:
        run_limited(_spin, 60.0, seconds=0.5)
    assert time.monotonic() - t0 < 10
    assert isinstance(info.value, SymdpError) and isinstance(info.value, TimeoutError)
    assert "\n" not in str(info.value) and "time limit" in str(info.value)


@linux
def test_run_limited_caps_memory() -> None:
    assert run_limited(_allocate, 10, seconds=30, memory_mb=2048) == 10 * 2**20
    with pytest.raises(MemoryLimitExceeded) as info:
        run_limited(_allocate, 4096, seconds=30, memory_mb=1024)
    assert isinstance(info.value, LimitExceeded) and "\n" not in str(info.value) and "1024" in str(info.value)


class MyTimeout(TimeLimitExceeded):
    pass


def test_run_limited_picks_the_timeout_exception() -> None:
    with pytest.raises(MyTimeout):
        run_limited(_spin, 60.0, seconds=0.3, error=MyTimeout)


def test_time_limit_fires_nests_and_rearms_the_outer_limit() -> None:
    with pytest.raises(TimeLimitExceeded, match="time limit"), time_limit(0.2):
        _spin(5.0)

    class Outer(BaseException):
        pass

    # the outer deadline is earlier: the inner block ends with the outer block's exception
    t0 = time.monotonic()
    with pytest.raises(Outer), time_limit(0.3, error=Outer), time_limit(30.0):
        _spin(5.0)
    assert time.monotonic() - t0 < 3.0
    # leaving an inner block re-arms what is left of the outer one
    with pytest.raises(Outer), time_limit(0.5, error=Outer):
        with time_limit(5.0):
            pass
        _spin(5.0)
    # a finished block leaves no timer behind
    with time_limit(0.2):
        pass
    _spin(0.4)


def test_bad_seconds_are_refused() -> None:
    with pytest.raises(ValueError, match="seconds"):
        run_limited(sum, [1], seconds=0)
