"""The packaged app (packaging/build_bundle.py): built with its kernels, it holds the shipped scenes, resources,
desktop entry and version, and on an empty user cache reaches its first step without compiling a kernel.

Building takes minutes (the kernels' compile for a baseline CPU, then PyInstaller), so the build runs only when asked::

    pip install -e '.[bundle]'
    MIRAN_TEST_BUNDLE=1 QT_QPA_PLATFORM=offscreen python -m pytest tests/test_bundle.py -s

``MIRAN_TEST_BUNDLE=built`` checks the bundle already in dist/ (``build_bundle.py --check-only``) instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "dist" / "miran-studio"
CONTENTS = APP / "_internal"

pytestmark = [pytest.mark.subprocess, pytest.mark.cold_cache,
              pytest.mark.skipif(os.environ.get("MIRAN_TEST_BUNDLE", "") in ("", "0"),
                                 reason="builds the bundle for minutes: MIRAN_TEST_BUNDLE=1 (docs: Development)")]


@pytest.fixture(scope="module")
def built() -> str:
    """Build the bundle with its kernels and run its first-step check; the build's output."""
    only = ["--check-only"] if os.environ.get("MIRAN_TEST_BUNDLE") == "built" else []
    if not only:
        pytest.importorskip("PyInstaller")
    proc = subprocess.run([sys.executable, str(ROOT / "packaging" / "build_bundle.py"), "--check", "120", *only],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600)
    print(proc.stdout[-3000:], proc.stderr[-3000:])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_the_bundle_holds_the_scenes_resources_entry_and_version(built):
    shipped = {p.name for p in (ROOT / "scenes").glob("*.json")}
    assert shipped and shipped <= {p.name for p in (CONTENTS / "scenes").glob("*.json")}
    for folder in ("resources/icons", "resources/schemas"):
        ours = {p.relative_to(ROOT / folder) for p in (ROOT / folder).rglob("*") if p.is_file()}
        theirs = {p.relative_to(CONTENTS / folder) for p in (CONTENTS / folder).rglob("*") if p.is_file()}
        assert ours and ours <= theirs, folder
    assert (CONTENTS / "core" / "jit_manifest.json").is_file()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert (APP / "VERSION").read_text().strip() == version
    assert "Exec=miran-studio" in (APP / "miran-studio.desktop").read_text()
    assert (APP / "miran-studio.svg").is_file()
    assert os.readlink(APP / "miran") == "miran-studio"
    assert (ROOT / "dist" / f"miran-studio-{version}-linux-x86_64.tar.gz").is_file()
    assert (CONTENTS / "docs" / "getting-started.md").is_file()


def test_the_bundle_ships_every_kernel_of_the_manifest(built):
    kernels = list((CONTENTS / "kernels").rglob("*.nbc"))
    manifest = json.loads((ROOT / "core" / "jit_manifest.json").read_text())["entries"]
    assert len(kernels) >= len(manifest)
    assert "first steps of the shipped scenes compiled 0 kernels" in built


def test_on_an_empty_user_cache_the_first_step_compiles_nothing(built):
    line = next(s for s in built.splitlines() if "the bundle on an empty user cache" in s)
    assert "first step after" in line and "0 kernels compiled into the user's cache" in line, line


def test_the_bundled_command_line_runs(built, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "MIRAN_"))}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = tmp_path / "paths.json"
    proc = subprocess.run([str(APP / "miran"), "simulate", str(CONTENTS / "scenes" / "mckenna.json"), "--steps", "20",
                           "--out", str(out)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["format"].startswith("miran-paths")
