"""The network tool: draw an indicative network (IRM section 5) as nodes joined by edges.

Click empty space to place a node, click a node to continue from it; each click joins the new node to the last
one, so a run of clicks draws a chain. Enter, Esc or a double-click ends the chain; the next click starts a new
one (in the same network when it starts at one of its nodes). Each node and edge is its own undoable step.
"""

from __future__ import annotations

from core.scene import Network
from core.scene.checks import EditProblem, point_problems
from core.scene.edits import add_item, find, network_with_edge, network_with_node, new_id, replace_item

from .base import Preview, Tool, ToolEvent, as_array, problems_text


class NetworkTool(Tool):
    name = "network"
    title = "Draw Network"
    cursor = "cross"
    shortcut = "N"
    hint = ("Draw network: click to place nodes (each joined to the last), click a node to branch from it; "
            "Enter ends a chain.")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.net_id: str | None = None
        self.last: int | None = None
        self.pending: tuple[float, float] | None = None  # a first node not yet in a network (one needs two)
        self.hover: tuple[float, float] | None = None
        self.problems: list[EditProblem] = []

    def _node_at(self, ev: ToolEvent):
        h = self.doc.picker().nearest_vertex(ev.raw_x, ev.raw_y, ev.tol, kinds=("network",))
        return None if h is None else (self.doc.scene.networks[h.item], h.index)

    def press(self, ev: ToolEvent) -> None:
        if not self._editable("network"):
            return
        self.problems = []
        hit = self._node_at(ev)
        if hit is not None:
            net, k = hit
            if self.pending is not None:
                net2, new = network_with_node(net, self.pending)
                self._commit(replace_item(self.doc.scene, "network", net.id, network_with_edge(net2, new, k)),
                             net.id, k, "Add network node")
                return
            if self.net_id == net.id and self.last is not None and self.last != k:
                self._commit(replace_item(self.doc.scene, "network", net.id, network_with_edge(net, self.last, k)),
                             net.id, k, "Add network edge")
                return
            self.net_id, self.last = net.id, k
            return
        p = ev.pos
        probs = point_problems(self.doc.scene, [p], ["network node"])
        if probs:
            self.problems = probs
            self.ctx.message(f"Node refused: {problems_text(probs)}.")
            return
        net = find(self.doc.scene, "network", self.net_id) if self.net_id else None
        if net is None or self.last is None:
            if self.pending is None:
                self.pending = p
                return
            nid = new_id(self.doc.scene, "network")
            created = Network(nid, [self.pending, p], [(0, 1)])
            self.pending = None
            self._commit(add_item(self.doc.scene, "network", created), nid, 1, "Draw network")
            return
        net2, k = network_with_node(net, p)
        self._commit(replace_item(self.doc.scene, "network", net.id, network_with_edge(net2, self.last, k)),
                     net.id, k, "Add network node")

    def _commit(self, changes, net_id: str, last: int, text: str) -> None:
        probs = self.ctx.commit(changes, text, refs=[("network", net_id)], select=[("network", net_id)])
        if probs:
            self.problems = probs
            return
        self.net_id, self.last = net_id, last

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.pos

    def double_click(self, ev: ToolEvent) -> None:
        self.finish()

    def finish(self) -> bool:
        had = self.last is not None or self.pending is not None
        self.net_id, self.last, self.pending, self.problems = None, None, None, []
        return had

    def reset(self) -> bool:
        return self.finish()

    def busy(self) -> bool:
        return self.last is not None or self.pending is not None

    def _anchor(self) -> tuple[float, float] | None:
        if self.pending is not None:
            return self.pending
        net = find(self.doc.scene, "network", self.net_id) if self.net_id else None
        if net is not None and self.last is not None and self.last < len(net.nodes):
            return net.nodes[self.last]
        return None

    def preview(self) -> Preview:
        a = self._anchor()
        if a is None:
            return Preview(problems=tuple(self.problems))
        lines = as_array([a, self.hover]) if self.hover is not None else as_array([])
        return Preview(lines=lines, handles=as_array([a]), active=as_array([a]), problems=tuple(self.problems))

    def status(self) -> str:
        if self.pending is not None:
            return "Click to place the second node of a new network; Esc cancels."
        if self.last is not None:
            return ("Click to add a node joined to the highlighted one, or click a node to join it; "
                    "Enter ends the chain.")
        return self.hint
