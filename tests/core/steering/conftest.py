"""The steering tests share the simulation tests' scene and route generator (tests/core/sim/simgen.py)."""

import sys
from pathlib import Path

_SIM_TESTS = str(Path(__file__).resolve().parents[1] / "sim")
if _SIM_TESTS not in sys.path:
    sys.path.insert(0, _SIM_TESTS)

# ... and the navigation-mesh tests' random scenes (tests/core/navmesh/scenegen.py).
_NAVMESH_TESTS = str(Path(__file__).resolve().parents[1] / "navmesh")
if _NAVMESH_TESTS not in sys.path:
    sys.path.insert(0, _NAVMESH_TESTS)
