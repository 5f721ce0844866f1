"""The tool interface: events in scene units, the context a tool edits through, and the preview it draws."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from core.scene.checks import EditProblem
from core.scene.model import DEFAULT_PLANNER
from core.scene.edits import Changes, Ref

from ..model import Document, ToolState


@dataclass(frozen=True)
class ToolEvent:
    """A pointer event in scene units: ``(x, y)`` snapped (grid / vertices, when on), ``(raw_x, raw_y)`` where
    the pointer really is, ``tol`` the pick tolerance (a few pixels) and ``pixel`` one pixel, both in scene units."""

    x: float
    y: float
    raw_x: float
    raw_y: float
    tol: float
    pixel: float
    shift: bool = False
    ctrl: bool = False
    alt: bool = False

    @property
    def pos(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def raw(self) -> tuple[float, float]:
        return (self.raw_x, self.raw_y)


def _empty() -> np.ndarray:
    return np.zeros((0, 2))


@dataclass(frozen=True)
class ProbeRequest:
    """A route to plan for the test path: from ``start`` to ``goal`` for ``profile`` with ``planner``."""

    start: tuple[float, float]
    goal: tuple[float, float]
    profile: str
    planner: str


def agent_probe(agent, dx: float = 0.0, dy: float = 0.0) -> ProbeRequest | None:
    """The test path of a planned agent (moved by dx, dy), None for one that follows a named route."""
    if agent is None or getattr(agent, "start", None) is None or getattr(agent, "goal", None) is None:
        return None
    s, g = agent.start, agent.goal
    return ProbeRequest((s[0] + dx, s[1] + dy), (g[0] + dx, g[1] + dy), agent.profile,
                        agent.planner or DEFAULT_PLANNER)


@dataclass
class Preview:
    """What a tool wants drawn over the scene, as flat arrays in scene units.

    - ``lines``: (n, 2) polylines separated by NaN rows (the shape being drawn, the items being moved).
    - ``fill``: (k, 2) ring filled translucent (a polygon being drawn), or None.
    - ``handles``: (m, 2) vertex handles; ``active``: (j, 2) the handle(s) under the pointer or chosen.
    - ``rect``: a rubber band ``(x0, y0, x1, y1)``, or None.
    - ``problems``: why the current shape is refused, each located (drawn red at once).
    """

    lines: np.ndarray = field(default_factory=_empty)
    fill: np.ndarray | None = None
    handles: np.ndarray = field(default_factory=_empty)
    active: np.ndarray = field(default_factory=_empty)
    rect: tuple[float, float, float, float] | None = None
    problems: tuple[EditProblem, ...] = ()


class ToolContext(Protocol):
    """What a tool may use: the document and shared tool state, snapping, messages, and committing an edit."""

    doc: Document
    state: ToolState

    def commit(self, changes: Changes, text: str, refs=(), select=None, removal: bool = False) -> list[EditProblem]:
        """Check the items ``refs`` in the scene the changes would give; apply the edit (undoably) when they are
        fine, else show and return the problems."""

    def snap(self, x: float, y: float, tol: float, exclude=None) -> tuple[float, float]:
        """A point snapped as the snapping switches say, ignoring item ``exclude`` ``(kind, index)``."""

    def message(self, text: str) -> None:
        """A transient status-bar message."""


def dist(a, b) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


class Tool:
    """One editing mode. Subclasses override the event methods they need; every method is optional."""

    name = ""
    title = ""
    cursor = "arrow"  # arrow, cross, pointing, size_all
    hint = ""
    shortcut = ""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx

    @property
    def doc(self) -> Document:
        return self.ctx.doc

    def activate(self) -> None:
        pass

    def deactivate(self) -> None:
        self.reset()

    def press(self, ev: ToolEvent) -> None:
        pass

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        pass

    def release(self, ev: ToolEvent) -> None:
        pass

    def double_click(self, ev: ToolEvent) -> None:
        pass

    def key(self, key: str) -> bool:
        """A key name (``escape``, ``enter``, ``backspace``); True when the tool used it."""
        if key == "escape":
            return self.cancel()
        if key == "enter":
            return self.finish()
        return False

    def cancel(self) -> bool:
        """Esc: drop work in progress; True when there was some."""
        return self.reset()

    def reset(self) -> bool:
        """Drop work in progress (a tool switch, a new scene); True when there was some."""
        return False

    def finish(self) -> bool:
        """Complete work in progress (close a polygon, end a route); True when there was some."""
        return False

    def delete(self) -> bool:
        """Delete what the tool has chosen (a vertex ...); False lets the editor delete the selection."""
        return False

    def busy(self) -> bool:
        """Whether the tool holds work in progress."""
        return False

    def status(self) -> str:
        """The status-bar hint for the tool's current state."""
        return self.hint

    def chosen_vertex(self) -> tuple[str, str, int, int] | None:
        """The vertex this tool has chosen, as (kind, id, ring, index), for the Inspector; None for most tools."""
        return None

    def probe(self) -> ProbeRequest | None:
        """The route to plan live while this tool places or drags an agent (the test path), or None."""
        return None

    def preview(self) -> Preview:
        return Preview()

    def _editable(self, kind: str) -> bool:
        """Whether this kind's layer can be edited; says why not in the status bar."""
        st = self.doc.layers[kind]
        if not st.visible or st.locked:
            self.ctx.message(f"The {kind} layer is {'hidden' if not st.visible else 'locked'}: "
                             "show and unlock it in the Scene panel to edit it.")
            return False
        return True


def as_array(points) -> np.ndarray:
    return np.asarray(points, dtype=np.float64).reshape(-1, 2)


def problems_text(problems) -> str:
    """The first problem, and how many more."""
    if not problems:
        return ""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{problems[0].message}{more}"


__all__ = ["Preview", "Ref", "Tool", "ToolContext", "ToolEvent", "as_array", "dist", "problems_text"]
