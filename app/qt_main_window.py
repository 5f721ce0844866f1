"""The main window: wires the document, editor, tools, viewport, layers, panels and actions together.

It owns no editing logic (that is in ``qt_editor``, ``qt_files``, ``tools`` and ``core``); it builds the widgets from
the action table and connects signals. Later features (the simulation worker, its overlays and plots) attach the
same way: a layer added to ``self.layers``, a dock added with ``add_dock``, actions added to the table.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.edits import ITEM_KINDS, items

from . import qt_dialogs as dialogs
from . import qt_guide
from .actions import (
    ACTIONS, MENUS, REDO_KEYS, ActionSpec, key_sequences, key_text, menu_actions, shortcut_rows,
)
from .qt_editor import QtEditor
from .qt_files import QtFileController
from .qt_import import QtImporter
from .qt_test_path import QtTestPath
from .layers.qt_layer_set import LayerSet
from .model import Document, ToolState
from .model.outlines import vertices
from .panels.qt_inspector import QtInspector
from .panels.qt_profiles import QtProfiles
from .panels.qt_scene_tree import QtSceneTree
from .panels.qt_schedule import QtSchedule
from .panels.qt_terrain_types import QtTerrainTypes
from .panels.qt_tool_options import QtToolOptions
from .paths import config_dir, resources_dir
from .qt_icons import action_icon
from .qt_welcome import QtWelcome
from .settings import load_settings, save_settings
from .sim.qt_sim_ui import QtSimulationUi
from .tools import TOOL_CLASSES, ToolHost
from .viewport import QtViewport

CLIPBOARD_MIME = "application/x-miran-items+json"


class QtMainWindow(QtWidgets.QMainWindow):
    """MIRAN Studio's window. ``scene`` is the core Scene being edited."""

    def __init__(self, config: str | Path | None = None) -> None:
        super().__init__()
        self.setObjectName("main_window")
        self.setWindowIcon(QtGui.QIcon(str(resources_dir() / "icons" / "app.svg")))
        self.config = config_dir(config)
        self.settings = load_settings(self.config)
        self.doc = Document()
        self.state = ToolState()
        self.state.snap_grid = self.settings.snap_grid
        self.state.snap_vertices = self.settings.snap_vertices
        self.undo_stack = QtGui.QUndoStack(self)
        self.undo_stack.setUndoLimit(2000)
        self.editor = QtEditor(self.doc, self.state, self.undo_stack)
        self.host = ToolHost(self.editor)
        self.viewport = QtViewport()
        self.viewport.set_host(self.host)
        self.layers = LayerSet(self.doc, self.viewport.view, self.viewport.static)
        self.welcome = QtWelcome()
        self.central = QtWidgets.QStackedWidget()
        self.central.addWidget(self.viewport)
        self.central.addWidget(self.welcome)
        # The welcome page's cards must not set the editor's least width: the viewport may be small.
        self.central.setMinimumSize(240, 200)
        self.setCentralWidget(self.central)
        self.files = QtFileController(self, self.doc, self.undo_stack, self.settings, self.config)
        self.importer = QtImporter(self)
        self.test_path = QtTestPath(self)
        self.actions: dict[str, QtGui.QAction] = {}
        self._hidden_on_welcome: list[QtWidgets.QWidget] = []
        self._build_actions()
        self._build_docks()
        self._build_menus()
        self._build_toolbars()
        self._build_status()
        self._connect()
        self.sim = QtSimulationUi(self)
        self.sim.time_shown.connect(self.schedule.set_time)
        self.resize(1440, 900)
        if self.settings.window_geometry:
            self.restoreGeometry(QtCore.QByteArray.fromHex(self.settings.window_geometry.encode()))
        if self.settings.window_state:
            self.restoreState(QtCore.QByteArray.fromHex(self.settings.window_state.encode()))
        self._scene_loaded()
        self.set_tool("select")

    @property
    def scene(self):
        """The core Scene being edited (a new object after every edit; see Document)."""
        return self.doc.scene

    # -- building ----------------------------------------------------------------------------------------------

    def _resolve(self, path: str):
        obj = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def _make_action(self, spec: ActionSpec) -> QtGui.QAction:
        a = QtGui.QAction(spec.title.replace("&", "") if spec.menu == "" else spec.title, self)
        a.setObjectName(spec.id)
        a.setShortcuts(key_sequences(spec.key))
        a.setToolTip(f"{spec.tip} ({key_text(spec.key)})" if spec.key and spec.tip else spec.tip or spec.title)
        a.setStatusTip(spec.tip)
        if spec.icon:
            a.setIcon(action_icon(self, spec.icon))
        if spec.checkable:
            a.setCheckable(True)
            a.toggled.connect(lambda on, spec=spec: self._resolve(spec.run)(on))
        else:
            a.triggered.connect(lambda _=False, spec=spec: self._resolve(spec.run)())
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        for spec in ACTIONS:
            self.actions[spec.id] = self._make_action(spec)
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        for a, name, key, icon in ((undo, "edit.undo", QtGui.QKeySequence.StandardKey.Undo, "undo"),
                                   (redo, "edit.redo", REDO_KEYS, "redo")):
            a.setObjectName(name)
            a.setShortcuts(key_sequences(key))
            a.setIcon(action_icon(self, icon))
            self.addAction(a)
            self.actions[name] = a
        self.tool_group = QtGui.QActionGroup(self)
        self.tool_group.setExclusive(True)
        for cls in TOOL_CLASSES:
            a = QtGui.QAction(action_icon(self, cls.name), cls.title, self)
            a.setObjectName(f"tool.{cls.name}")
            a.setCheckable(True)
            a.setShortcut(QtGui.QKeySequence(cls.shortcut))
            a.setToolTip(f"<b>{cls.title}</b> ({cls.shortcut})<br>{cls.hint}")
            a.setStatusTip(cls.hint)
            a.triggered.connect(lambda _=False, name=cls.name: self.set_tool(name))
            self.tool_group.addAction(a)
            self.addAction(a)
            self.actions[f"tool.{cls.name}"] = a
        self.actions["view.test_path"].setChecked(True)
        self.actions["view.grid"].setChecked(self.settings.show_grid)
        self.actions["view.snap_grid"].setChecked(self.state.snap_grid)
        self.actions["view.snap_vertices"].setChecked(self.state.snap_vertices)
        self.viewport.grid.setVisible(self.settings.show_grid)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.menus: dict[str, QtWidgets.QMenu] = {name: bar.addMenu(f"&{name}") for name in MENUS}
        m = self.menus
        m["Edit"].addAction(self.actions["edit.undo"])
        m["Edit"].addAction(self.actions["edit.redo"])
        m["Edit"].addSeparator()
        for spec in ACTIONS:
            if spec.id == "file.quit":
                self.recent_menu = m["File"].addMenu("Open &Recent")
                m["File"].addSeparator()
            m[spec.menu].addAction(self.actions[spec.id])
            if spec.id in ("file.save_as", "edit.paste", "edit.delete", "view.fit", "view.snap_vertices"):
                m[spec.menu].addSeparator()
        for cls in TOOL_CLASSES:
            m["Tools"].addAction(self.actions[f"tool.{cls.name}"])
        m["View"].addSeparator()
        self.panels_menu = m["View"].addMenu("&Panels")
        for dock in self.docks.values():
            self.panels_menu.addAction(dock.toggleViewAction())
        self._fill_recent()

    def _build_toolbars(self) -> None:
        main = self.addToolBar("Main")
        main.setObjectName("toolbar.main")
        main.setIconSize(QtCore.QSize(20, 20))
        for name in ("file.new", "file.open", "file.save", None, "edit.undo", "edit.redo", None, "view.fit",
                     "view.snap_grid", "view.snap_vertices"):
            if name is None:
                main.addSeparator()
            else:
                main.addAction(self.actions[name])
        self.options = QtToolOptions(self.editor, self)
        self.addToolBar(self.options)
        tools = QtWidgets.QToolBar("Tools")
        tools.setObjectName("toolbar.tools")
        tools.setIconSize(QtCore.QSize(26, 26))
        tools.setMovable(False)
        for cls in TOOL_CLASSES:
            tools.addAction(self.actions[f"tool.{cls.name}"])
        self.addToolBar(QtCore.Qt.ToolBarArea.LeftToolBarArea, tools)

    def add_dock(self, name: str, title: str, widget: QtWidgets.QWidget,
                 area=QtCore.Qt.DockWidgetArea.RightDockWidgetArea) -> QtWidgets.QDockWidget:
        """Add a panel as a dock widget (objectName ``dock.<name>``)."""
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(f"dock.{name}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def _build_docks(self) -> None:
        self.docks: dict[str, QtWidgets.QDockWidget] = {}
        self.scene_tree = QtSceneTree(self.editor)
        self.inspector = QtInspector(self.editor)
        self.terrain_types = QtTerrainTypes(self.editor)
        self.profiles = QtProfiles(self.editor)
        self.history = QtWidgets.QUndoView(self.undo_stack)
        self.history.setObjectName("history")
        self.history.setEmptyLabel("Opened scene")
        left = QtCore.Qt.DockWidgetArea.LeftDockWidgetArea
        self.add_dock("scene", "Scene", self.scene_tree, left)
        self.add_dock("history", "History", self.history, left)
        self.add_dock("inspector", "Inspector", self.inspector)
        self.add_dock("terrain_types", "Terrain Types", self.terrain_types)
        self.add_dock("profiles", "Profiles", self.profiles)
        self.schedule = QtSchedule(self.editor)
        self.add_dock("schedule", "Schedule", self.schedule)
        self.tabifyDockWidget(self.docks["terrain_types"], self.docks["profiles"])
        self.tabifyDockWidget(self.docks["profiles"], self.docks["schedule"])
        self.docks["terrain_types"].raise_()
        self.resizeDocks([self.docks["scene"], self.docks["inspector"]], [300, 340],
                         QtCore.Qt.Orientation.Horizontal)

    def _build_status(self) -> None:
        bar = self.statusBar()
        self.hint_label = QtWidgets.QLabel()
        self.hint_label.setObjectName("status.hint")
        bar.addWidget(self.hint_label, 1)
        self.zoom_label = QtWidgets.QLabel()
        self.coords_label = QtWidgets.QLabel("x —  y —")
        self.coords_label.setObjectName("status.coords")
        self.coords_label.setMinimumWidth(190)
        self.coords_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        bar.addPermanentWidget(self.zoom_label)
        bar.addPermanentWidget(self.coords_label)

    def _connect(self) -> None:
        self.host.preview_changed.connect(
            lambda preview: self.viewport.sync.defer("preview", partial(self.layers.preview.show_preview, preview)))
        self.host.preview_changed.connect(lambda _: self.inspector.show_vertex(self.host.chosen_vertex()))
        self.host.hint_changed.connect(self.hint_label.setText)
        self.host.tool_changed.connect(lambda name: self.actions[f"tool.{name}"].setChecked(True))
        self.editor.flash.connect(self.layers.preview.flash)
        self.host.dropped.connect(self.layers.preview.clear_flash)
        self.editor.messages.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.viewport.cursor_moved.connect(self._cursor_moved)
        self.viewport.zoom_changed.connect(self._zoom_changed)
        self.viewport.viewport().installEventFilter(self)
        self.doc.changed.connect(self._fields_changed)
        self.doc.path_changed.connect(self._update_title)
        self.undo_stack.cleanChanged.connect(self._update_title)
        self.undo_stack.indexChanged.connect(self._index_changed)
        self.files.loaded.connect(self._file_loaded)
        self.files.recent_changed.connect(self._fill_recent)
        self.welcome.open_requested.connect(self.files.open_path)
        self.welcome.new_requested.connect(self.files.new_dialog)
        self.welcome.open_file_requested.connect(self.files.open_dialog)
        self.scene_tree.focus_requested.connect(self.focus_item)

    # -- reactions ---------------------------------------------------------------------------------------------

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QtCore.QEvent.Type.MouseButtonPress:
            self.layers.preview.clear_flash()
        return False

    def _scene_loaded(self) -> None:
        self.viewport.set_bounds(self.doc.scene.bounds)
        scene = self.doc.scene
        painted = [t.id for t in scene.terrain_types if t.id != scene.default_terrain]
        self.state.set("terrain_type", painted[0] if painted else scene.default_terrain)
        self.state.fit_to(scene)
        self.host.reset()
        self._update_title()
        if self.schedule.rows():
            self.docks["schedule"].raise_()     # a scene whose obstacles come, go or move opens on its schedule
        self.fit()
        QtCore.QTimer.singleShot(0, self.fit)

    def _file_loaded(self) -> None:
        self._scene_loaded()
        self.show_editor()

    def _fields_changed(self, fields) -> None:
        if "bounds" in fields:
            self.viewport.set_bounds(self.doc.scene.bounds)
        self.state.fit_to(self.doc.scene)

    def _index_changed(self, index: int) -> None:
        self.host.refresh()

    def _update_title(self, *args) -> None:
        self.setWindowTitle(f"{self.files.display_name()}[*] — MIRAN Studio")
        self.setWindowModified(self.files.is_dirty())

    def _cursor_moved(self, x: float, y: float) -> None:
        self.coords_label.setText(f"x {x:,.2f} m   y {y:,.2f} m")

    def _zoom_changed(self, pixel: float) -> None:
        self.editor.grid_step = self.viewport.grid_step()
        self.layers.view_changed(pixel)
        self.zoom_label.setText(f"grid {self.viewport.grid_step():g} m   ")

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        paths = self.files.recent_files()
        for p in paths:
            a = self.recent_menu.addAction(str(p))
            a.triggered.connect(lambda _=False, p=p: self.files.open_path(p))
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("Clear Recent Files")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(self.files.clear_recent)
        self.welcome.set_recent(paths)

    # -- commands (the action table's targets) -----------------------------------------------------------------

    def show_editor(self) -> None:
        if self.central.currentWidget() is self.welcome:
            for bar in self._hidden_on_welcome:
                bar.show()
            self._hidden_on_welcome = []
        self.central.setCurrentWidget(self.viewport)
        self.viewport.setFocus()
        QtCore.QTimer.singleShot(0, self.fit)

    def show_welcome(self) -> None:
        """The welcome page takes the whole window: the panels and tool bars have nothing to show yet."""
        if self.central.currentWidget() is not self.welcome:
            bars = [*self.docks.values(), *self.findChildren(QtWidgets.QToolBar)]
            self._hidden_on_welcome = [b for b in bars if not b.isHidden()]
            for bar in self._hidden_on_welcome:
                bar.hide()
        self.central.setCurrentWidget(self.welcome)

    def set_tool(self, name: str) -> None:
        if self.central.currentWidget() is not self.viewport:
            self.show_editor()
        self.host.set_tool(name)
        self.actions[f"tool.{name}"].setChecked(True)

    def cut(self) -> None:
        if self.copy():
            self.editor.delete_selection()

    def copy(self) -> bool:
        text = self.editor.copy_text()
        if text is None:
            return False
        mime = QtCore.QMimeData()
        mime.setData(CLIPBOARD_MIME, QtCore.QByteArray(text.encode("utf-8")))
        mime.setText(text)
        QtWidgets.QApplication.clipboard().setMimeData(mime)
        n = len(self.doc.selection)
        self.statusBar().showMessage(f"Copied {n} item{'s' if n != 1 else ''}.", 4000)
        return True

    def paste(self) -> None:
        mime = QtWidgets.QApplication.clipboard().mimeData()
        if mime is None:
            return
        if mime.hasFormat(CLIPBOARD_MIME):
            text = bytes(mime.data(CLIPBOARD_MIME).data()).decode("utf-8")
        else:
            text = mime.text()
        if text:
            self.editor.paste_text(text)

    def duplicate(self) -> None:
        """Edit > Duplicate: an offset copy of the selection, without touching the clipboard."""
        self.editor.duplicate_selection()

    def delete(self) -> None:
        if not self.host.delete():
            self.editor.delete_selection()

    def select_all(self) -> None:
        kinds = self.doc.editable_kinds()
        self.doc.select([(k, it.id) for k in ITEM_KINDS if k in kinds for it in items(self.doc.scene, k)])

    def deselect(self) -> None:
        self.doc.select([])

    def zoom_in(self) -> None:
        self.viewport.zoom(1.25)

    def zoom_out(self) -> None:
        self.viewport.zoom(0.8)

    def fit(self) -> None:
        self.viewport.fit()

    def focus_item(self, kind: str, item_id: str) -> None:
        """Zoom to an item (with a margin) and select it."""
        pts = vertices(self.doc.scene, [(kind, item_id)])
        if len(pts) == 0:
            return
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = max(float(np.max(hi - lo)) * 0.4, 5.0)
        self.viewport.view.setRange(QtCore.QRectF(lo[0] - pad, lo[1] - pad, hi[0] - lo[0] + 2 * pad,
                                                  hi[1] - lo[1] + 2 * pad), padding=0)
        self.doc.select([(kind, item_id)])

    def set_grid_visible(self, on: bool) -> None:
        self.viewport.grid.setVisible(on)
        self.settings.show_grid = on

    def set_snap_grid(self, on: bool) -> None:
        self.state.set("snap_grid", on)
        self.settings.snap_grid = on

    def set_snap_vertices(self, on: bool) -> None:
        self.state.set("snap_vertices", on)
        self.settings.snap_vertices = on

    def show_guide(self) -> QtWidgets.QWidget | None:
        """Help > User Guide: the built HTML guide in the browser, else its Markdown pages in a window (returned)."""
        return qt_guide.open_guide(self)

    def show_shortcuts(self) -> QtWidgets.QDialog:
        """A non-modal list of every shortcut and mouse gesture (objectName ``shortcuts_dialog``), read from the
        menus' actions (every menu, the simulation's included) so it lists what the keys really do."""
        menus = [a.menu() for a in self.menuBar().actions() if a.menu() is not None]
        return dialogs.show_table(self, "shortcuts_dialog", "Keyboard Shortcuts", ("Command", "Shortcut"),
                                  shortcut_rows(menu_actions(menus)))

    def show_about(self) -> None:
        dialogs.show_message(self, "About MIRAN Studio",
                             "MIRAN Studio — a scene editor and simulator for terrain-aware path planning "
                             "(MIRAN, IRM, disc MIRAN, ECM).")

    # -- the live simulation (app.sim) -------------------------------------------------------------------------

    def latest_positions(self) -> np.ndarray:
        """The (N, 2) simulated agent positions last drawn."""
        return self.sim.latest_positions()

    def export_paths(self, path) -> Path:
        """Write the walked paths (miran-paths JSON, or CSV for a .csv path); returns when the file is written."""
        return self.sim.export_paths(path)

    # -- closing -----------------------------------------------------------------------------------------------

    def closeEvent(self, ev: QtGui.QCloseEvent) -> None:
        if not self.files.maybe_save():
            ev.ignore()
            return
        for bar in self._hidden_on_welcome:
            bar.show()
        self.settings.window_geometry = bytes(self.saveGeometry().toHex()).decode()
        self.settings.window_state = bytes(self.saveState().toHex()).decode()
        try:
            save_settings(self.config, self.settings)
        except OSError:
            pass
        self.files.shutdown()
        self.sim.shutdown()
        self.test_path.shutdown()
        ev.accept()
