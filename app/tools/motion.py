"""The obstacle path tool: give the selected obstacle a path to move along during a run (a car's road, a cart's
round, a door's slide).

Select one obstacle, then click the path's points, or drag freehand, as the route tool sketches a route: the
obstacle's outline is where it stands when the path begins, so the path usually starts on it. Enter or a
double-click gives it the path (an obstacle that did not move gets 1.4 units/s, which the Inspector changes, with
Loop and Turns); Backspace removes the last point; Esc drops the path. The path may cross anything: the obstacle
is no part of the navigation mesh.
"""

from __future__ import annotations

import dataclasses

from core.scene.edits import find, replace_item

from .base import ToolEvent, problems_text
from .route import RouteTool

# The speed an obstacle gets with its first path (units/s): a walker's, changed in the Inspector.
FIRST_SPEED = 1.4


class MotionPathTool(RouteTool):
    name = "motion_path"
    title = "Obstacle Path"
    cursor = "cross"
    shortcut = "P"
    hint = "Obstacle path: select an obstacle, click the points of its path; Enter or double-click gives it the path."

    def _target(self):
        """The one selected obstacle, or None (said in the status bar)."""
        sel = self.doc.selection
        if len(sel) != 1 or sel[0][0] != "obstacle":
            self.ctx.message("Select one obstacle first (Select tool), then draw its path.")
            return None
        return find(self.doc.scene, "obstacle", sel[0][1])

    def press(self, ev: ToolEvent) -> None:
        if not self._editable("obstacle") or self._target() is None:
            return
        self.pressed = ev
        self.stroke = None

    def _accept(self, pts) -> bool:
        """Every point: the path may cross obstacles and leave the free space."""
        return True

    def finish(self) -> bool:
        if not self.points:
            return False
        target = self._target()
        if target is None:
            return True
        if len(set(self.points)) < 2:
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

    def status(self) -> str:
        if not self.points:
            return self.hint
        return (f"{len(self.points)} points. Click to add, Enter or double-click gives the selected obstacle this "
                "path, Backspace removes the last, Esc cancels.")
