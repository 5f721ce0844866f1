"""The first start's manifest (core/jit_manifest.json, core.jitprecompile) matches the code: every kernel
specialisation the studio calls from Python (the warm-up and the first steps of the shipped scenes) is listed
with its argument types, and every entry still names a kernel and types that load. When this fails, a kernel's
arguments changed or a kernel was added: run ``python packaging/jit_manifest.py`` (a few minutes) and commit the
manifest. The check runs in a fresh interpreter: other tests compile kernels for argument types of their own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sim_harness import SCENES

pytestmark = pytest.mark.subprocess

SCRIPT = """
import gc, json, sys
from numba.core.registry import CPUDispatcher
from app.sim.warmup import warm_up, warm_up_for
from core.jitprecompile import _resolve, load_first_step, load_manifest, touching
from core.scene.io import load_scene
from core.sim import Simulation

entries = load_manifest()
stale = []
for e in entries:
    try:
        _resolve(e)
    except LookupError as exc:
        stale.append(str(exc))
with touching() as seen:
    warm_up_for(None, 1)
index = {(e.function, e.text): i for i, e in enumerate(entries)}
first = load_first_step().get("method:miran", set())
unlisted_first = sorted(f"{k[0]}{k[1]}" for k in seen if k not in index or index[k] not in first)
warm_up()
for name in sys.argv[1:]:
    sim = Simulation(load_scene(name))
    sim.add_random_agents(5, seed=1)
    sim.step(3)
listed = {(e.function, e.text) for e in entries}
called = sorted({(f"{d.py_func.__module__}:{d.py_func.__qualname__}", str(tuple(s)))
                 for d in gc.get_objects() if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("core.")
                 for s in d.signatures})
print(json.dumps({"n": len(entries), "stale": stale, "missing": [c for c in called if tuple(c) not in listed],
                  "first": {m: len(v) for m, v in load_first_step().items()}, "unlisted_first": unlisted_first}))
"""


def test_the_manifest_lists_what_the_studio_compiles():
    repo = Path(__file__).resolve().parents[2]
    scenes = [str(SCENES / n) for n in ("mckenna_road.json", "city.json")]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *scenes], cwd=repo, capture_output=True, text=True,
                          timeout=3000)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["n"] > 100, "core/jit_manifest.json is missing or unreadable: run python packaging/jit_manifest.py"
    assert got["stale"] == [], "stale entries: run python packaging/jit_manifest.py"
    assert got["missing"] == [], "kernels the manifest lacks: run python packaging/jit_manifest.py"
    # What Play waits for on a first start: listed for every method, and all that the warm-up for MIRAN touches.
    assert set(got["first"]) == {"method:miran", "method:disc-miran", "method:irm", "planner:grid", "planner:cdt",
                                 "planner:ecm", "planner:portal", "planner:network"}
    assert all(0 < n < got["n"] for n in got["first"].values())
    assert got["unlisted_first"] == [], "the first step's kernels changed: run python packaging/jit_manifest.py"


def test_the_manifest_holds_no_literal_specialisation():
    """The compile budget's rule: a constant argument compiles no specialisation of its own (core.jitcache)."""
    entries = json.loads((Path(__file__).resolve().parents[2] / "core" / "jit_manifest.json").read_text())["entries"]
    assert [e["function"] for e in entries if "Literal" in e["text"]] == []


def test_each_kernel_has_one_specialisation_per_array_type():
    """The compile budget's rule, one specialisation per kernel: a kernel's entries may differ only where it is
    generic over the arrays it takes (a buffer helper of core.kernels.buffers grows float and int arrays alike),
    never in a scalar's type or an array's read-only flag (core.jitcache widens integers; a Route's read-only
    arrays are copied before a kernel sees them)."""
    import base64
    import pickle

    from numba.core import types

    def shape(t: object) -> object:
        return (t.dtype, t.ndim) if isinstance(t, types.Array) else "scalar"

    entries = json.loads((Path(__file__).resolve().parents[2] / "core" / "jit_manifest.json").read_text())["entries"]
    seen: dict[tuple, str] = {}
    twice = []
    for e in entries:
        args = pickle.loads(base64.b64decode(e["signature"]))
        key = (e["function"], tuple(shape(a) for a in args))
        if key in seen:
            twice.append(f"{e['function']}: {seen[key]} and {e['text']}")
        seen[key] = e["text"]
    assert twice == []
