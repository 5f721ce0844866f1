"""The route tool: sketch an indicative route by clicking its points, or by dragging freehand.

Click adds a point (a point outside the free space is refused and marked); Enter or a double-click ends the
route; Backspace removes the last point; Esc drops it. A drag draws a freehand stroke, simplified to a polyline
(Douglas-Peucker within two pixels) when released; a stroke that starts a route ends it.
"""

from __future__ import annotations

from core.scene import Route
from core.scene.checks import EditProblem, point_problems, route_problems
from core.scene.edits import add_item, new_id
from core.scene.picking import simplify_polyline

from .base import Preview, Tool, ToolEvent, as_array, dist, problems_text

DRAG_PIXELS = 5.0  # a press that moves further than this is a freehand stroke
SIMPLIFY_PIXELS = 2.0


class RouteTool(Tool):
    name = "route"
    title = "Sketch Route"
    cursor = "cross"
    shortcut = "R"
    hint = "Sketch route: click points or drag freehand; Enter or double-click ends it."

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.points: list[tuple[float, float]] = []
        self.stroke: list[tuple[float, float]] | None = None
        self.pressed: ToolEvent | None = None
        self.hover: tuple[float, float] | None = None
        self.problems: list[EditProblem] = []
        self._skip_release = False

    def press(self, ev: ToolEvent) -> None:
        if not self._editable("route"):
            return
        self.pressed = ev
        self.stroke = None

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.pos
        if not dragging or self.pressed is None:
            return
        if self.stroke is None and dist(ev.raw, self.pressed.raw) > DRAG_PIXELS * ev.pixel:
            self.stroke = [self.pressed.pos]
        if self.stroke is not None:
            self.stroke.append(ev.raw)

    def release(self, ev: ToolEvent) -> None:
        pressed, self.pressed = self.pressed, None
        if self._skip_release or pressed is None:
            self._skip_release = False
            return
        if self.stroke is not None:
            stroke, self.stroke = self.stroke + [ev.pos], None
            simple = [tuple(map(float, p)) for p in simplify_polyline(stroke, SIMPLIFY_PIXELS * ev.pixel)]
            starts_route = not self.points
            if self.points and dist(simple[0], self.points[-1]) <= ev.tol:
                simple = simple[1:]
            if not self._accept(simple):
                return
            self.points.extend(simple)
            if starts_route:
                self.finish()
            return
        p = pressed.pos
        if self.points and dist(p, self.points[-1]) <= ev.tol * 0.5:
            return
        self._accept([p]) and self.points.append(p)

    def _accept(self, pts) -> bool:
        """Whether new points lie in free space; if not, mark them and say why."""
        probs = point_problems(self.doc.scene, pts, [f"route point {len(self.points) + k}" for k in range(len(pts))])
        self.problems = probs
        if probs:
            self.ctx.message(f"Point refused: {problems_text(probs)}.")
        return not probs

    def double_click(self, ev: ToolEvent) -> None:
        self._skip_release = True
        self.pressed = None
        self.finish()

    def key(self, key: str) -> bool:
        if key == "backspace" and self.points:
            self.points.pop()
            self.problems = []
            return True
        return super().key(key)

    def reset(self) -> bool:
        had = bool(self.points) or self.stroke is not None
        self.points, self.stroke, self.pressed, self.problems = [], None, None, []
        return had

    def busy(self) -> bool:
        return bool(self.points) or self.stroke is not None

    def finish(self) -> bool:
        if not self.points:
            return False
        probs = route_problems(self.doc.scene, self.points)
        if not probs:
            rid = new_id(self.doc.scene, "route")
            probs = self.ctx.commit(add_item(self.doc.scene, "route", Route(rid, list(self.points))), "Sketch route",
                                    refs=[("route", rid)], select=[("route", rid)])
        if probs:
            self.problems = probs
            self.ctx.message(f"Not accepted: {problems_text(probs)}.")
            return True
        self.points, self.problems = [], []
        return True

    def preview(self) -> Preview:
        pts = list(self.points)
        if self.stroke is not None:
            pts = pts + self.stroke
        elif pts and self.hover is not None:
            pts = pts + [self.hover]
        return Preview(lines=as_array(pts), handles=as_array(self.points), problems=tuple(self.problems))

    def status(self) -> str:
        if not self.points:
            return self.hint
        return (f"{len(self.points)} points. Click to add, Enter or double-click ends the route, Backspace removes "
                "the last, Esc cancels.")
