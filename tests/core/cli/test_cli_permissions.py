"""Unwritable outputs refused by the kernel itself, not simulated: the command runs in a subprocess that the
permission bits bind.

Root ignores permission bits (CAP_DAC_OVERRIDE), and CI runs as root; so as root the command runs with those
capabilities dropped from its bounding set (``prctl(PR_CAPBSET_DROP)``, Linux), which makes uid 0 obey the
modes like any user. (Switching to ``nobody`` instead would need the interpreter, the checkout and numba's
compiled cache readable and writable by nobody, which they are not where Python lives under /root.) As another
user a plain ``chmod`` is enough.
"""

from __future__ import annotations

import ctypes
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hostile_corpus import BASE

PR_CAPBSET_DROP = 24
# CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: what lets root write where the modes forbid it.
DAC_CAPS = (1, 2, 3)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOBODY = 65534

pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(sys.platform != "linux", reason="permission bits and prctl are Linux's")]


def _drop_dac_caps() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in DAC_CAPS:
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def run_bound(argv: list[str], tmpdir: Path) -> subprocess.CompletedProcess:
    """``miran ARGV`` in a subprocess bound by the permission bits; results kept elsewhere go to ``tmpdir``."""
    env = {**os.environ, "TMPDIR": str(tmpdir), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "core.cli", *argv], capture_output=True, text=True, env=env,
                          timeout=600, preexec_fn=_drop_dac_caps if IS_ROOT else None)


@pytest.fixture
def world(tmp_path):
    """A world-readable folder with the scene and an empty folder for kept results."""
    top = Path(tempfile.mkdtemp(prefix="miran-perm-", dir=tmp_path))
    top.chmod(0o755)
    scene = top / "scene.json"
    scene.write_text(json.dumps(BASE))
    scene.chmod(0o644)
    kept = top / "kept"
    kept.mkdir()
    kept.chmod(0o777)
    yield top, scene, kept
    for p in top.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)


def test_the_kernel_refuses_the_write_for_this_process(world):
    """The premise: a process started like the commands below cannot create a file in a 0555 folder."""
    top, _, _ = world
    ro = top / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    r = subprocess.run([sys.executable, "-c", f"open({str(ro / 'x')!r}, 'w')"], capture_output=True, text=True,
                       timeout=120, preexec_fn=_drop_dac_caps if IS_ROOT else None)
    assert r.returncode != 0 and "Permission denied" in r.stderr


@pytest.mark.parametrize("argv", [
    ["simulate", "{scene}", "--steps", "50", "--out", "{out}"],
    ["route", "{scene}", "--from", "2,2", "--to", "18,6", "--out", "{out}"],
])
def test_a_read_only_folder_is_refused_before_the_run(argv, world):
    top, scene, kept = world
    ro = top / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    out = ro / "result.json"
    r = run_bound([a.format(scene=scene, out=out) for a in argv], kept)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: --out:") and str(ro) in r.stderr and "Permission denied" in r.stderr
    assert "Traceback" not in r.stderr
    assert list(ro.iterdir()) == [] and list(kept.iterdir()) == []


@pytest.mark.skipif(not IS_ROOT, reason="needs a file owned by another user (chown)")
def test_a_write_refused_after_the_run_keeps_the_result(world):
    """A sticky, world-writable folder of another user: a temporary file can be created there (the check before the
    run passes) but that user's file cannot be renamed over (EPERM), so the write fails only after the run."""
    top, scene, kept = world
    sticky = top / "sticky"
    sticky.mkdir()
    os.chown(sticky, NOBODY, NOBODY)
    sticky.chmod(0o1777)
    out = sticky / "paths.json"
    out.write_text("old\n")
    os.chown(out, NOBODY, NOBODY)
    out.chmod(0o666)
    r = run_bound(["simulate", str(scene), "--steps", "50", "--out", str(out)], kept)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: --out:") and str(out) in r.stderr and "Traceback" not in r.stderr
    assert out.read_text() == "old\n" and [p.name for p in sticky.iterdir()] == ["paths.json"]
    (result,) = kept.iterdir()
    assert str(result) in r.stderr and result.name.startswith("miran-paths-")
    assert stat.S_ISREG(result.stat().st_mode)
    doc = json.loads(result.read_text())
    assert doc["format"] == "miran-paths" and doc["agents"][0]["id"] == "a1"
