"""The obstacle tool: click out an impassable polygon."""

from __future__ import annotations

from core.scene import Obstacle
from core.scene.checks import obstacle_problems

from .polygon import PolygonTool


class ObstacleTool(PolygonTool):
    name = "obstacle"
    title = "Draw Obstacle"
    kind = "obstacle"
    shortcut = "O"
    hint = "Draw obstacle: click to place vertices; Enter, double-click or the first vertex closes it."

    def make_item(self, item_id, ring):
        return Obstacle(item_id, ring)

    def check(self, ring):
        return obstacle_problems(self.doc.scene, ring)
