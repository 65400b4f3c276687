"""Time and memory limits: the one home of symdp's guards against computations that run away.

Use it from anywhere (it is in the bottom layer: no SymPy, nothing of symdp but :mod:`symdp.errors`);
codegen, the verifier and :mod:`symdp.asymptotics` do, and the calculus and the parsers may.

* :func:`run_limited` -- ``run_limited(fn, *args, seconds=10, memory_mb=2048)`` runs ``fn(*args)`` in a
  forked child process that is killed at the time limit and whose address space is capped at
  ``memory_mb``; it returns the value (pickled back) or raises :class:`TimeLimitExceeded` /
  :class:`MemoryLimitExceeded` (both :class:`~symdp.errors.SymdpError`, one-line messages).  An
  exception raised by ``fn`` is re-raised here.  Use it where a ``SIGALRM`` cannot stop the work
  (SymPy inside a long C-level big-number operation) or where memory can blow up.  Inside such a
  child, nested calls run in the child under ``SIGALRM`` only.  Without ``fork`` (not Linux/macOS)
  the call runs in this process under :func:`time_limit` (main thread) or unguarded.
* :func:`time_limit` -- ``with time_limit(seconds):`` raises in the main thread when the block runs
  past ``seconds`` (``SIGALRM``; elsewhere no limit, nothing is raised).  Blocks nest: each block
  fires at the earlier of its own and every outer deadline, raising the exception of the block whose
  deadline passed, and leaving an inner block re-arms the timer for what is left of the outer one.
  Past a deadline the alarm repeats every second until the block is left, so an exception swallowed by a
  library's bare ``except:`` (or dropped inside a gc callback) is raised again.  ``error=`` picks the
  exception class (default :class:`TimeLimitExceeded`; the verifier uses a ``BaseException`` that generic
  handlers cannot swallow).
* :func:`memory_limit` -- ``with memory_limit(2048):`` caps this process's address space at its current
  size plus ``2048`` MiB while the block runs (``RLIMIT_AS``, Linux; elsewhere no cap): an allocation past
  it raises :class:`MemoryLimitExceeded` instead of growing until the machine kills the process (seen:
  SymPy's ``factor`` of ``exp(-((x - c)/w)**2)`` with ``w = 3e-4`` builds a dense polynomial of degree
  ~1e8 and grew past 23 GB).  Blocks nest (the smaller cap holds).  Cheap: no fork.

>>> run_limited(sum, [1, 2, 3], seconds=5)
6
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from .errors import SymdpError

R = TypeVar("R")

#: seconds :func:`run_limited` allows by default
DEFAULT_SECONDS = 10.0


class LimitExceeded(SymdpError):
    """A computation ran past a time or memory limit (its answer is "unknown", never a guess)."""


class TimeLimitExceeded(LimitExceeded, TimeoutError):
    """A computation ran past its time limit."""


class MemoryLimitExceeded(LimitExceeded, MemoryError):
    """A computation ran past its memory limit."""


# ---------------------------------------------------------------------------------------------- SIGALRM
#: (absolute monotonic deadline, exception class, seconds) of the active :func:`time_limit` blocks, outermost first
_DEADLINES: list[tuple[float, type[BaseException], float]] = []


#: seconds between repeated alarms once a deadline has passed: a library that swallows the first exception
#: (a bare ``except:``) gets another, so a block can never outlive its limit by more than this per swallow
_REPEAT = 1.0


def _arm(now: float) -> None:
    signal.setitimer(signal.ITIMER_REAL, max(min(d[0] for d in _DEADLINES) - now, 1e-3), _REPEAT)


def _on_alarm(signum: int, frame: Any) -> None:
    if not _DEADLINES:  # the last block is closing: nothing to interrupt
        return
    deadline, error, seconds = min(_DEADLINES, key=lambda d: d[0])  # the earliest deadline is the one that passed
    now = time.monotonic()
    if now < deadline - 1e-3:  # an early repeat: wait for the deadline itself
        _arm(now)
        return
    FIRED["time"] += 1
    raise error(f"time limit reached ({seconds:g} s)")


#: how many times a wall-clock limit has fired in this process (``"time"``): a result computed while one fired may
#: depend on the machine's load (a proof attempt cut short gives a weaker verdict), so the audit does not cache it
FIRED = {"time": 0}


@contextmanager
def time_limit(seconds: float, *, error: type[BaseException] = TimeLimitExceeded) -> Iterator[None]:
    """Raise ``error`` when the block runs past ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return
    now = time.monotonic()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    _DEADLINES.append((now + float(seconds), error, float(seconds)))
    _arm(now)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _DEADLINES.pop()
        signal.signal(signal.SIGALRM, old)
        if _DEADLINES:  # an outer limit is running: re-arm what is left of it
            _arm(time.monotonic())



# ---------------------------------------------------------------------------------------------- SIGPROF (CPU time)
#: (absolute process-CPU deadline, exception class, seconds) of the active :func:`cpu_time_limit` blocks
_CPU_DEADLINES: list[tuple[float, type[BaseException], float]] = []


def _cpu_arm(now: float) -> None:
    signal.setitimer(signal.ITIMER_PROF, max(min(d[0] for d in _CPU_DEADLINES) - now, 1e-3), _REPEAT)


def _on_prof(signum: int, frame: Any) -> None:
    if not _CPU_DEADLINES:
        return
    deadline, error, seconds = min(_CPU_DEADLINES, key=lambda d: d[0])
    now = time.process_time()
    if now < deadline - 1e-3:  # an early repeat: wait for the deadline itself
        _cpu_arm(now)
        return
    raise error(f"CPU time limit reached ({seconds:g} s of CPU)")


@contextmanager
def cpu_time_limit(seconds: float, *, error: type[BaseException] = TimeLimitExceeded) -> Iterator[None]:
    """Raise ``error`` when the block has used ``seconds`` of this process's CPU time (user + system,
    ``ITIMER_PROF``/``SIGPROF``; main thread only, elsewhere no limit).

    Unlike :func:`time_limit` the budget does not shrink when other processes share the cores: a computation that
    fits on a quiet machine fits under load too, so a verdict that depends on it does not change with the load.
    Nests like :func:`time_limit` (the earliest CPU deadline fires) and is independent of it: combine both where
    a wall-clock bound matters as well.  Not counted in :data:`FIRED` (whose results the caches refuse): a result
    cut short by a CPU budget is the same at every load, so it may be cached."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGPROF"):
        yield
        return
    now = time.process_time()
    old = signal.signal(signal.SIGPROF, _on_prof)
    _CPU_DEADLINES.append((now + float(seconds), error, float(seconds)))
    _cpu_arm(now)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        _CPU_DEADLINES.pop()
        signal.signal(signal.SIGPROF, old)
        if _CPU_DEADLINES:
            _cpu_arm(time.process_time())
        if _DEADLINES:  # an outer wall-clock limit: re-arm it now, as time_limit's exit does, so a deadline that
            # passed inside this block (its exception caught there with the block's own) fires again at once,
            # not only at the next 1 s repeat (a per-claim limit of 0.05 s let the claim run on to a verdict)
            _arm(time.monotonic())

# ---------------------------------------------------------------------------------------------- RLIMIT_AS
#: MiB a :func:`memory_limit` block may add to the address space by default
DEFAULT_MEMORY_MB = 2048.0


def _address_space() -> int | None:
    """This process's virtual size in bytes (``/proc/self/statm``), or None where it cannot be read."""
    try:
        import os

        with open("/proc/self/statm", "rb") as f:
            return int(f.read(64).split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@contextmanager
def memory_limit(extra_mb: float = DEFAULT_MEMORY_MB) -> Iterator[None]:
    """Raise :class:`MemoryLimitExceeded` when the block's allocations take the address space more than
    ``extra_mb`` MiB past its size at entry (``RLIMIT_AS``; where it cannot be set, no cap)."""
    if not extra_mb > 0:
        raise ValueError(f"extra_mb={extra_mb!r} must be a positive number of MiB")
    try:
        import resource
    except ImportError:  # not POSIX
        yield
        return
    size = _address_space()
    if size is None:
        yield
        return
    old = _lower_address_space(size + int(extra_mb * 2**20))
    if old is None:  # cannot lower it here: run without the cap
        yield
        return
    try:
        yield
    except MemoryError as exc:
        if isinstance(exc, MemoryLimitExceeded):
            raise
        raise MemoryLimitExceeded(f"memory limit reached ({extra_mb:g} MiB more than at the start)") from exc
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


# ---------------------------------------------------------------------------------------------- fork and kill
_IN_CHILD = False


def in_limited_child() -> bool:
    """True inside the child process of :func:`run_limited` (nested limits there use ``SIGALRM`` only)."""
    return _IN_CHILD


def _soft(fn: Callable[..., R], args: tuple[Any, ...], seconds: float, error: type[BaseException]) -> R:
    try:
        with time_limit(seconds, error=error):
            return fn(*args)
    except RecursionError as exc:
        raise error("recursion limit reached") from exc


def _lower_address_space(cap: int) -> tuple[int, int] | None:
    """Lower ``RLIMIT_AS`` to ``cap`` bytes (never above an existing soft or hard limit: nested, the smaller cap
    holds); returns the (soft, hard) pair to restore, or None where the limit cannot be set here."""
    try:
        import resource
    except ImportError:  # not POSIX
        return None
    old_soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    for lim in (old_soft, hard):
        if lim != resource.RLIM_INFINITY:
            cap = min(cap, lim)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        return None
    return old_soft, hard


def _cap_memory(memory_mb: float | None) -> None:
    if memory_mb is not None:
        _lower_address_space(int(memory_mb * 2**20))


def run_limited(fn: Callable[..., R], *args: Any, seconds: float = DEFAULT_SECONDS, memory_mb: float | None = None,
                error: type[BaseException] = TimeLimitExceeded) -> R:
    """``fn(*args)`` within ``seconds`` (and ``memory_mb`` MiB of address space, if given), or raise.

    The time limit raises ``error`` (default :class:`TimeLimitExceeded`); running out of memory
    raises :class:`MemoryLimitExceeded`.  ``fn``, ``args`` and the result cross a fork (the child
    inherits them) and a pipe (the result is pickled), so the result must be picklable.
    """
    import multiprocessing as mp
    import pickle

    if seconds <= 0 or seconds != seconds:
        raise ValueError(f"seconds={seconds!r} must be a positive number")
    if _IN_CHILD or "fork" not in mp.get_all_start_methods():
        if threading.current_thread() is threading.main_thread():
            return _soft(fn, args, seconds, error)
        return fn(*args)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child() -> None:
        global _IN_CHILD
        _IN_CHILD = True
        try:
            _cap_memory(memory_mb)
            res: tuple[str, Any] = ("ok", _soft(fn, args, seconds, error))
        except MemoryError:
            res = ("err", MemoryLimitExceeded(f"memory limit reached ({memory_mb:g} MiB)" if memory_mb
                                              else "out of memory"))
        except BaseException as exc:  # noqa: BLE001 - shipped back to the parent and re-raised there
            res = ("err", exc)
        try:
            data = pickle.dumps(res)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
            data = pickle.dumps(("err", SymdpError(f"{type(exc).__name__}: {exc}")))
        send.send_bytes(data)
        send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(seconds + 1.0):
            raise error(f"time limit reached ({seconds:g} s)")
        try:
            kind, val = pickle.loads(recv.recv_bytes())
        except EOFError as exc:  # the child died (killed, out of memory in C code) before answering
            if memory_mb is not None:
                raise MemoryLimitExceeded(f"the computation ended without an answer (memory limit {memory_mb:g} MiB)") from exc
            raise error("the computation ended without an answer") from exc
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join(1.0)
    if kind == "err":
        raise val
    return val  # type: ignore[no-any-return,unused-ignore]


__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_SECONDS", "LimitExceeded", "MemoryLimitExceeded", "TimeLimitExceeded",
           "cpu_time_limit", "in_limited_child", "memory_limit", "run_limited", "time_limit"]
