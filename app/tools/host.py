"""The tool host: owns one instance of each tool, forwards pointer and key events (already in scene units) to
the active one, snaps positions, and tells the views what changed (preview, cursor, hint)."""

from __future__ import annotations

from core.scene.edits import find

from ..model.events import Signal
from .agent import AgentTool
from .base import Preview, ProbeRequest, Tool, ToolContext, ToolEvent, agent_probe
from .measure import MeasureAreaTool, MeasureLineTool
from .motion import MotionPathTool
from .network import NetworkTool
from .obstacle import ObstacleTool
from .route import RouteTool
from .select import SelectTool
from .terrain import TerrainTool
from .vertex import VertexTool

TOOL_CLASSES: tuple[type[Tool], ...] = (
    SelectTool, VertexTool, ObstacleTool, MotionPathTool, TerrainTool, RouteTool, NetworkTool, AgentTool,
    MeasureAreaTool, MeasureLineTool,
)
PICK_PIXELS = 7.0  # how close (in pixels) the pointer must be to pick or snap to something
# Tools whose clicks place points, and so snap them; select and vertex snap only what they drag.
SNAPPING = {"obstacle", "motion_path", "terrain", "route", "network", "agent", "select", "measure_area",
            "measure_line"}


class ToolHost:
    """Routes events to the active tool.

    Events: ``tool_changed(name)``, ``preview_changed(Preview)``, ``cursor_changed(name)``, ``hint_changed(text)``,
    ``dropped()`` when work in progress was dropped (Esc, a tool switch, a new scene): what a refused edit marked
    goes with it.
    """

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.tools: dict[str, Tool] = {cls.name: cls(ctx) for cls in TOOL_CLASSES}
        self.active: Tool = self.tools["select"]
        self.tool_changed = Signal()
        self.preview_changed = Signal()
        self.cursor_changed = Signal()
        self.hint_changed = Signal()
        self.dropped = Signal()
        self._dragging = False

    def set_tool(self, name: str) -> None:
        if name not in self.tools:
            raise ValueError(f"unknown tool {name!r} (valid: {', '.join(self.tools)})")
        if self.tools[name] is self.active:
            return
        self.active.deactivate()
        self.dropped.emit()
        self.active = self.tools[name]
        self.active.activate()
        self.tool_changed.emit(name)
        self.cursor_changed.emit(self.active.cursor)
        self.refresh()

    def event(self, x: float, y: float, pixel: float, shift=False, ctrl=False, alt=False) -> ToolEvent:
        """A ToolEvent at scene point (x, y); ``pixel`` is one screen pixel in scene units."""
        tol = PICK_PIXELS * pixel
        sx, sy = (self.ctx.snap(x, y, tol) if self.active.name in SNAPPING else (x, y))
        return ToolEvent(sx, sy, x, y, tol, pixel, shift, ctrl, alt)

    def press(self, ev: ToolEvent) -> None:
        self._dragging = True
        self.active.press(ev)
        self.refresh()

    def move(self, ev: ToolEvent) -> None:
        self.active.move(ev, self._dragging)
        self.refresh()

    def release(self, ev: ToolEvent) -> None:
        self._dragging = False
        self.active.release(ev)
        self.refresh()

    def double_click(self, ev: ToolEvent) -> None:
        self.active.double_click(ev)
        self.refresh()

    def key(self, key: str) -> bool:
        used = self.active.key(key)
        if key == "escape":
            self.dropped.emit()
        self.refresh()
        return used

    def delete(self) -> bool:
        """Let the tool delete what it has chosen; False when the editor should delete the selection."""
        used = self.active.delete()
        self.refresh()
        return used

    def cancel(self) -> bool:
        used = self.active.cancel()
        self.dropped.emit()
        self.refresh()
        return used

    def reset(self) -> None:
        """Drop every tool's work in progress (a new scene was loaded)."""
        for t in self.tools.values():
            t.reset()
        self.dropped.emit()
        self.refresh()

    def refresh(self) -> None:
        self.preview_changed.emit(self.active.preview())
        self.hint_changed.emit(self.active.status())

    def preview(self) -> Preview:
        return self.active.preview()

    def chosen_vertex(self) -> tuple[str, str, int, int] | None:
        """The active tool's chosen vertex (kind, id, ring, index), or None."""
        return self.active.chosen_vertex()

    def probe(self) -> ProbeRequest | None:
        """The test path to draw: what the active tool places or drags, else the one selected planned agent."""
        req = self.active.probe()
        if req is not None:
            return req
        refs = self.ctx.doc.selection
        if len(refs) == 1 and refs[0][0] == "agent":
            return agent_probe(find(self.ctx.doc.scene, "agent", refs[0][1]))
        return None
