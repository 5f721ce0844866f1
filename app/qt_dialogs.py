"""Every dialog the app shows, behind small functions: the app calls ``dialogs.ask_...`` so a test (or a script)
can replace one without a window ever blocking. Question dialogs are modal; messages are not."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .recovery import RecoveryFile
from .panels.qt_spin import QtDoubleSpin

SCENE_FILTER = "MIRAN scenes (*.json);;All files (*)"
IMPORT_FILTER = ("Drawings and maps (*.svg *.dxf *.tmx *.tmj *.json *.geojson *.shp *.gpkg *.osm *.pbf);;"
                 "All files (*)")


def ask_unsaved(parent: QtWidgets.QWidget, name: str) -> str:
    """Save, discard or cancel before the current scene is closed: ``"save"``, ``"discard"`` or ``"cancel"``."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setWindowTitle("Unsaved changes")
    box.setText(f"Save the changes to “{name}”?")
    box.setInformativeText("Your changes are lost if you don't save them.")
    box.setStandardButtons(QtWidgets.QMessageBox.StandardButton.Save | QtWidgets.QMessageBox.StandardButton.Discard
                           | QtWidgets.QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QtWidgets.QMessageBox.StandardButton.Save)
    r = box.exec()
    return {QtWidgets.QMessageBox.StandardButton.Save: "save",
            QtWidgets.QMessageBox.StandardButton.Discard: "discard"}.get(QtWidgets.QMessageBox.StandardButton(r),
                                                                          "cancel")


def ask_open_path(parent: QtWidgets.QWidget, folder: str) -> str | None:
    path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Open Scene", folder, SCENE_FILTER)
    return path or None


def ask_import_path(parent: QtWidgets.QWidget, folder: str) -> str | None:
    """An open dialog for the drawings and maps File > Import reads."""
    path, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Import Scene", folder, IMPORT_FILTER)
    return path or None


def ask_save_path(parent: QtWidgets.QWidget, suggested: str) -> str | None:
    path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, "Save Scene As", suggested, SCENE_FILTER)
    if path and not path.lower().endswith(".json"):
        path += ".json"
    return path or None


def ask_recover(parent: QtWidgets.QWidget | None, rf: RecoveryFile) -> bool:
    """Offer the unsaved work of an editor that did not close."""
    when = QtCore.QDateTime.fromSecsSinceEpoch(int(rf.saved_at)).toString("yyyy-MM-dd hh:mm:ss")
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Question)
    box.setWindowTitle("Recover unsaved work")
    box.setText(f"MIRAN Studio did not close properly. Recover the unsaved scene “{rf.name}”?")
    box.setInformativeText(f"Autosaved {when}" + (f" while editing {rf.source}" if rf.source else "")
                           + ". If you discard it, it is gone.")
    recover = box.addButton("Recover", QtWidgets.QMessageBox.ButtonRole.AcceptRole)
    box.addButton("Discard", QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(recover)
    box.exec()
    return box.clickedButton() is recover


def ask_new_scene(parent: QtWidgets.QWidget) -> tuple[str, float, float] | None:
    """Name, width and height (metres) of a new scene."""
    dlg = QtWidgets.QDialog(parent)
    dlg.setWindowTitle("New Scene")
    form = QtWidgets.QFormLayout(dlg)
    name = QtWidgets.QLineEdit("Untitled")
    w, h = QtDoubleSpin(), QtDoubleSpin()
    for sb, v in ((w, 200.0), (h, 200.0)):
        sb.setRange(1.0, 100000.0)
        sb.setDecimals(1)
        sb.setSuffix(" m")
        sb.setValue(v)
    form.addRow("Name", name)
    form.addRow("Width", w)
    form.addRow("Height", h)
    buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                         | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dlg.accept)
    buttons.rejected.connect(dlg.reject)
    form.addRow(buttons)
    if dlg.exec() != QtWidgets.QDialog.DialogCode.Accepted:
        return None
    return name.text().strip() or "Untitled", w.value(), h.value()


def ask_choice(parent: QtWidgets.QWidget, title: str, text: str, options: list[str]) -> int | None:
    """One of several answers (index), or None when cancelled."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    buttons = [box.addButton(o, QtWidgets.QMessageBox.ButtonRole.AcceptRole) for o in options]
    box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return buttons.index(clicked) if clicked in buttons else None


def ask_color(parent: QtWidgets.QWidget, current: str) -> str | None:
    """A colour chosen by the user as ``#rrggbb``, or None."""
    c = QtWidgets.QColorDialog.getColor(QtGui.QColor(current), parent, "Terrain colour")
    return c.name() if c.isValid() else None


def ask_text(parent: QtWidgets.QWidget, title: str, label: str, text: str = "") -> str | None:
    value, ok = QtWidgets.QInputDialog.getText(parent, title, label, text=text)
    return value if ok else None


def show_problems(parent: QtWidgets.QWidget, title: str, summary: str, lines: list[str]) -> QtWidgets.QDialog:
    """A non-modal dialog listing every problem (objectName ``problems_dialog``); returned so callers can find it."""
    dlg = QtWidgets.QDialog(parent)
    dlg.setObjectName("problems_dialog")
    dlg.setWindowTitle(title)
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    lay = QtWidgets.QVBoxLayout(dlg)
    head = QtWidgets.QLabel(summary)
    head.setWordWrap(True)
    head.setObjectName("problems_summary")
    lay.addWidget(head)
    lst = QtWidgets.QListWidget()
    lst.setObjectName("problems_list")
    lst.addItems(lines)
    lst.setMinimumSize(560, 160)
    lay.addWidget(lst)
    buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dlg.close)
    copy = buttons.addButton("Copy", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
    copy.clicked.connect(lambda: QtWidgets.QApplication.clipboard().setText("\n".join(lines)))
    lay.addWidget(buttons)
    dlg.setModal(False)
    dlg.show()
    return dlg


def show_message(parent: QtWidgets.QWidget, title: str, text: str) -> QtWidgets.QDialog:
    """A non-modal information box."""
    box = QtWidgets.QMessageBox(QtWidgets.QMessageBox.Icon.Information, title, text,
                                QtWidgets.QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setModal(False)
    box.show()
    return box


def show_table(parent: QtWidgets.QWidget, name: str, title: str, headers: tuple[str, str],
               rows: list[tuple[str, str]]) -> QtWidgets.QDialog:
    """A non-modal two-column table (the Help menu's shortcut list)."""
    dlg = QtWidgets.QDialog(parent)
    dlg.setObjectName(name)
    dlg.setWindowTitle(title)
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    table = QtWidgets.QTableWidget(len(rows), 2)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    for r, (what, how) in enumerate(rows):
        table.setItem(r, 0, QtWidgets.QTableWidgetItem(what))
        table.setItem(r, 1, QtWidgets.QTableWidgetItem(how))
    table.horizontalHeader().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
    table.resizeColumnToContents(1)
    lay = QtWidgets.QVBoxLayout(dlg)
    lay.addWidget(table)
    dlg.resize(520, 640)
    dlg.show()
    return dlg
