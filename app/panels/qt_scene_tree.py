"""The scene panel: a tree of layers and their items, with a visibility and a lock toggle per layer.

The model reads the document's scene directly (nothing is copied per item), so a city's thousands of items cost
nothing until their rows are shown. Selecting rows selects the items; double-clicking an item zooms to it.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.edits import find, items

from ..qt_editor import QtEditor
from ..paths import resources_dir
from ..model.document import LAYER_KINDS, LAYER_TITLES

# Top to bottom as drawn: the topmost layer first, like an image editor's layer list.
TREE_ORDER = tuple(reversed(LAYER_KINDS))
COLUMNS = ("Layer", "", "")
COLUMN_ICONS = (None, "eye", "lock")
Role = QtCore.Qt.ItemDataRole
# Every layer's rows, top to bottom, as (item id, the row's text, its colour or "").
Rows = tuple[tuple[tuple[str, str, str], ...], ...]
# The flags of a layer's row (its toggles checkable) and of an item's row, made once: the view asks for them row by
# row when it lays a layer out, and OR-ing Qt's flags in Python costs as much as the rest of the call. An item's row
# says it never has rows under it, which spares the view asking for its row count.
Flag = QtCore.Qt.ItemFlag
LAYER_FLAGS = (Flag.ItemIsEnabled, Flag.ItemIsEnabled | Flag.ItemIsUserCheckable)
ITEM_FLAGS = Flag.ItemIsEnabled | Flag.ItemIsSelectable | Flag.ItemNeverHasChildren


def describe(scene, kind: str, it) -> str:
    """A short description of an item for lists."""
    if kind == "terrain":
        return f"{it.type}, {len(it.polygon)} vertices" + (f", {len(it.holes)} holes" if it.holes else "")
    if kind == "obstacle":
        return f"{len(it.polygon)} vertices"
    if kind == "route":
        return f"{len(it.points)} points"
    if kind == "network":
        return f"{len(it.nodes)} nodes, {len(it.edges)} edges"
    if kind == "agent":
        how = f"route {it.route}" if it.route is not None else f"{it.planner or 'cdt'} planner"
        return f"{it.profile}, {how}"
    return ""


class SceneTreeModel(QtCore.QAbstractItemModel):
    """Layers as top-level rows (internal id 0), items as their children (internal id = layer row + 1)."""

    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.doc = editor.doc

    def kind_of(self, index: QtCore.QModelIndex) -> str:
        if index.internalId() == 0:
            return TREE_ORDER[index.row()]
        return TREE_ORDER[index.internalId() - 1]

    def index(self, row: int, column: int, parent=QtCore.QModelIndex()) -> QtCore.QModelIndex:
        # Checked here rather than by hasIndex, which asks rowCount and columnCount back through Python.
        if not 0 <= column < len(COLUMNS) or row < 0:
            return QtCore.QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, 0) if row < len(TREE_ORDER) else QtCore.QModelIndex()
        if parent.internalId() != 0 or parent.column() != 0 or \
                row >= len(items(self.doc.scene, TREE_ORDER[parent.row()])):
            return QtCore.QModelIndex()
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, index=QtCore.QModelIndex()) -> QtCore.QModelIndex:
        if not index.isValid() or index.internalId() == 0:
            return QtCore.QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        if not parent.isValid():
            return len(TREE_ORDER)
        if parent.internalId() == 0 and parent.column() == 0:
            return len(items(self.doc.scene, TREE_ORDER[parent.row()]))
        return 0

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Role.DisplayRole):
        if orientation != QtCore.Qt.Orientation.Horizontal:
            return None
        if role == Role.DisplayRole:
            return COLUMNS[section]
        if role == Role.DecorationRole and COLUMN_ICONS[section]:
            return QtGui.QIcon(str(resources_dir() / "icons" / f"{COLUMN_ICONS[section]}.svg"))
        if role == Role.ToolTipRole:
            return ("", "Show the layer", "Lock the layer against edits")[section] or None
        return None

    def flags(self, index):
        if not index.isValid():
            return Flag.NoItemFlags
        if index.internalId() == 0:
            return LAYER_FLAGS[index.column() > 0]
        return ITEM_FLAGS

    def data(self, index, role=Role.DisplayRole):
        if not index.isValid():
            return None
        kind = self.kind_of(index)
        state = self.doc.layers[kind]
        if index.internalId() == 0:
            if index.column() == 0 and role == Role.DisplayRole:
                return f"{LAYER_TITLES[kind]}  ({len(items(self.doc.scene, kind))})"
            if index.column() == 0 and role == Role.FontRole:
                f = QtGui.QFont()
                f.setBold(True)
                return f
            if index.column() == 1 and role == Role.CheckStateRole:
                return QtCore.Qt.CheckState.Checked if state.visible else QtCore.Qt.CheckState.Unchecked
            if index.column() == 2 and role == Role.CheckStateRole:
                return QtCore.Qt.CheckState.Checked if state.locked else QtCore.Qt.CheckState.Unchecked
            if role == Role.ToolTipRole:
                return ["", "Show this layer", "Lock this layer against edits"][index.column()] or None
            return None
        lst = items(self.doc.scene, kind)
        if index.row() >= len(lst) or index.column() != 0:
            return None
        it = lst[index.row()]
        if role == Role.DisplayRole:
            return self._text(kind, it)
        if role == Role.ForegroundRole and (state.locked or not state.visible):
            return QtGui.QBrush(QtGui.QColor("#9ca3af"))
        if role == Role.DecorationRole and (colour := self._colour(kind, it)) is not None:
            pm = QtGui.QPixmap(12, 12)
            pm.fill(QtGui.QColor(colour))
            return QtGui.QIcon(pm)
        return None

    def setData(self, index, value, role=Role.EditRole) -> bool:
        if role != Role.CheckStateRole or index.internalId() != 0 or index.column() == 0:
            return False
        checked = QtCore.Qt.CheckState(value) == QtCore.Qt.CheckState.Checked
        kind = self.kind_of(index)
        if index.column() == 1:
            self.doc.set_layer(kind, visible=checked)
        else:
            self.doc.set_layer(kind, locked=checked)
        self.dataChanged.emit(index, index.sibling(index.row(), 2))
        return True

    def reset(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def rows(self) -> Rows:
        """Every layer's rows as (id, text, colour): what the view shows of each item, row by row."""
        out = []
        for kind in TREE_ORDER:
            out.append(tuple((it.id, self._text(kind, it), self._colour(kind, it) or "")
                             for it in items(self.doc.scene, kind)))
        return tuple(out)

    def refresh_rows(self, old: Rows, new: Rows) -> None:
        """The same items in the same rows (``old`` and ``new`` from ``rows``): the rows whose text or colour
        changed are shown anew; the view keeps its layout, selection and scroll (a reset lays it all out again)."""
        for r, (before, after) in enumerate(zip(old, new)):
            parent = self.index(r, 0)
            for k in (k for k, (a, b) in enumerate(zip(before, after)) if a != b):
                self.dataChanged.emit(self.index(k, 0, parent), self.index(k, 0, parent))

    def _text(self, kind: str, it) -> str:
        return f"{it.id}  —  {describe(self.doc.scene, kind, it)}"

    def _colour(self, kind: str, it) -> str | None:
        if kind != "terrain":
            return None
        t = find(self.doc.scene, "terrain_type", it.type)
        return t.color if t is not None else None


class QtSceneTree(QtWidgets.QWidget):
    """The scene panel. Signal ``focus_requested(kind, id)`` asks the viewport to show an item."""

    focus_requested = QtCore.Signal(str, str)

    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.doc = editor.doc
        self.model = SceneTreeModel(editor, self)
        self.tree = QtWidgets.QTreeView()
        self.tree.setObjectName("scene_tree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setAlternatingRowColors(True)
        self.tree.setMinimumWidth(250)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        for c in (1, 2):
            header.setSectionResizeMode(c, QtWidgets.QHeaderView.ResizeMode.Fixed)
            header.resizeSection(c, 26)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.tree)
        self._syncing = False
        self.tree.selectionModel().selectionChanged.connect(self._tree_selection)
        self.tree.doubleClicked.connect(self._double_clicked)
        self._rows = self.model.rows()
        self.doc.changed.connect(lambda fields: self._changed())
        self.doc.reset.connect(self._reset)
        self.doc.selection_changed.connect(self._doc_selection)
        self.doc.layers_changed.connect(lambda kind: self.tree.viewport().update())

    def _changed(self) -> None:
        """An edit that leaves the same items in the same rows (a move, a reshape) refreshes the rows it changed;
        items added, removed or reordered reset the tree."""
        rows = self.model.rows()
        if [[r[0] for r in layer] for layer in rows] == [[r[0] for r in layer] for layer in self._rows]:
            self.model.refresh_rows(self._rows, rows)
            self._rows = rows
        else:
            self._reset()

    def _reset(self) -> None:
        self._rows = self.model.rows()
        expanded = [k for r, k in enumerate(TREE_ORDER) if self.tree.isExpanded(self.model.index(r, 0))]
        self._syncing = True
        self.model.reset()
        for k in expanded:
            self.tree.expand(self.model.index(TREE_ORDER.index(k), 0))
        self._syncing = False
        self._doc_selection()

    def _doc_selection(self) -> None:
        if self._syncing:
            return
        self._syncing = True
        sel = QtCore.QItemSelection()
        scene = self.doc.scene
        rows: dict[str, dict[str, int]] = {}
        for kind, item_id in self.doc.selection:
            if kind not in rows:
                rows[kind] = {it.id: i for i, it in enumerate(items(scene, kind))}
            r = rows[kind].get(item_id, -1)
            if r >= 0:
                idx = self.model.index(r, 0, self.model.index(TREE_ORDER.index(kind), 0))
                sel.select(idx, idx)
        sm = self.tree.selectionModel()
        sm.select(sel, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect
                  | QtCore.QItemSelectionModel.SelectionFlag.Rows)
        if len(self.doc.selection) == 1 and sel.indexes():
            self.tree.scrollTo(sel.indexes()[0])
        self._syncing = False

    def _tree_selection(self, *args) -> None:
        if self._syncing:
            return
        refs = []
        for idx in self.tree.selectionModel().selectedIndexes():
            if idx.column() == 0 and idx.internalId() != 0:
                kind = self.model.kind_of(idx)
                refs.append((kind, items(self.doc.scene, kind)[idx.row()].id))
        self._syncing = True
        self.doc.select(refs)
        self._syncing = False

    def _double_clicked(self, idx: QtCore.QModelIndex) -> None:
        if idx.internalId() != 0:
            kind = self.model.kind_of(idx)
            self.focus_requested.emit(kind, items(self.doc.scene, kind)[idx.row()].id)
