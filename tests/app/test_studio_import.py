"""File > Import: the preview lists the file's layers with their roles, redraws when a role changes, and the
accepted import replaces the scene in one undoable edit."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app import qt_dialogs as dialogs
from app import qt_import
from core.scene.io import scene_to_dict
from core.scene.parse import check_scene

import ezdxf
from import_samples import write_local_metres_geojson


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


NO_LAYER_SVG = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
 width="100" height="100" viewBox="0 0 100 100">
 <g inkscape:groupmode="layer" inkscape:label="Walls"><rect id="box" x="40" y="40" width="20" height="20"/></g>
 <g id="plain"><path id="walk" d="M 5 90 L 95 90" stroke="black" stroke-width="0.5" fill="none"/></g>
</svg>"""


def _route_path(dlg) -> QtGui.QPainterPath:
    """What the preview draws with the route pen (an empty path when it draws no route)."""
    for path, pen, _ in dlg.items._groups:
        if pen.color().name() == qt_import.ROUTE_COLOR:
            return path
    return QtGui.QPainterPath()


def test_an_element_without_a_layer_takes_the_role_chosen(make_studio, qtbot, tmp_path, monkeypatch):
    """A line in a plain group (no Inkscape layer) is listed as "(no layer)"; choosing "route" changes the preview,
    the report and the imported scene, not only the label."""
    w = make_studio(new=(100, 100))
    path = tmp_path / "walk.svg"
    path.write_text(NO_LAYER_SVG)
    seen = {}

    def preview(parent, session):
        dlg = qt_import.QtImportPreview(parent, session)
        qtbot.addWidget(dlg)
        seen["layers"] = [dlg.table.item(r, 0).text() for r in range(dlg.table.rowCount())]
        combo = dlg.findChild(QtWidgets.QComboBox, "role:")
        assert combo is not None and combo.currentText() == "obstacle"
        assert len(dlg.result.scene.obstacles) == 2 and dlg.result.scene.routes == []   # a 0.5 m wall
        assert _route_path(dlg).isEmpty()
        combo.textActivated.emit("route")
        scene = dlg.result.scene
        assert len(scene.obstacles) == 1 and [r.points for r in scene.routes] == [[(5.0, 10.0), (95.0, 10.0)]]
        lines = [dlg.report.item(i).text() for i in range(dlg.report.count())]
        assert "1 feature(s) as route" in lines and "1 feature(s) as obstacle" in lines
        drawn = _route_path(dlg)                              # the preview draws the route
        assert drawn.elementCount() >= 2 and drawn.boundingRect().width() == 90.0
        return dlg.result

    monkeypatch.setattr(qt_import, "ask_import_preview", preview)
    assert w.importer.import_path(path)
    assert seen["layers"] == ["Walls", "(no layer)"]
    assert len(w.scene.routes) == 1 and len(w.scene.obstacles) == 1


def test_geojson_coordinates_declared_metres_in_the_preview(make_studio, qtbot, tmp_path, monkeypatch):
    """A GeoJSON in local metres reads as degrees (the standard's default) until the preview is told "these
    coordinates are metres"; the roles chosen stay."""
    w = make_studio(new=(100, 100))
    path = write_local_metres_geojson(tmp_path / "site.geojson")

    def preview(parent, session):
        dlg = qt_import.QtImportPreview(parent, session)
        qtbot.addWidget(dlg)
        crs = dlg.findChild(QtWidgets.QComboBox, "import_crs")
        assert crs is not None and not crs.isHidden()
        x0, y0, x1, y1 = dlg.result.scene.bounds
        assert x1 - x0 > 1e6                                  # 30 degrees of longitude
        dlg.findChild(QtWidgets.QComboBox, "role:walk").textActivated.emit("route")
        dlg.findChild(QtWidgets.QComboBox, "role:blocks").textActivated.emit("obstacle")
        crs.textActivated.emit("These coordinates are metres")
        s = dlg.result.scene
        assert s.bounds == (0.0, 5.0, 40.0, 20.0)
        assert len(s.obstacles) == 1 and len(s.routes) == 1  # the roles chosen before stay
        assert any("metres" in dlg.report.item(i).text() for i in range(dlg.report.count()))
        crs.lineEdit().setText("EPSG:nonsense")
        crs.lineEdit().editingFinished.emit()
        assert dlg.result is None and not dlg.ok.isEnabled()
        assert "--crs" in dlg.report.item(1).text()
        crs.textActivated.emit("These coordinates are metres")
        return dlg.result

    monkeypatch.setattr(qt_import, "ask_import_preview", preview)
    assert w.importer.import_path(path)
    assert w.scene.bounds == (0.0, 5.0, 40.0, 20.0)


def test_the_crs_choice_is_hidden_for_drawings(make_studio, qtbot, tmp_path):
    path = tmp_path / "plan.dxf"
    write_plan(path)
    dlg = qt_import.QtImportPreview(None, qt_import.ImportSession(path))
    qtbot.addWidget(dlg)
    assert dlg.findChild(QtWidgets.QComboBox, "import_crs").isHidden()
