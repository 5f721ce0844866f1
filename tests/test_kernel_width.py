"""No jitted kernel takes more than 12 parameters (issue 19): kernels take a handful of named structures (mesh, ECM,
route, agent arrays, parameters, work buffers) instead of long positional lists. KNOWN_WIDE would list a kernel
allowed to stay wider; it is empty since every kernel was narrowed, and may only stay so or shrink."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"
LIMIT = 12

KNOWN_WIDE: set[str] = set()


def _jitted(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            yield node, len(node.args.args) + len(node.args.kwonlyargs)


def _wide() -> dict[str, int]:
    """file::function -> parameter count of every jitted function in core with more than LIMIT parameters."""
    out = {}
    for f in sorted(CORE.rglob("*.py")):
        for node, count in _jitted(ast.parse(f.read_text())):
            if count > LIMIT:
                out[f"core/{f.relative_to(CORE).as_posix()}::{node.name}"] = count
    return out


def test_no_new_kernel_takes_more_than_twelve_parameters():
    new = sorted(set(_wide()) - KNOWN_WIDE)
    assert not new, f"jitted functions with more than {LIMIT} parameters (pass named structures instead): {new}"


def test_the_known_list_names_only_kernels_that_are_still_wide():
    """A kernel narrowed to 12 parameters or fewer, renamed or removed leaves the list (so it can only shrink)."""
    assert not sorted(KNOWN_WIDE - set(_wide()))
