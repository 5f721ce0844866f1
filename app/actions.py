"""The app's actions as data (as napari's app-model actions): id (the QAction's objectName), title, menu, key,
and the dotted path of the window attribute that runs it. The window builds menus, toolbars and the Help
menu's shortcut list from this table."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

SK = QKeySequence.StandardKey


@dataclass(frozen=True)
class ActionSpec:
    """One command. ``key`` is a QKeySequence.StandardKey (platform conventions) or a key string; ``run`` is a
    dotted attribute path from the main window to a callable taking no argument (or, when ``checkable``, the new
    checked state)."""

    id: str
    title: str
    menu: str
    run: str
    key: SK | str | None = None
    tip: str = ""
    checkable: bool = False
    icon: str | None = None
    toolbar: str | None = None


MENUS = ("File", "Edit", "View", "Tools", "Help")

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("file.new", "&New Scene…", "File", "files.new_dialog", SK.New, "Start an empty scene",
               icon="new", toolbar="main"),
    ActionSpec("file.open", "&Open…", "File", "files.open_dialog", SK.Open, "Open a scene file",
               icon="open", toolbar="main"),
    ActionSpec("file.save", "&Save", "File", "files.save", SK.Save, "Save the scene", icon="save",
               toolbar="main"),
    ActionSpec("file.save_as", "Save &As…", "File", "files.save_as", SK.SaveAs, "Save the scene to another file"),
    ActionSpec("file.import", "&Import…", "File", "importer.import_dialog", "Ctrl+I",
               "A scene from SVG, DXF, Tiled, GeoJSON/Shapefile or OpenStreetMap, previewed before it replaces "
               "this one"),
    ActionSpec("file.welcome", "Shipped Scenes…", "File", "show_welcome", None, "Choose one of the shipped scenes"),
    ActionSpec("file.quit", "&Quit", "File", "close", SK.Quit, "Close MIRAN Studio"),
    ActionSpec("edit.cut", "Cu&t", "Edit", "cut", SK.Cut, "Cut the selection"),
    ActionSpec("edit.copy", "&Copy", "Edit", "copy", SK.Copy, "Copy the selection"),
    ActionSpec("edit.paste", "&Paste", "Edit", "paste", SK.Paste, "Paste, one grid step further"),
    ActionSpec("edit.delete", "&Delete", "Edit", "delete", SK.Delete, "Delete the selection (or the chosen vertex)"),
    ActionSpec("edit.select_all", "Select &All", "Edit", "select_all", SK.SelectAll, "Select every editable item"),
    ActionSpec("edit.deselect", "Select &None", "Edit", "deselect", "Ctrl+Shift+A", "Clear the selection"),
    ActionSpec("view.zoom_in", "Zoom &In", "View", "zoom_in", SK.ZoomIn, "Zoom in"),
    ActionSpec("view.zoom_out", "Zoom &Out", "View", "zoom_out", SK.ZoomOut, "Zoom out"),
    ActionSpec("view.fit", "&Fit to Scene", "View", "fit", "Ctrl+0", "Show the whole scene", toolbar="main",
               icon="fit"),
    ActionSpec("view.grid", "Show &Grid", "View", "set_grid_visible", "Ctrl+'", "Show the metric grid",
               checkable=True),
    ActionSpec("view.snap_grid", "Snap to G&rid", "View", "set_snap_grid", "Ctrl+Shift+'",
               "Snap placed points to the grid", checkable=True, toolbar="main", icon="snap_grid"),
    ActionSpec("view.snap_vertices", "Snap to &Vertices", "View", "set_snap_vertices", "Ctrl+Shift+V",
               "Snap placed points to existing vertices", checkable=True, toolbar="main", icon="snap_vertex"),
    ActionSpec("help.shortcuts", "&Keyboard and Mouse…", "Help", "show_shortcuts", SK.HelpContents,
               "Every shortcut and mouse gesture"),
    ActionSpec("help.about", "&About MIRAN Studio", "Help", "show_about", None, ""),
)

# Gestures the viewport understands besides the actions' keys (listed in Help).
GESTURES = (
    ("Esc", "Cancel what the tool is doing (or clear the selection)"),
    ("Enter / double-click", "Close the polygon, end the route or network chain"),
    ("Backspace", "Remove the last point placed"),
    ("Shift + click", "Add an item to the selection, or remove it"),
    ("Drag on empty space", "Select with a rubber band"),
    ("Wheel", "Zoom at the pointer"),
    ("Middle drag / Space + drag", "Pan"),
    ("Right drag", "Zoom"),
    ("Double-click in the Scene panel", "Zoom to the item"),
)


def key_text(key: SK | str | None) -> str:
    """The key as the platform writes it (``Ctrl+S``, ``⌘S``)."""
    if key is None:
        return ""
    seq = QKeySequence(key) if isinstance(key, str) else QKeySequence(key)
    return seq.toString(QKeySequence.SequenceFormat.NativeText)


def shortcut_rows(tools: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every command with a key, undo and redo, the tools' keys and the viewport's gestures, for Help."""
    rows = [(spec.title.replace("&", "").replace("…", ""), key_text(spec.key)) for spec in ACTIONS if spec.key]
    rows[2:2] = [("Undo", key_text(SK.Undo)), ("Redo", key_text(SK.Redo))]
    return rows + list(tools) + [(what, how) for how, what in GESTURES]
