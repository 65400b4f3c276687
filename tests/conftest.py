"""Shared test setup: the verdict cache (issue 15) of every test lives in a temporary directory, never in the
user's ~/.cache/symdp, so no test reads a verdict another run left behind."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _symdp_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMDP_CACHE_DIR", str(tmp_path_factory.mktemp("symdp-cache")))
