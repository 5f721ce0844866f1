"""The editor: the tools' context and the one place edits are checked and pushed on the undo stack.

It joins the document, the shared tool state and the QUndoStack; tools, panels and actions call ``commit`` (for
edits that add or change geometry, checked with ``core.scene.checks``) or ``apply`` (for edits that cannot make
the scene invalid, such as a colour).
"""

from __future__ import annotations

import json

from PySide6.QtGui import QUndoStack

from core.scene import InputError
from core.scene.checks import EditProblem, check_items, removal_problems
from core.scene.edits import Changes, apply, copy_items, paste_items, remove_items

from .model import Document, Signal, ToolState
from .qt_commands import QtSetFieldsCommand
from .tools.base import problems_text


class QtEditor:
    """Edits the document through the undo stack.

    Events: ``flash(problems)`` when an edit is refused (the views mark the spots), ``message(text)`` for the
    status bar.
    """

    def __init__(self, doc: Document, state: ToolState, stack: QUndoStack) -> None:
        self.doc = doc
        self.state = state
        self.stack = stack
        self.grid_step = 1.0
        self.flash = Signal()
        self.messages = Signal()
        self.paste_count = 0

    # -- ToolContext -------------------------------------------------------------------------------------------

    def commit(self, changes: Changes, text: str, refs=(), select=None, removal: bool = False,
               merge_key: str | None = None) -> list[EditProblem]:
        """Apply an edit unless the items ``refs`` would be invalid in the resulting scene (or, for a removal,
        what remains); refused edits flash their problems and are returned."""
        if not changes:
            return []
        candidate = apply(self.doc.scene, changes)
        probs = check_items(candidate, refs)
        if removal:
            probs += removal_problems(candidate)
        if probs:
            self.flash.emit(probs)
            self.message(f"Not accepted: {problems_text(probs)}")
            return probs
        self.apply(changes, text, select=select, merge_key=merge_key)
        return []

    def apply(self, changes: Changes, text: str, select=None, merge_key: str | None = None) -> None:
        """Push an edit on the undo stack (it is applied at once)."""
        if changes:
            self.stack.push(QtSetFieldsCommand(self.doc, changes, text, select=select, merge_key=merge_key))

    def snap(self, x: float, y: float, tol: float, exclude=None) -> tuple[float, float]:
        st = self.state
        grid = self.grid_step if st.snap_grid else None
        if not grid and not st.snap_vertices:
            return x, y
        sx, sy, _ = self.doc.picker().snap(x, y, tol, grid, st.snap_vertices, exclude=exclude,
                                           kinds=tuple(k for k, s in self.doc.layers.items() if s.visible))
        return sx, sy

    def message(self, text: str) -> None:
        self.messages.emit(text)

    # -- selection edits ---------------------------------------------------------------------------------------

    def delete_selection(self) -> bool:
        """Remove the selected items (agents following a removed route go with it)."""
        refs = [r for r in self.doc.selection if self.doc.is_editable(r[0])]
        if not refs:
            return False
        changes, extra = remove_items(self.doc.scene, refs)
        n = len(refs) + len(extra)
        probs = self.commit(changes, f"Delete {n} item{'s' if n > 1 else ''}", removal=True, select=[])
        if not probs and extra:
            self.message(f"Also removed {len(extra)} agent{'s' if len(extra) > 1 else ''} that followed the route.")
        return not probs

    def copy_text(self) -> str | None:
        """The selection as clipboard text (JSON), or None when nothing is selected."""
        if not self.doc.selection:
            return None
        self.paste_count = 0
        return json.dumps(copy_items(self.doc.scene, self.doc.selection))

    def duplicate_selection(self) -> bool:
        """Copy the selection one grid step right and down as one undoable edit, and select the copies."""
        refs = [r for r in self.doc.selection if self.doc.is_editable(r[0])]
        if not refs:
            self.message("Select something to duplicate.")
            return False
        d = self.grid_step
        try:
            changes, added = paste_items(self.doc.scene, copy_items(self.doc.scene, refs), d, -d)
        except InputError as e:
            self.message(f"Cannot duplicate: {'; '.join(str(p) for p in e.problems[:3])}")
            return False
        n = len(added)
        return not self.commit(changes, f"Duplicate {n} item{'s' if n != 1 else ''}", refs=added, select=added)

    def paste_text(self, text: str) -> bool:
        """Paste clipboard text, each paste one grid step further right and down; refused pastes say why."""
        try:
            doc = json.loads(text)
        except ValueError:
            self.message("The clipboard holds no MIRAN Studio items.")
            return False
        self.paste_count += 1
        d = self.grid_step * self.paste_count
        try:
            changes, added = paste_items(self.doc.scene, doc, d, -d)
        except InputError as e:
            self.message(f"Cannot paste: {'; '.join(str(p) for p in e.problems[:3])}")
            return False
        n = len(added)
        return not self.commit(changes, f"Paste {n} item{'s' if n != 1 else ''}", refs=added, select=added)
