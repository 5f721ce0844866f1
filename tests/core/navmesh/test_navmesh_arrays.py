"""The named kernel structures (issue 19): ``NavMesh.arrays`` holds the very arrays of ``kernel_args()`` and
``clearance_args()`` under their names, built once, and ``mesh_of`` rebuilds the same structure inside numba."""

import numpy as np
from numba import njit

from core.navmesh.kernels.arrays import MeshArrays, mesh_of

from scenegen import case


@njit
def _rebuilt_fields(W, C):
    m = mesh_of(W, C)
    return m.V, m.TT, m.S, m.E, m.EI


def test_mesh_arrays_name_the_kernel_arrays_in_order():
    _, _, m = case("city.json")
    a = m.arrays
    assert a is m.arrays  # built once
    assert isinstance(a, MeshArrays)
    expected = m.kernel_args() + m.clearance_args()
    assert len(a) == len(expected) == 11
    for name, got, want in zip(MeshArrays._fields, a, expected):
        assert got is want, name
    assert a.V is m.vertices and a.T is m.xtriangles and a.E is m.obstacle_edges and a.EI is m.edge_cell_items


def test_mesh_of_rebuilds_the_structure_in_jitted_code():
    _, _, m = case("city.json")
    V, TT, S, E, EI = _rebuilt_fields(m.kernel_args(), m.clearance_args())
    for got, want in ((V, m.vertices), (TT, m.xterrain), (S, m.locate_seed), (E, m.obstacle_edges),
                      (EI, m.edge_cell_items)):
        assert np.shares_memory(got, want) and np.array_equal(got, want)
