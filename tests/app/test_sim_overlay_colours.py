"""Readable overlays: trails, terrain boundaries, routes, the test path and the IRM corridor in colours told apart,
the corridor hatched so the terrain under it keeps its colour, and omega labels that never overlap."""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from app.layers.qt_base import ROUTE, TEST_PATH
from app.layers.qt_overlays import CORRIDOR, LABEL_PX, TERRAIN_EDGE, label_slots
from app.layers.qt_sim_agents import COMPARE_COLOUR, MAIN_TRAIL
from core.ecm.colours import CLEARANCE_COLOURS


def lab(colour) -> np.ndarray:
    """CIE L*a*b* of a colour (for perceptual distances; sRGB D65)."""
    c = QtGui.QColor(colour)
    rgb = np.array([c.redF(), c.greenF(), c.blueF()])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    xyz /= np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_overlay_colours_are_told_apart():
    named = {"trails": MAIN_TRAIL, "terrain boundaries": TERRAIN_EDGE, "routes": ROUTE, "test path": TEST_PATH,
             "corridor": CORRIDOR, "side-by-side": COMPARE_COLOUR}
    names = list(named)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            d = float(np.linalg.norm(lab(named[a]) - lab(named[b])))
            assert d > 25, f"{a} and {b} are too alike (delta E {d:.1f})"


def test_corridor_is_hatched_not_a_wash(make_studio):
    w = make_studio(new=(50, 50))
    trace = w.sim.trace
    pen, brush = trace._corridor_style
    assert brush.style() == QtCore.Qt.BrushStyle.BDiagPattern and pen.style() == QtCore.Qt.PenStyle.NoPen
    # Most of a hatched area shows what is under it: paint the brush over a terrain colour and count.
    img = QtGui.QImage(60, 60, QtGui.QImage.Format.Format_ARGB32)
    img.fill(QtGui.QColor("#a3b18a"))
    p = QtGui.QPainter(img)
    p.fillRect(img.rect(), brush)
    p.end()
    same = sum(img.pixelColor(x, y).name() == "#a3b18a" for x in range(60) for y in range(60))
    assert same > 0.6 * 3600


def test_ecm_colours_are_one_map():
    from app.layers import qt_overlays

    assert not hasattr(qt_overlays, "CLEARANCE_RAMP")  # the app draws with core's table, as the CLI does
    assert len(set(CLEARANCE_COLOURS)) == len(CLEARANCE_COLOURS) == 8


def test_label_slots_never_overlap_and_prefer_the_best_omega():
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 120, size=(24, 2))
    omega = rng.uniform(0, 1, size=24)
    order = np.argsort(omega)
    shown = label_slots(pts, order, LABEL_PX)
    w, h = LABEL_PX
    kept = pts[shown]
    for i in range(len(kept)):
        for j in range(i + 1, len(kept)):
            assert abs(kept[i, 0] - kept[j, 0]) >= w or abs(kept[i, 1] - kept[j, 1]) >= h
    assert shown[order[0]]  # the best candidate is always labelled
    # Brute force: every left-out label overlaps a kept label of better omega (greedy is maximal).
    rank = np.empty(24, dtype=int)
    rank[order] = np.arange(24)
    for k in np.nonzero(~shown)[0]:
        assert any(abs(pts[k, 0] - pts[j, 0]) < w and abs(pts[k, 1] - pts[j, 1]) < h and rank[j] < rank[k]
                   for j in np.nonzero(shown)[0])
    far = np.column_stack([np.arange(5) * 100.0, np.zeros(5)])
    assert label_slots(far, np.arange(5), LABEL_PX).all()


@pytest.mark.parametrize("n", [0, 1])
def test_label_slots_small_inputs(n):
    assert label_slots(np.zeros((n, 2)), np.arange(n), LABEL_PX).tolist() == [True] * n


def test_omega_labels_in_the_viewport_do_not_overlap_and_reappear_when_zoomed_in(make_studio, qtbot):
    w = make_studio(new=(50, 50))
    trace = w.sim.trace
    trace.set_visible(True)
    pts = np.array([[20.0 + 0.3 * k, 25.0] for k in range(10)])  # ten candidates 0.3 m apart
    trace._labels(pts, np.linspace(1.0, 0.1, 10))
    QtCore.QCoreApplication.processEvents()

    def visible_rects():
        return [t.sceneBoundingRect() for t in trace.labels if t.isVisible()]

    rects = visible_rects()
    assert 1 <= len(rects) < 10
    assert trace.labels[9].isVisible()  # the best omega (the last one here) keeps its label
    for i in range(len(rects)):
        for j in range(i + 1, len(rects)):
            assert not rects[i].intersects(rects[j])
    w.viewport.view.setRange(QtCore.QRectF(19.5, 24.0, 4.0, 2.5), padding=0)  # zoom in: room for all
    QtCore.QCoreApplication.processEvents()
    qtbot.waitUntil(lambda: len(visible_rects()) == 10, timeout=5000)
