"""The preview layer: what the active tool is drawing (outline, translucent fill, handles, rubber band) and the
problems of a refused edit, each marked red at its spot with its message beside the first, wrapped to a few
hundred pixels and turned towards the middle of the view so that it never runs off the viewport's edge."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ..tools.base import Preview
from .arrays import closed_rings
from .qt_base import PREVIEW, PROBLEM, Layer, brush, xy
from .qt_items import CurveItem, PathsItem, ScatterItem, cosmetic_pen, rings_path

MESSAGE_WIDTH_PX = 320  # a problem's message wraps at this width (pixels)


class PreviewLayer(Layer):
    kind = "preview"

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.fill = self.add(PathsItem())
        self.lines = self.add(CurveItem(pen=cosmetic_pen(PREVIEW, 2.0, QtCore.Qt.PenStyle.DashLine),
                                        antialias=True), 0.1)  # short and changing: not cached
        self.handles = self.add(ScatterItem(size=8, symbol="s", pen=pg.mkPen(PREVIEW, width=1.5),
                                            brush=pg.mkBrush("#ffffff"), pxMode=True), 0.2)
        self.active = self.add(ScatterItem(size=11, symbol="s", pen=pg.mkPen("#ffffff", width=1.5),
                                           brush=pg.mkBrush(PREVIEW), pxMode=True), 0.3)
        self.problems = self.add(ScatterItem(size=22, symbol="o", pen=pg.mkPen(PROBLEM, width=3),
                                             brush=pg.mkBrush(220, 38, 38, 50), pxMode=True), 0.4)
        self.label = self.add(pg.TextItem("", color=PROBLEM, anchor=(0, 1.2), fill=pg.mkBrush(255, 255, 255, 225),
                                          border=pg.mkPen(PROBLEM)), 0.5)
        self.label.textItem.setTextWidth(MESSAGE_WIDTH_PX)
        self.rect = self.add(QtWidgets.QGraphicsRectItem(), 0.6)
        self.rect.setPen(cosmetic_pen(PREVIEW, 1.2, QtCore.Qt.PenStyle.DashLine))
        self.rect.setBrush(brush(PREVIEW, 28))
        self.rect.hide()
        self._tool = Preview()
        self._flash: tuple = ()
        self._fill_pen = cosmetic_pen(PREVIEW, 0)
        self._fill_brush = brush(PREVIEW, 45)

    def show_preview(self, preview: Preview) -> None:
        self._tool = preview
        self._draw()

    def flash(self, problems) -> None:
        """Mark the problems of a refused edit until the next change of the preview clears them."""
        self._flash = tuple(problems)
        self._draw()

    def clear_flash(self) -> None:
        if self._flash:
            self._flash = ()
            self._draw()

    def _turn_label(self, where) -> None:
        """Anchor the message on the side of its spot that faces the middle of the view (left of a spot in the
        right half, below a spot in the top half), so the wrapped text stays inside the viewport."""
        rect = self.view.viewRect()
        if rect.width() <= 0 or rect.height() <= 0:
            return
        ax = 1.0 if where[0] > rect.center().x() else 0.0
        ay = -0.2 if where[1] > rect.center().y() else 1.2
        self.label.setAnchor((ax, ay))

    def view_changed(self, pixel: float) -> None:
        if self.label.isVisible():
            self._draw()

    def _draw(self) -> None:
        p = self._tool
        if p.fill is not None and len(p.fill) >= 3:
            rings = closed_rings(np.asarray(p.fill, float), np.array([len(p.fill)]), np.array([True]))
            self.fill.set_groups([(rings_path(rings), self._fill_pen, self._fill_brush)])
        else:
            self.fill.set_groups([])
        self.lines.setData(*xy(p.lines), connect="finite")
        self.handles.setData(pos=np.asarray(p.handles, float).reshape(-1, 2))
        self.active.setData(pos=np.asarray(p.active, float).reshape(-1, 2))
        problems = tuple(p.problems) + self._flash
        spots = np.array([q.where for q in problems if q.where is not None], dtype=np.float64).reshape(-1, 2)
        self.problems.setData(pos=spots)
        if problems:
            first = next((q for q in problems if q.where is not None), problems[0])
            more = f"  (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            self.label.setText(first.message + more)
            if first.where is not None:
                self.label.setPos(*first.where)
                self._turn_label(first.where)
            self.label.show()
        else:
            self.label.hide()
        if p.rect is not None:
            x0, y0, x1, y1 = p.rect
            self.rect.setRect(QtCore.QRectF(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)))
            self.rect.show()
        else:
            self.rect.hide()
