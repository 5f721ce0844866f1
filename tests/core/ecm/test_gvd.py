"""The GPU GVD against a brute-force nearest site on the CPU; block rendering; the missing-OpenGL message."""

import json

import numpy as np
import pytest

import core.ecm.glcontext as glcontext
from core.cli.main import main
from core.ecm.distance import site_closest
from core.ecm.gvd import render_gvd
from core.ecm.sites import build_sites
from core.scene import build_geometry

from ecmgen import random_scene


def _brute(s, gvd, rows, cols):
    """Nearest site distance (over real edges) and the set of sites within 1e-3 pixel of it, per pixel."""
    out = []
    for i, j in zip(rows, cols):
        x = gvd.origin[0] + (j + 0.5) * gvd.h
        y = gvd.origin[1] + (i + 0.5) * gvd.h
        d = np.array([site_closest(s.real_ptr, s.real_edge, s.ring_xy, s.ring_next, k, x, y)[0]
                      for k in range(s.n_sites)])
        out.append((d.min(), set(np.flatnonzero(d <= d.min() + 1e-3 * gvd.h).tolist())))
    return out


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_labels_and_distances_match_brute_force(seed):
    scene = random_scene(seed)
    g = build_geometry(scene)
    s = build_sites(g, scene.bounds)
    gvd = render_gvd(s, 160)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, gvd.shape[0], 400)
    cols = rng.integers(0, gvd.shape[1], 400)
    import shapely

    centres = np.column_stack([gvd.origin[0] + (cols + 0.5) * gvd.h, gvd.origin[1] + (rows + 0.5) * gvd.h])
    inside = ~shapely.contains_xy(g.free, centres[:, 0], centres[:, 1])
    for (d, near), lab, dist, obst in zip(_brute(s, gvd, rows, cols), gvd.labels[rows, cols], gvd.dist[rows, cols],
                                          inside):
        if obst:
            assert lab == -1
            continue
        assert lab in near
        assert abs(float(dist) - d) <= 1e-5 * s.scale


def test_blocks_give_the_same_image():
    scene = random_scene(5)
    s = build_sites(build_geometry(scene), scene.bounds)
    whole = render_gvd(s, 200)
    tiled = render_gvd(s, 200, max_block=48)
    assert tiled.blocks > 1
    assert np.array_equal(whole.labels, tiled.labels)
    assert np.allclose(whole.dist, tiled.dist, atol=1e-5 * s.scale)


@pytest.mark.parametrize("seed", [0, 3, 203])
def test_filled_tiles_give_the_fully_shaded_labels(seed):
    """Tiles the culling settles (one site, clear of its boundary) are filled, not drawn: same labels as drawing
    every tile; coarse blocks of several tiles at 1024 px."""
    g = build_geometry(random_scene(seed))
    s = build_sites(g.obstacles, g.box.bounds)
    for res in (200, 1024):
        full = render_gvd(s, res, with_dist=True)
        fast = render_gvd(s, res, with_dist=False)
        assert fast.dist is None and fast.instances <= full.instances
        if res == 1024:
            assert fast.instances < 0.8 * full.instances
        assert np.array_equal(full.labels, fast.labels)


def test_no_opengl_gives_a_clear_error_and_exit_2(monkeypatch, tmp_path, capsys):
    import moderngl

    def fail(*a, **k):
        raise RuntimeError("eglGetDisplay failed")

    monkeypatch.setattr(moderngl, "create_standalone_context", fail)
    monkeypatch.setattr(glcontext, "_CONTEXT", None)
    with pytest.raises(glcontext.GLUnavailableError) as e:
        glcontext.get_context()
    msg = str(e.value)
    assert "could not create an OpenGL context" in msg and "libegl1" in msg and "libgl1-mesa-dri" in msg
    assert "eglGetDisplay failed" in msg
    from core.scene import save_scene

    path = tmp_path / "s.json"
    save_scene(random_scene(1), path)
    assert main(["ecm", str(path), "--resolution", "64", "--backend", "gpu"]) == 2
    err = capsys.readouterr().err
    assert "error: opengl: could not create an OpenGL context" in err and "Traceback" not in err
    # The default backend needs no OpenGL.
    assert main(["ecm", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["backend"] == "exact" and summary["backend_reason"] == "the default: the exact diagram on the CPU"
    assert summary["counts"]["vertices"] > 0
    # Asked for the rendered GVD, auto falls back to the exact map and says why.
    from core.ecm import build_ecm

    ecm = build_ecm(random_scene(1), 64, keep_gvd=True)
    assert ecm.stats["backend"] == "exact" and "no OpenGL context" in ecm.stats["backend_reason"]
    assert "eglGetDisplay failed" in ecm.stats["backend_reason"] and ecm.n_vertices > 0


def test_auto_renders_only_where_the_gvd_is_kept_or_pyvoronoi_is_missing(monkeypatch):
    from core.ecm import build, exact

    assert build.resolve_backend("auto") == ("exact", "the default: the exact diagram on the CPU")
    assert build.resolve_backend("auto", keep_gvd=True) == ("gpu", "the rendered GVD was asked for")
    assert build.resolve_backend("gpu") == ("gpu", "requested")
    monkeypatch.setattr(exact, "exact_available", lambda: False)
    assert build.resolve_backend("auto") == ("gpu", "pyvoronoi is not installed")
