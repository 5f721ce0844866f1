"""The agent layer: start markers coloured by profile, goal markers, and start-goal lines of planned agents."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from .arrays import agent_arrays
from .qt_base import PROFILE_COLOURS, Layer, xy
from .qt_items import cosmetic_pen


class AgentLayer(Layer):
    kind = "agent"
    fields = frozenset({"agents", "routes", "profiles"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.lines = self.add(pg.PlotCurveItem(pen=cosmetic_pen("#374151", 1.2, QtCore.Qt.PenStyle.DotLine),
                                               antialias=True))
        self.goals = self.add(pg.ScatterPlotItem(size=14, symbol="star", pxMode=True), 0.1)
        self.starts = self.add(pg.ScatterPlotItem(size=12, symbol="o", pxMode=True), 0.2)
        self._brushes = [pg.mkBrush(c) for c in PROFILE_COLOURS] + [pg.mkBrush("#6b7280")]
        self._white = pg.mkPen("#ffffff", width=1.5)
        self._dark = pg.mkPen("#111827", width=1.0)

    def refresh(self) -> None:
        starts, goals, pidx, lines = agent_arrays(self.doc.scene)
        k = np.where(pidx < 0, len(self._brushes) - 1, pidx % (len(self._brushes) - 1))
        brushes = [self._brushes[i] for i in k.tolist()]
        self.starts.setData(pos=starts, brush=brushes, pen=self._white)
        self.goals.setData(pos=goals, brush=brushes, pen=self._dark)
        self.lines.setData(*xy(lines), connect="pairs")
