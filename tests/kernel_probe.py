"""Running a probe script in a fresh interpreter against a small kernel package in a temporary directory: what a new
process finds in numba's cache on disk (the tests of core.jitcache's loading and linking)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kernel_package(tmp: Path, name: str, source: str) -> None:
    """Write the package ``name`` under ``tmp`` with ``source`` as its module ``kernels``."""
    pkg = tmp / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text(source)


def run_probe(tmp: Path, code: str, *args: str) -> dict:
    """The JSON that ``code`` prints last, run with ``tmp`` and the repository importable, ``tmp / "cache"`` as
    numba's cache and no shipped kernels; the probe's error output on a failure."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), str(ROOT)])
    env["NUMBA_CACHE_DIR"] = str(tmp / "cache")
    env.pop("MIRAN_SHIPPED_KERNELS", None)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (args, out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])
