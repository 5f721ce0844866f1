"""The one undo command: set some top-level fields of the scene (and the selection), and set them back.

Every edit in the app is an instance, built from a pure ``core.scene.edits`` function's result, so undo and redo
are exact by construction. Consecutive edits with the same merge key (dragging a spin box) merge into one step.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand

from .model import Document

MERGE_ID = 1


class QtSetFieldsCommand(QUndoCommand):
    """Scene fields ``new`` (and optionally a selection) applied on redo; the previous values on undo."""

    def __init__(self, doc: Document, new: dict[str, Any], text: str, select=None, merge_key: str | None = None):
        super().__init__(text)
        self.doc = doc
        self.new = dict(new)
        self.old = {k: getattr(doc.scene, k) for k in new}
        self.sel_before = doc.selection
        self.sel_after = tuple(select) if select is not None else None
        self.merge_key = merge_key

    def redo(self) -> None:
        self.doc.set_fields(self.new)
        if self.sel_after is not None:
            self.doc.select(self.sel_after)

    def undo(self) -> None:
        self.doc.set_fields(self.old)
        self.doc.select(self.sel_before)

    def id(self) -> int:
        return MERGE_ID if self.merge_key else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, QtSetFieldsCommand) or other.merge_key != self.merge_key:
            return False
        self.new.update(other.new)
        for k, v in other.old.items():
            self.old.setdefault(k, v)
        if other.sel_after is not None:
            self.sel_after = other.sel_after
        return True
