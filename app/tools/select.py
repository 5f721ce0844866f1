"""The select tool: pick items, rubber-band them, and drag the selection to move it.

Click picks the topmost editable item (Shift toggles it in the selection); a drag from empty space draws a
rubber band selecting what it meets (Shift adds); a drag from a selected item moves the selection, checked
against the scene when released. Esc cancels a drag, or else clears the selection.
"""

from __future__ import annotations

from core.scene.edits import find, translate_items

from ..model.outlines import outlines
from .base import Preview, ProbeRequest, Tool, ToolEvent, agent_probe, dist, problems_text

DRAG_PIXELS = 3.0


class SelectTool(Tool):
    name = "select"
    title = "Select and Move"
    cursor = "arrow"
    shortcut = "V"
    hint = "Select: click an item (Shift adds), drag empty space for a rubber band, drag the selection to move it."

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.mode = "idle"  # idle, pressing, moving, band
        self.anchor: ToolEvent | None = None
        self.current: ToolEvent | None = None
        self.add = False
        self.problems = []

    def press(self, ev: ToolEvent) -> None:
        self.problems = []
        kinds = self.doc.editable_kinds()
        hit = self.doc.picker().pick(ev.raw_x, ev.raw_y, ev.tol, kinds=kinds)
        self.anchor = self.current = ev
        self.add = ev.shift
        if hit is None:
            self.mode = "band"
            return
        ref = self.doc.ref_at(*hit)
        if ev.shift:
            self.doc.select([ref], "toggle")
            self.mode = "idle"
            return
        if ref not in self.doc.selection:
            self.doc.select([ref])
        self.mode = "pressing"

    def move(self, ev: ToolEvent, dragging: bool) -> None:
        if not dragging or self.anchor is None:
            return
        self.current = ev
        if self.mode == "pressing" and dist(ev.raw, self.anchor.raw) > DRAG_PIXELS * ev.pixel:
            self.mode = "moving"

    def _delta(self) -> tuple[float, float]:
        return self.current.x - self.anchor.x, self.current.y - self.anchor.y

    def release(self, ev: ToolEvent) -> None:
        self.current = ev
        mode, self.mode = self.mode, "idle"
        if mode == "moving":
            dx, dy = self._delta()
            refs = list(self.doc.selection)
            if (dx or dy) and refs:
                probs = self.ctx.commit(translate_items(self.doc.scene, refs, dx, dy),
                                        f"Move {len(refs)} item{'s' if len(refs) > 1 else ''}", refs=refs,
                                        select=refs)
                if probs:
                    self.problems = probs
                    self.ctx.message(f"Move refused: {problems_text(probs)}.")
        elif mode == "band":
            a = self.anchor
            if dist(ev.raw, a.raw) <= DRAG_PIXELS * ev.pixel:
                if not self.add:
                    self.doc.select([])
                return
            hits = self.doc.picker().in_rect(a.raw_x, a.raw_y, ev.raw_x, ev.raw_y, kinds=self.doc.editable_kinds())
            self.doc.select([self.doc.ref_at(*h) for h in hits], "add" if self.add else "replace")

    def reset(self) -> bool:
        had = self.mode != "idle"
        self.mode, self.problems = "idle", []
        return had

    def cancel(self) -> bool:
        """Esc cancels a drag, or else clears the selection."""
        if self.reset():
            return True
        if self.doc.selection:
            self.doc.select([])
            return True
        return False

    def busy(self) -> bool:
        return self.mode in ("moving", "band")

    def probe(self) -> ProbeRequest | None:
        """While one planned agent is dragged: its route from where it would be dropped."""
        refs = self.doc.selection
        if self.mode == "moving" and len(refs) == 1 and refs[0][0] == "agent":
            return agent_probe(find(self.doc.scene, "agent", refs[0][1]), *self._delta())
        return None

    def preview(self) -> Preview:
        if self.mode == "moving":
            dx, dy = self._delta()
            return Preview(lines=outlines(self.doc.scene, self.doc.selection, dx, dy))
        if self.mode == "band" and self.current is not None:
            a, c = self.anchor, self.current
            return Preview(rect=(a.raw_x, a.raw_y, c.raw_x, c.raw_y))
        return Preview(problems=tuple(self.problems))

    def status(self) -> str:
        n = len(self.doc.selection)
        if self.mode == "moving":
            dx, dy = self._delta()
            return f"Moving {n} item{'s' if n != 1 else ''} by ({dx:.6g}, {dy:.6g}); release to drop, Esc cancels."
        if n:
            return f"{n} selected. Drag to move, Shift+click to add or remove, Delete removes, Esc clears."
        return self.hint
