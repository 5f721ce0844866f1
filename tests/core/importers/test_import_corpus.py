"""The hostile import corpus (``hostile_imports``), each case a fresh ``miran import`` with a time bound.

Every case ends with exit 0 and a scene the validator accepts, or exit 2 with a message naming what it refuses;
never a traceback, never past the bound. A refusal is decided before the work it refuses: its CPU time (user +
system, read from the child's resource usage, not the wall clock) is at most REFUSAL_CPU_S more than a tiny
import of the same format (the interpreter and the format's library loaded), so a refused file costs what reading
it costs.
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
TINY = {
    ".svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>',
    ".tmj": json.dumps({"type": "map", "orientation": "orthogonal", "width": 2, "height": 2, "tilewidth": 1,
                        "tileheight": 1, "layers": [{"type": "objectgroup", "name": "walls",
                                                     "objects": [{"id": 1, "x": 0, "y": 0, "width": 1,
                                                                  "height": 1}]}]}),
    ".geojson": json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"layer": "walls"},
         "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}]}),
    ".osm": "<?xml version='1.0'?><osm version='0.6'><node id='1' lat='50' lon='7'/><node id='2' lat='50' "
            "lon='7.001'/><node id='3' lat='50.001' lon='7.001'/><way id='9'><nd ref='1'/><nd ref='2'/><nd "
            "ref='3'/><nd ref='1'/><tag k='building' v='yes'/></way></osm>",
}

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
    """Per file ending, the CPU seconds of importing a one-element file of that format (the least an import of
    it costs), the least of three runs."""
    import ezdxf

    folder = tmp_path_factory.mktemp("tiny")
    for suffix, text in TINY.items():
        (folder / f"tiny{suffix}").write_text(text)
    doc = ezdxf.new()
    doc.modelspace().add_lwpolyline([(0, 0), (1, 0), (1, 1)], close=True)
    doc.saveas(folder / "tiny.dxf")
    out = {}
    for suffix in [*TINY, ".dxf"]:
        runs = [run_import([str(folder / f"tiny{suffix}"), "--out", str(folder / "tiny.json")], folder)
                for _ in range(3)]
        assert all(r[0] == 0 for r in runs), runs[0][2]
        out[suffix] = min(r[3] for r in runs)
    out[".tmx"] = out[".tmj"]
    return out


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
        base = baseline_cpu[Path(case.file).suffix]
        assert cpu <= base + REFUSAL_CPU_S, f"refused after {cpu:.2f} s of CPU, {base:.2f} s for a tiny file " \
                                            f"({stderr[:300]})"
    else:
        from core.scene.io import load_scene

        assert out.exists()
        load_scene(out)                                            # validates
        report = json.loads(stdout)
        assert isinstance(report["left_out"], list)
