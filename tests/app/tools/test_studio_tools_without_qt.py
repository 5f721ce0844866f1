"""The document, tool state and tools are plain Python: they import and run with Qt forbidden, driven by
ToolEvents through the ToolHost with a minimal context (no undo stack, no widgets)."""

import pytest
import subprocess
import sys
import textwrap
from pathlib import Path

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent("""
    import importlib.abc, sys

    class Forbid(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                raise ImportError(f"the models must not import {name}")
            return None

    sys.meta_path.insert(0, Forbid())
    from core.scene import Scene
    from core.scene.checks import check_items
    from core.scene.edits import apply
    from core.scene.picking import PickIndex
    from app.model import Document, ToolState
    from app.tools import ToolHost

    class Context:
        def __init__(self):
            self.doc = Document(Scene.empty(100, 100))
            self.state = ToolState()
            self.messages = []

        def commit(self, changes, text, refs=(), select=None, removal=False):
            probs = check_items(apply(self.doc.scene, changes), refs)
            if not probs:
                self.doc.set_fields(changes)
                self.doc.select(select or [])
            return probs

        def snap(self, x, y, tol, exclude=None):
            return self.doc.picker().snap(x, y, tol, 5.0, True, exclude=exclude)[:2]

        def message(self, text):
            self.messages.append(text)

    ctx = Context()
    host = ToolHost(ctx)
    px = 0.1
    def click(x, y):
        ev = host.event(x, y, px)
        host.press(ev); host.release(ev)

    host.set_tool("obstacle")
    for p in [(10.4, 9.8), (30.1, 10.2), (29.7, 30.0), (10.0, 30.3)]:
        click(*p)
    host.key("enter")
    assert ctx.doc.scene.obstacles[0].polygon == [(10, 10), (30, 10), (30, 30), (10, 30)], ctx.doc.scene.obstacles
    host.set_tool("route")
    click(5, 5); click(5, 50)
    ev = host.event(60, 60, px); host.press(ev); host.release(ev); host.double_click(ev); host.release(ev)
    assert ctx.doc.scene.routes[0].points == [(5, 5), (5, 50), (60, 60)]
    host.set_tool("obstacle")
    for p in [(0, 40), (20, 40), (20, 70), (0, 70)]:
        click(*p)
    host.key("enter")
    assert len(ctx.doc.scene.obstacles) == 1 and host.active.busy()
    assert [q.where for q in host.preview().problems] == [(5.0, 50.0)]
    host.key("escape")
    host.set_tool("select")
    click(20, 20)
    assert ctx.doc.selection == (("obstacle", "o1"),)
    loaded = [m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph")]
    assert not loaded, loaded
    print("ok")
""")


def test_tools_run_without_qt():
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
