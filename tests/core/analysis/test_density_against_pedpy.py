"""Density and flow of random crowds against PedPy itself: classic and Voronoi density in a measurement area,
the classic and Voronoi density profiles on a grid, and N(t) across a measurement line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pedpy  # the test extra installs it: the reference, never skipped
import pytest
import shapely

from core.analysis.density import (classic_density, classic_heatmap, density_series, voronoi_cells,
                                   voronoi_density, voronoi_heatmap)
from core.analysis.flow import cumulative_count, first_crossings, flow_rate


# A 20 x 10 m room with a pillar: the walkable area is not convex, so some Voronoi cells are clipped.
WALKABLE = shapely.box(0, 0, 20, 10).difference(shapely.box(9, 3, 11, 7))
AREA = shapely.Polygon([(4, 1), (14, 2), (15, 9), (5, 8)])
FPS = 10.0


def crowd(seed: int, frames: int = 6, n: int = 60) -> list[tuple[float, np.ndarray]]:
    """Random walkers in WALKABLE: (time, positions) per frame."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform((0.2, 0.2), (19.8, 9.8), size=(4 * n, 2))
    pts = pts[shapely.contains_xy(WALKABLE.buffer(-0.1), pts[:, 0], pts[:, 1])][:n]
    out = []
    for f in range(frames):
        step = rng.normal(0.0, 0.15, size=pts.shape)
        nxt = pts + step
        ok = shapely.contains_xy(WALKABLE.buffer(-0.1), nxt[:, 0], nxt[:, 1])
        pts = np.where(ok[:, None], nxt, pts)
        out.append((f / FPS, pts.copy()))
    return out


def trajectory(frames) -> "pedpy.TrajectoryData":
    rows = [(i + 1, k, x, y) for k, (_, p) in enumerate(frames) for i, (x, y) in enumerate(p)]
    df = pd.DataFrame(rows, columns=["id", "frame", "x", "y"])
    return pedpy.TrajectoryData(data=df, frame_rate=FPS)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_classic_and_voronoi_density_equal_pedpy(seed):
    frames = crowd(seed)
    traj = trajectory(frames)
    walk, ma = pedpy.WalkableArea(WALKABLE), pedpy.MeasurementArea(AREA)
    ref_classic = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma)["density"].to_numpy()
    ind = pedpy.compute_individual_voronoi_polygons(traj_data=traj, walkable_area=walk)
    ref_voronoi, _ = pedpy.compute_voronoi_density(individual_voronoi_data=ind, measurement_area=ma)
    t, classic, voronoi = density_series(frames, WALKABLE, AREA)
    np.testing.assert_allclose(classic, ref_classic, rtol=1e-12)
    np.testing.assert_allclose(voronoi, ref_voronoi["density"].to_numpy(), rtol=1e-9)
    # The per-agent cells are PedPy's too (1 / area is each agent's individual density).
    f0 = ind[ind["frame"] == 0].sort_values("id")
    np.testing.assert_allclose(1.0 / shapely.area(voronoi_cells(frames[0][1], WALKABLE)), f0["density"], rtol=1e-9)


def test_voronoi_cells_tile_the_walkable_area():
    _, pts = crowd(7)[0]
    cells = voronoi_cells(pts, WALKABLE)
    assert shapely.area(cells).sum() == pytest.approx(WALKABLE.area, rel=1e-9)
    assert shapely.covers(cells, shapely.points(pts)).all()
    # Integrated over the whole walkable area the Voronoi density counts every agent once.
    assert voronoi_density(pts, WALKABLE, WALKABLE) * WALKABLE.area == pytest.approx(len(pts))


@pytest.mark.parametrize("seed", [4, 5])
def test_heatmaps_equal_pedpy_density_profiles(seed):
    frames = crowd(seed, frames=3)
    traj = trajectory(frames)
    walk = pedpy.WalkableArea(WALKABLE)
    ind = pedpy.compute_individual_voronoi_polygons(traj_data=traj, walkable_area=walk)
    data = ind.merge(traj.data, on=["id", "frame"])
    cell = 1.0
    for method, ours in ((pedpy.DensityMethod.VORONOI, voronoi_heatmap(frames, WALKABLE, WALKABLE.bounds, cell)),
                         (pedpy.DensityMethod.CLASSIC, classic_heatmap(frames, WALKABLE.bounds, cell))):
        profiles = pedpy.compute_density_profile(data=data, walkable_area=walk, grid_size=cell,
                                                 density_method=method)
        ref = np.mean(profiles, axis=0)[::-1]          # PedPy's row 0 is the top of the area, ours the bottom
        assert ref.shape == ours.shape
        np.testing.assert_allclose(np.nan_to_num(ours), ref, rtol=1e-9, atol=1e-12)


def test_classic_density_counts_points_inside():
    pts = np.array([[5.0, 5.0], [6.0, 5.0], [0.5, 0.5], [14.9, 3.0]])  # the last two outside
    assert classic_density(pts, AREA) == pytest.approx(2 / AREA.area)


def test_flow_crossings_equal_pedpy_n_t():
    rng = np.random.default_rng(11)
    n, m = 25, 40
    x = rng.uniform(0, 4, n)[:, None] + np.cumsum(rng.uniform(0.0, 0.4, (n, m)), axis=1)
    y = rng.uniform(1, 9, n)[:, None] + np.cumsum(rng.normal(0, 0.1, (n, m)), axis=1)
    line = shapely.LineString([(6.0, 0.0), (6.0, 10.0)])
    df = pd.DataFrame({"id": np.repeat(np.arange(1, n + 1), m), "frame": np.tile(np.arange(m), n),
                       "x": x.ravel(), "y": y.ravel()})
    traj = pedpy.TrajectoryData(data=df, frame_rate=FPS)
    n_t, _ = pedpy.compute_n_t(traj_data=traj, measurement_line=pedpy.MeasurementLine(line))
    t = np.tile(np.arange(m) / FPS, n)
    offsets = np.arange(n + 1) * m
    crossings = first_crossings(t, np.column_stack([x.ravel(), y.ravel()]), offsets, line)
    times = n_t["time"].to_numpy()
    np.testing.assert_array_equal(cumulative_count(crossings, times), n_t["cumulative_pedestrians"].to_numpy())
    assert flow_rate(crossings, np.array([times[-1]]), times[-1] + 1.0)[0] == pytest.approx(
        n_t["cumulative_pedestrians"].iloc[-1] / (times[-1] + 1.0))


def test_sampled_frames_are_the_replays_frames_evenly_spread():
    from core.analysis.density import sample_frames
    from core.sim.replay import Replay

    t = np.arange(11) * 0.1
    rep = Replay(("a", "b"), ("p",), np.zeros(2, np.int32), np.zeros(2, np.int8), np.concatenate([t, t[3:]]),
                 np.column_stack([np.arange(19.0), np.arange(19.0) * 2]), np.array([0, 11, 19]), 0.1)
    every = rep.frames(0.0, 1.0)
    got = sample_frames(rep, 0.0, 1.0, 4)
    assert len(got) == 4 and got[-1][0] == every[-1][0] and got[0][0] == every[0][0]
    for tt, pos in got:
        k = [f[0] for f in every].index(tt)
        np.testing.assert_array_equal(pos, every[k][1])
    assert [len(p) for _, p in sample_frames(rep, 0.0, 1.0, 100)] == [len(p) for _, p in every]
