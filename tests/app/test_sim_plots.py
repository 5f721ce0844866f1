"""The run's plots: ranges that grow in nice steps, so that an update inside the range draws no axis again."""

import math

import numpy as np
import pytest
from PySide6 import QtWidgets

from app.panels.qt_plots import NICE_ENDS, QtSimPlots, nice_end
from app.sim.messages import Stats


def test_nice_end_is_the_least_nice_number_not_below():
    """Against the nice numbers listed over twenty decades: the least one at or above v."""
    listed = sorted(e * 10.0 ** k for k in range(-10, 11) for e in NICE_ENDS)
    rng = np.random.default_rng(7)
    for v in [*10.0 ** rng.uniform(-8, 8, 2000), *listed[20:-20], 0.3, 7.0, 1e-7]:
        want = min(x for x in listed if x >= v * (1 - 1e-12))
        assert nice_end(v) == pytest.approx(want, rel=1e-12), v
    for nothing in (0.0, -3.0, math.nan, math.inf):
        assert nice_end(nothing) is None


def stats(t: float, arrived: int) -> Stats:
    st_t = np.arange(0.0, t, 0.1)
    return Stats(generation=1, agent=0, terrain_lengths=np.array([0.5 * t, 0.2 * t]), speed_t=st_t,
                 speed_v=1.3 + 0.1 * np.sin(st_t), arrivals=np.linspace(5.0, 0.5 * t, arrived), n=500)


def paint(plots: QtSimPlots) -> None:
    """Let the event loop paint the plots, as it does after each update."""
    for _ in range(3):
        QtWidgets.QApplication.processEvents()


def test_updates_inside_the_range_draw_no_axis_and_a_longer_run_grows_it(qtbot):
    plots = QtSimPlots()
    qtbot.addWidget(plots)
    plots.set_terrains(["sidewalk", "road"], ["#cbd5e1", "#475569"])
    plots.resize(1200, 170)
    plots.show()
    qtbot.waitExposed(plots)
    plots.show_stats(stats(31.0, 41))
    paint(plots)
    drawn = []
    for name, w in plots.widgets.items():
        for side in ("left", "bottom"):
            ax = w.getPlotItem().getAxis(side)
            ax.paint = (lambda paint, key: lambda *a: (drawn.append(key), paint(*a)))(ax.paint, (name, side))
    ranges = [p.viewRange() for p in plots.plot_items()]
    for k in range(1, 18):                      # up to 39.5 s and 46 arrivals: inside 0..40 s and 0..50
        plots.show_stats(stats(31.0 + 0.5 * k, 41 + k // 3))
        paint(plots)
    assert [p.viewRange() for p in plots.plot_items()] == ranges
    assert drawn == [], "an axis was drawn again though its range stayed"
    assert len(plots.speed_curve.getData()[0]) == 395, "the curves still follow every update"
    plots.show_stats(stats(41.0, 51))
    paint(plots)
    assert plots.speed.viewRange()[0][1] >= 50.0 and plots.arrivals.viewRange()[1][1] >= 60.0
    assert ("speed", "bottom") in drawn
