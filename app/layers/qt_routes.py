"""The route layer: all routes as one path, direction chevrons as another, their points as one scatter."""

from __future__ import annotations

import pyqtgraph as pg

from .arrays import route_arrows, route_lines
from .qt_base import ROUTE, Layer
from .qt_items import PathsItem, ScatterItem, cosmetic_pen


class RouteLayer(Layer):
    kind = "route"
    fields = frozenset({"routes"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.curve = self.add(PathsItem())
        self.arrows = self.add(PathsItem(), 0.1)
        self.points = self.add(ScatterItem(size=6, symbol="o", pen=pg.mkPen(ROUTE, width=1.5),
                                           brush=pg.mkBrush("#ffffff"), pxMode=True), 0.2)
        self._pen = cosmetic_pen(ROUTE, 2.0)
        self._pixel = 1.0

    def refresh(self) -> None:
        lines, pts = route_lines(self.doc.scene)
        self.curve.set_lines(lines, self._pen)
        self.points.setData(pos=pts)
        self.view_changed(self._pixel)

    def view_changed(self, pixel: float) -> None:
        if pixel != self._pixel or not self.arrows._groups:
            self._pixel = pixel
            self.arrows.set_lines(route_arrows(self.doc.scene, pixel), self._pen, connect="pairs")
