"""The vertex tool: edit the vertices of the selected items.

Drag a handle to move a vertex; press on an edge to insert a vertex there (and drag it); click a vertex and press
Delete or Backspace to remove it. Clicking another item selects it. Each change is checked against the scene
when the mouse is released, and refused with its problems marked when it would make the scene invalid.
"""

from __future__ import annotations

from core.scene.checks import EditProblem
from core.scene.edits import (
    delete_vertex, find, index_of, insert_vertex, item_rings, items, move_vertex, replace_item,
)

from ..model.outlines import item_polylines, join_polylines, vertices
from .base import Preview, ProbeRequest, Tool, ToolEvent, agent_probe, as_array, problems_text

VERTEX_KINDS = ("obstacle", "terrain", "route", "network", "agent")


class VertexTool(Tool):
    name = "vertex"
    title = "Edit Vertices"
    cursor = "pointing"
    shortcut = "E"
    hint = ("Edit vertices: drag a vertex, press on an edge to insert one, select a vertex and press Delete to "
            "remove it.")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.active: tuple[str, str, int, int] | None = None  # kind, id, ring, index of the chosen vertex
        self.drag_item = None  # the item being edited, with the dragged vertex where the pointer is
        self.inserted = False
        self.hover: tuple[float, float] | None = None
        self.problems: list[EditProblem] = []

    def _targets(self) -> list[tuple[str, int]]:
        """The selected items whose vertices can be edited, as (kind, index)."""
        out = []
        for kind, item_id in self.doc.selection:
            if kind in VERTEX_KINDS and self.doc.is_editable(kind):
                i = index_of(self.doc.scene, kind, item_id)
                if i >= 0:
                    out.append((kind, i))
        return out

    def _nearest(self, ev: ToolEvent, segments: bool):
        picker = self.doc.picker()
        best = None
        for only in self._targets():
            h = (picker.nearest_segment if segments else picker.nearest_vertex)(ev.raw_x, ev.raw_y, ev.tol, only=only)
            if h is not None and (best is None or h.distance < best.distance):
                best = h
        return best

    def press(self, ev: ToolEvent) -> None:
        self.problems = []
        scene = self.doc.scene
        v = self._nearest(ev, segments=False)
        if v is not None:
            item = items(scene, v.kind)[v.item]
            if v.kind == "agent" and not item_rings("agent", item):
                self.ctx.message("This agent follows a route: edit the route's points instead.")
                return
            self.active = (v.kind, item.id, v.ring, v.index)
            self.drag_item, self.inserted = item, False
            return
        s = self._nearest(ev, segments=True)
        if s is not None and s.kind != "agent":
            item = self.doc.ref_at(s.kind, s.item)
            it = find(scene, *item)
            new, k = insert_vertex(s.kind, it, s.ring, s.index, ev.pos)
            self.active = (s.kind, it.id, s.ring, k)
            self.drag_item, self.inserted = new, True
            return
        hit = self.doc.picker().pick(ev.raw_x, ev.raw_y, ev.tol, kinds=self.doc.editable_kinds())
        self.active = None
        self.doc.select([self.doc.ref_at(*hit)] if hit else [])

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        self.hover = ev.raw
        if not dragging or self.drag_item is None or self.active is None:
            return
        kind, item_id, ring, index = self.active
        i = index_of(self.doc.scene, kind, item_id)
        x, y = self.ctx.snap(ev.raw_x, ev.raw_y, ev.tol, exclude=(kind, i))
        self.drag_item = move_vertex(kind, self.drag_item, ring, index, (x, y))

    def release(self, ev: ToolEvent) -> None:
        item, self.drag_item = self.drag_item, None
        if item is None or self.active is None:
            return
        kind, item_id, _, _ = self.active
        old = find(self.doc.scene, kind, item_id)
        if old is None or item == old:
            return
        text = "Insert vertex" if self.inserted else "Move vertex"
        probs = self.ctx.commit(replace_item(self.doc.scene, kind, item_id, item), text, refs=[(kind, item_id)],
                                select=list(self.doc.selection))
        if probs:
            self.problems = probs
            self.ctx.message(f"{text} refused: {problems_text(probs)}.")
            if self.inserted:
                self.active = None

    def key(self, key: str) -> bool:
        if key == "backspace":
            return self.delete()
        return super().key(key)

    def delete(self) -> bool:
        if self.active is None:
            return False
        kind, item_id, ring, index = self.active
        it = find(self.doc.scene, kind, item_id)
        if it is None:
            self.active = None
            return False
        new = delete_vertex(kind, it, ring, index)
        if new is None:
            self.ctx.message(f"Cannot delete: this {kind} would keep too few vertices (delete the whole item with "
                             "the select tool).")
            return True
        probs = self.ctx.commit(replace_item(self.doc.scene, kind, item_id, new), "Delete vertex",
                                refs=[(kind, item_id)], select=list(self.doc.selection))
        if probs:
            self.problems = probs
            self.ctx.message(f"Delete refused: {problems_text(probs)}.")
        else:
            self.active = None
        return True

    def reset(self) -> bool:
        had = self.active is not None or self.drag_item is not None
        self.active, self.drag_item, self.problems = None, None, []
        return had

    def busy(self) -> bool:
        return self.drag_item is not None

    def chosen_vertex(self) -> tuple[str, str, int, int] | None:
        return self.active

    def probe(self) -> ProbeRequest | None:
        """While an agent's start or goal is dragged: its route from where they are now."""
        if self.drag_item is not None and self.active is not None and self.active[0] == "agent":
            return agent_probe(self.drag_item)
        return None

    def preview(self) -> Preview:
        scene = self.doc.scene
        refs = [self.doc.ref_at(k, i) for k, i in self._targets()]
        handles = vertices(scene, refs)
        lines = as_array([])
        active = as_array([])
        if self.active is not None:
            kind, item_id, ring, index = self.active
            item = self.drag_item if self.drag_item is not None else find(scene, kind, item_id)
            if item is not None:
                rings = item_rings(kind, item)
                if ring < len(rings) and index < len(rings[ring]):
                    active = as_array([rings[ring][index]])
                if self.drag_item is not None:
                    lines = join_polylines(item_polylines(scene, kind, item))
        return Preview(lines=lines, handles=handles, active=active, problems=tuple(self.problems))

    def status(self) -> str:
        if not self._targets():
            return "Edit vertices: click an item to show its vertices."
        if self.active is not None:
            return "Drag the vertex to move it, Delete or Backspace removes it, Esc lets it go."
        return self.hint
