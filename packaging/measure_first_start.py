"""Measure the studio's first start: seconds from an empty numba cache to the first simulation step of a scene,
and the same with the cache filled (a later start). Usage:

    python packaging/measure_first_start.py scenes/city.json [--cache DIR] [--by-function N] [--workers W]

Each start runs in a fresh interpreter, as the studio's worker does it: import the engine, compile what the
scene's first step needs (the manifest's kernels for it in worker processes, then ``app.sim.warmup.warm_up_for``),
build the scene's simulation and step it once; then the rest of the manifest and of the warm-up (other methods,
traced steps, forks, the export) that the studio compiles in the background. CPU seconds
are reported beside wall seconds because a busy machine stretches wall time. The cache lives in ``--cache``
(NUMBA_CACHE_DIR, a new temporary folder by default): the first start finds it empty, the second full.
``--by-function N`` also lists the N functions whose compilation took the most CPU in the first start (numba's
event API; a function's own time, without the functions it compiled on the way).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
from numba.core import event
stack, own = [], {}

class Compiles(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        t0, inner = stack.pop()
        dt = time.process_time() - t0
        f = ev.data["dispatcher"].py_func
        name = f"{f.__module__}.{f.__name__}"
        own[name] = own.get(name, 0.0) + dt - inner
        if stack:
            stack[-1][1] += dt

event.register("numba:compile", Compiles())
c0, w0 = time.process_time(), time.perf_counter()
from core.scene.io import load_scene
from core.sim import Simulation
from app.sim.warmup import compile_in_parallel, finish_warm_up, warm_up_for
marks = {"import": (time.process_time() - c0, time.perf_counter() - w0)}
scene = load_scene(sys.argv[1])
report = compile_in_parallel(scene=scene)
if report is not None:
    marks["parallel compile of the first step's kernels"] = (time.process_time() - c0, time.perf_counter() - w0)
warm_up_for(scene)
marks["warm-up for the scene"] = (time.process_time() - c0, time.perf_counter() - w0)
sim = Simulation(scene)
sim.step(1)
marks["first step"] = (time.process_time() - c0, time.perf_counter() - w0)
finish_warm_up()
marks["rest of the warm-up"] = (time.process_time() - c0, time.perf_counter() - w0)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"marks": marks, "compiles": own, "workers_cpu": children.ru_utime + children.ru_stime,
                  "report": None if report is None else [report.workers, report.compiled, report.cached,
                                                         report.skipped]}))
"""


def start(scene: str, cache: str, workers: int) -> dict:
    """One start in a fresh interpreter: ``marks`` {mark: (cpu s, wall s) since the interpreter began} and
    ``compiles`` {function: CPU s of its own compilation}."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, MIRAN_JIT_WORKERS=str(workers))
    out = subprocess.run([sys.executable, "-c", CHILD, scene], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scene")
    p.add_argument("--cache", help="numba cache folder (default: a new empty temporary folder)")
    p.add_argument("--by-function", type=int, default=0, metavar="N",
                   help="list the N functions whose compilation took the most CPU in the first start")
    p.add_argument("--workers", type=int, default=0, metavar="W",
                   help="processes compiling the manifest's kernels first (default 0: none, as before)")
    args = p.parse_args(argv)
    cache = args.cache or tempfile.mkdtemp(prefix="miran-numba-")
    Path(cache).mkdir(parents=True, exist_ok=True)
    first = "first start (empty cache)" if not any(Path(cache).iterdir()) else "start (the cache held files)"
    for k, label in enumerate((first, "later start (cache filled)")):
        t = time.perf_counter()
        got = start(args.scene, cache, args.workers)
        print(f"{label}: " + "; ".join(f"{m} {c:.1f} s CPU / {w:.1f} s wall" for m, (c, w) in got["marks"].items())
              + f"  [{time.perf_counter() - t:.1f} s in all]", flush=True)
        if got["report"] is not None:
            n, compiled, cached, skipped = got["report"]
            print(f"  {n} worker processes compiled {compiled} kernels ({cached} cached, {len(skipped)} skipped) in "
                  f"{got['workers_cpu']:.1f} s CPU of their own", flush=True)
            for why in skipped[:5]:
                print(f"  skipped: {why}")
        if k == 0 and args.by_function > 0:
            own = sorted(got["compiles"].items(), key=lambda kv: -kv[1])
            print(f"  {len(own)} functions compiled, {sum(v for _, v in own):.1f} s CPU; the longest:")
            for name, v in own[:args.by_function]:
                print(f"  {v:8.1f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
