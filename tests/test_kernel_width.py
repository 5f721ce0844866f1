"""No new jitted kernel takes more than 12 parameters (issue 19): kernels should take a handful of named structures
(mesh, ECM, route, agent arrays, parameters, work buffers) instead of long positional lists. The kernels that still
do are listed here with their count at the time; the list may only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"
LIMIT = 12

KNOWN_WIDE = {
    "core/ecm/annotate.py::_gauss_newton",  # 13
    "core/ecm/annotate.py::solve_nodes",  # 13
    "core/ecm/annotate.py::_end_point",  # 13
    "core/ecm/annotate.py::_ray_event",  # 14
    "core/ecm/annotate.py::interval_length",  # 17
    "core/ecm/annotate.py::annotate_chains",  # 22
    "core/ecm/astar.py::astar",  # 23
    "core/ecm/corridor.py::_push_disk",  # 15
    "core/ecm/corridor.py::_walk_edge",  # 16
    "core/ecm/corridor.py::explicit_corridor",  # 24
    "core/ecm/cull.py::cull_tiles",  # 16
    "core/ecm/debug.py::_point_on_piece",  # 18
    "core/ecm/path.py::_plan",  # 36
    "core/ecm/path.py::path_kernel",  # 37
    "core/ecm/path.py::paths_kernel",  # 35
    "core/ecm/retract.py::_in_cell",  # 17
    "core/ecm/retract.py::retract",  # 22
    "core/ecm/search.py::_extend",  # 19
    "core/ecm/search.py::_bound",  # 13
    "core/ecm/search.py::corridor_search",  # 35
    "core/ecm/trace.py::_is_boundary",  # 14
    "core/navmesh/kernels/disc.py::triangle_box_walk",  # 13
    "core/navmesh/kernels/disc.py::_overlaps",  # 13
    "core/navmesh/kernels/disc.py::disc_cost",  # 13
    "core/navmesh/kernels/disc.py::disc_intervals",  # 14
    "core/navmesh/kernels/segments.py::fan_costs",  # 13
    "core/navmesh/kernels/shadows.py::_window_start",  # 23
    "core/navmesh/kernels/shadows.py::_shadow_pieces",  # 16
    "core/navmesh/kernels/shadows.py::shadow_intervals",  # 22
    "core/navmesh/kernels/shadows.py::visible_intervals_by_shadows",  # 22
    "core/navmesh/kernels/shadows.py::_append_expansion",  # 20
    "core/navmesh/kernels/shadows.py::visible_intervals_batch",  # 21
    "core/navmesh/kernels/visibility.py::_target_part",  # 13
    "core/navmesh/kernels/visibility.py::segment_visible_parts",  # 18
    "core/navmesh/kernels/visibility.py::_cross_mask",  # 15
    "core/navmesh/kernels/visibility.py::window_visible_parts",  # 17
    "core/navmesh/kernels/visibility.py::_collinear_parts",  # 14
    "core/navmesh/kernels/visibility.py::_per_segment",  # 18
    "core/navmesh/kernels/visibility.py::_shared",  # 18
    "core/navmesh/kernels/visibility.py::visible_start",  # 17
    "core/navmesh/kernels/visibility.py::visible_intervals",  # 16
    "core/navmesh/kernels/walk.py::_edge_run",  # 13
    "core/routes/planners/portal.py::_expand",  # 18
    "core/routes/search.py::astar_ws",  # 17
    "core/steering/disc_miran.py::occluder",  # 15
    "core/steering/disc_miran.py::adjust_end",  # 20
    "core/steering/disc_miran.py::adjust_intervals",  # 19
    "core/steering/disc_miran.py::farthest_sweepable",  # 13
    "core/steering/disc_miran.py::disc_fallback",  # 18
    "core/steering/miran.py::pick_candidate",  # 23
    "core/steering/miran.py::fallback",  # 13
}


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
