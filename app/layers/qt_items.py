"""Custom graphics items: filled polygon groups drawn as a few QPainterPaths, the adaptive metric grid, and
pyqtgraph's scatter and curve items that Qt skips while they are empty."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments
from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.picking import nice_step

from .qt_raster_cache import NO_CONTENTS


def rings_path(rings: np.ndarray) -> QtGui.QPainterPath:
    """A winding-fill path from packed closed rings ((n, 2), NaN-separated; see arrays.closed_rings)."""
    if len(rings) == 0:
        return QtGui.QPainterPath()
    path = pg.arrayToQPath(rings[:, 0], rings[:, 1], connect="finite")
    path.setFillRule(QtCore.Qt.FillRule.WindingFill)
    return path


def cosmetic_pen(color, width: float = 1.0, style=QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    """A pen whose width is in screen pixels whatever the zoom."""
    pen = QtGui.QPen(QtGui.QColor(color), width, style)
    pen.setCosmetic(True)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    return pen


def lines_path(points: np.ndarray, connect: str = "finite") -> QtGui.QPainterPath:
    """A path of polylines from an (n, 2) array: NaN rows separate them (``finite``), or consecutive point pairs
    are segments (``pairs``)."""
    a = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(a) == 0:
        return QtGui.QPainterPath()
    return pg.arrayToQPath(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), connect=connect)


class PathsItem(pg.GraphicsObject):
    """Groups of paths, each with one pen and brush, painted in order: a whole layer of polygons or polylines is
    one item and a handful of drawPath calls.

    Unlike pyqtgraph's PlotCurveItem, the item changes its geometry only on a zoom (its stroke margin is in
    pixels), not on every pan. Pens should be one pixel wide for long paths: Qt strokes wider antialiased pens
    an order of magnitude slower (``set_lines`` strokes polylines with a wide opaque pen segment by segment
    instead). ``cached`` keeps a device pixmap (DeviceCoordinateCache); measured on the shipped city it saved
    nothing, so layers leave it off (the viewport's RasterCache keeps one image for all static layers).
    """

    def __init__(self, antialias: bool = True, cached: bool = False) -> None:
        super().__init__()
        self._groups: list[tuple[QtGui.QPainterPath, QtGui.QPen, QtGui.QBrush]] = []
        self._segments: list = []  # per group: None (draw the path) or its segments for QPainter.drawLines
        self._rect = QtCore.QRectF()
        self._antialias = antialias
        self._pixel = 0.0
        self._pen_px = 1.0
        if cached:
            self.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def set_groups(self, groups: list[tuple[QtGui.QPainterPath, QtGui.QPen, QtGui.QBrush]],
                   segments: list | None = None) -> None:
        self.prepareGeometryChange()
        self._groups = groups
        self._segments = segments if segments is not None else [None] * len(groups)
        rect = QtCore.QRectF()
        for path, _, _ in groups:
            if not path.isEmpty():
                rect = rect.united(path.boundingRect())
        self._rect = rect
        self._pen_px = max([pen.widthF() for _, pen, _ in groups if pen.style() != QtCore.Qt.PenStyle.NoPen] or [1.0])
        self.update()

    def set_lines(self, points: np.ndarray, pen: QtGui.QPen, connect: str = "finite") -> None:
        """One group of polylines (see lines_path), not filled.

        With an opaque solid pen wider than a pixel the segments are stroked one by one with square caps: Qt's
        antialiased stroke of one long path with such a pen took 11 s for 500 crossing routes on the city (and
        round caps lose Qt's fast line rasterizer too), the segments 0.1 s."""
        path = lines_path(points, connect)
        no_brush = QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)
        if pen.widthF() <= 1.0 or pen.style() != QtCore.Qt.PenStyle.SolidLine or pen.color().alpha() < 255:
            self.set_groups([(path, pen, no_brush)])
            return
        a = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        segments = arrayToLineSegments(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), connect,
                                       finiteCheck=True)
        square = QtGui.QPen(pen)
        square.setCapStyle(QtCore.Qt.PenCapStyle.SquareCap)
        self.set_groups([(path, square, no_brush)], [segments])

    def viewTransformChanged(self) -> None:
        # Strokes reach past the paths by half a pen width in pixels; only a zoom changes that margin.
        vb = self.getViewBox()
        px = vb.viewPixelSize()[0] if isinstance(vb, pg.ViewBox) else 0.0
        if px > 0 and abs(px - self._pixel) > 1e-6 * px:  # float noise of a pan is not a zoom
            self.prepareGeometryChange()
            self._pixel = px

    def boundingRect(self) -> QtCore.QRectF:
        if self._rect.isNull():
            return QtCore.QRectF()
        pad = (self._pen_px / 2 + 2) * self._pixel
        return self._rect.adjusted(-pad, -pad, pad, pad)

    def paint(self, p: QtGui.QPainter, *args) -> None:
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, self._antialias)
        for (path, pen, brush), segments in zip(self._groups, self._segments):
            p.setPen(pen)
            p.setBrush(brush)
            if segments is None:
                p.drawPath(path)
            elif len(segments):
                p.drawLines(*segments.drawargs())


class _SkipWhenEmpty:
    """Qt skips the item entirely (``ItemHasNoContents``) while it has no points. pyqtgraph gives an empty scatter
    or curve a few pixels of bounds at the origin, so Qt called its Python ``paint`` at every repaint of a view
    showing the origin: half a millisecond each, and a dozen empty overlay items cost a quarter of a 60 Hz frame.
    An item painted through a RasterCache (``raster_cache`` set) keeps the flag the cache gave it."""

    raster_cache = None

    def _emptiness(self, empty: bool) -> None:
        if self.raster_cache is None:
            self.setFlag(NO_CONTENTS, empty)


class ScatterItem(_SkipWhenEmpty, pg.ScatterPlotItem):
    """A pyqtgraph ScatterPlotItem that Qt skips while it has no points."""

    def addPoints(self, *args, **kwargs) -> None:
        super().addPoints(*args, **kwargs)
        self._emptiness(len(self.data) == 0)

    def clear(self) -> None:
        super().clear()
        self._emptiness(True)


class CurveItem(_SkipWhenEmpty, pg.PlotCurveItem):
    """A pyqtgraph PlotCurveItem that Qt skips while it has no points."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._emptiness(self.xData is None or len(self.xData) == 0)

    def updateData(self, *args, **kwargs) -> None:
        super().updateData(*args, **kwargs)
        self._emptiness(self.xData is None or len(self.xData) == 0)

    def clear(self) -> None:
        super().clear()
        self._emptiness(True)


def grid_steps(pixel: float, min_pixels: float = 14.0) -> tuple[float, float]:
    """Minor and major grid spacings (scene units) for a zoom where one pixel is ``pixel`` scene units: minor
    lines at least ``min_pixels`` apart on a 1-2-5 ladder, major lines every 5 (after 1) or 10 (after 2 and 5)."""
    minor = nice_step(min_pixels * pixel)
    mantissa = round(minor / 10 ** np.floor(np.log10(minor)))
    return minor, minor * (5 if mantissa == 1 else 10 if mantissa == 2 else 2)


class MetricGridItem(pg.GraphicsObject):
    """Grid lines over the scene bounds, minor and major, spaced by the zoom (see grid_steps)."""

    def __init__(self) -> None:
        super().__init__()
        self._bounds = QtCore.QRectF(0, 0, 1, 1)
        self._minor_pen = cosmetic_pen(QtGui.QColor(20, 30, 40, 26), 1.0)
        self._major_pen = cosmetic_pen(QtGui.QColor(20, 30, 40, 60), 1.0)
        self.minor = self.major = 1.0

    def set_bounds(self, bounds) -> None:
        x0, y0, x1, y1 = bounds
        self.prepareGeometryChange()
        self._bounds = QtCore.QRectF(x0, y0, x1 - x0, y1 - y0)
        self.update()

    def set_steps(self, minor: float, major: float) -> None:
        if (minor, major) != (self.minor, self.major):
            self.minor, self.major = minor, major
            self.update()

    def boundingRect(self) -> QtCore.QRectF:
        return self._bounds

    def paint(self, p: QtGui.QPainter, *args) -> None:
        view = self.viewRect()
        if view is None:
            return
        r = self._bounds.intersected(view)
        if r.isEmpty():
            return
        b = self._bounds
        for step, pen in ((self.minor, self._minor_pen), (self.major, self._major_pen)):
            xs = np.arange(np.ceil(r.left() / step), np.floor(r.right() / step) + 1) * step
            ys = np.arange(np.ceil(r.top() / step), np.floor(r.bottom() / step) + 1) * step
            if len(xs) + len(ys) > 4000:
                continue
            if step == self.minor:
                xs = xs[np.abs(np.round(xs / self.major) * self.major - xs) > step * 1e-6]
                ys = ys[np.abs(np.round(ys / self.major) * self.major - ys) > step * 1e-6]
            lines = [QtCore.QLineF(x, b.top(), x, b.bottom()) for x in xs]
            lines += [QtCore.QLineF(b.left(), y, b.right(), y) for y in ys]
            p.setPen(pen)
            p.drawLines(lines)
