"""The obstacle layer: the obstacles that stand all the time in one path, filled dark; those that come and go or
move drawn where they stand first, dashed and faint, with the moving ones' paths (the live run draws them where
they are, app.layers.qt_sim_agents.WorldLayer)."""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from .arrays import motion_paths, obstacle_rings
from .qt_base import OBSTACLE_EDGE, OBSTACLE_FILL, Layer, brush
from .qt_items import PathsItem, cosmetic_pen, lines_path, rings_path


class ObstacleLayer(Layer):
    kind = "obstacle"
    fields = frozenset({"obstacles"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.item = self.add(PathsItem())
        self._pen = cosmetic_pen(OBSTACLE_EDGE, 1.0)
        self._brush = brush(OBSTACLE_FILL)
        self._dashed = cosmetic_pen(OBSTACLE_EDGE, 1.0, QtCore.Qt.PenStyle.DashLine)
        self._faint = brush(OBSTACLE_FILL, 70)
        self._none = QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)

    def refresh(self) -> None:
        scene = self.doc.scene
        self.item.set_groups([(rings_path(obstacle_rings(scene)), self._pen, self._brush),
                              (rings_path(obstacle_rings(scene, dynamic=True)), self._dashed, self._faint),
                              (lines_path(motion_paths(scene)), self._dashed, self._none)])
