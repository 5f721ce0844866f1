"""The studio's warm-up compiles the manifest's kernels in worker processes before it steps the tiny scene: the
progress is reported kernel by kernel with the number of processes, and numba's cache holds every entry after.
A manifest of two small kernels written to a temporary package stands in for the engine's (whose first compile
takes minutes); its cache is a temporary NUMBA_CACHE_DIR."""

from __future__ import annotations

import base64
import os
import pickle
import textwrap

import pytest
import numba
from numba.core import types

import app.sim.warmup as warmup
from core.jitprecompile import Entry, is_cached

from sim_harness import Harness

pytestmark = pytest.mark.cold_cache

KERNELS = """
from core.jitcache import jit

@jit
def halve(x):
    return x / 2.0

@jit
def bump(n):
    return n + 1
"""


def _entry(function: str, args: tuple) -> Entry:
    return Entry(function, base64.b64encode(pickle.dumps(args)).decode("ascii"), str(args), (), 0.1)


def test_the_warm_up_compiles_the_manifest_in_worker_processes_first(tmp_path, monkeypatch, jit_warm):
    pkg = tmp_path / "pkgw"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text(textwrap.dedent(KERNELS))
    cache = tmp_path / "cache"
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    # The toy kernels' cache (numba reads the folder when a kernel is defined; the engine's are defined already).
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(cache))
    monkeypatch.setenv("MIRAN_JIT_WORKERS", "2")
    entries = [_entry("pkgw.kernels:halve", (types.float64,)), _entry("pkgw.kernels:bump", (types.int64,))]
    monkeypatch.setattr(warmup, "load_manifest", lambda: entries)
    assert not any(is_cached(e) for e in entries)

    h = Harness()
    try:
        h.send("warmup")
        h.wait(lambda h: any(e.kind == "warm" for e in h.events), timeout=900, what="warm-up")
        progress = [e.args for e in h.events if e.kind == "progress"]
        # the mailbox keeps only the newest of progress events the reader has not taken yet: 0.5 may be replaced
        fractions = [p[0] for p in progress]
        assert fractions in ([0.5, 1.0], [1.0])
        assert "in 2 processes" in progress[-1][1] and "2 of 2 kernels" in progress[-1][1]
        kinds = [e.kind for e in h.events]
        assert kinds.index("busy") < kinds.index("progress") < kinds.index("warm")
    finally:
        h.close()
    assert all(is_cached(e) for e in entries)
    import pkgw.kernels as k

    assert k.halve(3.0) == 1.5 and k.bump(4) == 5
    assert sum(k.halve.stats.cache_hits.values()) == 1 and not k.halve.stats.cache_misses


def test_workers_that_cannot_run_leave_the_compiling_to_the_warm_up(monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    monkeypatch.setenv("MIRAN_JIT_WORKERS", "3")
    asked = []

    def broken(entries, workers, progress, **options):
        asked.append(workers)
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(warmup, "precompile", broken)
    assert warmup.compile_in_parallel() is None and asked == [3]
    monkeypatch.setenv("MIRAN_JIT_WORKERS", "0")
    assert warmup.compile_in_parallel() is None and asked == [3]   # 0: no pool is asked for
