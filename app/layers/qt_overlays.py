"""Debug overlays of the live simulation, drawn from the plain arrays core hands back (core.*.debug, AgentTrace).

- ``MeshOverlay``: the constrained triangulation (constraint edges darker);
- ``EcmOverlay``: the GVD/ECM medial axis coloured by clearance (core.ecm.colours: narrow red to wide blue, the
  CLI PNG's map), closest-point spokes;
- ``TraceOverlay``: the traced agent's step (MIRAN 3.1-3.4): its route window, the visible intervals, the
  reference point, the candidates coloured by omega (low = green, the better), the chosen attraction point, the
  forces and, where the method has one, the corridor.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from core.ecm.colours import CLEARANCE_COLOURS, clearance_bins, clearance_top

from .qt_items import CurveItem, PathsItem, ScatterItem, cosmetic_pen, lines_path
from .qt_sim_agents import SimLayer

Z_MESH = 15.0
Z_ECM = 16.0
Z_CORRIDOR = 32.0
Z_TRACE = 36.0
Z_MARKS = 47.0
NO_BRUSH = QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)
# Terrain boundaries of the triangulation: brown, apart from the trails (slate), routes (blue) and test path (green).
TERRAIN_EDGE = QtGui.QColor(146, 64, 14, 170)
# The IRM corridor: a sky-blue hatch and no solid tint, so the terrain colours under it stay readable.
CORRIDOR = QtGui.QColor(2, 132, 199, 150)
# Omega colours from best (lowest) to worst.
OMEGA_RAMP = np.array([[22, 163, 74], [250, 204, 21], [220, 38, 38]], dtype=np.float64)
MAX_LABELS = 24
LABEL_PX = (30.0, 13.0)  # the least room (w, h) in pixels one omega label takes; a larger drawn label takes more
OMEGA_LEVELS = 16
FORCE_COLOURS = {"steering": "#16a34a", "boundary": "#dc2626", "avoidance": "#9333ea", "total": "#111827"}


def _pairs(seg: np.ndarray) -> np.ndarray:
    """(m, 4) segments as (2m, 2) point pairs."""
    return np.asarray(seg, dtype=np.float64).reshape(-1, 2)


def label_slots(pixels: np.ndarray, order: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """(n,) bool: which labels to show so that none overlaps another. Labels of ``size`` (w, h) pixels sit centred
    above their point (``pixels`` (n, 2), y down); they are placed greedily in ``order`` (the best omega first) and
    one that would overlap a placed label is left out (its candidate keeps its colour; the tooltip-free
    alternative to a pile of unreadable numbers). At most a few dozen labels, so the loop is short."""
    w, h = size
    shown = np.zeros(len(pixels), dtype=bool)
    placed: list[tuple[float, float]] = []
    for k in np.asarray(order, dtype=np.int64).tolist():
        x, y = float(pixels[k, 0]), float(pixels[k, 1])
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        if all(abs(x - px) >= w or abs(y - py) >= h for px, py in placed):
            placed.append((x, y))
            shown[k] = True
    return shown


def ramp(values: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """(n, 3) RGB in [0, 255]: values in [0, 1] interpolated along the colour stops (k, 3)."""
    v = np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=1.0), 0.0, 1.0) * (len(stops) - 1)
    i = np.minimum(v.astype(np.int64), len(stops) - 2)
    f = (v - i)[:, None]
    return stops[i] * (1 - f) + stops[i + 1] * f


class MeshOverlay(SimLayer):
    """The triangulation of the free space: one cached item, a pen per edge kind (plain, terrain boundary,
    obstacle or bounds; core.navmesh.debug.EDGE_*)."""

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.item = self.add(PathsItem(antialias=False), Z_MESH)
        self._pens = (cosmetic_pen(QtGui.QColor(51, 65, 85, 80), 1.0),
                      cosmetic_pen(TERRAIN_EDGE, 1.3, QtCore.Qt.PenStyle.DashLine),
                      cosmetic_pen(QtGui.QColor(15, 23, 42, 170), 1.3))

    def show(self, seg: np.ndarray, kind: np.ndarray) -> None:
        """Segments (m, 2, 2) and their kind (m,) int8."""
        self.item.set_groups([(lines_path(_pairs(seg[kind == k]), "pairs"), pen, NO_BRUSH)
                              for k, pen in enumerate(self._pens)])
        self.changed()

    def clear(self) -> None:
        self.item.set_groups([])
        self.changed()


class EcmOverlay(SimLayer):
    """The medial axis in clearance bins (one pen per bin, one item) and the closest-point spokes."""

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.spokes = self.add(PathsItem(antialias=False), Z_ECM)
        self.axis = self.add(PathsItem(), Z_ECM + 0.1)
        self.range = (0.0, 0.0)

    def show(self, ecm) -> None:
        seg, clr = ecm.segments, ecm.clearance
        hi = clearance_top(clr)
        self.range = (float(clr.min()) if len(clr) else 0.0, hi)
        bins = clearance_bins(clr, hi)
        groups = [(lines_path(_pairs(seg[bins == b]), "pairs"), cosmetic_pen(colour, 2.2), NO_BRUSH)
                  for b, colour in enumerate(CLEARANCE_COLOURS) if np.any(bins == b)]
        self.axis.set_groups(groups)
        self.spokes.set_lines(_pairs(ecm.spokes), cosmetic_pen(QtGui.QColor(100, 116, 139, 60), 1.0), "pairs")
        self.changed()

    def clear(self) -> None:
        self.axis.set_groups([])
        self.spokes.set_groups([])
        self.changed()


class TraceOverlay(SimLayer):
    """The traced agent's step; each part can be shown or hidden (``set_parts``)."""

    PARTS = ("corridor", "intervals", "reference", "candidates", "attraction", "forces")

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.corridor = self.add(PathsItem(cached=False), Z_CORRIDOR)
        self._corridor_style = (QtGui.QPen(QtCore.Qt.PenStyle.NoPen),
                                QtGui.QBrush(CORRIDOR, QtCore.Qt.BrushStyle.BDiagPattern))
        win = QtGui.QColor(250, 204, 21, 120)
        self.window = self.add(CurveItem(pen=cosmetic_pen(win, 9.0), connect="finite"), Z_TRACE)
        vis = QtGui.QColor(22, 163, 74, 200)
        self.intervals = self.add(CurveItem(pen=cosmetic_pen(vis, 5.0), connect="finite"), Z_TRACE + 0.1)
        self.sight = self.add(CurveItem(pen=cosmetic_pen(QtGui.QColor(17, 24, 39, 170), 1.2,
                                                         QtCore.Qt.PenStyle.DotLine), connect="pairs"),
                              Z_TRACE + 0.2)
        self.forces = {name: self.add(CurveItem(pen=cosmetic_pen(c, 2.2), connect="pairs"), Z_MARKS)
                       for name, c in FORCE_COLOURS.items()}
        self.candidates = self.add(ScatterItem(size=9, symbol="o", pxMode=True,
                                               pen=pg.mkPen("#1f2937", width=0.8)), Z_MARKS + 0.1)
        self.reference = self.add(ScatterItem(size=13, symbol="d", pxMode=True, brush=pg.mkBrush("#0ea5e9"),
                                              pen=pg.mkPen("#0c4a6e", width=1.5)), Z_MARKS + 0.2)
        self.attraction = self.add(ScatterItem(size=19, symbol="star", pxMode=True,
                                               brush=pg.mkBrush("#facc15"), pen=pg.mkPen("#713f12", width=1.5)),
                                   Z_MARKS + 0.3)
        rgb = ramp(np.linspace(0, 1, OMEGA_LEVELS), OMEGA_RAMP).astype(np.int64).tolist()
        self._omega_brushes = np.array([pg.mkBrush(r, g, b, 235) for r, g, b in rgb] +
                                       [pg.mkBrush(*rgb[-1], 90)], dtype=object)
        self.labels: list[pg.TextItem] = []
        self._shown_labels = 0
        self._label_pts = np.zeros((0, 2))
        self._label_omega = np.zeros(0)
        self.label_shown = np.zeros(0, dtype=bool)
        view.sigRangeChanged.connect(lambda *_: self._place_labels())
        self.parts = set(self.PARTS)
        self.force_scale = 1.0
        self.last = None

    def set_parts(self, parts) -> None:
        self.parts = set(parts)
        self.show(self.last)

    def show(self, view) -> None:
        """Draw a TraceView (None clears)."""
        self.last = view
        tr = view.trace if view is not None else None
        empty = np.zeros((0, 2))
        on = self.parts if tr is not None else set()
        self._show_corridor(view.corridor if "corridor" in on else np.zeros((0, 3)))
        _curve(self.window, view.window if "intervals" in on else empty)
        _curve(self.intervals, view.pieces if "intervals" in on else empty)
        sight = []
        if "reference" in on:
            self.reference.setData(pos=tr.reference[None])
            sight += [tr.position, tr.reference]
        else:
            self.reference.setData(pos=empty)
        if "attraction" in on and np.all(np.isfinite(tr.attraction)):
            self.attraction.setData(pos=tr.attraction[None])
            sight += [tr.position, tr.attraction]
        else:
            self.attraction.setData(pos=empty)
        _curve(self.sight, np.array(sight) if sight else empty, "pairs")
        self._candidates(tr if "candidates" in on else None)
        for name, item in self.forces.items():
            if "forces" in on and np.all(np.isfinite(tr.forces[name])):
                _curve(item, np.array([tr.position, tr.position + self.force_scale * tr.forces[name]]), "pairs")
            else:
                _curve(item, empty, "pairs")
        self.changed()

    def _show_corridor(self, disks: np.ndarray) -> None:
        """The corridor as the union of its disks (IRM 3.2), filled once with the winding rule."""
        path = QtGui.QPainterPath()
        path.setFillRule(QtCore.Qt.FillRule.WindingFill)
        for x, y, r in np.asarray(disks, dtype=np.float64).reshape(-1, 3).tolist():
            path.addEllipse(QtCore.QPointF(x, y), r, r)
        self.corridor.set_groups([(path, *self._corridor_style)] if not path.isEmpty() else [])

    def _candidates(self, tr) -> None:
        n = 0 if tr is None else len(tr.candidates)
        if n == 0:
            self.candidates.setData(pos=np.zeros((0, 2)))
            self._labels(np.zeros((0, 2)), np.zeros(0))
            return
        om = tr.omega
        fin = np.isfinite(om)
        lo, hi = (float(om[fin].min()), float(om[fin].max())) if fin.any() else (0.0, 1.0)
        u = (om - lo) / (hi - lo) if hi > lo else np.zeros(len(om))
        # The ramp in OMEGA_LEVELS steps (plus one faint brush for an infinite omega): a handful of brushes made
        # once, so the scatter's symbol atlas stays small and no brush is built per candidate and frame.
        level = np.where(fin, np.rint(np.clip(u, 0, 1) * (OMEGA_LEVELS - 1)), OMEGA_LEVELS).astype(np.int64)
        self.candidates.setData(pos=tr.candidates, brush=self._omega_brushes[level])
        if n <= MAX_LABELS:
            self._labels(tr.candidates, om)
        else:
            self._labels(np.zeros((0, 2)), np.zeros(0))

    def _labels(self, pts: np.ndarray, omega: np.ndarray) -> None:
        """Omega next to each candidate, from a pool of text items (shown, moved and hidden, not re-created);
        labels that would overlap are left out, best omega first (``label_slots``), again after a zoom."""
        while len(self.labels) < len(pts):
            text = pg.TextItem("", color="#111827", anchor=(0.5, 1.35))
            text.setZValue(Z_MARKS + 0.4)
            font = text.textItem.font()
            font.setPointSizeF(7.5)
            text.setFont(font)
            self.view.addItem(text, ignoreBounds=True)
            self.labels.append(text)
        self._label_pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        self._label_omega = np.asarray(omega, dtype=np.float64)
        for k in range(len(pts)):
            w = float(omega[k])
            label = f"{w:.2f}" if np.isfinite(w) else ("∞" if w == np.inf else "–")
            text = self.labels[k]
            if text.textItem.toPlainText() != label:  # a new text lays the item out again
                text.setText(label)
            text.setPos(float(pts[k, 0]), float(pts[k, 1]))
        self._shown_labels = len(pts)
        self._place_labels()

    def _place_labels(self) -> None:
        """Show the labels that fit at the current zoom (none overlapping), hide the rest."""
        n = self._shown_labels
        shown = np.zeros(n, dtype=bool)
        if n:
            px, py = self.view.viewPixelSize()
            pixels = self._label_pts[:n] / np.array([max(px, 1e-300), -max(py, 1e-300)])
            om = np.where(np.isfinite(self._label_omega[:n]), self._label_omega[:n], np.inf)
            rects = [self.labels[k].textItem.boundingRect() for k in range(n)]
            size = (max([LABEL_PX[0]] + [r.width() + 2.0 for r in rects]),
                    max([LABEL_PX[1]] + [r.height() for r in rects]))
            shown = label_slots(pixels, np.argsort(om, kind="stable"), size)
        self.label_shown = shown
        visible = self.items[0].isVisible() if self.items else True
        for k, text in enumerate(self.labels):
            text.setVisible(visible and k < n and bool(shown[k]))

    def set_visible(self, on: bool) -> None:
        super().set_visible(on)
        for k, t in enumerate(self.labels):
            t.setVisible(on and k < self._shown_labels and k < len(self.label_shown) and bool(self.label_shown[k]))


def _curve(item: pg.PlotCurveItem, pts: np.ndarray, connect: str = "finite") -> None:
    a = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if len(a) == 0:
        item.setData([], [])
    else:
        item.setData(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1]), connect=connect)
