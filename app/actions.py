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
    key: SK | str | tuple[str, ...] | None = None
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
    ActionSpec("edit.duplicate", "D&uplicate", "Edit", "duplicate", "Ctrl+D",
               "Copy the selection one grid step further right and down (one undoable edit)"),
    # Not SK.Delete: on X11 that is "Del, Ctrl+D", which would take Duplicate's key.
    ActionSpec("edit.delete", "&Delete", "Edit", "delete", "Del", "Delete the selection (or the chosen vertex)"),
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
    ActionSpec("view.test_path", "Show &Test Path", "View", "test_path.set_enabled", None,
               "While an agent is placed or dragged (or one is selected), plan its route live and show its cost and "
               "narrowest clearance", checkable=True),
    ActionSpec("view.shrunk_free", "Show Free Space for &Radius", "View", "test_path.set_shrunk", None,
               "Outline where the centre of the current profile's disc can stand (the free space shrunk by its "
               "radius, as the planners see it)", checkable=True),
    ActionSpec("help.guide", "&User Guide", "Help", "show_guide", SK.HelpContents,
               "Tutorials, the tools and methods, file formats and commands"),
    ActionSpec("help.shortcuts", "&Keyboard Shortcuts…", "Help", "show_shortcuts", "Ctrl+/",
               "Every shortcut and mouse gesture, read from the menus"),
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


# Redo on both conventions (Windows/KDE Ctrl+Y, GNOME/macOS Ctrl+Shift+Z); Qt's SK.Redo has only one on X11.
REDO_KEYS = ("Ctrl+Shift+Z", "Ctrl+Y")


def key_sequences(key: SK | str | tuple[str, ...] | None) -> list[QKeySequence]:
    """Every key sequence of an action's ``key`` on this platform (a StandardKey may have several)."""
    if key is None:
        return []
    if isinstance(key, SK):
        return list(QKeySequence.keyBindings(key))
    return [QKeySequence(k) for k in ((key,) if isinstance(key, str) else key)]


def key_text(key: SK | str | tuple[str, ...] | None) -> str:
    """The key (or keys, joined by " or ") as the platform writes them (``Ctrl+S``, ``⌘S``)."""
    return " or ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in key_sequences(key))


def plain_title(text: str) -> str:
    """A menu text without its mnemonic ampersands and ellipsis."""
    return text.replace("&&", "\x00").replace("&", "").replace("\x00", "&").replace("…", "").strip()


def menu_actions(menus, prefix: str = ""):
    """(``"Menu > Title"``, QAction) of every action in these QMenus and their submenus, in menu order."""
    for menu in menus:
        here = f"{prefix}{plain_title(menu.title())} > "
        for a in menu.actions():
            if a.menu() is not None:
                yield from menu_actions([a.menu()], here)
            elif not a.isSeparator():
                yield here + plain_title(a.text()), a


def action_rows(named_actions) -> list[tuple[str, str]]:
    """(name, keys) of every (name, QAction) that has a shortcut, each action once: read from the actions
    themselves, so what Help lists is what the keys do."""
    rows, seen = [], set()
    for name, a in named_actions:
        keys = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts() if not s.isEmpty()]
        if keys and id(a) not in seen:
            seen.add(id(a))
            rows.append((name, " or ".join(keys)))
    return rows


def shortcut_rows(named_actions) -> list[tuple[str, str]]:
    """Every action's shortcut (``action_rows``) followed by the viewport's mouse and key gestures, for Help."""
    return action_rows(named_actions) + [(what, how) for how, what in GESTURES]
