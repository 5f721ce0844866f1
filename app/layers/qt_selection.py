"""The selection layer: the selected items' outlines and vertices, drawn over everything else."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ..model.outlines import outlines, vertices
from .qt_base import SELECTION, Layer
from .qt_items import PathsItem, ScatterItem, cosmetic_pen, lines_path

NO_BRUSH = QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)


class SelectionLayer(Layer):
    kind = "selection"
    # Wide antialiased pens are slow to stroke in Qt's raster engine; past this many points the outline is
    # drawn one pixel wide without its halo, so that a large selection still pans and zooms smoothly.
    WIDE_LIMIT = 200
    MAX_HANDLES = 2000

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.curve = self.add(PathsItem())
        self.points = self.add(ScatterItem(size=7, symbol="s", pen=pg.mkPen("#7c2d12", width=1),
                                           brush=pg.mkBrush(SELECTION), pxMode=True), 0.2)
        self._halo = cosmetic_pen("#ffffff", 5.0)
        self._wide = cosmetic_pen(SELECTION, 2.0)
        self._thin = cosmetic_pen(SELECTION, 1.0)

    def refresh(self) -> None:
        scene, sel = self.doc.scene, self.doc.selection
        lines = outlines(scene, sel)
        path = lines_path(lines)
        if len(lines) <= self.WIDE_LIMIT:
            self.curve.set_groups([(path, self._halo, NO_BRUSH), (path, self._wide, NO_BRUSH)])
        else:
            self.curve.set_groups([(path, self._thin, NO_BRUSH)])
        pts = vertices(scene, sel)
        self.points.setData(pos=pts if len(pts) <= self.MAX_HANDLES else pts[:0])
