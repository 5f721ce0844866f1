"""The terrain types panel: each type's colour, id and name; add, remove (asking what becomes of its polygons),
make default. The selected row is the type the terrain tool paints."""

from __future__ import annotations

import dataclasses

from PySide6 import QtCore, QtGui, QtWidgets

from core.scene import TerrainType
from core.scene.edits import (
    add_item, find, new_id, remove_terrain_type, rename, replace_item, terrain_type_usage,
)

from .. import qt_dialogs as dialogs
from ..qt_editor import QtEditor
from ..layers.qt_base import OBSTACLE_FILL
from .qt_widgets import swatch_icon

COL_SWATCH, COL_ID, COL_NAME, COL_USED = range(4)
# Colours for new terrain types: clear hues, none of them grey (greys read as road, pavement or obstacles).
PALETTE = ("#8fbf6a", "#7a5230", "#5b9bd5", "#e6d28a", "#c9a0dc", "#f4a261", "#4fb3bf", "#d9778f", "#b5c94c",
           "#a3805c", "#7fa7e0", "#e0b84f")
# Colours a new type must stand apart from besides the scene's own: the obstacles' fill and the greys.
AVOID = (OBSTACLE_FILL, "#ffffff", "#d9d9d9", "#9ca3af", "#6f6f6f")


def new_type_colour(used: list[str]) -> str:
    """The palette colour farthest (in RGB) from every colour the scene's terrain types use and from the obstacles'
    fill and the greys; the palette's order breaks ties, so the first types get its first colours."""
    def rgb(c: str) -> tuple[int, int, int]:
        q = QtGui.QColor(c)
        return q.red(), q.green(), q.blue()

    others = [rgb(c) for c in (*used, *AVOID)]
    return max(PALETTE, key=lambda c: min(sum((a - b) ** 2 for a, b in zip(rgb(c), o)) for o in others))


class QtTerrainTypes(QtWidgets.QWidget):
    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.doc = editor.doc
        self.state = editor.state
        self.table = QtWidgets.QTableWidget(0, 4)
        self.table.setObjectName("terrain_types")
        self.table.setHorizontalHeaderLabels(["", "Id", "Name", "Used by"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(2, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                   | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        add = QtWidgets.QPushButton("Add")
        colour = QtWidgets.QPushButton("Colour…")
        default = QtWidgets.QPushButton("Make default")
        self.remove_button = QtWidgets.QPushButton("Remove")
        add.clicked.connect(self.add_type)
        colour.clicked.connect(self.pick_colour)
        default.clicked.connect(self.make_default)
        self.remove_button.clicked.connect(lambda: self.remove_type(self.current()))
        buttons = QtWidgets.QHBoxLayout()
        for b in (add, colour, default, self.remove_button):
            buttons.addWidget(b)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.table)
        lay.addLayout(buttons)
        self._filling = False
        self.table.itemChanged.connect(self._edited)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.cellDoubleClicked.connect(self._double_clicked)
        self._pending = False
        watched = {"terrain_types", "terrains", "default_terrain"}
        self.doc.changed.connect(lambda f: f & watched and self.schedule_fill())
        self.doc.reset.connect(self.schedule_fill)
        self.state.changed.connect(lambda name: name == "terrain_type" and self._select_current())
        self.fill()

    def current(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.table.item(rows[0].row(), COL_ID).data(QtCore.Qt.ItemDataRole.UserRole)

    def schedule_fill(self) -> None:
        """Refill after the current signal (the table item that reported an edit must outlive it)."""
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self.fill)

    def fill(self) -> None:
        self._pending = False
        self._filling = True
        scene = self.doc.scene
        self.table.setRowCount(len(scene.terrain_types))
        for r, t in enumerate(scene.terrain_types):
            # Items are updated in place, never replaced, so an editor open on one of them stays valid.
            cells = [self.table.item(r, c) for c in range(4)]
            if any(c is None for c in cells):
                cells = [QtWidgets.QTableWidgetItem() for _ in range(4)]
                for c, it in enumerate(cells):
                    self.table.setItem(r, c, it)
                for c in (COL_SWATCH, COL_USED):
                    cells[c].setFlags(cells[c].flags() & ~QtCore.Qt.ItemFlag.ItemIsEditable)
            swatch, ident, name, used = cells
            swatch.setIcon(swatch_icon(t.color))
            swatch.setToolTip(f"{t.color}: double-click to change the colour")
            ident.setText(t.id)
            ident.setData(QtCore.Qt.ItemDataRole.UserRole, t.id)
            ident.setToolTip("The id files and profiles use; double-click to rename")
            name.setText(t.name)
            default = " (default)" if t.id == scene.default_terrain else ""
            used.setText(f"{terrain_type_usage(scene, t.id)}{default}")
        self.table.resizeColumnToContents(COL_SWATCH)
        self.table.resizeColumnToContents(COL_ID)
        self._filling = False
        self._select_current()

    def _select_current(self) -> None:
        for r in range(self.table.rowCount()):
            if self.table.item(r, COL_ID).data(QtCore.Qt.ItemDataRole.UserRole) == self.state.terrain_type:
                if self.current() != self.state.terrain_type:
                    self.table.selectRow(r)
                return

    def _selected(self) -> None:
        cur = self.current()
        if cur is not None:
            self.state.set("terrain_type", cur)

    def _edited(self, item: QtWidgets.QTableWidgetItem) -> None:
        if self._filling:
            return
        type_id = self.table.item(item.row(), COL_ID).data(QtCore.Qt.ItemDataRole.UserRole)
        t = find(self.doc.scene, "terrain_type", type_id)
        if t is None:
            return
        if item.column() == COL_ID:
            try:
                changes = rename(self.doc.scene, "terrain_type", type_id, item.text())
            except ValueError as e:
                self.editor.message(f"Cannot rename: {e.args[0]}")
                self.fill()
                return
            self.editor.apply(changes, f"Rename terrain type {type_id}")
            self.state.set("terrain_type", item.text().strip())
        elif item.column() == COL_NAME and item.text() != t.name:
            self.editor.apply(replace_item(self.doc.scene, "terrain_type", type_id,
                                           dataclasses.replace(t, name=item.text())), "Rename terrain type")

    def _double_clicked(self, row: int, col: int) -> None:
        if col == COL_SWATCH:
            self.pick_colour()

    def add_type(self) -> str:
        scene = self.doc.scene
        tid = new_id(scene, "terrain_type")
        colour = new_type_colour([t.color for t in scene.terrain_types])
        self.editor.apply(add_item(scene, "terrain_type", TerrainType(tid, tid.capitalize(), colour)),
                          "Add terrain type")
        self.state.set("terrain_type", tid)
        return tid

    def pick_colour(self) -> None:
        tid = self.current()
        t = find(self.doc.scene, "terrain_type", tid) if tid else None
        if t is None:
            return
        c = dialogs.ask_color(self, t.color)
        if c is not None and c != t.color:
            self.editor.apply(replace_item(self.doc.scene, "terrain_type", tid, dataclasses.replace(t, color=c)),
                              "Change terrain colour")

    def make_default(self) -> None:
        tid = self.current()
        if tid is not None and tid != self.doc.scene.default_terrain:
            self.editor.apply({"default_terrain": tid}, "Change default terrain")

    def remove_type(self, tid: str | None) -> bool:
        """Remove a type; when polygons use it (or it is the default) ask what becomes of them."""
        scene = self.doc.scene
        if tid is None:
            return False
        if len(scene.terrain_types) < 2:
            self.editor.message("A scene needs at least one terrain type.")
            return False
        used = terrain_type_usage(scene, tid)
        is_default = tid == scene.default_terrain
        replacement: str | None = None
        if used or is_default:
            others = [t for t in scene.terrain_types if t.id != tid]
            options = [f"Repaint as “{t.name or t.id}”" for t in others]
            if not is_default:
                options.append(f"Delete the {used} polygon{'s' if used != 1 else ''}")
            what = (f"{used} terrain polygon{'s' if used != 1 else ''} use{'s' if used == 1 else ''} “{tid}”"
                    + (" and it is the default type" if is_default else "") + ".")
            choice = dialogs.ask_choice(self, "Remove terrain type", f"{what} What should become of them?", options)
            if choice is None:
                return False
            replacement = others[choice].id if choice < len(others) else None
        try:
            changes = remove_terrain_type(scene, tid, replacement)
        except ValueError as e:
            self.editor.message(str(e))
            return False
        self.editor.apply(changes, f"Remove terrain type {tid}")
        return True
