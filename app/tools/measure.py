"""The measurement tools: drag a rectangle (the measurement area whose density is plotted over time) or a line
(the measurement line whose crossings give the flow). Neither edits the scene: they set the shared tool state's
``measure_area`` / ``measure_line``, which the simulation's plots and overlay follow (PedPy's measurement area
and line)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .base import Preview, Tool, ToolEvent, as_array, dist


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


class MeasureAreaTool(_DragTool):
    """Drag a rectangle: press at one corner, release at the other; Esc while dragging drops it."""

    name = "measure_area"
    title = "Measurement Area"
    hint = "Drag a rectangle: its density (classic and Voronoi) is plotted over time. Esc while dragging drops it."
    shortcut = "M"

    def dragged(self, a: tuple[float, float], b: tuple[float, float], tol: float) -> None:
        (x0, y0), (x1, y1) = a, b
        if abs(x1 - x0) <= tol or abs(y1 - y0) <= tol:
            self.ctx.message("The measurement area needs a width and a height: drag from corner to corner.")
            return
        lo_x, hi_x, lo_y, hi_y = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        self.ctx.state.set("measure_area", [(lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y)])
        self.ctx.message(f"Measurement area {hi_x - lo_x:.1f} x {hi_y - lo_y:.1f}: see the Plots panel.")

    def preview(self) -> Preview:
        if self.start is None or self.end is None:
            return Preview()
        (x0, y0), (x1, y1) = self.start, self.end
        return Preview(rect=(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))


class MeasureLineTool(_DragTool):
    """Drag a line: the agents crossing it give the flow (PedPy's N(t) and flow)."""

    name = "measure_line"
    title = "Measurement Line"
    hint = "Drag a line: the agents crossing it are counted over time (flow). Esc while dragging drops it."
    shortcut = "L"

    def dragged(self, a: tuple[float, float], b: tuple[float, float], tol: float) -> None:
        if dist(a, b) <= tol:
            self.ctx.message("The measurement line needs a length: drag from one end to the other.")
            return
        self.ctx.state.set("measure_line", [a, b])
        self.ctx.message(f"Measurement line of {dist(a, b):.1f}: its flow is in the Plots panel.")

    def preview(self) -> Preview:
        if self.start is None or self.end is None:
            return Preview()
        pts = as_array([self.start, self.end])
        return Preview(lines=pts, handles=np.asarray(pts))
