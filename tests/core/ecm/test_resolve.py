"""Tiles labelled on the CPU (``core.ecm.resolve``) against the GPU shading every tile, and the tracing's flags."""

import numpy as np
import pytest

from core.ecm.gvd import render_gvd
from core.ecm.kernel_views import PixelGrid, real_edges
from core.ecm.sites import build_sites
from core.ecm.trace import crack_flags, trace_chains
from core.scene import build_geometry
from core.scene.model import Obstacle, Profile, Scene, TerrainType

from ecmgen import random_scene


def _sites(scene):
    g = build_geometry(scene)
    return build_sites(g.obstacles, g.box.bounds)


@pytest.mark.parametrize("seed", [1, 4, 6, 7, 11, 216])
def test_cpu_labels_are_the_gpu_labels(seed):
    """Random scenes (non-convex and touching obstacles, so vertices shared by convex pieces) at a size whose tiles
    do not fit the image: the build's labels equal those of shading every tile, and most tiles need no GPU."""
    s = _sites(random_scene(seed, width=97.3, height=71.9))
    for res in (333, 1024):
        full = render_gvd(s, res, with_dist=True)
        fast = render_gvd(s, res, with_dist=False)
        assert np.array_equal(full.labels, fast.labels)
        if res == 1024:
            assert fast.instances < 0.25 * full.instances
        _check_tile_labels(fast)


def _check_tile_labels(gvd):
    """A tile the GVD names as one label holds that label at every pixel (the tracing skips it)."""
    t = gvd.tile
    known = np.argwhere(gvd.tile_labels >= -1)
    assert len(known) > 0.3 * gvd.tile_labels.size
    for ty, tx in known:
        assert np.all(gvd.labels[ty * t:(ty + 1) * t, tx * t:(tx + 1) * t] == gvd.tile_labels[ty, tx])


def _mirror_scene(n: int) -> Scene:
    """``n`` pairs of squares mirrored about x = 50, the bounds' middle: on a grid of even width the Voronoi edge
    between each pair runs exactly between two pixel columns, the others' bisectors cross pixel centres."""
    obstacles = []
    for k in range(n):
        y = 8.0 + 12.0 * k
        w = 3.0 + 1.7 * k
        obstacles.append(Obstacle(f"l{k}", [(50 - 20 - w, y), (50 - 20, y), (50 - 20, y + 4), (50 - 20 - w, y + 4)]))
        obstacles.append(Obstacle(f"r{k}", [(50 + 20, y), (50 + 20 + w, y), (50 + 20 + w, y + 4), (50 + 20, y + 4)]))
    return Scene(bounds=(0.0, 0.0, 100.0, 100.0), terrain_types=[TerrainType("default", "Open ground")],
                 default_terrain="default", name="mirror", obstacles=obstacles, profiles=[Profile("pedestrian")])


def test_ties_go_to_the_gpu_and_stay_the_same():
    """Pixel centres equidistant from two sites (the mirror line at odd widths) cannot be decided from float64
    distances: their tiles are drawn, and the labels stay those of the GPU everywhere."""
    s = _sites(_mirror_scene(6))
    for res in (256, 257, 1000):
        full = render_gvd(s, res, with_dist=True)
        fast = render_gvd(s, res, with_dist=False)
        assert np.array_equal(full.labels, fast.labels)
        if res == 257:
            # The middle column's centres lie on the mirror line: ties the CPU leaves to the depth test.
            assert fast.instances > 0


def test_tracing_leaves_the_crack_flags_as_it_found_them():
    """The walk marks the cracks it takes in the flags and sets them back: the annotation reads them afterwards;
    skipping the single-label tiles finds the same cracks as scanning every pixel."""
    s = _sites(random_scene(3))
    gvd = render_gvd(s, 512, with_dist=False)
    pix = PixelGrid(int(gvd.shape[1]), int(gvd.shape[0]), gvd.h, float(gvd.origin[0]), float(gvd.origin[1]))
    vb, hb, cracks = crack_flags(gvd.labels, real_edges(s), pix, gvd.tile_labels, gvd.tile)
    vb0, hb0 = vb.copy(), hb.copy()
    every = crack_flags(gvd.labels, real_edges(s), pix, np.full_like(gvd.tile_labels, -3), gvd.tile)
    assert np.array_equal(every[2], cracks) and np.array_equal(every[0], vb) and np.array_equal(every[1], hb)
    node_ij, node_deg, chain_ptr, pts, lab, chain_nodes = trace_chains(gvd.labels, vb, hb, cracks)
    assert np.array_equal(vb, vb0) and np.array_equal(hb, hb0)
    assert set(np.unique(vb)) <= {0, 1} and len(cracks) == int(vb.sum()) + int(hb.sum())
    # Every boundary crack is walked exactly once: each chain has one more corner than cracks.
    assert len(pts) == len(cracks) + len(chain_nodes)
