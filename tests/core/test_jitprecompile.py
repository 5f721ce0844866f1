"""core.jitprecompile: a manifest recorded on an empty cache lists each compiled specialisation after the kernels it
calls; worker processes compile it into another empty cache, and a fresh process then compiles nothing (every call
loads from the cache) and gets the same results. A stale entry is skipped with its name, the rest still compiled.

Each step runs in a fresh interpreter on a small package written to a temporary directory, as a new studio
process would see numba's cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.cold_cache

KERNELS = """
import numpy as np
from core.jitcache import jit

@jit
def leaf(x):
    return x * 2.0

@jit
def middle(a):
    s = 0.0
    for v in a:
        s += leaf(v)
    return s

@jit
def top(a, n):
    return middle(a) + n

@jit
def alone(n):
    return n + 1
"""

RECORD = """
import sys
import numpy as np
from core.jitprecompile import recording, write_manifest
import pkgy.kernels as k
with recording() as entries:
    k.top(np.arange(3.0), 1)
    k.alone(4)
write_manifest(entries, __import__("pathlib").Path(sys.argv[1]))
"""

PRECOMPILE = """
import json, sys
from core.jitprecompile import Entry, load_manifest, precompile
from pathlib import Path
entries = load_manifest(Path(sys.argv[1]))
entries.append(Entry("pkgy.kernels:gone", entries[0].signature, "(float64,)", (), 0.1))
seen = []
r = precompile(entries, workers=2, progress=lambda done, total: seen.append((done, total)))
print(json.dumps({"compiled": r.compiled, "cached": r.cached, "skipped": r.skipped, "workers": r.workers,
                  "progress": seen}))
"""

CACHED = """
import json, sys
from core.jitprecompile import is_cached, load_manifest
from pathlib import Path
print(json.dumps([is_cached(e) for e in load_manifest(Path(sys.argv[1]))]))
"""

PROBE = """
import json, sys
import numpy as np
from numba.core import event
from core.jitprecompile import is_cached, load_manifest
from pathlib import Path
compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Compiles())
cached = [is_cached(e) for e in load_manifest(Path(sys.argv[1]))]
import pkgy.kernels as k
print(json.dumps({"cached": cached, "top": float(k.top(np.arange(3.0), 1)), "alone": int(k.alone(4)),
                  "compiled": compiled}))
"""


def _run(tmp: Path, script: str, cache: Path, *args: str) -> dict | None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(tmp), str(Path(__file__).resolve().parents[2])]))
    proc = subprocess.run([sys.executable, "-c", script, str(tmp / "manifest.json"), *args], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.strip()
    return json.loads(out.splitlines()[-1]) if out else None


def _recorded_package(tmp: Path, kernels: str = KERNELS, record: str = RECORD) -> None:
    """The small kernel package written under ``tmp`` and its manifest recorded on an empty cache."""
    pkg = tmp / "pkgy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text(textwrap.dedent(kernels))
    _run(tmp, record, tmp / "cache-record")


def test_workers_fill_the_cache_a_fresh_process_then_only_loads(tmp_path):
    _recorded_package(tmp_path)
    doc = json.loads((tmp_path / "manifest.json").read_text())
    names = [e["function"] for e in doc["entries"]]
    assert sorted(names) == sorted(f"pkgy.kernels:{n}" for n in ("leaf", "middle", "top", "alone"))
    at = {n.split(":")[1]: i for i, n in enumerate(names)}
    calls = {n.split(":")[1]: [names[c].split(":")[1] for c in e["calls"]] for n, e in zip(names, doc["entries"])}
    assert calls == {"leaf": [], "middle": ["leaf"], "top": ["middle"], "alone": []}
    assert at["leaf"] < at["middle"] < at["top"]  # callees first: an index a worker can wait on

    fresh = tmp_path / "cache-fresh"
    assert _run(tmp_path, CACHED, fresh) == [False] * 4

    got = _run(tmp_path, PRECOMPILE, fresh)
    assert got["compiled"] == 4 and got["cached"] == 0 and got["workers"] == 2
    assert len(got["skipped"]) == 1 and got["skipped"][0].startswith("pkgy.kernels:gone: AttributeError")
    assert got["progress"][-1] == [4, 4]

    probe = _run(tmp_path, PROBE, fresh)
    assert probe == {"cached": [True] * 4, "top": 7.0, "alone": 5, "compiled": []}

    again = _run(tmp_path, PRECOMPILE, fresh)  # nothing left to do: no pool is started
    assert again["compiled"] == 0 and again["cached"] == 4 and again["workers"] == 0 and len(again["skipped"]) == 1


TOUCH = """
import json, sys
import numpy as np
from pathlib import Path
from core.jitprecompile import closure, load_manifest, touching
import pkgy.kernels as k
with touching() as seen:
    k.top(np.arange(3.0), 1)
entries = load_manifest(Path(sys.argv[1]))
index = {(e.function, e.text): i for i, e in enumerate(entries)}
roots = {index[key] for key in seen}
print(json.dumps({"touched": sorted(entries[i].function for i in roots),
                  "needed": sorted(entries[i].function for i in closure(entries, roots)),
                  "roots": sorted(roots)}))
"""

PRECOMPILE_ONLY = """
import json, sys
from pathlib import Path
from core.jitprecompile import load_manifest, precompile
r = precompile(load_manifest(Path(sys.argv[1])), workers=2, only=set(json.loads(sys.argv[2])), background=True)
print(json.dumps({"compiled": r.compiled, "cached": r.cached}))
"""


def test_a_first_step_s_kernels_are_found_on_a_filled_cache_and_compiled_alone(tmp_path):
    """What a task touches on a filled cache (``touching``: kernels loaded whole, without their callees), with its
    callees (``closure``), is what ``precompile(only=...)`` compiles into an empty cache, and nothing else."""
    _recorded_package(tmp_path)
    got = _run(tmp_path, TOUCH, tmp_path / "cache-record")
    assert got["touched"] == ["pkgy.kernels:top"]
    assert got["needed"] == ["pkgy.kernels:leaf", "pkgy.kernels:middle", "pkgy.kernels:top"]
    fresh = tmp_path / "cache-fresh"
    assert _run(tmp_path, PRECOMPILE_ONLY, fresh, json.dumps(got["roots"])) == {"compiled": 3, "cached": 0}
    names = [e["function"] for e in json.loads((tmp_path / "manifest.json").read_text())["entries"]]
    cached = dict(zip(names, _run(tmp_path, CACHED, fresh)))
    assert cached == {"pkgy.kernels:leaf": True, "pkgy.kernels:middle": True, "pkgy.kernels:top": True,
                      "pkgy.kernels:alone": False}


PRECOMPILE_STOPPED = """
import json, multiprocessing, sys, threading
from pathlib import Path
from core.jitprecompile import load_manifest, precompile
stop = threading.Event()
r = precompile(load_manifest(Path(sys.argv[1])), workers=2, progress=lambda done, total: stop.set(),
               background=True, stop=stop)
print(json.dumps({"compiled": r.compiled, "alive": [k.name for k in multiprocessing.active_children()]}))
"""


def test_a_compile_in_the_background_stops_when_asked_and_leaves_no_worker(tmp_path):
    """The app closing while the rest of a first start compiles in the background: the workers are ended and the
    call returns after the first kernel, with no worker process left."""
    _recorded_package(tmp_path)
    got = _run(tmp_path, PRECOMPILE_STOPPED, tmp_path / "cache-fresh")
    assert 1 <= got["compiled"] < 4 and got["alive"] == [], got


def test_parallel_kernels_and_their_callers_are_one_task():
    """A parallel=True kernel and every kernel that calls one, directly or not, are compiled in one process: on the
    city a step kernel compiled in a worker around parallel callees another worker had compiled crashed when run."""
    from core.jitprecompile import _resolve, in_one_process, load_manifest

    entries = load_manifest()
    assert entries, "core/jit_manifest.json is missing or for another numba"
    local = in_one_process(entries)
    parallel = {i for i, e in enumerate(entries) if _resolve(e)[0].targetoptions.get("parallel")}
    assert parallel and parallel <= local
    # every local entry is parallel or calls a local one; every entry calling a local one is local itself
    for i, e in enumerate(entries):
        assert (i in local) == (i in parallel or any(c in local for c in e.calls)), e.function
    assert "core.sim.kernels:advance_blocks" in {entries[i].function for i in local}


PARALLEL_KERNELS = KERNELS + """
from numba import prange

@jit(parallel=True)
def spread(a, out):
    for i in prange(a.shape[0]):
        out[i] = leaf(a[i])

@jit
def driver(a):
    out = np.empty_like(a)
    spread(a, out)
    return out.sum()
"""

PARALLEL_RECORD = RECORD.replace("    k.alone(4)", "    k.alone(4)\n    k.driver(np.arange(4.0))")

PARALLEL_PROBE = PROBE.replace('"compiled": compiled}))', '"driver": float(k.driver(np.arange(4.0))), '
                                                          '"compiled": compiled}))')


def test_the_pool_compiles_a_parallel_kernel_and_its_caller_in_one_task_and_a_fresh_process_runs_them(tmp_path):
    _recorded_package(tmp_path, PARALLEL_KERNELS, PARALLEL_RECORD)
    fresh = tmp_path / "cache-fresh"
    got = _run(tmp_path, PRECOMPILE, fresh)
    assert got["compiled"] == 6 and got["workers"] == 2
    # spread and driver finish together: one task, so progress jumps by two once
    steps = [b[0] - a[0] for a, b in zip([[0, 6]] + got["progress"], got["progress"])]
    assert sorted(steps) == [1, 1, 1, 1, 2] and got["progress"][-1] == [6, 6]
    probe = _run(tmp_path, PARALLEL_PROBE, fresh)
    assert probe["cached"] == [True] * 6 and probe["driver"] == 12.0 and probe["compiled"] == []
