"""File > Import: the preview lists the file's layers with their roles, redraws when a role changes, and the
accepted import replaces the scene in one undoable edit."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app import qt_dialogs as dialogs
from app import qt_import
from core.scene.io import scene_to_dict
from core.scene.parse import check_scene

import ezdxf


def write_plan(path) -> None:
    doc = ezdxf.new(units=6)
    msp = doc.modelspace()
    msp.add_lwpolyline([(10, 10), (30, 10), (30, 20), (10, 20)], close=True, dxfattribs={"layer": "Walls"})
    msp.add_circle((60, 40), 5, dxfattribs={"layer": "Mud"})
    msp.add_lwpolyline([(5, 50), (90, 50)], dxfattribs={"layer": "Route"})
    doc.saveas(path)


def test_preview_then_one_undoable_edit(make_studio, qtbot, tmp_path, monkeypatch):
    w = make_studio(new=(100, 100))
    before = scene_to_dict(w.scene)
    path = tmp_path / "plan.dxf"
    write_plan(path)
    seen = {}

    def preview(parent, session):
        dlg = qt_import.QtImportPreview(parent, session)
        qtbot.addWidget(dlg)
        layers = [dlg.table.item(r, 0).text() for r in range(dlg.table.rowCount())]
        seen["layers"] = layers
        combo = dlg.findChild(QtWidgets.QComboBox, "role:Mud")
        assert combo.currentText() == "terrain:mud"
        assert any("terrain mud area" in dlg.report.item(i).text() for i in range(dlg.report.count()))
        edit = combo.lineEdit()
        edit.selectAll()
        QTest.keyClicks(edit, "terrain:")                     # names no type: refused, Import disabled
        QTest.keyClick(edit, QtCore.Qt.Key.Key_Return)
        assert not dlg.ok.isEnabled() and dlg.result is None
        assert "terrain:" in dlg.report.item(1).text()
        combo.textActivated.emit("obstacle")                  # chosen from the list: the mud becomes an obstacle
        assert dlg.ok.isEnabled()
        assert len(dlg.result.scene.obstacles) == 2
        return dlg.result

    monkeypatch.setattr(qt_import, "ask_import_preview", preview)
    monkeypatch.setattr(dialogs, "ask_import_path", lambda parent, folder: str(path))
    w.actions["file.import"].trigger()                        # File > Import, the file chosen in the dialog
    assert seen["layers"] == ["Walls", "Mud", "Route"]
    s = w.scene
    assert len(s.obstacles) == 2 and len(s.routes) == 1 and s.terrains == []
    assert check_scene(scene_to_dict(s))[1] == []
    assert w.undo_stack.count() == 1 and w.undo_stack.undoText() == "Import plan.dxf"
    w.undo_stack.undo()
    assert scene_to_dict(w.scene) == before
    w.undo_stack.redo()
    assert len(w.scene.obstacles) == 2


def test_an_unreadable_file_shows_its_problems(make_studio, tmp_path, monkeypatch):
    w = make_studio(new=(100, 100))
    bad = tmp_path / "bad.dxf"
    bad.write_text("not a drawing")
    monkeypatch.setattr(qt_import, "ask_import_preview", lambda *a: pytest.fail("no preview for a bad file"))
    assert not w.importer.import_path(bad)
    dlg = w.findChild(QtWidgets.QDialog, "problems_dialog")
    assert dlg is not None and "DXF" in dlg.findChild(QtWidgets.QListWidget, "problems_list").item(0).text()
    assert w.undo_stack.count() == 0
