"""The terrain tool: click out a polygon painted with the current terrain type."""

from __future__ import annotations

from core.scene import TerrainPolygon
from core.scene.checks import EditProblem, terrain_problems

from .polygon import PolygonTool


class TerrainTool(PolygonTool):
    name = "terrain"
    title = "Draw Terrain"
    kind = "terrain"
    shortcut = "T"
    hint = ("Draw terrain in the current type: click to place vertices; Enter, double-click or the first vertex "
            "closes it.")

    def make_item(self, item_id, ring):
        return TerrainPolygon(item_id, self.ctx.state.terrain_type, ring)

    def check(self, ring):
        scene = self.doc.scene
        if self.ctx.state.terrain_type not in {t.id for t in scene.terrain_types}:
            return [EditProblem(f"unknown terrain type {self.ctx.state.terrain_type!r}: choose one in Terrain Types",
                                ring[0])]
        return terrain_problems(scene, ring)

    def status(self) -> str:
        base = super().status()
        tid = self.ctx.state.terrain_type
        t = next((t for t in self.doc.scene.terrain_types if t.id == tid), None)
        return f"Painting {t.name or t.id if t is not None else tid}: {base}"
