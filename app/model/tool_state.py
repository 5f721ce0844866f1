"""State the tools share that outlives a tool switch (as RecastDemo's SampleToolState): the current terrain type,
profile and planner for new items, and the snapping switches."""

from __future__ import annotations

from core.scene import PLANNERS, Scene

from .events import Signal

ROUTE_MODE = "route"  # the agent tool's "follow a route" choice beside the planners
AGENT_MODES = (ROUTE_MODE, *PLANNERS)


class ToolState:
    """Current choices for new items; ``changed(name)`` fires when one changes."""

    def __init__(self) -> None:
        self.terrain_type = "default"
        self.profile = "pedestrian"
        self.agent_mode = "cdt"
        self.snap_grid = True
        self.snap_vertices = True
        self.changed = Signal()

    def set(self, name: str, value) -> None:
        if name not in ("terrain_type", "profile", "agent_mode", "snap_grid", "snap_vertices"):
            raise AttributeError(name)
        if name == "agent_mode" and value not in AGENT_MODES:
            raise ValueError(f"unknown agent mode {value!r} (valid: {', '.join(AGENT_MODES)})")
        if getattr(self, name) != value:
            setattr(self, name, value)
            self.changed.emit(name)

    def fit_to(self, scene: Scene) -> None:
        """Keep the current terrain type and profile pointing at ones the scene has."""
        types = [t.id for t in scene.terrain_types]
        if self.terrain_type not in types:
            nondefault = [t for t in types if t != scene.default_terrain]
            self.set("terrain_type", nondefault[0] if nondefault else scene.default_terrain)
        profiles = [p.id for p in scene.profiles]
        if self.profile not in profiles and profiles:
            self.set("profile", profiles[0])
