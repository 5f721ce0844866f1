"""The JIT warm-up: what the opened scene's first step needs comes first, and no kernel is compiled for two
argument types (each extra specialisation is another compilation on a first start), but for the buffer helpers,
one per array type they grow (a kernel calling one by symbol loads it, so it shows in the process). The check runs
in a fresh interpreter: other tests in this process call kernels with argument types of their own."""

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
import numpy as np
from numba.core.registry import CPUDispatcher
from app.sim.warmup import warm_up_for, warm_up_rest
from core.routes import Route
from core.scene.io import load_scene
from core.sim import Simulation

scene = load_scene(sys.argv[1])
warm_up_for(scene)
sim = Simulation(scene)
sim.add_random_agents(5, seed=1)
sim.step(3)
warm_up_rest()
# A route made from another route's read-only points took a second, read-only specialisation.
r = Route.from_points(np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 1.0]]))
assert len(Route.from_points(r.points).points) == 3
# The buffer helpers are generic by design: one specialisation per array type they grow (core/kernels/buffers.py).
twice = [f"{d.py_func.__module__}.{d.py_func.__name__}: {[str(s) for s in d.signatures]}"
         for d in gc.get_objects() if isinstance(d, CPUDispatcher) and len(d.signatures) > 1
         and d.py_func.__module__ != "core.kernels.buffers"]
print(json.dumps(twice))
"""


def test_every_kernel_is_compiled_for_one_signature():
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(SCENES / "mckenna_road.json")], cwd=repo,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
