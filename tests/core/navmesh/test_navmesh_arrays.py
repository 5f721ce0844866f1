"""The named kernel structures (issues 19 and 28): ``NavMesh.arrays`` holds the mesh's kernel arrays under their
names, built once, numba reads them by name from the structure passed whole, and no kernel takes the arrays as a
positional list any more."""

import ast
from pathlib import Path

import numpy as np
from numba import njit

from core.navmesh.kernels.arrays import EdgeGrid, MeshArrays, WalkArrays

from scenegen import case

CORE = Path(__file__).resolve().parents[3] / "core"
WALK = ("V", "T", "N", "TT", "B", "G", "S")
EDGES = ("E", "EG", "ES", "EI")


@njit
def _fields(M):
    return M.walk.V, M.walk.TT, M.walk.S, M.edges.E, M.edges.EI


def test_mesh_arrays_name_the_kernel_arrays():
    _, _, m = case("city.json")
    a = m.arrays
    assert a is m.arrays  # built once
    assert isinstance(a, MeshArrays) and isinstance(a.walk, WalkArrays) and isinstance(a.edges, EdgeGrid)
    assert WalkArrays._fields == WALK and EdgeGrid._fields == EDGES
    want = (m.vertices, m.xtriangles, m.xneighbors, m.xterrain, m.bounds_arr, m.locate_grid, m.locate_seed)
    for name, got, arr in zip(WALK, a.walk, want):
        assert got is arr, name
    for name, got, arr in zip(EDGES, a.edges, (m.obstacle_edges, m.edge_grid, m.edge_cell_start,
                                               m.edge_cell_items)):
        assert got is arr, name


def test_jitted_code_reads_the_fields_of_the_structure_passed_whole():
    _, _, m = case("city.json")
    V, TT, S, E, EI = _fields(m.arrays)
    for got, want in ((V, m.vertices), (TT, m.xterrain), (S, m.locate_seed), (E, m.obstacle_edges),
                      (EI, m.edge_cell_items)):
        assert np.shares_memory(got, want) and np.array_equal(got, want)


def _positional_lists(tree: ast.AST):
    """(function, line) of every definition whose parameters hold the walk or edge arrays one by one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = tuple(a.arg for a in node.args.args)
            for run in (WALK, EDGES):
                if any(names[i:i + len(run)] == run for i in range(len(names))):
                    yield node.name, node.lineno


def test_no_kernel_takes_the_mesh_arrays_one_by_one():
    found = [f"{p.relative_to(CORE.parent)}:{line} {name}" for p in sorted(CORE.rglob("*.py"))
             for name, line in _positional_lists(ast.parse(p.read_text()))]
    assert not found, found
