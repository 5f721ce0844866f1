"""The live simulation's layers: agents (one scatter item per simulation), trails and the ghost preview.

Agents are drawn by one ``AgentScatter`` fed whole numpy arrays: brushes come from a small table (one per
profile, dimmed once arrived), so pyqtgraph's symbol atlas is hit for every spot; while the brushes stay the same
only the x and y columns are rewritten (no Python loop over agents, no Qt item per agent). Trails and the ghost
are one NaN-separated curve each.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from .arrays import rings_of
from .qt_base import OBSTACLE_EDGE, OBSTACLE_FILL, PROFILE_COLOURS, brush
from .qt_items import CurveItem, PathsItem, ScatterItem, cosmetic_pen, rings_path

# Drawing order, between the scene's routes (30) and the selection (50).
Z_WORLD = 29.0
Z_GHOST = 31.0
Z_TRAILS = 34.0
Z_COMPARE = 41.0
Z_AGENTS = 42.0
COMPARE_COLOUR = "#f97316"   # side-by-side (e.g. IRM) agents and trails: orange; the main run keeps profile colours
MAIN_TRAIL = "#334155"   # trails of the main run: slate, apart from the blue routes and brown terrain boundaries
GHOST_COLOUR = QtGui.QColor(30, 41, 59, 90)


class AgentScatter(ScatterItem):
    """A pxMode scatter whose positions are replaced in place; when some styles change (agents arriving) only
    those spots get a new brush and atlas entry, so a frame never loops over every agent in Python."""

    def __init__(self, **kwargs) -> None:
        super().__init__(pxMode=True, useCache=True, hoverable=False, **kwargs)
        self._shown_style: np.ndarray | None = None
        self._table: np.ndarray | None = None

    def set_agents(self, pos: np.ndarray, style: np.ndarray, brushes: np.ndarray) -> None:
        """Draw (n, 2) positions; ``style`` (n,) int indexes ``brushes`` (an object array of QBrush)."""
        if self._shown_style is None or brushes is not self._table or len(self.data) != len(pos):
            self._shown_style, self._table = style.copy(), brushes
            self.setData(pos=np.asarray(pos, dtype=np.float64), brush=brushes[style])
            return
        self.data["x"] = pos[:, 0]
        self.data["y"] = pos[:, 1]
        changed = style != self._shown_style
        if changed.any():
            self.data["brush"][changed] = brushes[style[changed]]
            self.data["sourceRect"][changed] = 0  # updateSpots looks up only these in the symbol atlas
            self._shown_style[changed] = style[changed]
            self.updateSpots()
        self.prepareGeometryChange()
        self.bounds = [None, None]
        self.update()

    def restyle(self) -> None:
        """The size or pen changed: the next ``set_agents`` sets every spot anew."""
        self._shown_style = None

    def clear_agents(self) -> None:
        self._shown_style = None
        self.setData(pos=np.zeros((0, 2)))


class SimLayer:
    """A group of view items the simulation UI shows and hides together (not a scene layer). A layer that changes
    far less often than the agents move can be painted through a ``RasterCache`` (``cache_in``)."""

    def __init__(self, view: pg.ViewBox) -> None:
        self.view = view
        self.items: list = []
        self.caches: list = []

    def add(self, item, z: float):
        item.setZValue(z)
        self.view.addItem(item, ignoreBounds=True)
        self.items.append(item)
        return item

    def set_visible(self, on: bool) -> None:
        for it in self.items:
            it.setVisible(on)

    def cache_in(self, cache, items: list | None = None) -> None:
        """Paint this layer's items (or those of them given) from ``cache`` (a RasterCache) from now on."""
        self.caches.append(cache)
        cache.adopt(*(self.items if items is None else items))

    def changed(self) -> None:
        """The items got new data: the caches they are painted from must draw them again. A hidden layer's new
        data waits (a cache draws anew whenever the items it shows change): a running world's new triangulation,
        sent with every live edit, redrew the scene's whole cached image (30 to 40 ms on the city) with the
        overlay off."""
        if not any(it.isVisible() for it in self.items):
            return
        for cache in self.caches:
            cache.invalidate()

    def remove(self) -> None:
        for it in self.items:
            self.view.removeItem(it)
        self.items = []


def _brush_table(colours, alpha_arrived: int = 90) -> np.ndarray:
    """Object array of brushes: row 2k is profile k walking, 2k + 1 arrived (faded)."""
    out = []
    for c in colours:
        out.append(pg.mkBrush(c))
        q = QtGui.QColor(c)
        q.setAlpha(alpha_arrived)
        out.append(pg.mkBrush(q))
    return np.array(out, dtype=object)


class SimAgentLayer(SimLayer):
    """The agents of the main run (profile colours) and of the side-by-side run (one colour)."""

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.main = self.add(AgentScatter(size=9, pen=pg.mkPen("#ffffff", width=1.2)), Z_AGENTS)
        self.compare = self.add(AgentScatter(size=9, symbol="s", pen=pg.mkPen("#7c2d12", width=1.0)), Z_COMPARE)
        self.selected = self.add(AgentScatter(size=20, symbol="o", pen=pg.mkPen("#f59e0b", width=2.5)),
                                 Z_AGENTS + 0.5)
        self._main_brushes = _brush_table(PROFILE_COLOURS)
        self._compare_brushes = _brush_table([COMPARE_COLOUR])
        self._ring = np.array([pg.mkBrush(None)], dtype=object)
        self._ring_style = np.zeros(1, dtype=np.int64)
        self.positions = np.zeros((0, 2))
        self.selected_index = -1
        self._size = 9

    def _fit_size(self, n: int) -> None:
        """Smaller dots for crowds, so that a street full of agents stays readable."""
        size = 9 if n <= 200 else 7 if n <= 2000 else 5
        if size != self._size:
            self._size = size
            for item in (self.main, self.compare):
                item.setSize(size)
                item.setPen(pg.mkPen("#ffffff" if item is self.main else "#7c2d12", width=1.2 if size > 5 else 0.6))
                item.restyle()

    def show_frame(self, frame, positions: np.ndarray | None = None) -> None:
        """Draw a Frame (core.sim status 1 = arrived is drawn faded), at ``positions`` when given (the pacer's
        glide between two frames)."""
        pos = frame.positions if positions is None else positions
        self._fit_size(len(pos))
        arrived = (frame.status == 1).astype(np.int64)
        style = 2 * (frame.profile.astype(np.int64) % len(PROFILE_COLOURS)) + arrived
        self.main.set_agents(pos, style, self._main_brushes)
        if frame.compare_positions is not None:
            cstyle = (frame.compare_status == 1).astype(np.int64)
            self.compare.set_agents(frame.compare_positions, cstyle, self._compare_brushes)
        elif len(self.compare.data):
            self.compare.clear_agents()
        self.positions = pos
        self._mark()

    def select(self, index: int) -> None:
        self.selected_index = index
        self._mark()

    def _mark(self) -> None:
        i = self.selected_index
        if 0 <= i < len(self.positions):
            self.selected.set_agents(self.positions[i:i + 1], self._ring_style, self._ring)
        elif len(self.selected.data):
            self.selected.clear_agents()

    def clear(self) -> None:
        self.main.clear_agents()
        self.compare.clear_agents()
        self.positions = np.zeros((0, 2))
        self._mark()


class WorldLayer(SimLayer):
    """The obstacles that come and go or move, where they stand at the frame's time (Frame.world), filled as the
    scene's obstacles are: one path, redrawn only when they changed."""

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.item = self.add(PathsItem(), Z_WORLD)
        self._pen = cosmetic_pen(OBSTACLE_EDGE, 1.0)
        self._brush = brush(OBSTACLE_FILL)
        self._shown: tuple = ()

    def show(self, outlines: tuple) -> None:
        if len(outlines) == len(self._shown) and all(a is b or np.array_equal(a, b)
                                                     for a, b in zip(outlines, self._shown)):
            return
        self._shown = outlines
        self.item.set_groups([(rings_path(rings_of(outlines)), self._pen, self._brush)])

    def clear(self) -> None:
        self.show(())


class CurvesLayer(SimLayer):
    """NaN-separated polylines drawn as one curve (two for main and side-by-side). Above ``heavy_points`` points
    a curve switches to its hairline pen: the raster engine strokes wide, translucent or dashed lines much more
    slowly than one-pixel ones, and thousands of trails must not cost the UI thread its frame rate."""

    def __init__(self, view: pg.ViewBox, z: float, pens: tuple[QtGui.QPen, ...], hairlines: tuple[QtGui.QPen, ...],
                 heavy_points: int = 20_000) -> None:
        super().__init__(view)
        self.pens, self.hairlines, self.heavy = pens, hairlines, heavy_points
        self.curves = [self.add(CurveItem(pen=pen, connect="finite", antialias=False), z + 0.1 * k)
                       for k, pen in enumerate(pens)]

    def show(self, *lines: np.ndarray) -> None:
        for k, (curve, a) in enumerate(zip(self.curves, lines)):
            a = np.asarray(a).reshape(-1, 2)
            if len(a) == 0:
                curve.setData([], [])
                continue
            curve.setPen(self.hairlines[k] if len(a) > self.heavy else self.pens[k])
            curve.setData(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), connect="finite")
        self.changed()

    def clear(self) -> None:
        for curve in self.curves:
            curve.setData([], [])
        self.changed()


def _colour(c, alpha: int) -> QtGui.QColor:
    q = QtGui.QColor(c)
    q.setAlpha(alpha)
    return q


def trails_layer(view: pg.ViewBox) -> CurvesLayer:
    """Trails: the main run in blue, the side-by-side run in orange."""
    return CurvesLayer(view, Z_TRAILS, (cosmetic_pen(_colour(MAIN_TRAIL, 150), 1.6),
                                        cosmetic_pen(_colour(COMPARE_COLOUR, 170), 1.6)),
                       (cosmetic_pen(_colour(MAIN_TRAIL, 110), 1.0), cosmetic_pen(_colour(COMPARE_COLOUR, 130), 1.0)))


def ghost_layer(view: pg.ViewBox) -> CurvesLayer:
    """The ghost preview: every agent's future path, faint and dashed (a faint hairline for crowds)."""
    return CurvesLayer(view, Z_GHOST, (cosmetic_pen(GHOST_COLOUR, 2.0, QtCore.Qt.PenStyle.DashLine),),
                       (cosmetic_pen(_colour("#1e293b", 60), 1.0),))
