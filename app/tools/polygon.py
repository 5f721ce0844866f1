"""Drawing a polygon by clicking its vertices; the obstacle and terrain tools are this with their own item.

States: idle (no vertex) -> drawing (vertices so far, a rubber edge to the pointer). Click adds a vertex; clicking
the first vertex, Enter or a double-click closes the polygon; Backspace removes the last vertex; Esc drops it.
Crossings show at once while drawing; a polygon the scene refuses stays open with its problems marked.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from core.scene.checks import EditProblem, self_intersections
from core.scene.edits import add_item, new_id
from core.scene.problems import fmt_point

from .base import Preview, Tool, ToolEvent, as_array, dist, problems_text


class PolygonTool(Tool, ABC):
    """Click out a polygon; subclasses name the kind, make the item and check it against the scene."""

    kind = ""
    cursor = "cross"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.points: list[tuple[float, float]] = []
        self.hover: tuple[float, float] | None = None
        self.problems: list[EditProblem] = []

    # -- subclass hooks ----------------------------------------------------------------------------------------

    @abstractmethod
    def make_item(self, item_id: str, ring: list[tuple[float, float]]):
        """The scene item (obstacle or terrain polygon) this tool adds for a closed ring."""

    @abstractmethod
    def check(self, ring: list[tuple[float, float]]) -> list[EditProblem]:
        """The problems that keep this ring out of the scene (empty when it may be added)."""

    # -- events ------------------------------------------------------------------------------------------------

    def press(self, ev: ToolEvent) -> None:
        if not self._editable(self.kind):
            return
        p = ev.pos
        if len(self.points) >= 3 and dist(p, self.points[0]) <= ev.tol:
            self.finish()
            return
        if self.points and dist(p, self.points[-1]) <= ev.tol * 0.5:
            return  # the second press of a double-click, or a jitter
        self.points.append(p)
        self.hover = p
        self._live_check()

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.pos
        if self.points:
            self._live_check()

    def double_click(self, ev: ToolEvent) -> None:
        self.finish()

    def key(self, key: str) -> bool:
        if key == "backspace" and self.points:
            self.points.pop()
            self._live_check()
            return True
        return super().key(key)

    def reset(self) -> bool:
        had = bool(self.points)
        self.points, self.problems = [], []
        return had

    def busy(self) -> bool:
        return bool(self.points)

    def finish(self) -> bool:
        if not self.points:
            return False
        ring = list(self.points)
        if len(ring) < 3:
            self.problems = [EditProblem(f"a polygon needs at least 3 vertices, it has {len(ring)}", ring[-1])]
            self.ctx.message(self.problems[0].message)
            return True
        probs = self.check(ring)
        if not probs:
            item_id = new_id(self.doc.scene, self.kind)
            probs = self.ctx.commit(add_item(self.doc.scene, self.kind, self.make_item(item_id, ring)),
                                    f"Draw {self.kind.replace('_', ' ')}", refs=[(self.kind, item_id)],
                                    select=[(self.kind, item_id)])
        if probs:
            self.problems = probs
            self.ctx.message(f"Not accepted: {problems_text(probs)}. Fix it, or press Esc to drop it.")
            return True
        self.points, self.problems = [], []
        return True

    def _live_check(self) -> None:
        """Crossings of the outline as it would close now (cheap: only the drawn ring)."""
        ring = list(self.points) + ([self.hover] if self.hover is not None and self.hover != self.points[-1] else [])
        self.problems = []
        if len(ring) >= 3:
            crossings = self_intersections(ring)
            self.problems = [EditProblem(f"self-intersecting at {fmt_point(c)}", (float(c[0]), float(c[1])))
                             for c in crossings]

    # -- drawing -----------------------------------------------------------------------------------------------

    def preview(self) -> Preview:
        if not self.points:
            return Preview()
        pts = list(self.points)
        if self.hover is not None and self.hover != pts[-1]:
            pts.append(self.hover)
        a = as_array(pts)
        lines = np.vstack([a, a[:1]]) if len(a) >= 3 else a
        return Preview(lines=lines, fill=a if len(a) >= 3 else None, handles=as_array(self.points),
                       active=as_array(self.points[:1]), problems=tuple(self.problems))

    def status(self) -> str:
        if not self.points:
            return self.hint
        return (f"{len(self.points)} vertices. Click to add, click the first vertex / Enter / double-click to close, "
                "Backspace removes the last, Esc cancels.")
