"""The selection layer: the selected items' outlines and vertices, drawn over everything else."""

from __future__ import annotations

import pyqtgraph as pg

from ..model.outlines import outlines, vertices
from .qt_base import SELECTION, Layer, xy
from .qt_items import cosmetic_pen


class SelectionLayer(Layer):
    kind = "selection"

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.halo = self.add(pg.PlotCurveItem(pen=cosmetic_pen("#ffffff", 5.0), antialias=True))
        self.curve = self.add(pg.PlotCurveItem(pen=cosmetic_pen(SELECTION, 2.5), antialias=True), 0.1)
        self.points = self.add(pg.ScatterPlotItem(size=7, symbol="s", pen=pg.mkPen("#7c2d12", width=1),
                                                  brush=pg.mkBrush(SELECTION), pxMode=True), 0.2)

    def refresh(self) -> None:
        scene, sel = self.doc.scene, self.doc.selection
        lines = outlines(scene, sel)
        self.halo.setData(*xy(lines), connect="finite")
        self.curve.setData(*xy(lines), connect="finite")
        self.points.setData(pos=vertices(scene, sel) if len(sel) <= 200 else vertices(scene, sel[:200]))
