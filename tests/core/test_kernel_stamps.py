"""The real tree's kernel stamps (core.jitcache.kernel_stamp): editing a pure-Python module recompiles no kernel,
and editing a kernel or a constant it uses recompiles exactly the kernels that use it.

A stamp is the whole of a kernel's cache key beside its argument types and the machine (tests/core/test_jitcache.py
shows that an unchanged stamp loads from the cache and compiles nothing), so comparing every kernel's stamp before
and after an edit, in a copy of the tree, counts the kernels the edit would recompile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.subprocess

STAMPS = """
import importlib, json, pkgutil, sys
import core
from numba.core.dispatcher import Dispatcher
from core.jitcache import kernel_stamp

out = {}
for m in pkgutil.walk_packages(core.__path__, "core."):
    if m.name.endswith("__main__"):
        continue
    mod = importlib.import_module(m.name)
    for name, v in vars(mod).items():
        if isinstance(v, Dispatcher) and v.py_func.__module__ == mod.__name__:
            out[f"{mod.__name__}:{name}"] = kernel_stamp(v)
print(json.dumps(out))
"""


def _stamps(root: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", STAMPS], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("tree")
    shutil.copytree(REPO / "core", root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    return root, _stamps(root)


def _edited(root: Path, rel: str, change) -> dict[str, str]:
    f = root / rel
    before = f.read_text()
    try:
        f.write_text(change(before))
        return _stamps(root)
    finally:
        f.write_text(before)


def _changed(a: dict[str, str], b: dict[str, str]) -> set[str]:
    assert a.keys() == b.keys()
    return {k for k in a if a[k] != b[k]}


@pytest.mark.parametrize("rel", ["core/sim/simulation.py", "core/routes/plan.py", "core/scene/problems.py",
                                 "core/sim/__init__.py", "core/sim/params.py"])
def test_editing_a_pure_python_module_recompiles_no_kernel(tree, rel):
    root, base = tree
    assert len(base) > 200, "every kernel of core is stamped"

    def edit(text: str) -> str:
        # A docstring's words, lines inserted at the top, and a new function: what an everyday edit does.
        return "\n\n# An edit.\n" + text.replace("the", "THE", 3) + "\n\ndef _an_added_function():\n    return 1\n"

    assert _changed(base, _edited(root, rel, edit)) == set()


def test_rewording_a_kernels_docstring_or_comments_recompiles_nothing(tree):
    root, base = tree
    changed = _changed(base, _edited(root, "core/sim/kernels.py",
                                     lambda t: t.replace('"""Number of agents still walking."""',
                                                         '"""How many agents still walk."""  # a comment')))
    assert changed == set()


def test_editing_a_constant_recompiles_exactly_the_kernels_that_read_it(tree):
    root, base = tree
    changed = _changed(base, _edited(root, "core/sim/state.py",
                                     lambda t: t.replace("\nARRIVED = 1\n", "\nARRIVED = 7\n")))
    assert "core.sim.kernels:move_phase" in changed and "core.sim.kernels:advance_serial" in changed
    assert not any(k.startswith(("core.ecm.", "core.navmesh.", "core.routes.")) for k in changed)


def test_editing_a_shared_helper_recompiles_its_callers_and_only_them(tree):
    root, base = tree
    changed = _changed(base, _edited(root, "core/navmesh/kernels/predicates.py",
                                     lambda t: t.replace("return math.sqrt(x * x + y * y)",
                                                         "return math.sqrt(y * y + x * x)")))
    assert "core.navmesh.kernels.predicates:norm2d" in changed and "core.sim.kernels:advance_serial" in changed
    assert len(changed) < len(base), "kernels that never reach norm2d keep their entries"


def test_editing_the_reference_intrinsics_recompiles_the_kernels_that_read_by_reference(tree):
    root, base = tree
    changed = _changed(base, _edited(root, "core/jitref.py", lambda t: t.replace("value", "loaded")))
    assert {"core.sim.kernels:_block_steps", "core.sim.kernels:_phase_blocks", "core.sim.kernels:advance_serial",
            "core.sim.kernels:advance_blocks"} <= changed
    assert not any(k.startswith(("core.ecm.", "core.navmesh.", "core.routes.")) for k in changed)
