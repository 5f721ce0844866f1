"""core.sim.live: the parameter copy of the side-by-side run and the traced agent's speed series."""

from __future__ import annotations

import numpy as np
import pytest

from core.scene.model import Scene
from core.sim.live import copy_params, speed_series
from core.sim.params import SimParams


def test_speed_series_is_distance_over_time_of_each_step():
    # Steps of 1 s at 3-4-5: 5 units/s; a zero-length interval in time (a duplicated record) is skipped.
    path = np.array([[0.0, 0.0, 0.0], [1.0, 3.0, 4.0], [1.0, 3.0, 4.0], [3.0, 3.0, 5.0]])
    t, v = speed_series(path)
    assert t.tolist() == [1.0, 3.0]
    assert v == pytest.approx([5.0, 0.5])


def test_speed_series_thins_long_paths_to_the_limit_and_keeps_the_first_step():
    n = 10_001
    tt = np.arange(n, dtype=float)
    path = np.column_stack([tt, 2.0 * tt, np.zeros(n)])
    t, v = speed_series(path, max_points=3000)
    assert 0 < len(t) <= 3000 and t[0] == 1.0 and np.all(np.diff(t) > 0)
    assert np.all(v == 2.0)


def test_speed_series_of_a_standing_agent_is_empty():
    assert [len(a) for a in speed_series(np.zeros((1, 3)))] == [0, 0]
    assert [len(a) for a in speed_series(np.zeros((0, 3)))] == [0, 0]


def test_copy_params_writes_in_place_and_refuses_other_tables():
    scene = Scene.empty()
    a, b = SimParams(scene), SimParams(scene)
    glob, prof, weights = b.glob, b.prof, b.weights
    a.set("c_s", 3.5)
    copy_params(a, b)
    assert b.get("c_s") == 3.5 and b.glob is glob and b.prof is prof and b.weights is weights
    assert np.array_equal(a.glob, b.glob) and np.array_equal(a.prof, b.prof) and np.array_equal(a.weights, b.weights)
    b.profile_ids = b.profile_ids + ["extra"]
    with pytest.raises(ValueError, match="profiles differ"):
        copy_params(a, b)
