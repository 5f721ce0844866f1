"""The viewport widget (objectName ``viewport``): pan, zoom, fit, metric grid, scale bar and cursor position.

Left-button and key input goes to the tool host; the middle button (or Space + left) pans, the wheel zooms at the
pointer and a right drag zooms too, all handled by pyqtgraph's ViewBox.
"""

from __future__ import annotations

import time

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.picking import nice_step

from ..layers.qt_base import Z
from ..layers.qt_items import MetricGridItem, grid_steps
from ..layers.qt_raster_cache import RasterCache
from ..tools.host import ToolHost
from .draw_sync import DrawSync

BACKGROUND = "#d5dae1"
CURSORS = {
    "arrow": QtCore.Qt.CursorShape.ArrowCursor,
    "cross": QtCore.Qt.CursorShape.CrossCursor,
    "pointing": QtCore.Qt.CursorShape.PointingHandCursor,
    "size_all": QtCore.Qt.CursorShape.SizeAllCursor,
}
KEYS = {
    QtCore.Qt.Key.Key_Escape: "escape",
    QtCore.Qt.Key.Key_Return: "enter",
    QtCore.Qt.Key.Key_Enter: "enter",
    QtCore.Qt.Key.Key_Backspace: "backspace",
}


class QtViewport(pg.GraphicsView):
    """The scene view. Signals: ``cursor_moved(x, y)`` in scene units, ``zoom_changed(pixel)`` with one screen
    pixel in scene units, ``painted(seconds)`` after every paint with the time it took (the simulation's frame
    pacer keeps painting under its share of the UI thread with it)."""

    cursor_moved = QtCore.Signal(float, float)
    zoom_changed = QtCore.Signal(float)
    painted = QtCore.Signal(float)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, background=BACKGROUND)
        self.setObjectName("viewport")
        self.view = pg.ViewBox(lockAspect=True, enableMenu=False, defaultPadding=0.03)
        self.setCentralItem(self.view)
        # The scene's static layers (the grid, and what LayerSet adopts) are painted from one cached image.
        self.static = RasterCache(BACKGROUND)
        self.static.setZValue(Z["static"])
        self.view.addItem(self.static, ignoreBounds=True)
        self.grid = MetricGridItem()
        self.grid.setZValue(Z["grid"])
        self.view.addItem(self.grid, ignoreBounds=True)
        self.static.adopt(self.grid)
        # What the tool draws while the simulation plays is painted with the characters' next frame.
        self.sync = DrawSync(self)
        self.host: ToolHost | None = None
        self.bounds = (0.0, 0.0, 1.0, 1.0)
        self._space = False
        self._pixel = 1.0
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.viewport().setMouseTracking(True)
        self.viewport().installEventFilter(self)
        self.installEventFilter(self)
        self.view.sigTransformChanged.connect(self._transform_changed)
        self.view.sigResized.connect(self._transform_changed)

    # -- view --------------------------------------------------------------------------------------------------

    def set_host(self, host: ToolHost) -> None:
        self.host = host
        host.cursor_changed.connect(self.set_cursor)
        self.set_cursor(host.active.cursor)

    def set_cursor(self, name: str) -> None:
        self.viewport().setCursor(QtGui.QCursor(CURSORS.get(name, QtCore.Qt.CursorShape.ArrowCursor)))

    def set_bounds(self, bounds) -> None:
        self.bounds = tuple(float(b) for b in bounds)
        self.grid.set_bounds(self.bounds)
        self.static.invalidate()

    def fit(self) -> None:
        """Show the whole scene."""
        x0, y0, x1, y1 = self.bounds
        self.view.setRange(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0), padding=0.03)

    def zoom(self, factor: float) -> None:
        """Zoom in (factor > 1) or out about the view's centre."""
        self.view.scaleBy((1.0 / factor, 1.0 / factor))

    def pixel(self) -> float:
        """One screen pixel in scene units."""
        px = self.view.viewPixelSize()[0]
        return px if px > 0 else 1.0

    def world_to_pixel(self, x: float, y: float) -> QtCore.QPoint:
        """Where scene point (x, y) is in the viewport widget (``viewport()``) pixels."""
        sp = self.view.mapViewToScene(QtCore.QPointF(x, y))
        return self.mapFromScene(sp)

    def pixel_to_world(self, pos: QtCore.QPointF | QtCore.QPoint) -> tuple[float, float]:
        p = self.view.mapSceneToView(self.mapToScene(QtCore.QPoint(int(pos.x()), int(pos.y()))))
        return p.x(), p.y()

    def _transform_changed(self, *args) -> None:
        self._pixel = self.pixel()
        minor, major = grid_steps(self._pixel)
        self.grid.set_steps(minor, major)
        self.zoom_changed.emit(self._pixel)
        self.viewport().update()

    def grid_step(self) -> float:
        return self.grid.minor

    # -- input -------------------------------------------------------------------------------------------------

    def _tool_event(self, ev: QtGui.QMouseEvent):
        pos = ev.position()
        p = self.view.mapSceneToView(self.mapToScene(QtCore.QPoint(round(pos.x()), round(pos.y()))))
        mods = ev.modifiers()
        return self.host.event(p.x(), p.y(), self.pixel(),
                               shift=bool(mods & QtCore.Qt.KeyboardModifier.ShiftModifier),
                               ctrl=bool(mods & QtCore.Qt.KeyboardModifier.ControlModifier),
                               alt=bool(mods & QtCore.Qt.KeyboardModifier.AltModifier))

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        t = ev.type()
        if t in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease):
            return self._key(ev, t == QtCore.QEvent.Type.KeyPress)
        if obj is not self.viewport() or self.host is None:
            return False
        left = QtCore.Qt.MouseButton.LeftButton
        if t == QtCore.QEvent.Type.MouseMove:
            ev_ = self._tool_event(ev)
            self.cursor_moved.emit(ev_.raw_x, ev_.raw_y)
            other = ev.buttons() & (QtCore.Qt.MouseButton.MiddleButton | QtCore.Qt.MouseButton.RightButton)
            if not other and not self._space:
                self.host.move(ev_)
            return False
        if t == QtCore.QEvent.Type.MouseButtonPress and ev.button() == left and not self._space:
            self.setFocus(QtCore.Qt.FocusReason.MouseFocusReason)
            self.host.press(self._tool_event(ev))
            return True
        if t == QtCore.QEvent.Type.MouseButtonRelease and ev.button() == left and not self._space:
            self.host.release(self._tool_event(ev))
            return True
        if t == QtCore.QEvent.Type.MouseButtonDblClick and ev.button() == left and not self._space:
            self.host.double_click(self._tool_event(ev))
            return True
        return False

    def _key(self, ev: QtGui.QKeyEvent, pressed: bool) -> bool:
        if ev.key() == QtCore.Qt.Key.Key_Space:
            if not ev.isAutoRepeat():
                self._space = pressed
                self.viewport().setCursor(QtGui.QCursor(QtCore.Qt.CursorShape.OpenHandCursor) if pressed else
                                          QtGui.QCursor(CURSORS.get(self.host.active.cursor if self.host else "",
                                                                    QtCore.Qt.CursorShape.ArrowCursor)))
            return True
        name = KEYS.get(ev.key())
        if name is None or not pressed or self.host is None:
            return False
        return self.host.key(name)

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        t = time.perf_counter()
        super().paintEvent(ev)
        self.painted.emit(time.perf_counter() - t)

    # -- scale bar ---------------------------------------------------------------------------------------------

    def drawForeground(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:
        super().drawForeground(painter, rect)
        pixel = self._pixel
        if pixel <= 0:
            return
        length = nice_step(110 * pixel)
        width = length / pixel
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        h = self.viewport().height()
        x0, y0 = 16.0, h - 18.0
        label = f"{length:g} m" if length >= 1 else f"{length * 100:g} cm"
        font = painter.font()
        font.setPointSizeF(max(font.pointSizeF() - 1, 7))
        painter.setFont(font)
        fm = QtGui.QFontMetrics(font)
        box = QtCore.QRectF(x0 - 8, y0 - fm.height() - 12, width + 16 + fm.horizontalAdvance(label) + 8,
                            fm.height() + 20)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(255, 255, 255, 215))
        painter.drawRoundedRect(box, 5, 5)
        pen = QtGui.QPen(QtGui.QColor("#1f2937"), 2)
        painter.setPen(pen)
        painter.drawLine(QtCore.QPointF(x0, y0), QtCore.QPointF(x0 + width, y0))
        for x in (x0, x0 + width / 2, x0 + width):
            tick = 6 if x != x0 + width / 2 else 4
            painter.drawLine(QtCore.QPointF(x, y0), QtCore.QPointF(x, y0 - tick))
        painter.drawText(QtCore.QPointF(x0 + width + 8, y0 + 1), label)
        painter.restore()
