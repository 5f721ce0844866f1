"""Layout at 1280 x 800, the smallest common laptop screen: the window fits, no panel scrolls sideways, and no
button, label, spin box or slider field in a shown panel is narrower than it needs to be (clipped text such as an
"Add" button cut to "A") or runs past its panel's right edge; messages wrap; Save As suggests no shipped file."""

from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

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
