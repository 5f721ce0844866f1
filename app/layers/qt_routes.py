"""The route layer: all routes as one curve, their points as one scatter, direction chevrons as one curve."""

from __future__ import annotations

import pyqtgraph as pg

from .arrays import route_arrows, route_lines
from .qt_base import ROUTE, Layer, xy
from .qt_items import cosmetic_pen


class RouteLayer(Layer):
    kind = "route"
    fields = frozenset({"routes"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.curve = self.add(pg.PlotCurveItem(pen=cosmetic_pen(ROUTE, 2.5), antialias=True))
        self.arrows = self.add(pg.PlotCurveItem(pen=cosmetic_pen(ROUTE, 2.0), antialias=True), 0.1)
        self.points = self.add(pg.ScatterPlotItem(size=6, symbol="o", pen=pg.mkPen(ROUTE, width=1.5),
                                                  brush=pg.mkBrush("#ffffff"), pxMode=True), 0.2)
        self._pixel = 1.0

    def refresh(self) -> None:
        lines, pts = route_lines(self.doc.scene)
        self.curve.setData(*xy(lines), connect="finite")
        self.points.setData(pos=pts)
        self.view_changed(self._pixel)

    def view_changed(self, pixel: float) -> None:
        self._pixel = pixel
        self.arrows.setData(*xy(route_arrows(self.doc.scene, pixel)), connect="pairs")
