"""The engine never imports Qt: every module of ``core`` imports with PySide6, pyqtgraph and ``app`` forbidden."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import importlib, importlib.abc, pkgutil, sys

    FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "PySide2", "app")

    class Forbid(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in FORBIDDEN:
                raise ImportError(f"core must not import {name}")
            return None

    sys.meta_path.insert(0, Forbid())
    import core
    names = ["core"]
    for info in pkgutil.walk_packages(core.__path__, "core."):
        if not info.name.endswith(".__main__"):          # running a command is not importing it
            names.append(info.name)
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as e:
            failed.append(f"{name}: {type(e).__name__}: {e}")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)
    print(len(names), "modules")
    for f in failed:
        print("FAILED", f)
    for m in loaded:
        print("LOADED", m)
    sys.exit(1 if failed or loaded else 0)
""")


def test_every_core_module_imports_without_qt():
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert int(r.stdout.split()[0]) >= 10


def test_the_hook_catches_a_qt_import():
    """The check itself works: a module that imports PySide6 is reported."""
    probe = SCRIPT.replace("import core\n", "import core\nimport importlib\n").replace(
        'names = ["core"]', 'names = ["core", "PySide6.QtCore"]')
    r = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "FAILED PySide6.QtCore: ImportError: core must not import PySide6" in r.stdout
