"""Write core/jit_manifest.json: every kernel specialisation the studio compiles, for the parallel first-start
compile (core.jitprecompile). Usage:

    python packaging/jit_manifest.py [--out PATH]

Runs a fresh interpreter on an empty numba cache (a temporary NUMBA_CACHE_DIR) that does what the studio compiles:
the whole warm-up (every method and integrator, traced steps, forks, the export) and the first steps of every
shipped scene with a few random agents added (their planners: CDT, portal A*, grid, network, ECM). Run it again
after changing a kernel's arguments or adding a kernel; tests/app/test_jit_manifest.py says when it is due.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "core" / "jit_manifest.json"), help="where to write the manifest")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="miran-numba-") as cache:
        t = time.perf_counter()
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        proc = subprocess.run([sys.executable, "-c", CHILD, args.out, str(ROOT / "scenes")], env=env, cwd=ROOT)
        if proc.returncode != 0:
            return proc.returncode
        print(f"wrote {args.out} in {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
