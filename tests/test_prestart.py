"""``symdp.parallel.prestart``: the forkserver starts (and imports the audit's preload) before the parent builds
the library, only where the executor would use it (session 32: `symdp audit --quick` cold 22.7 -> 17.8 s)."""

from __future__ import annotations

import multiprocessing.forkserver as fs

import pytest

from symdp.parallel import _context, executor, prestart


def test_not_started_where_the_executor_would_not_use_it():
    assert prestart(1, None, ("json",)) is False  # one worker: the serial path
    assert prestart(2, "tcp://127.0.0.1:1", ("json",)) is False  # Dask
    assert prestart(2, None, ()) is False  # nothing to preload
    assert prestart(0, None, ("json",)) is False  # invalid: executor reports it, not prestart


@pytest.mark.skipif(_context().get_start_method() != "forkserver", reason="no forkserver start method here")
def test_started_forkserver_serves_the_pool():
    assert prestart(2, None, ("json",)) is True
    pid = fs._forkserver._forkserver_pid
    assert pid is not None
    with executor(2, preload=("json",)) as ex:
        assert ex.map(abs, [-1, -2, -3], cost=[1, 2, 3]) == [1, 2, 3]
    assert fs._forkserver._forkserver_pid == pid  # the pool forked from the server prestart started
