"""The agent layer: start markers coloured by profile, goal markers, and start-goal lines of planned agents."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui

from .arrays import agent_arrays
from .qt_base import PROFILE_COLOURS, Layer
from .qt_items import PathsItem, ScatterItem, cosmetic_pen


class AgentLayer(Layer):
    kind = "agent"
    fields = frozenset({"agents", "routes", "profiles"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.lines = self.add(PathsItem())
        self.goals = self.add(ScatterItem(size=14, symbol="star", pxMode=True), 0.1)
        self.starts = self.add(ScatterItem(size=12, symbol="o", pxMode=True), 0.2)
        self._brushes = [pg.mkBrush(c) for c in PROFILE_COLOURS] + [pg.mkBrush("#6b7280")]
        self._white = pg.mkPen("#ffffff", width=1.5)
        self._dark = pg.mkPen("#111827", width=1.0)
        self._line_pen = cosmetic_pen(QtGui.QColor(55, 65, 81, 130), 1.0)

    def refresh(self) -> None:
        starts, goals, pidx, lines = agent_arrays(self.doc.scene)
        k = np.where(pidx < 0, len(self._brushes) - 1, pidx % (len(self._brushes) - 1))
        brushes = [self._brushes[i] for i in k.tolist()]
        self.starts.setData(pos=starts, brush=brushes, pen=self._white)
        self.goals.setData(pos=goals, brush=brushes, pen=self._dark)
        self.lines.set_lines(lines, self._line_pen, connect="pairs")
