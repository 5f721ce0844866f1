"""The obstacle layer: every obstacle in one path, filled dark."""

from __future__ import annotations

from .arrays import obstacle_rings
from .qt_base import OBSTACLE_EDGE, OBSTACLE_FILL, Layer, brush
from .qt_items import PathsItem, cosmetic_pen, rings_path


class ObstacleLayer(Layer):
    kind = "obstacle"
    fields = frozenset({"obstacles"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.item = self.add(PathsItem())
        self._pen = cosmetic_pen(OBSTACLE_EDGE, 1.0)
        self._brush = brush(OBSTACLE_FILL)

    def refresh(self) -> None:
        self.item.set_groups([(rings_path(obstacle_rings(self.doc.scene)), self._pen, self._brush)])
