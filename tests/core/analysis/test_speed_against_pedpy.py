"""The measurement area's mean speed and specific flow against PedPy itself (the test extra installs it)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pedpy
import pytest
import shapely

from core.analysis.density import density_series
from core.analysis.speed import individual_speeds, mean_speed, specific_flow, speed_series
from core.sim.replay import Replay

AREA = shapely.Polygon([(4, 1), (14, 2), (15, 9), (5, 8)])
FPS = 8.0  # frame times k / 8 are exact binary fractions, so t +- the window lands on recorded times exactly


def ragged_crowd(seed: int, n: int = 40, frames: int = 24) -> tuple[Replay, pd.DataFrame]:
    """Walkers through a 20 x 10 m room that enter and leave at random frames (each present 2 frames or more), as
    a Replay and as PedPy's (id, frame, x, y) rows."""
    rng = np.random.default_rng(seed)
    rows, t, xy, offsets = [], [], [], [0]
    for i in range(n):
        f0 = int(rng.integers(0, frames - 2))
        f1 = int(rng.integers(f0 + 2, frames + 1))
        p = rng.uniform((0.5, 0.5), (19.5, 9.5))
        v = rng.normal(0.0, 1.2, size=2)
        for f in range(f0, f1):
            p = np.clip(p + v / FPS + rng.normal(0.0, 0.05, size=2), 0.0, 20.0)
            rows.append((i + 1, f, p[0], p[1]))
            t.append(f / FPS)
            xy.append(p.copy())
        offsets.append(len(t))
    rep = Replay(tuple(f"a{i}" for i in range(n)), ("p",), np.zeros(n, np.int32), np.zeros(n, np.int8),
                 np.array(t), np.array(xy), np.array(offsets, dtype=np.int64), 1.0 / FPS)
    return rep, pd.DataFrame(rows, columns=["id", "frame", "x", "y"])


@pytest.mark.parametrize("seed, frame_step", [(1, 1), (2, 2), (3, 3)])
def test_mean_speed_and_specific_flow_equal_pedpy(seed, frame_step):
    rep, df = ragged_crowd(seed)
    traj = pedpy.TrajectoryData(data=df, frame_rate=FPS)
    ma = pedpy.MeasurementArea(AREA)
    ind = pedpy.compute_individual_speed(traj_data=traj, frame_step=frame_step,
                                         speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED)
    ref = pedpy.compute_mean_speed_per_frame(traj_data=traj, individual_speed=ind, measurement_area=ma)
    times = ref["frame"].to_numpy() / FPS
    ours = speed_series(rep, times, AREA, frame_step / FPS)
    assert (ref["speed"].to_numpy() > 0).sum() > len(times) // 2  # the area is not empty most of the time
    np.testing.assert_allclose(ours, ref["speed"].to_numpy(), rtol=1e-12, atol=1e-12)
    # each agent's speed at each frame is PedPy's individual speed
    for f in (0, 5, 17):
        v, present = individual_speeds(rep, f / FPS, frame_step / FPS)
        got = ind[ind["frame"] == f].sort_values("id")
        np.testing.assert_allclose(v[got["id"].to_numpy() - 1], got["speed"].to_numpy(), rtol=1e-12, equal_nan=True)
        assert present.sum() == len(got)
    # specific flow: the classic density of the same frames times the mean speed
    frames = [(float(t), rep.positions_at(t)[rep.present_at(t)]) for t in times]
    _, classic, _ = density_series(frames, shapely.box(0, 0, 20, 10), AREA)
    rho = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma)["density"].to_numpy()
    np.testing.assert_allclose(specific_flow(classic, ours), rho * ref["speed"].to_numpy(), rtol=1e-12, atol=1e-12)


def test_mean_speed_of_an_empty_area_is_zero():
    assert mean_speed(np.zeros((0, 2)), np.zeros(0), AREA) == 0.0
    assert mean_speed(np.array([[0.0, 0.0]]), np.array([1.0]), AREA) == 0.0
    # a point on the area's boundary is not strictly inside (PedPy's shapely.within)
    assert mean_speed(np.array([[4.0, 1.0], [9.0, 5.0]]), np.array([5.0, 1.5]), AREA) == 1.5
    # agents inside, none with a speed: undefined, as PedPy says
    assert np.isnan(mean_speed(np.array([[9.0, 5.0]]), np.array([np.nan]), AREA))
