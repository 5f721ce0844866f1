"""The measurement tools: draw a polygon or drag a rectangle (the measurement area whose density is plotted over
time), or drag a line (the measurement line whose crossings give the flow). Both are the scene's ``measurement``
field (PedPy's measurement area and line): saved with the scene, set by one undoable edit, followed by the
simulation's plots and overlay."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from shapely import Polygon

from core.scene.checks import EditProblem
from core.scene.measurement import area_problem, line_problem
from core.scene.model import Measurement

from .base import Preview, Tool, ToolEvent, as_array, dist, problems_text
from .polygon import PolygonTool


class _DragTool(Tool, ABC):
    """A measurement drawn by one drag from press to release; Esc while dragging drops it."""

    cursor = "cross"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.start: tuple[float, float] | None = None
        self.end: tuple[float, float] | None = None

    def press(self, ev: ToolEvent) -> None:
        self.start = self.end = ev.pos

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        if self.start is not None and dragging:
            self.end = ev.pos

    def release(self, ev: ToolEvent) -> None:
        if self.start is None:
            return
        a = self.start
        self.start = self.end = None
        self.dragged(a, ev.pos, ev.tol)

    @abstractmethod
    def dragged(self, a: tuple[float, float], b: tuple[float, float], tol: float) -> None:
        """The drag from a to b ended (tol: the snapping tolerance in scene units)."""

    def reset(self) -> bool:
        had = self.start is not None
        self.start = self.end = None
        return had

    def busy(self) -> bool:
        return self.start is not None

    def status(self) -> str:
        return self.hint


class MeasureAreaTool(PolygonTool):
    """Click out a polygon (closed as the obstacle tool closes one) or drag a rectangle: the scene's measurement
    area, one undoable edit; Delete removes it."""

    name = "measure_area"
    kind = "measurement area"
    title = "Measurement Area"
    hint = ("Click the measurement area's vertices (click the first / Enter / double-click to close) or drag a "
            "rectangle: its density is plotted over time. Delete removes it.")
    shortcut = "M"

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.corner: tuple[float, float] | None = None   # the pointer while dragging from the first vertex

    def press(self, ev: ToolEvent) -> None:
        p = ev.pos
        if len(self.points) >= 3 and dist(p, self.points[0]) <= ev.tol:
            self.finish()
            return
        if self.points and dist(p, self.points[-1]) <= ev.tol * 0.5:
            return
        self.points.append(p)
        self.hover = p
        self._live_check()

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        if dragging and len(self.points) == 1:
            self.corner = ev.pos
        super().move(ev, dragging)

    def release(self, ev: ToolEvent) -> None:
        corner, self.corner = self.corner, None
        if corner is None or len(self.points) != 1:
            return
        (x0, y0), (x1, y1) = self.points[0], ev.pos
        if abs(x1 - x0) <= ev.tol or abs(y1 - y0) <= ev.tol:
            return  # a click: the polygon's first vertex
        lo_x, hi_x, lo_y, hi_y = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        self.points = [(lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y)]
        self.finish()

    def make_item(self, item_id: str, ring: list[tuple[float, float]]):
        raise TypeError("the measurement area is a field of the scene, not an item")

    def check(self, ring: list[tuple[float, float]]) -> list[EditProblem]:
        msg = area_problem(ring, self.doc.scene.bounds)
        return [EditProblem(f"measurement area: {msg}", ring[0])] if msg else []

    def finish(self) -> bool:
        if not self.points:
            return False
        ring = list(self.points)
        self.problems = (self.check(ring) if len(ring) >= 3 else
                         [EditProblem(f"a polygon needs at least 3 vertices, it has {len(ring)}", ring[-1])])
        if self.problems:
            self.ctx.message(f"Not accepted: {problems_text(self.problems)}. Fix it, or press Esc to drop it.")
            return True
        m = self.doc.scene.measurement
        self.ctx.commit({"measurement": Measurement([(float(x), float(y)) for x, y in ring], m.line)},
                        "Draw measurement area")
        area = Polygon(ring).area
        self.ctx.message(f"Measurement area of {area:.1f} m² ({len(ring)} vertices): see the Plots panel.")
        self.points, self.problems = [], []
        return True

    def reset(self) -> bool:
        self.corner = None
        return super().reset()

    def delete(self) -> bool:
        m = self.doc.scene.measurement
        if self.points or m.area is None:
            return False
        self.ctx.commit({"measurement": Measurement(None, m.line)}, "Remove measurement area")
        self.ctx.message("Measurement area removed.")
        return True

    def preview(self) -> Preview:
        if self.corner is not None and len(self.points) == 1:
            (x0, y0), (x1, y1) = self.points[0], self.corner
            return Preview(rect=(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
        return super().preview()


class MeasureLineTool(_DragTool):
    """Drag a line: the agents crossing it give the flow (PedPy's N(t) and flow)."""

    name = "measure_line"
    title = "Measurement Line"
    hint = ("Drag a line: the agents crossing it are counted over time (flow). Esc while dragging drops it; Delete "
            "removes the line.")
    shortcut = "L"

    def dragged(self, a: tuple[float, float], b: tuple[float, float], tol: float) -> None:
        if dist(a, b) <= tol:
            self.ctx.message("The measurement line needs a length: drag from one end to the other.")
            return
        msg = line_problem([a, b], self.doc.scene.bounds)
        if msg:
            self.ctx.message(f"Not accepted: measurement line: {msg}.")
            return
        m = self.doc.scene.measurement
        self.ctx.commit({"measurement": Measurement(m.area, [a, b])}, "Draw measurement line")
        self.ctx.message(f"Measurement line of {dist(a, b):,.1f} m: its flow is in the Plots panel.")

    def delete(self) -> bool:
        m = self.doc.scene.measurement
        if self.start is not None or m.line is None:
            return False
        self.ctx.commit({"measurement": Measurement(m.area, None)}, "Remove measurement line")
        self.ctx.message("Measurement line removed.")
        return True

    def preview(self) -> Preview:
        if self.start is None or self.end is None:
            return Preview()
        pts = as_array([self.start, self.end])
        return Preview(lines=pts, handles=np.asarray(pts))
