"""File > Import: pick a drawing or map, preview what becomes an obstacle, a terrain type or a route, then replace
the scene's contents in one undoable edit. The reading and cleaning are ``core.importers.ImportSession``; this
module only shows the session's layers and result and applies it."""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.importers import NO_LAYER, ImportResult, ImportSession
from core.scene import InputError

from . import qt_dialogs as dialogs
from .layers.arrays import obstacle_rings, route_lines, terrain_runs
from .layers.qt_base import OBSTACLE_EDGE, OBSTACLE_FILL, brush
from .layers.qt_items import PathsItem, cosmetic_pen, lines_path, rings_path
from .qt_commands import QtSetFieldsCommand

# What an import replaces (the scene's name, units and simulation settings stay). The measurement area and line
# were drawn on the contents replaced: they go with them (they could lie outside the new bounds).
IMPORTED_FIELDS = ("bounds", "terrain_types", "default_terrain", "obstacles", "terrains", "profiles", "routes",
                   "networks", "agents", "heightfield", "measurement")
ROLE_CHOICES = ("obstacle", "route", "ignore")
ROUTE_COLOR = "#2f6fdf"
# What GeoJSON/OGR coordinates are: the first entry leaves it to the file (lon/lat unless it names a CRS).
CRS_CHOICES = (("As the file says", None), ("These coordinates are metres", "metres"))


class _Busy:
    """A wait cursor while a file is read or cleaned (small files take milliseconds, an OSM extract seconds)."""

    def __enter__(self) -> None:
        QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc) -> None:
        QtWidgets.QApplication.restoreOverrideCursor()


class QtImportPreview(QtWidgets.QDialog):
    """The layers of the file with an editable role each, a drawing of the result and the cleaning report.
    ``result`` is the ImportResult for the roles shown, or None while they give no valid scene."""

    def __init__(self, parent: QtWidgets.QWidget | None, session: ImportSession) -> None:
        super().__init__(parent)
        self.setObjectName("import_preview")
        self.setWindowTitle(f"Import {session.path.name}")
        self.session = session
        self.result: ImportResult | None = None
        self.table = QtWidgets.QTableWidget(0, 3)
        self.table.setObjectName("import_layers")
        self.table.setHorizontalHeaderLabels(["Layer", "Features", "Becomes"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setAspectLocked(True)
        self.plot.setMinimumSize(420, 320)
        self.items = PathsItem()
        self.plot.addItem(self.items)
        self.report = QtWidgets.QListWidget()
        self.report.setObjectName("import_report")
        self.crs = QtWidgets.QComboBox()
        self.crs.setObjectName("import_crs")
        self.crs.setEditable(True)
        for label, value in CRS_CHOICES:
            self.crs.addItem(label, value)
        self.crs.setToolTip("What the file's coordinates are: as the file says (longitude/latitude unless it names "
                            "a CRS), metres, or a CRS such as EPSG:32632 (type it and press Enter)")
        self.crs.textActivated.connect(self.set_crs)
        self.crs.lineEdit().editingFinished.connect(lambda: self.set_crs(self.crs.currentText()))
        self.crs.setVisible(session.accepts_crs())
        self.buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.addButton("Import", QtWidgets.QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok.setObjectName("import_ok")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        split = QtWidgets.QSplitter()
        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.crs)
        ll.addWidget(self.table)
        ll.addWidget(self.report)
        split.addWidget(left)
        split.addWidget(self.plot)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(split)
        lay.addWidget(self.buttons)
        self.resize(1000, 600)
        self._fill_table()
        self.rebuild()

    def _fill_table(self) -> None:
        layers = self.session.layers()
        self.table.setRowCount(len(layers))
        for r, (name, roles) in enumerate(layers.items()):
            self.table.setItem(r, 0, QtWidgets.QTableWidgetItem(name or NO_LAYER))
            self.table.setItem(r, 1, QtWidgets.QTableWidgetItem(str(sum(roles.values()))))
            combo = QtWidgets.QComboBox()
            combo.setEditable(True)
            combo.setObjectName(f"role:{name}")
            role = max(roles, key=roles.get)
            options = list(ROLE_CHOICES) + ([role] if role not in ROLE_CHOICES else [])
            combo.addItems(options)
            combo.setCurrentText(role)
            combo.setToolTip("obstacle, route, ignore, or terrain:TYPE (a terrain type id)")
            # A role applies when chosen from the list or when typing ends (Enter, focus out), not per keystroke.
            combo.textActivated.connect(lambda text, name=name: self.set_role(name, text))
            combo.lineEdit().editingFinished.connect(lambda c=combo, name=name: self.set_role(name, c.currentText()))
            self.table.setCellWidget(r, 2, combo)

    def set_crs(self, text: str) -> None:
        """Read the file again with its coordinates declared (a choice of the list, or a CRS typed in), keeping
        the roles, and clean it again."""
        value = next((v for label, v in CRS_CHOICES if label == text), text.strip() or None)
        if value == self.session.opts.crs and self.result is not None:
            return
        try:
            with _Busy():
                self.session.set_crs(value)
        except InputError as e:
            self._show_problems(e)
            return
        self._fill_table()
        self.rebuild()

    def set_role(self, layer: str, text: str) -> None:
        """Give a layer another role and clean the file again (nothing to do when the role is the same)."""
        if self.result is not None and self.session.layers().get(layer, {}).keys() == {text.strip()}:
            return
        try:
            with _Busy():
                self.session.set_role(layer, text)
        except InputError as e:
            self._show_problems(e)
            return
        self.rebuild()

    def rebuild(self) -> None:
        """Clean the file with the roles shown and draw the result (or list why it cannot be imported)."""
        try:
            with _Busy():
                self.result = self.session.build()
        except InputError as e:
            self._show_problems(e)
            return
        self.report.clear()
        self.report.addItems(self.result.report.lines())
        self.ok.setEnabled(True)
        self._draw(self.result)

    def _show_problems(self, e: InputError) -> None:
        self.result = None
        self.report.clear()
        self.report.addItems(["Cannot import with these roles:"] + [str(p) for p in e.problems])
        self.ok.setEnabled(False)
        self.items.set_groups([])

    def _draw(self, result: ImportResult) -> None:
        scene = result.scene
        colors = {t.id: t.color for t in scene.terrain_types}
        groups = [(rings_path(rings), cosmetic_pen(QtGui.QColor(colors[tid]).darker(130), 1.0),
                   brush(colors[tid])) for tid, rings in terrain_runs(scene)]
        groups.append((rings_path(obstacle_rings(scene)), cosmetic_pen(OBSTACLE_EDGE, 1.0), brush(OBSTACLE_FILL)))
        lines, _ = route_lines(scene)
        groups.append((lines_path(lines), cosmetic_pen(ROUTE_COLOR, 2.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush)))
        x0, y0, x1, y1 = scene.bounds
        box = QtGui.QPainterPath()
        box.addRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        groups.insert(0, (box, cosmetic_pen("#888888", 1.0), brush(colors[scene.default_terrain])))
        self.items.set_groups(groups)
        self.plot.setRange(xRange=(x0, x1), yRange=(y0, y1))


def ask_import_preview(parent: QtWidgets.QWidget, session: ImportSession) -> ImportResult | None:
    """The preview as a modal dialog: the accepted result, or None when cancelled (tests replace this function,
    as they replace ``qt_dialogs``' questions)."""
    dlg = QtImportPreview(parent, session)
    ok = dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted
    return dlg.result if ok else None


class QtImporter:
    """File > Import for a window: ``import_dialog`` asks for a file, ``import_path`` previews and applies one."""

    def __init__(self, window) -> None:
        self.w = window

    def import_dialog(self) -> bool:
        folder = str(self.w.doc.path.parent) if self.w.doc.path is not None else str(Path.home())
        path = dialogs.ask_import_path(self.w, folder)
        return self.import_path(path) if path else False

    def import_path(self, path: str | Path) -> bool:
        """Read a file, show the preview and, when accepted, replace the scene's contents in one undo step."""
        try:
            with _Busy():
                session = ImportSession(path)
        except InputError as e:
            dialogs.show_problems(self.w, "Cannot import", f"{Path(path).name} cannot be imported.",
                                  [str(p) for p in e.problems])
            return False
        result = ask_import_preview(self.w, session)
        if result is None:
            return False
        self.apply(result, Path(path).name)
        return True

    def apply(self, result: ImportResult, name: str) -> None:
        """Replace the scene's geometry, types, profiles, routes and agents by the import's: one undoable edit."""
        new = {k: getattr(result.scene, k) for k in IMPORTED_FIELDS}
        self.w.undo_stack.push(QtSetFieldsCommand(self.w.doc, new, f"Import {name}", select=()))
        self.w.show_editor()
        self.w.fit()
