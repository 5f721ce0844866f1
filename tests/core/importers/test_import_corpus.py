"""The hostile import corpus (``hostile_imports``), each case a fresh ``miran import`` with a time bound.

Every case ends with exit 0 and a scene the validator accepts, or exit 2 with a message naming what it refuses;
never a traceback, never past the bound. A refusal is decided before the work it refuses: its CPU time (user +
system, read from the child's resource usage, not the wall clock) is at most REFUSAL_CPU_S more than a tiny
import's, so a refused file costs what reading it costs.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from hostile_imports import build_corpus, case_names

ROOT = Path(__file__).resolve().parents[3]
CASE_SECONDS = 120
# Seconds of CPU a refusal may spend beyond what a tiny import spends (the interpreter and the libraries).
REFUSAL_CPU_S = 1.0
TINY = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>'

pytestmark = pytest.mark.slow


def run_import(args: list[str], cwd: Path) -> tuple[int, str, str, float]:
    """(exit status, stdout, stderr, CPU seconds) of ``miran import ARGS`` in a fresh interpreter."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    r = subprocess.run([sys.executable, "-m", "core.cli", "import", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=CASE_SECONDS, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r.returncode, r.stdout, r.stderr, cpu


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile_imports")
    return folder, {c.name: c for c in build_corpus(folder)}


@pytest.fixture(scope="module")
def baseline_cpu(tmp_path_factory):
    """The CPU seconds of importing a one-rectangle SVG (the least any import costs), the least of three runs."""
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "tiny.svg").write_text(TINY)
    return min(run_import([str(folder / "tiny.svg"), "--out", str(folder / "tiny.json")], folder)[3]
               for _ in range(3))


@pytest.mark.parametrize("name", case_names())
def test_hostile_import(name, corpus, baseline_cpu, tmp_path):
    folder, cases = corpus
    case = cases[name]
    out = tmp_path / "out.json"
    code, stdout, stderr, cpu = run_import([case.file, "--out", str(out), *case.args, "--json"], folder)
    assert "Traceback" not in stderr, stderr[-3000:]
    assert code in (0, 2), (code, stderr[-2000:])
    if case.code is not None:
        assert code == case.code, (code, stdout[-1000:], stderr[-2000:])
    if code == 2:
        assert stderr.startswith("error:") and case.mentions in stderr, stderr[-2000:]
        assert not out.exists()
        assert cpu <= baseline_cpu + REFUSAL_CPU_S, f"refused after {cpu:.2f} s of CPU ({stderr[:300]})"
    else:
        from core.scene.io import load_scene

        assert out.exists()
        load_scene(out)                                            # validates
        report = json.loads(stdout)
        assert isinstance(report["left_out"], list)
