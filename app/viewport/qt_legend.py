"""The cards over the viewport's corners: the clearance legend (one swatch and range per colour bin of the GVD/ECM
overlay, ``core.ecm.colours``, the same map and bins as ``miran ecm --png``), shown for as long as the overlay is,
and the colour bar of the replay's heat maps."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from core.ecm.colours import legend_entries

MARGIN = 10


class _Card(QtWidgets.QWidget):
    """A small translucent card over a scroll area's viewport that lets the mouse through, hidden until shown and
    kept in its corner (``_corner``) whenever the viewport is resized; what both legends share."""

    def __init__(self, view: QtWidgets.QAbstractScrollArea, name: str) -> None:
        super().__init__(view)
        self.setObjectName(name)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._view = view
        view.viewport().installEventFilter(self)
        self.hide()

    def _metrics(self) -> tuple[QtGui.QFont, QtGui.QFontMetrics]:
        font = QtGui.QFont(self.font())
        font.setPointSizeF(max(font.pointSizeF() - 1, 7))
        return font, QtGui.QFontMetrics(font)

    def _corner(self, vp: QtWidgets.QWidget) -> QtCore.QPoint:
        """Where the card's top-left corner goes over the viewport ``vp`` at its current size (each card says;
        by default the viewport's top-left corner, inset by a margin)."""
        return QtCore.QPoint(8, 8)

    def _place(self) -> None:
        self.resize(self.sizeHint())
        self.move(self._corner(self._view.viewport()))

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QtCore.QEvent.Type.Resize:
            self._place()
        return False

    def _begin_paint(self) -> tuple[QtGui.QPainter, QtGui.QFont, QtGui.QFontMetrics]:
        """A painter on the card with its rounded white background drawn, the card's font and its metrics."""
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        font, fm = self._metrics()
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(QtGui.QColor(255, 255, 255, 225))
        p.drawRoundedRect(QtCore.QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
        return p, font, fm


class QtClearanceLegend(_Card):
    """A small translucent card over the viewport (objectName ``legend.clearance``), kept in its bottom-right
    corner; ``set_top(top)`` gives the ramp's end, ``set_top(None)`` empties it."""

    def __init__(self, view: QtWidgets.QAbstractScrollArea) -> None:
        super().__init__(view, "legend.clearance")
        self.entries: list[tuple[str, str]] = []

    def set_top(self, top: float | None) -> None:
        self.entries = legend_entries(top) if top is not None else []
        self.setToolTip("GVD / ECM clearance: the distance from the medial axis to the nearest obstacle")
        self._place()
        self.update()

    def sizeHint(self) -> QtCore.QSize:
        _, fm = self._metrics()
        rows = len(self.entries) + 1
        wide = max([fm.horizontalAdvance(t) for _, t in self.entries] + [fm.horizontalAdvance("Clearance")])
        return QtCore.QSize(wide + 40, rows * (fm.height() + 2) + 12)

    def _corner(self, vp: QtWidgets.QWidget) -> QtCore.QPoint:
        return QtCore.QPoint(vp.x() + vp.width() - self.width() - MARGIN, vp.y() + vp.height() - self.height() - MARGIN)

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        if not self.entries:
            return
        p, font, fm = self._begin_paint()
        line = fm.height() + 2
        p.setPen(QtGui.QColor("#111827"))
        bold = QtGui.QFont(font)
        bold.setBold(True)
        p.setFont(bold)
        p.drawText(QtCore.QPointF(8, 6 + fm.ascent()), "Clearance")
        p.setFont(font)
        for k, (colour, text) in enumerate(self.entries):
            y = 6 + (k + 1) * line
            p.fillRect(QtCore.QRectF(8, y + 2, 18, fm.height() - 4), QtGui.QColor(colour))
            p.drawText(QtCore.QPointF(32, y + fm.ascent()), text)
        p.end()


class QtColourBar(_Card):
    """A colour scale card over the viewport (objectName ``legend.density``) in its top-left corner: a title,
    the gradient of a (256, 4) RGBA lookup table over a checkerboard (so its transparency shows) and the values at
    its ends; ``set_scale(title, lut, top, unit)`` fills it, ``set_scale(None, ...)`` empties it."""

    BAR_W, BAR_H = 150, 12

    def __init__(self, view: QtWidgets.QAbstractScrollArea, name: str = "legend.density") -> None:
        super().__init__(view, name)
        self.title: str | None = None
        self.top = 0.0
        self.unit = ""
        self._gradient = QtGui.QImage()

    def set_scale(self, title: str | None, lut=None, top: float = 0.0, unit: str = "") -> None:
        self.title, self.top, self.unit = title, float(top), unit
        if title is not None and lut is not None:
            import numpy as np

            rgba = np.ascontiguousarray(np.repeat(np.asarray(lut, dtype=np.uint8)[None], 1, axis=0))
            self._gradient = QtGui.QImage(rgba.data, rgba.shape[1], 1, 4 * rgba.shape[1],
                                          QtGui.QImage.Format.Format_RGBA8888).copy()
        self.setToolTip(f"{title}: transparent for nobody, dark red for {self.label_top()} and more" if title else "")
        self._place()
        self.update()

    def label_top(self) -> str:
        return f"{self.top:.3g} {self.unit}".strip()

    def sizeHint(self) -> QtCore.QSize:
        _, fm = self._metrics()
        wide = max(self.BAR_W, fm.horizontalAdvance(self.title or ""), fm.horizontalAdvance(self.label_top()) + 30)
        return QtCore.QSize(wide + 16, 2 * (fm.height() + 2) + self.BAR_H + 14)

    def _corner(self, vp: QtWidgets.QWidget) -> QtCore.QPoint:
        return QtCore.QPoint(vp.x() + MARGIN, vp.y() + MARGIN)

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        if not self.title:
            return
        p, font, fm = self._begin_paint()
        bold = QtGui.QFont(font)
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(QtGui.QColor("#111827"))
        p.drawText(QtCore.QPointF(8, 6 + fm.ascent()), self.title)
        bar = QtCore.QRectF(8, 10 + fm.height(), self.width() - 16, self.BAR_H)
        p.fillRect(bar, QtGui.QBrush(QtGui.QColor("#d1d5db"), QtCore.Qt.BrushStyle.Dense4Pattern))
        p.drawImage(bar, self._gradient)
        p.setPen(QtGui.QColor("#6b7280"))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(bar)
        p.setFont(font)
        p.setPen(QtGui.QColor("#111827"))
        y = bar.bottom() + 2 + fm.ascent()
        p.drawText(QtCore.QPointF(bar.left(), y), "0")
        top = self.label_top()
        p.drawText(QtCore.QPointF(bar.right() - fm.horizontalAdvance(top), y), top)
        p.end()
