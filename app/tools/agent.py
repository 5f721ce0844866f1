"""The agent tool: place a character with the current profile.

With a planner chosen (grid, cdt, ecm, portal, network), click its start then its goal. With "route" chosen,
click a route and the agent follows it. Starts and goals outside the free space are refused and marked.
"""

from __future__ import annotations

from core.scene import Agent
from core.scene.checks import EditProblem, point_problems
from core.scene.edits import add_item, new_id

from ..model.tool_state import ROUTE_MODE
from .base import Preview, ProbeRequest, Tool, ToolEvent, as_array, problems_text


class AgentTool(Tool):
    name = "agent"
    title = "Place Agent"
    cursor = "cross"
    shortcut = "A"
    hint = "Place agent: click its start, then its goal (or, in route mode, click the route it follows)."

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.start: tuple[float, float] | None = None
        self.hover: tuple[float, float] | None = None
        self.problems: list[EditProblem] = []

    def _profile(self) -> str | None:
        pid = self.ctx.state.profile
        if pid not in {p.id for p in self.doc.scene.profiles}:
            self.ctx.message("Add a profile first (Profiles panel): every agent needs one.")
            return None
        return pid

    def press(self, ev: ToolEvent) -> None:
        if not self._editable("agent"):
            return
        profile = self._profile()
        if profile is None:
            return
        mode = self.ctx.state.agent_mode
        self.problems = []
        if mode == ROUTE_MODE:
            hit = self.doc.picker().nearest_segment(ev.raw_x, ev.raw_y, ev.tol, kinds=("route",))
            if hit is None:
                self.ctx.message("Route mode: click on a route for the agent to follow (or pick a planner).")
                return
            route = self.doc.scene.routes[hit.item].id
            self._add(Agent(new_id(self.doc.scene, "agent"), profile, route=route))
            return
        p = ev.pos
        probs = point_problems(self.doc.scene, [p], ["the goal" if self.start else "the start"])
        if probs:
            self.problems = probs
            self.ctx.message(f"Refused: {problems_text(probs)}.")
            return
        if self.start is None:
            self.start = p
            return
        start, self.start = self.start, None
        self._add(Agent(new_id(self.doc.scene, "agent"), profile, start=start, goal=p, planner=mode))

    def _add(self, agent: Agent) -> None:
        probs = self.ctx.commit(add_item(self.doc.scene, "agent", agent), "Place agent", refs=[("agent", agent.id)],
                                select=[("agent", agent.id)])
        self.problems = probs

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.pos

    def reset(self) -> bool:
        had = self.start is not None
        self.start, self.problems = None, []
        return had

    def busy(self) -> bool:
        return self.start is not None

    def probe(self) -> ProbeRequest | None:
        """While the goal is being chosen: the route from the start to the pointer."""
        mode = self.ctx.state.agent_mode
        if self.start is None or self.hover is None or mode == ROUTE_MODE or self.hover == self.start:
            return None
        return ProbeRequest(self.start, self.hover, self.ctx.state.profile, mode)

    def preview(self) -> Preview:
        if self.start is None:
            return Preview(problems=tuple(self.problems))
        lines = as_array([self.start, self.hover]) if self.hover is not None else as_array([])
        return Preview(lines=lines, handles=as_array([self.start]), active=as_array([self.start]),
                       problems=tuple(self.problems))

    def status(self) -> str:
        mode = self.ctx.state.agent_mode
        if self.start is not None:
            return f"Click the goal ({mode} planner, profile {self.ctx.state.profile}); Esc cancels."
        if mode == ROUTE_MODE:
            return f"Click a route for a new agent (profile {self.ctx.state.profile}) to follow."
        return f"Click the start of a new agent ({mode} planner, profile {self.ctx.state.profile})."
