"""Panels: terrain types (removal asks what to do), profiles, the inspector, Help, and the welcome page."""

from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtTest, QtWidgets
from shapely.geometry import Polygon

from app import qt_dialogs as dialogs
from core.scene import Agent, Obstacle, Profile, Route, TerrainPolygon, TerrainType, load_scene

REPO = Path(__file__).resolve().parents[2]


def with_types(w):
    w.editor.apply({
        "terrain_types": [TerrainType("default", "Open ground", "#cbd5a3"), TerrainType("road", "Road", "#7f7f7f"),
                          TerrainType("mud", "Mud", "#7a5230")],
        "terrains": [TerrainPolygon("t1", "road", [(0, 40), (100, 40), (100, 50), (0, 50)]),
                     TerrainPolygon("t2", "mud", [(10, 10), (20, 10), (20, 20)])],
        "profiles": [Profile("pedestrian", {"road": 4.0, "mud": 40.0})],
    }, "setup")


@pytest.mark.parametrize("choice, expect_type, expect_count", [(0, "default", 2), (2, None, 1), (None, "road", 2)])
def test_removing_a_used_terrain_type_asks_what_to_do(make_studio, monkeypatch, choice, expect_type, expect_count):
    w = make_studio(new=(100, 100))
    with_types(w)
    asked = []
    monkeypatch.setattr(dialogs, "ask_choice", lambda parent, title, text, options: asked.append(options) or choice)
    removed = w.terrain_types.remove_type("road")
    assert asked == [["Repaint as “Open ground”", "Repaint as “Mud”", "Delete the 1 polygon"]]
    assert removed == (choice is not None)
    assert len(w.scene.terrains) == expect_count
    if choice is None:
        assert [t.id for t in w.scene.terrain_types] == ["default", "road", "mud"]
    else:
        assert "road" not in [t.id for t in w.scene.terrain_types]
        assert "road" not in w.scene.profiles[0].weights
        if expect_type:
            assert w.scene.terrains[0].type == expect_type
        w.undo_stack.undo()
        assert w.scene.terrains[0].type == "road" and w.scene.profiles[0].weights["road"] == 4.0


def test_default_type_can_only_be_replaced(make_studio, monkeypatch):
    w = make_studio(new=(100, 100))
    with_types(w)
    monkeypatch.setattr(dialogs, "ask_choice", lambda parent, title, text, options: len(options) - 1)
    assert w.terrain_types.remove_type("default")
    assert w.scene.default_terrain == "mud"


def test_unused_type_goes_without_a_question_and_colour_changes(make_studio, monkeypatch, qtbot):
    w = make_studio(new=(100, 100))
    tid = w.terrain_types.add_type()
    qtbot.waitUntil(lambda: w.terrain_types.table.rowCount() == 2)
    w.terrain_types.table.selectRow(1)
    monkeypatch.setattr(dialogs, "ask_color", lambda parent, current: "#123456")
    w.terrain_types.pick_colour()
    assert w.scene.terrain_types[1].color == "#123456"
    assert w.terrain_types.remove_type(tid)
    assert [t.id for t in w.scene.terrain_types] == ["default"]


def test_rename_terrain_type_in_the_table(make_studio, qtbot):
    w = make_studio(new=(100, 100))
    with_types(w)
    qtbot.waitUntil(lambda: w.terrain_types.table.rowCount() == 3)
    w.terrain_types.table.item(1, 1).setText("asphalt")
    assert w.scene.terrains[0].type == "asphalt" and "asphalt" in w.scene.profiles[0].weights
    qtbot.waitUntil(lambda: w.terrain_types.table.item(1, 1).text() == "asphalt")
    w.terrain_types.table.item(2, 2).setText("Deep mud")
    assert w.scene.terrain_types[2].name == "Deep mud"


def test_profile_fields_and_weights_edit_the_scene_in_one_undo_step_each(make_studio, qtbot):
    w = make_studio(new=(100, 100))
    with_types(w)
    qtbot.waitUntil(lambda: w.profiles.weights.rowCount() == 3)
    box = w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.weight.mud")
    box.setValue(20.0)
    box.setValue(25.0)
    box = w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.weight.mud")
    assert w.scene.profiles[0].weights["mud"] == 25.0
    sigma = w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.sigma")
    sigma.setValue(12.0)
    assert w.scene.profiles[0].sigma == 12.0
    steps = w.undo_stack.count()
    w.undo_stack.undo()
    w.undo_stack.undo()
    assert w.scene.profiles[0].weights["mud"] == 40.0 and w.scene.profiles[0].sigma == 40.0
    assert steps == 3  # setup, the weight (two edits merged), sigma
    qtbot.waitUntil(lambda: w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.sigma").value() == 40.0)


def test_removing_a_used_profile_asks(make_studio, monkeypatch):
    w = make_studio(new=(100, 100))
    w.profiles.add_profile()
    w.editor.apply({"agents": [Agent("a1", "profile1", start=(5, 5), goal=(9, 9))]}, "agent")
    monkeypatch.setattr(dialogs, "ask_choice", lambda parent, title, text, options: 0)
    assert w.profiles.remove("profile1")
    assert w.scene.agents[0].profile == "pedestrian"
    assert [p.id for p in w.scene.profiles] == ["pedestrian"]


def test_inspector_renames_and_refuses_a_taken_id(make_studio, drive, qtbot):
    w = make_studio(new=(100, 100))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30)]),
                                  Obstacle("b2", [(60, 10), (80, 10), (80, 30)])],
                    "routes": [Route("r1", [(5, 50), (95, 50)])],
                    "agents": [Agent("a1", "pedestrian", route="r1")]}, "setup")
    w.doc.select([("route", "r1")])
    qtbot.waitUntil(lambda: w.inspector.findChild(QtWidgets.QLineEdit, "inspector.id") is not None)
    ident = w.inspector.findChild(QtWidgets.QLineEdit, "inspector.id")
    ident.setText("main")
    ident.editingFinished.emit()
    assert w.scene.routes[0].id == "main" and w.scene.agents[0].route == "main"
    assert w.doc.selection == (("route", "main"),)
    w.doc.select([("obstacle", "b2")])
    qtbot.waitUntil(lambda: w.inspector.findChild(QtWidgets.QLineEdit, "inspector.id").text() == "b2")
    ident = w.inspector.findChild(QtWidgets.QLineEdit, "inspector.id")
    ident.setText("b1")
    ident.editingFinished.emit()
    assert [o.id for o in w.scene.obstacles] == ["b1", "b2"]
    assert "already used" in w.statusBar().currentMessage()


def test_inspector_edits_the_chosen_vertex_exactly(make_studio, drive, qtbot):
    """Edit Vertices: click a vertex, type its x and y in the Inspector; one undoable edit each, checked like a
    drag (a crossing outline is refused and the field shows the old value again)."""
    w = make_studio(new=(100, 100))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)])]}, "setup")
    w.undo_stack.clear()
    w.doc.select([("obstacle", "b1")])
    d = drive(w)
    d.tool("vertex")
    d.click(30, 30)
    qtbot.waitUntil(lambda: w.inspector.findChild(QtWidgets.QDoubleSpinBox, "inspector.vertex_x") is not None)

    def field(axis):
        return w.inspector.findChild(QtWidgets.QDoubleSpinBox, f"inspector.vertex_{axis}")

    assert (field("x").value(), field("y").value()) == (30.0, 30.0)

    def type_into(axis, text):
        box = field(axis)
        box.setFocus()
        box.selectAll()
        QtTest.QTest.keyClicks(box, text)
        QtTest.QTest.keyClick(box, QtCore.Qt.Key.Key_Return)

    type_into("x", "34.25")
    assert w.scene.obstacles[0].polygon[2] == (34.25, 30.0)
    qtbot.waitUntil(lambda: field("x") is not None and field("x").value() == 34.25)
    type_into("y", "41.5")
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), (34.25, 41.5), (10, 30)]
    assert w.undo_stack.count() == 2 and w.undo_stack.undoText() == "Move vertex"
    w.undo_stack.undo()
    assert w.scene.obstacles[0].polygon[2] == (34.25, 30.0)
    qtbot.waitUntil(lambda: field("y") is not None and field("y").value() == 30.0)
    # Past the opposite edge: the outline would cross itself; refused, and the field shows the vertex again.
    type_into("x", "5")
    assert w.scene.obstacles[0].polygon[2] == (34.25, 30.0)
    assert "refused" in w.statusBar().currentMessage().lower() or "not accepted" in \
        w.statusBar().currentMessage().lower()
    qtbot.waitUntil(lambda: field("x") is not None and field("x").value() == 34.25)


def test_help_lists_the_shortcuts(make_studio):
    w = make_studio(new=(100, 100))
    dlg = w.show_shortcuts()
    table = dlg.findChild(QtWidgets.QTableWidget)
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["File > Save"] and rows["Edit > Undo"] and rows["Tools > Draw Obstacle"] == "O"
    assert rows["Edit > Duplicate"] == "Ctrl+D" and rows["Edit > Redo"] == "Ctrl+Shift+Z or Ctrl+Y"
    # Generated from the actions themselves: every action with a key is listed, the simulation's included.
    from app.sim.actions import SIM_ACTIONS

    for spec in SIM_ACTIONS:
        if spec.key:
            title = spec.title.replace("&", "").replace("…", "")
            assert rows[f"Simulation > {title}"] == w.findChild(QtGui.QAction, spec.id).shortcut().toString()
    listed = set(rows.values())
    for a in w.findChildren(QtGui.QAction):
        for s in a.shortcuts():
            assert any(s.toString() in v.split(" or ") for v in listed), (a.objectName(), s.toString())
    assert "Esc" in rows.values()
    dlg.close()


def test_welcome_lists_the_shipped_scenes_and_opens_one(make_studio):
    w = make_studio()
    assert w.central.currentWidget() is w.welcome
    paths = w.welcome.scene_paths()
    shipped = sorted(str(p) for p in (REPO / "scenes").glob("*.json")
                     if not p.name.endswith(".sweep.json"))
    assert paths == shipped and shipped
    card = w.welcome.findChildren(QtWidgets.QFrame, "scene_card")[0]
    QtTest.QTest.mouseClick(card, QtCore.Qt.MouseButton.LeftButton)
    assert w.central.currentWidget() is w.viewport
    assert w.scene == load_scene(card.path)


def selected_square(make_studio, qtbot):
    """A new scene holding one square obstacle, b1, selected and shown in the inspector; and a finder of the
    inspector's number boxes by name."""
    w = make_studio(new=(100, 100))
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)])]}, "setup")
    w.undo_stack.clear()
    w.doc.select([("obstacle", "b1")])

    def box(name):
        return w.inspector.findChild(QtWidgets.QDoubleSpinBox, f"inspector.{name}")

    qtbot.waitUntil(lambda: box("appears") is not None)
    return w, box


def test_inspector_schedules_an_obstacle_and_refuses_a_backwards_schedule(make_studio, qtbot, tmp_path):
    """Appears and Vanishes of the selected obstacle are undoable edits saved in the scene file; a Vanishes not
    later than Appears is refused and the scene keeps its schedule."""
    import json

    from core.scene.io import save_scene

    w, box = selected_square(make_studio, qtbot)
    assert box("appears").value() == 0.0 and box("vanishes").text() == "never"
    box("appears").setValue(30.0)
    assert w.scene.obstacles[0].appears == 30.0 and w.scene.obstacles[0].vanishes is None
    qtbot.waitUntil(lambda: box("vanishes") is not None)
    box("vanishes").setValue(20.0)                           # before it appears: refused
    assert w.scene.obstacles[0].vanishes is None
    qtbot.waitUntil(lambda: box("vanishes") is not None and box("vanishes").text() == "never")
    box("vanishes").setValue(120.0)
    assert (w.scene.obstacles[0].appears, w.scene.obstacles[0].vanishes) == (30.0, 120.0)
    path = tmp_path / "timed.json"
    save_scene(w.scene, path)
    saved = json.loads(path.read_text())["obstacles"][0]
    assert (saved["appears"], saved["vanishes"]) == (30, 120)
    w.undo_stack.undo()
    w.undo_stack.undo()
    assert (w.scene.obstacles[0].appears, w.scene.obstacles[0].vanishes) == (0.0, None)


def test_inspector_follows_a_drag_in_place_and_edits_the_item_as_it_is_now(make_studio, drive, qtbot):
    """Dragging the selected obstacle, or one of its vertices, fills the inspector's fields in place (no new form
    at the press and the release); a field edited afterwards starts from the moved item, not the one the form was
    made for, and an undo shows the old values again."""
    w, box = selected_square(make_studio, qtbot)
    appears, rebuilds = box("appears"), w.inspector.rebuilds
    d = drive(w)
    d.tool("select")
    d.drag([(20, 20), (30, 22), (40, 24)])
    moved = w.scene.obstacles[0].polygon
    assert moved[0][0] > 25.0, "the drag moved the obstacle"
    qtbot.wait(50)
    assert box("appears") is appears and w.inspector.rebuilds == rebuilds
    appears.setValue(12.0)
    assert w.scene.obstacles[0].appears == 12.0
    assert w.scene.obstacles[0].polygon == moved, "the schedule edit undid the drag"

    d.tool("vertex")
    d.click(*moved[2])
    qtbot.waitUntil(lambda: box("vertex_x") is not None)
    x, y, rebuilds = box("vertex_x"), box("vertex_y"), w.inspector.rebuilds
    assert (x.value(), y.value()) == tuple(moved[2])
    d.drag([moved[2], (moved[2][0] + 5, moved[2][1] + 6), (moved[2][0] + 10, moved[2][1] + 10)])
    now = w.scene.obstacles[0].polygon
    assert now[2] != moved[2]
    qtbot.waitUntil(lambda: (x.value(), y.value()) == pytest.approx(now[2], abs=1e-3))
    assert box("vertex_x") is x and w.inspector.rebuilds == rebuilds
    area = [lab.text() for lab in w.inspector.findChildren(QtWidgets.QLabel) if lab.text().endswith("m²")]
    assert area == [f"{Polygon(now).area:,.1f} m²"]
    w.undo_stack.undo()
    qtbot.waitUntil(lambda: (x.value(), y.value()) == tuple(moved[2]))
    assert w.inspector.rebuilds == rebuilds


def test_another_document_gets_a_new_inspector_form_even_with_the_same_rows(make_studio, qtbot):
    """A document loaded in place of another builds the form anew, though it holds an item of the same id
    selected again: no widget outlives the document it showed."""
    w, box = selected_square(make_studio, qtbot)
    appears, rebuilds = box("appears"), w.inspector.rebuilds
    w.doc.set_scene(w.scene)
    w.doc.select([("obstacle", "b1")])
    qtbot.waitUntil(lambda: w.inspector.rebuilds > rebuilds)
    assert box("appears") is not appears
