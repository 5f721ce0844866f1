"""The test path layer: the route planned live for the agent being placed or dragged (with a white halo so it
reads over any terrain), its narrowest spot, a label with its length, cost and narrowest clearance (or why there
is no route), and the free space shrunk by the profile's radius as a dashed outline."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from core.routes.probe import RouteProbe
from core.scene.model import TERRAIN_PLANNERS

from .qt_base import FREE_SPACE, PROBLEM, TEST_PATH, Layer, brush
from .qt_items import PathsItem, ScatterItem, cosmetic_pen

LABEL_WIDTH_PX = 300  # the label wraps at this width instead of running off the viewport


def probe_text(probe: RouteProbe) -> str:
    """One line (or the error) describing a probed route, as the label shows it."""
    if probe.error is not None:
        return f"No route ({probe.planner}): {probe.error}"
    keeps = "keeps" if probe.clearance_ok else "does not keep"
    cost = f"cost {probe.cost:,.1f}" if probe.planner in TERRAIN_PLANNERS else "ignores terrain"
    return (f"{probe.planner} · {probe.length:,.1f} m · {cost} · narrowest {probe.narrowest:.2f} m "
            f"({keeps} the radius {probe.clearance:.2f} m)")


def rings_fill_path(rings: list[np.ndarray]) -> QtGui.QPainterPath:
    """Closed rings as one odd-even filled path (holes stay empty whatever their orientation)."""
    path = QtGui.QPainterPath()
    for r in rings:
        path.addPath(pg.arrayToQPath(np.ascontiguousarray(r[:, 0]), np.ascontiguousarray(r[:, 1])))
    path.setFillRule(QtCore.Qt.FillRule.OddEvenFill)
    return path


class TestPathLayer(Layer):
    kind = "test_path"

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.free = self.add(PathsItem(), -3.0)
        self.halo = self.add(PathsItem(), 0.0)
        self.route = self.add(PathsItem(), 0.1)
        self.narrowest = self.add(ScatterItem(size=12, symbol="o", pen=pg.mkPen(PROBLEM, width=2),
                                              brush=pg.mkBrush(255, 255, 255, 200), pxMode=True), 0.2)
        self.label = self.add(pg.TextItem("", color="#064e3b", anchor=(0, 1.1), fill=pg.mkBrush(255, 255, 255, 230),
                                          border=pg.mkPen(TEST_PATH)), 0.3)
        self.label.textItem.setTextWidth(LABEL_WIDTH_PX)
        self.free_pen = cosmetic_pen(FREE_SPACE, 1.5, QtCore.Qt.PenStyle.DashLine)
        self.free_brush = brush(FREE_SPACE, 28)
        self.probe: RouteProbe | None = None
        self.rings: list[np.ndarray] | None = None
        self.show_probe(None)

    def show_probe(self, probe: RouteProbe | None) -> None:
        """Draw a probed route (or its error at the start), or nothing for None."""
        self.probe = probe
        if probe is None:
            for it in (self.halo, self.route):
                it.set_groups([])
            self.narrowest.setData(pos=np.zeros((0, 2)))
            self.label.hide()
            return
        pts = probe.points
        self.halo.set_lines(pts, cosmetic_pen("#ffffff", 6.0))
        self.route.set_lines(pts, cosmetic_pen(PROBLEM if probe.error else TEST_PATH, 3.0))
        at = np.array([probe.narrowest_at], dtype=np.float64) if probe.narrowest_at is not None else np.zeros((0, 2))
        self.narrowest.setData(pos=at)
        self.label.setColor(QtGui.QColor(PROBLEM if probe.error else "#064e3b"))
        self.label.setText(probe_text(probe))
        at = probe.goal if probe.error is None else probe.start
        self.label.setPos(*at)
        rect = self.view.viewRect()
        if rect.width() > 0 and rect.height() > 0:  # turn the label towards the middle of the view
            self.label.setAnchor((1.0 if at[0] > rect.center().x() else 0.0,
                                  -0.1 if at[1] > rect.center().y() else 1.1))
        self.label.show()

    def show_free_space(self, rings: list[np.ndarray] | None) -> None:
        """Outline (and tint faintly) the shrunk free space; None hides it."""
        self.rings = rings
        self.free.set_groups([] if not rings else [(rings_fill_path(rings), self.free_pen, self.free_brush)])
