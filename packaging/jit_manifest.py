"""Write core/jit_manifest.json: every kernel specialisation the studio compiles, for the parallel first-start
compile (core.jitprecompile). Usage:

    python packaging/jit_manifest.py [--out PATH]

Runs a fresh interpreter on an empty numba cache (a temporary NUMBA_CACHE_DIR) that does what the studio compiles:
the whole warm-up (every method and integrator, traced steps, forks, the export) and the first steps of every
shipped scene with a few random agents added (their planners: CDT, portal A*, grid, network, ECM). Then, per
steering method, a fresh interpreter on the filled cache lists what the warm-up for a first step of that method
touches (the manifest's ``first_step``, which the studio compiles first so that Play waits for that only). Run it
again after changing a kernel's arguments or adding a kernel; tests/app/test_jit_manifest.py says when it is due.
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
sys.path.insert(0, str(ROOT))

from core.jitprecompile import load_manifest, write_manifest  # noqa: E402
from core.scene.model import PLANNERS  # noqa: E402
from core.sim import IMPLEMENTED  # noqa: E402

CHILD = r"""
import sys
from pathlib import Path
from core.jitprecompile import critical_path_s, recording, write_manifest
from core.scene.io import load_scene
from core.sim import Simulation
from app.sim.warmup import warm_up
with recording() as entries:
    warm_up()
    for path in sorted(Path(sys.argv[2]).glob("*.json")):
        try:
            scene = load_scene(path)
        except Exception:
            continue  # not a scene (a sweep file)
        sim = Simulation(scene)
        sim.add_random_agents(5, seed=1)
        sim.step(3)
write_manifest(entries, Path(sys.argv[1]))
print(f"{len(entries)} specialisations, {sum(e.cpu_s for e in entries):.1f} s CPU of compilation, "
      f"longest chain of callees {critical_path_s(entries):.1f} s")
"""

# In a fresh interpreter on a filled cache: what a first step needs, as the manifest's entry indices with their
# callees. "method:M": the studio's warm-up for a scene steered by M, on one thread; "planner:P": a route planned
# with P on the warm-up scene (a scene's characters may name any planner; named routes are repaired with the
# default one).
FIRST_STEP = r"""
import dataclasses, json, sys
from pathlib import Path
from core.jitprecompile import closure, load_manifest, touching
from core.routes import plan_route
from core.scene.problems import InputError
from app.sim.warmup import warm_up_for, warmup_scene
kind, _, name = sys.argv[2].partition(":")
scene = warmup_scene()
with touching() as seen:
    if kind == "method":
        warm_up_for(dataclasses.replace(scene, simulation=dataclasses.replace(scene.simulation, method=name)), 1)
    else:
        try:
            plan_route(scene, (2.0, 4.0), (38.0, 26.0), name, profile="p", clearance=0.3)
        except InputError:
            pass  # the network planner on a scene without a network: what it compiled still counts
entries = load_manifest(Path(sys.argv[1]))
index = {(e.function, e.text): i for i, e in enumerate(entries)}
print(json.dumps(sorted(closure(entries, {index[k] for k in seen if k in index}))))
"""


def first_steps(manifest: Path, env: dict[str, str]) -> dict[str, list[int]]:
    """The manifest's ``first_step``: per steering method and per planner, what a first step needs, found in fresh
    interpreters on the cache ``env`` names (filled: they only load)."""
    out = {}
    for purpose in [f"method:{m}" for m in IMPLEMENTED] + [f"planner:{p}" for p in PLANNERS]:
        run = subprocess.run([sys.executable, "-c", FIRST_STEP, str(manifest), purpose], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True)
        out[purpose] = json.loads(run.stdout.strip().splitlines()[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "core" / "jit_manifest.json"), help="where to write the manifest")
    p.add_argument("--first-step-only", action="store_true",
                   help="keep the manifest's entries and list the first step's again, on the cache NUMBA_CACHE_DIR "
                        "names (quick on a filled one)")
    args = p.parse_args(argv)
    out = Path(args.out)
    t = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="miran-numba-") as cache:
        env = dict(os.environ) if args.first_step_only else dict(os.environ, NUMBA_CACHE_DIR=cache)
        if not args.first_step_only:
            proc = subprocess.run([sys.executable, "-c", CHILD, args.out, str(ROOT / "scenes")], env=env, cwd=ROOT)
            if proc.returncode != 0:
                return proc.returncode
        first_step = first_steps(out, env)
    entries = load_manifest(out)
    write_manifest(entries, out, first_step)
    for purpose, needed in first_step.items():
        print(f"first step, {purpose}: {len(needed)} specialisations, "
              f"{sum(entries[i].cpu_s for i in needed):.1f} s CPU of compilation")
    print(f"wrote {args.out} in {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
