"""A sweep on a LocalCluster whose workers start on an empty numba cache compiles each kernel once, on one worker:
the others load everything from the cache.

An empty cache costs minutes of compilation, so this runs at full size only (``MIRAN_TEST_FULL=1``; docs:
Development, tests); CI's everyday sweeps run on the filled cache and check that no worker compiles the step kernel
(test_sweep_run.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import core.sweep as sweep
from core.sweep.table import same_tables
from ci_size import full_size

pytestmark = [pytest.mark.subprocess, pytest.mark.cluster, pytest.mark.cold_cache,
              pytest.mark.skipif(not full_size(), reason="minutes of compilation: MIRAN_TEST_FULL=1 runs it")]

SCENES = Path(__file__).resolve().parents[3] / "scenes"


def _kernel_counts() -> tuple[int, int]:
    """In a worker: (signatures it compiled, signatures it loaded from numba's cache), over every engine kernel it
    has imported."""
    from numba.core.dispatcher import Dispatcher

    kernels = {id(v): v for name, mod in list(sys.modules.items()) if name.startswith("core.") and mod is not None
               for v in list(vars(mod).values()) if isinstance(v, Dispatcher)}
    return (sum(sum(d.stats.cache_misses.values()) for d in kernels.values()),
            sum(sum(d.stats.cache_hits.values()) for d in kernels.values()))


def test_workers_on_an_empty_cache_compile_each_kernel_once_on_one_worker(tmp_path, monkeypatch):
    from distributed import get_task_stream

    doc = {"format": "miran-sweep", "version": 1, "name": "cold", "scenes": [str(SCENES / "mckenna_road.json")],
           "grid": {"pedestrian.sigma": [20, 40, 60, 80]}, "agents": 1, "limit": {"steps": 30}}
    (tmp_path / "cold.sweep.json").write_text(json.dumps(doc))
    spec = sweep.load_spec(tmp_path / "cold.sweep.json")
    ref = sweep.run(spec)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty-cache"))      # the workers inherit it
    with sweep.local_client(2) as client:
        with get_task_stream(client) as ts:
            got = sweep.run(spec, client, warm_cache=True)
        counts = client.run(_kernel_counts)
    assert same_tables(ref, got)
    (warmer,) = {t["worker"] for t in ts.data if str(t["key"]).startswith("miran-warm-")}
    others = [w for w in counts if w != warmer]
    assert counts[warmer][0] > 0, counts                    # the warm-up compiled what the cache lacked...
    assert len(others) == 1 and all(counts[w] == (0, counts[w][1]) and counts[w][1] > 0 for w in others), counts
