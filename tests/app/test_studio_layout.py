"""Layout at 1280 x 800, the smallest common laptop screen: the window fits, no panel scrolls sideways, and no
button, label, spin box or slider field in a shown panel is narrower than it needs to be (clipped text such as an
"Add" button cut to "A") or runs past its panel's right edge; messages wrap; Save As suggests no shipped file."""

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app import qt_dialogs as dialogs

REPO = Path(__file__).resolve().parents[2]
ROAD = REPO / "scenes" / "mckenna_road.json"
CHECKED = (QtWidgets.QAbstractButton, QtWidgets.QLabel, QtWidgets.QAbstractSpinBox, QtWidgets.QComboBox,
           QtWidgets.QSlider, QtWidgets.QLineEdit)


def clipped_widgets(window) -> list[str]:
    """Every shown widget of the docks and tool bars that is narrower than its minimum size hint, or whose right
    edge lies past the viewport of the scroll area (or the dock) holding it."""
    out = []
    containers = [d for d in window.docks.values() if d.isVisible() and not d.visibleRegion().isEmpty()]
    for dock in containers:
        for wdg in dock.widget().findChildren(QtWidgets.QWidget):
            if not isinstance(wdg, CHECKED) or not wdg.isVisibleTo(dock) or not wdg.isVisible():
                continue
            if isinstance(wdg, QtWidgets.QLabel) and not wdg.text():
                continue
            name = f"{dock.objectName()}/{wdg.objectName() or type(wdg).__name__}:" \
                   f"{getattr(wdg, 'text', lambda: '')()!s:.30}"
            need = wdg.minimumSizeHint().width()
            if isinstance(wdg, (QtWidgets.QPushButton, QtWidgets.QToolButton)):
                need = wdg.sizeHint().width()  # a button narrower than its text's width cuts the text
            if wdg.width() < need - 1:
                out.append(f"{name} is {wdg.width()} px wide, needs {need}")
                continue
            area = _scroll_area(wdg, dock)
            frame = area.viewport() if area is not None else dock
            right = wdg.mapTo(frame, QtCore.QPoint(wdg.width(), 0)).x()
            if right > frame.width() + 1:
                out.append(f"{name} ends at x = {right}, past its panel's {frame.width()}")
    return out


def _scroll_area(wdg, stop):
    p = wdg.parentWidget()
    while p is not None and p is not stop:
        if isinstance(p, QtWidgets.QScrollArea):
            return p
        p = p.parentWidget()
    return None


def show_all_tabs(window, qtbot):
    """Raise each tab of the right dock area in turn, yielding so the checks see every panel."""
    for name in ("simulation", "profiles", "terrain_types"):
        window.docks[name].raise_()
        QtWidgets.QApplication.processEvents()
        qtbot.wait(50)
        yield name


def test_the_window_fits_1280_by_800_without_clipped_widgets(make_studio, qtbot):
    w = make_studio(ROAD, size=(1280, 800))
    w.sim._start_timer.stop()
    w.show_editor()
    w.resize(1280, 800)
    qtbot.wait(100)
    assert w.width() <= 1280 and w.height() <= 800, (w.size(), w.minimumSizeHint())
    for _ in show_all_tabs(w, qtbot):
        problems = clipped_widgets(w)
        assert not problems, "\n".join(problems)
        for area in w.findChildren(QtWidgets.QScrollArea):
            if area.isVisible() and area.window() is w and area.objectName() != "welcome.cards":
                bar = area.horizontalScrollBar()
                assert not (bar.isVisible() and bar.maximum() > 0), f"{area.objectName()} scrolls sideways"
    # The three plots lie inside the plots dock (a long title once pushed the third past its edge).
    plots = w.sim.plots
    for wdg in plots.shown():
        r = QtCore.QRect(wdg.mapTo(plots, QtCore.QPoint(0, 0)), wdg.size())
        assert wdg.isVisible() and plots.rect().contains(r), (wdg.toolTip(), r, plots.rect())
    # The Simulation panel's controls the issue names, each visible and unclipped.
    w.docks["simulation"].raise_()
    qtbot.wait(50)
    for name in ("sim.add_agents", "sim.dt", "sim.sigma", "sim.method"):
        wdg = w.findChild(QtWidgets.QWidget, name)
        assert wdg is not None and wdg.isVisible(), name
    add = w.findChild(QtWidgets.QPushButton, "sim.add_agents")
    assert add.width() >= add.sizeHint().width()
    assert w.sim.parameters.weight_fields and all(f.isVisible() for f in w.sim.parameters.weight_fields.values())


def test_a_refused_edit_message_wraps_inside_the_viewport(make_studio, drive, qtbot):
    from core.scene import Obstacle
    from core.scene.checks import EditProblem

    w = make_studio(new=(100, 100), size=(1280, 800))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)])]}, "setup")
    long = "the polygon crosses itself near (97.5, 50) where the edge from vertex 3 meets the edge from vertex 7; " * 3
    w.layers.preview.flash([EditProblem(long, (97.5, 50.0))])  # near the right edge
    QtWidgets.QApplication.processEvents()
    label = w.layers.preview.label
    assert label.isVisible()
    vp = w.viewport.viewport()
    view = w.viewport
    rect = view.mapFromScene(label.sceneBoundingRect()).boundingRect()
    assert rect.width() < 0.6 * vp.width(), "the message should wrap"
    assert 0 <= rect.left() and rect.right() <= vp.width(), (rect, vp.width())


def test_save_as_never_suggests_a_shipped_scene(make_studio, monkeypatch, tmp_path):
    from app.paths import scenes_dir

    w = make_studio(ROAD)
    suggested = []
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, s: suggested.append(s) or None)
    w.files.save_as()
    assert suggested
    shipped = scenes_dir().resolve()
    assert Path(suggested[0]).resolve().parent != shipped
    assert Path(suggested[0]).name == ROAD.name
    # Save on a shipped scene asks too (the install's file is never overwritten), and suggests the folder the
    # user last saved to.
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, s: str(mine / "road.json"))
    before = ROAD.read_bytes()
    w.files.save_as()
    assert (mine / "road.json").exists() and ROAD.read_bytes() == before
    other = make_studio(ROAD)
    monkeypatch.setattr(dialogs, "ask_save_path", lambda parent, s: suggested.append(s) or None)
    assert other.files.save() is False
    assert ROAD.read_bytes() == before and Path(suggested[-1]).parent == mine


@pytest.mark.parametrize("size", [(1280, 800)])
def test_plots_reset_with_the_run_and_an_empty_plot_shows_no_scaled_range(make_studio, size):
    w = make_studio(ROAD, size=size)
    plots = w.sim.plots
    for plot in plots.plot_items():
        for axis in ("left", "bottom"):
            ax = plot.getAxis(axis)
            assert "x0.001" not in ax.labelString() and "(x" not in ax.labelString()
        (x0, x1), (y0, y1) = plot.viewRange()
        assert y0 >= 0 and (x0 >= 0 or plot is plots.terrain), "an empty plot starts at 0, not at -400"
    # No numbers under the terrain bars: the names of the open scene's terrain types, before any run.
    assert plots.terrain.getAxis("bottom")._tickLevels == [[(k, t.name or t.id) for k, t in
                                                            enumerate(w.scene.terrain_types)]]


def test_every_plot_fits_1280_by_800_with_measurements_and_a_sweep(make_studio, qtbot):
    """The run's three plots, the measurement area's and line's, and the sweep's (in a dock of its own) all show
    whole at 1280 x 800, none under another, each at least the size its title, ticks and labels need, and the
    terrain names no wider than their bars."""
    import numpy as np
    import pandas as pd

    from app.panels.qt_plots import MIN_PLOT_HEIGHT, MIN_PLOT_WIDTH
    from app.sim.qt_replay import Measurement
    from core.sweep.plot import series

    w = make_studio(ROAD, size=(1280, 800))
    w.sim._start_timer.stop()
    w.show_editor()
    w.resize(1280, 800)
    t = np.linspace(0.0, 60.0, 50)
    w.sim.plots.show_measurements(Measurement(t, 0.5 + 0.1 * np.sin(t), 0.6 + 0.1 * np.cos(t),
                                              np.arange(50), 0.8, [(10, 10), (50, 10), (50, 50)],
                                              [(0, 0), (10, 10)], np.full(50, 1.2), np.full(50, 0.6)))
    runs = pd.DataFrame({"pedestrian.sigma": [10.0, 40.0, 70.0] * 2, "method": ["miran"] * 3 + ["irm"] * 3,
                         "mean_weighted_length": [130.0, 120.0, 118.0, 131.0, 125.0, 121.0]})
    w.sim.show_sweep(series(runs, "pedestrian.sigma", "mean_weighted_length", "method"), "pedestrian.sigma",
                     "mean_weighted_length")
    # The arrivals' longest title (a crowd of thousands), as the replay writes it.
    w.sim.plots.show_replay(np.zeros(0), np.zeros(0), np.linspace(1.0, 60.0, 4999), 5000, np.zeros(0))
    qtbot.wait(300)
    assert w.width() <= 1280 and w.height() <= 800, w.size()
    plots = w.sim.plots
    shown = [*plots.shown(), w.sim.sweep_plot]
    assert len(shown) == 6
    assert w.sim.sweep_plot.parentWidget() is w.docks["sweep"] and w.docks["sweep"].isVisible()
    win = w.rect()
    rects = []
    for wdg in shown:
        r = QtCore.QRect(wdg.mapTo(w, QtCore.QPoint(0, 0)), wdg.size())
        assert wdg.isVisible() and win.contains(r), (wdg.objectName(), r, win)
        assert r.width() >= MIN_PLOT_WIDTH and r.height() >= MIN_PLOT_HEIGHT, (wdg.objectName(), r)
        rects.append(r)
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    # Each title is whole inside its plot ("Arrivals: 4999 of 5000" once ran past its plot's edge).
    assert plots.arrivals.titleLabel.text == "Arrivals: 4999 of 5000"
    for wdg in shown:
        title = wdg.getPlotItem().titleLabel
        r = title.mapRectToScene(title.item.mapRectToParent(title.item.boundingRect()))
        assert 0 <= r.left() and r.right() <= wdg.width(), (title.text, r, wdg.width())
    # Each terrain name fits its bar's share of the axis (long names are cut, and whole in the tool tip).
    ax = plots.terrain.getAxis("bottom")
    fm = QtGui.QFontMetrics(ax.style.get("tickFont") or plots.font())
    share = plots.terrain.getViewBox().width() / len(plots.names)
    assert all(fm.horizontalAdvance(text) <= share for _, text in ax._tickLevels[0]), ax._tickLevels
    assert all(name in plots.widgets["terrain"].toolTip() for name in plots.names)


def test_the_density_scale_suits_the_scene():
    """The top of the heatmap's colour scale follows the densities shown: a city of 107 walkers (a few hundredths
    of an agent per square metre) gets a scale that shows them, a packed square stops at 2 /m², an empty one is
    transparent."""
    import numpy as np

    from app.layers.qt_density import DENSITY_FLOOR, DENSITY_MAX, density_lut, density_top

    rng = np.random.default_rng(3)
    city = np.zeros((160, 160))
    cells = rng.integers(0, 160, size=(107, 2))
    city[cells[:, 0], cells[:, 1]] += 1.0 / (3.125 ** 2) / 12.0        # one walker in a 3.1 m cell, 1 frame in 12
    top = density_top(city)
    assert 0.5 * city.max() <= top <= city.max() * 2.0 and top <= 0.01
    lut = density_lut()
    one = city[city > 0].min()
    assert lut[int(255 * min(one / top, 1.0)), 3] >= 100      # a single walker reads, not washed out by a 0..2 scale
    assert lut[0, 3] == 0 and lut[:, 3].max() <= 180        # nobody: transparent; never opaque over the terrain
    packed = np.full((10, 10), 6.0)
    assert density_top(packed) == DENSITY_MAX
    assert density_top(np.full((4, 4), np.nan)) == DENSITY_FLOOR
    assert density_top(np.zeros((4, 4))) == DENSITY_FLOOR
