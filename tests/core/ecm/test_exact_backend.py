"""The exact backend (Boost.Polygon's segment Voronoi diagram) against the GPU backend: the same map up to a pixel.

On the shipped scenes and on random ones: vertices within a pixel of each other, the same edges between matched
vertices where no feature is below the pixel size, and the same shortest paths.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree

from core.cli.main import main
from core.ecm import build_ecm, shortest_path
from core.scene import build_geometry, load_scene, save_scene
from core.scene.model import Obstacle

from ecmgen import random_scene, rect
from test_paths import _points

SCENES = Path(__file__).resolve().parents[3] / "scenes"


def _maps(scene, resolution):
    geometry = build_geometry(scene)
    gpu = build_ecm(scene, resolution, geometry=geometry, backend="gpu")
    exact = build_ecm(scene, resolution, geometry=geometry, backend="exact")
    assert gpu.stats["backend"] == "gpu" and exact.stats["backend"] == "exact"
    return geometry, gpu, exact


def _same_map(gpu, exact, tol):
    """Vertices matched both ways within ``tol``, the same edges between them, the same lengths and events."""
    d_eg, to_gpu = cKDTree(gpu.vert_xy).query(exact.vert_xy)
    d_ge, _ = cKDTree(exact.vert_xy).query(gpu.vert_xy)
    assert d_eg.max() <= tol and d_ge.max() <= tol
    assert np.allclose(exact.vert_R, gpu.vert_R[to_gpu], atol=tol)
    assert np.array_equal(np.sort(exact.vert_kind), np.sort(gpu.vert_kind))
    exact_edges = sorted(tuple(sorted(map(int, to_gpu[uv]))) for uv in exact.edge_uv)
    gpu_edges = sorted(tuple(sorted(map(int, uv))) for uv in gpu.edge_uv)
    assert exact_edges == gpu_edges
    assert exact.n_events == gpu.n_events
    assert abs(exact.edge_len.sum() - gpu.edge_len.sum()) <= tol * gpu.n_edges
    d_ev, _ = cKDTree(gpu.ev_B).query(exact.ev_B)
    assert d_ev.max() <= tol


@pytest.mark.parametrize("name", ["city", "mckenna", "hills", "mckenna_road"])
def test_shipped_scenes_same_map(name):
    # The annotation of both is exact, so the maps agree far below the pixel: Boost's integer input (2**30 over the
    # scene) leaves a few 1e-9 of the scene's size.
    scene = load_scene(SCENES / f"{name}.json")
    _, gpu, exact = _maps(scene, 2048)
    _same_map(gpu, exact, 1e-8 * exact.sites.scale)


def test_forest_same_map_up_to_the_pixel():
    # The forest's round trees have vertices a fraction of a pixel apart: they match within the pixel size, and
    # their counts and total length agree.
    _, gpu, exact = _maps(load_scene(SCENES / "forest.json"), 2048)
    assert (exact.n_vertices, exact.n_edges, exact.n_events) == (gpu.n_vertices, gpu.n_edges, gpu.n_events)
    d, _ = cKDTree(gpu.vert_xy).query(exact.vert_xy)
    assert d.max() <= gpu.pixel
    assert abs(exact.edge_len.sum() - gpu.edge_len.sum()) <= gpu.pixel * gpu.n_edges * 0.01


@pytest.mark.parametrize("seed", [201, 202, 203, 204, 205, 207])
def test_random_scenes_same_map_and_paths(seed):
    scene = random_scene(seed)
    geometry, gpu, exact = _maps(scene, 320)
    _same_map(gpu, exact, 1e-8 * exact.sites.scale)
    pts = _points(geometry, 20, seed)
    for a, b in zip(pts[0::2], pts[1::2]):
        for clearance in (0.0, 0.5):
            pg, lg, okg = shortest_path(gpu, a, b, clearance=clearance)
            pe, le, oke = shortest_path(exact, a, b, clearance=clearance)
            assert okg == oke
            if okg:
                assert abs(lg - le) <= 1e-6 * exact.sites.scale


def _long_edge_vertices(ecm, min_len):
    """Vertices all of whose edges are longer than ``min_len`` and not a loop from a point at clearance 0 back to it
    (the GPU artefact of seed 200)."""
    u, v = ecm.edge_uv.T
    touch_loop = np.all(ecm.vert_xy[u] == ecm.vert_xy[v], axis=1) & (ecm.vert_R[u] == 0.0)
    short = np.zeros(ecm.n_vertices, dtype=bool)
    short[ecm.edge_uv[(ecm.edge_len <= min_len) | touch_loop].ravel()] = True
    return ecm.vert_xy[~short]


def test_thirty_random_scenes_agree_up_to_the_pixel():
    """Seeds 206-235: where both maps' edges are longer than 5 pixels their vertices coincide (a few seeds differ
    below that: a GPU chain along an obstacle vertex's normal, or a 4-pixel edge into two obstacles' contact point
    that the pixels lose), and shortest paths at 0.5 m clearance have the same lengths."""
    for seed in range(206, 236):
        geometry, gpu, exact = _maps(random_scene(seed), 320)
        tol = 1e-8 * exact.sites.scale
        for a, b in ((gpu, exact), (exact, gpu)):
            d, _ = cKDTree(b.vert_xy).query(_long_edge_vertices(a, 5 * gpu.pixel))
            assert d.max() <= tol, seed
        pts = _points(geometry, 10, seed, clearance=0.5)
        for s, g in zip(pts[0::2], pts[1::2]):
            _, lg, okg = shortest_path(gpu, s, g, clearance=0.5)
            _, le, oke = shortest_path(exact, s, g, clearance=0.5)
            assert okg == oke, seed
            if okg:
                assert abs(lg - le) <= 1e-6 * exact.sites.scale, seed


def test_obstacles_clipped_by_the_bounds():
    """Obstacles crossing the bounds (clipped: an edge along a wall) and one over a corner of the bounds, overlapping
    a random obstacle: Boost.Polygon gets no overlapping segments, and the map is the GPU's."""
    base = random_scene(201)
    obstacles = [*base.obstacles, Obstacle("cross", rect(-5, 20, 6, 30)), Obstacle("corner", rect(90, 60, 105, 75))]
    _, gpu, exact = _maps(replace(base, obstacles=obstacles), 320)
    _same_map(gpu, exact, 1e-8 * exact.sites.scale)


def test_random_scene_200_gpu_artefact():
    """The GPU map of seed 200 has one chain more: from an obstacle vertex along its own edge's normal and back,
    clearance 0 at both ends (no Voronoi edge does that); the rest is the exact map."""
    _, gpu, exact = _maps(random_scene(200), 320)
    d, to_exact = cKDTree(exact.vert_xy).query(gpu.vert_xy)
    extra = np.flatnonzero(d > 1e-6 * exact.sites.scale)
    assert len(extra) == 2 and np.all(gpu.vert_R[extra] == 0.0)
    assert np.allclose(gpu.vert_xy[extra[0]], gpu.vert_xy[extra[1]])
    loop = [k for k in range(gpu.n_edges) if set(gpu.edge_uv[k]) == set(extra)]
    assert len(loop) == 1 and gpu.n_edges == exact.n_edges + 1
    d_eg, _ = cKDTree(gpu.vert_xy).query(exact.vert_xy)
    assert d_eg.max() <= 1e-8 * exact.sites.scale


def test_cli_exact_backend(tmp_path, capsys):
    path = tmp_path / "s.json"
    save_scene(random_scene(204), path)
    out = tmp_path / "e.json"
    png = tmp_path / "e.png"
    assert main(["ecm", str(path), "--backend", "exact", "--json", "--out", str(out), "--png", str(png),
                 "--resolution", "256"]) == 0
    import json

    summary = json.loads(capsys.readouterr().out)
    assert summary["backend"] == "exact" and summary["backend_reason"] == "requested"
    assert set(summary["seconds"]) == {"sites", "voronoi", "annotation", "total"}
    doc = json.loads(out.read_text())
    assert len(doc["vertices"]) == summary["counts"]["vertices"] > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["ecm", str(path), "--backend", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "error: backend: must be one of auto, gpu, exact, got 'cpu'" in err and "Traceback" not in err
