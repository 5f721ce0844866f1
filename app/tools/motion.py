"""The obstacle path tool: give the selected obstacle a path to move along during a run (a car's road, a cart's
round, a door's slide).

Select one obstacle, then click the path's points: the obstacle's outline is where it stands when the path begins,
so the path usually starts on it. Enter or a double-click gives it the path (an obstacle that did not move gets
1.4 units/s, which the Inspector changes, with Loop and Turns); Backspace removes the last point; Esc drops the
path. The path may cross anything: the obstacle is no part of the navigation mesh.
"""

from __future__ import annotations

import dataclasses

from core.scene.edits import find, replace_item

from .base import Preview, Tool, ToolEvent, as_array, dist, problems_text

# The speed an obstacle gets with its first path (units/s): a walker's, changed in the Inspector.
FIRST_SPEED = 1.4


class MotionPathTool(Tool):
    name = "motion_path"
    title = "Obstacle Path"
    cursor = "cross"
    shortcut = "P"
    hint = "Obstacle path: select an obstacle, click the points of its path; Enter or double-click gives it the path."

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.points: list[tuple[float, float]] = []
        self.hover: tuple[float, float] | None = None

    def _target(self):
        """The one selected obstacle, or None (said in the status bar)."""
        sel = [ref for ref in self.doc.selection if ref[0] == "obstacle"]
        if len(sel) != 1 or len(self.doc.selection) != 1:
            self.ctx.message("Select one obstacle first (Select tool), then draw its path.")
            return None
        return find(self.doc.scene, "obstacle", sel[0][1])

    def press(self, ev: ToolEvent) -> None:
        if not self._editable("obstacle") or self._target() is None:
            return
        if self.points and dist(ev.pos, self.points[-1]) <= ev.tol * 0.5:
            return
        self.points.append(ev.pos)

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.pos

    def double_click(self, ev: ToolEvent) -> None:
        self.finish()

    def key(self, key: str) -> bool:
        if key == "backspace" and self.points:
            self.points.pop()
            return True
        return super().key(key)

    def reset(self) -> bool:
        had = bool(self.points)
        self.points = []
        return had

    def busy(self) -> bool:
        return bool(self.points)

    def finish(self) -> bool:
        if not self.points:
            return False
        target = self._target()
        if target is None:
            return True
        if len({p for p in self.points}) < 2:
            self.ctx.message("A path needs two different points.")
            return True
        moved = dataclasses.replace(target, path=list(self.points), speed=target.speed or FIRST_SPEED)
        refs = [("obstacle", target.id)]
        probs = self.ctx.commit(replace_item(self.doc.scene, "obstacle", target.id, moved), "Draw obstacle path",
                                refs=refs, select=refs)
        if probs:
            self.ctx.message(f"Not accepted: {problems_text(probs)}.")
            return True
        self.points = []
        return True

    def preview(self) -> Preview:
        pts = list(self.points)
        if pts and self.hover is not None:
            pts = pts + [self.hover]
        return Preview(lines=as_array(pts), handles=as_array(self.points))

    def status(self) -> str:
        if not self.points:
            return self.hint
        return (f"{len(self.points)} points. Click to add, Enter or double-click gives the selected obstacle this "
                "path, Backspace removes the last, Esc cancels.")
