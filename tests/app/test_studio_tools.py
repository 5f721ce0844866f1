"""The other tools with real events: select (click, shift, rubber band), move, vertex editing, networks, agents,
and cut / copy / paste / delete through their shortcuts."""

from PySide6 import QtCore, QtGui

from core.scene import Agent, Network, Obstacle, Route, TerrainPolygon

Key = QtCore.Qt.Key
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier
SK = QtGui.QKeySequence.StandardKey


def setup(w):
    w.editor.apply({
        "obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)]),
                      Obstacle("b2", [(60, 10), (80, 10), (80, 30), (60, 30)])],
        "terrains": [TerrainPolygon("t1", "default", [(0, 40), (100, 40), (100, 50), (0, 50)])],
        "routes": [Route("r1", [(10, 70), (50, 80), (90, 70)])],
    }, "setup")
    w.undo_stack.clear()
    w.undo_stack.setClean()


def test_click_shift_click_and_rubber_band(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("select")
    d.click(20, 20)
    assert w.doc.selection == (("obstacle", "b1"),)
    d.click(70, 20, SHIFT)
    assert w.doc.selection == (("obstacle", "b1"), ("obstacle", "b2"))
    d.click(20, 20, SHIFT)
    assert w.doc.selection == (("obstacle", "b2"),)
    d.click(50, 45)  # inside the terrain strip
    assert w.doc.selection == (("terrain", "t1"),)
    d.click(50, 95)  # empty ground: nothing
    assert w.doc.selection == ()
    d.drag([(5, 5), (20, 20), (35, 35)])  # a band meeting b1 only
    assert w.doc.selection == (("obstacle", "b1"),)
    d.drag([(95, 95), (70, 75), (55, 25)], SHIFT)  # adds what it meets: b2, terrain, route
    assert set(w.doc.selection) == {("obstacle", "b1"), ("obstacle", "b2"), ("terrain", "t1"), ("route", "r1")}
    d.key(Key.Key_Escape)
    assert w.doc.selection == ()


def test_drag_moves_the_selection_and_undo_puts_it_back(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("select")
    d.drag([(20, 20), (22, 21), (30, 25), (40, 20)])
    assert w.scene.obstacles[0].polygon == [(30, 10), (50, 10), (50, 30), (30, 30)]
    assert w.undo_stack.count() == 1
    d.shortcut(SK.Undo)
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), (30, 30), (10, 30)]


def test_a_move_onto_a_route_is_refused(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("select")
    before = list(w.scene.obstacles)
    d.drag([(70, 20), (60, 50), (50, 80)])  # b2 would be centred on the route's middle point (50, 80)
    assert w.scene.obstacles == before
    assert w.undo_stack.count() == 0
    assert "route 'r1' point 1" in w.statusBar().currentMessage()


def test_vertex_tool_drags_inserts_and_deletes(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("vertex")
    d.click(20, 20)  # selects b1, showing its vertices
    assert w.doc.selection == (("obstacle", "b1"),)
    g = w.editor.grid_step  # grid snapping is on, with a step that follows the zoom (so the dock layout)

    def snapped(x, y):
        return (round(x / g) * g, round(y / g) * g)

    moved, inserted = snapped(34, 36), snapped(20, 4)
    d.drag([(30, 30), (32, 33), (34, 36)])
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), moved, (10, 30)]
    d.drag([(20, 10), (20, 6), (20, 4)])  # on the bottom edge: inserts a vertex there and drags it
    assert w.scene.obstacles[0].polygon == [(10, 10), inserted, (30, 10), moved, (10, 30)]
    d.click(*inserted)
    d.shortcut(SK.Delete)
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), moved, (10, 30)]
    assert w.scene.obstacles[0].id == "b1"  # the obstacle stays: only its vertex went
    for _ in range(3):
        w.undo_stack.undo()
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), (30, 30), (10, 30)]


def test_vertex_drag_into_a_crossing_is_refused(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("vertex")
    d.click(20, 20)
    d.drag([(30, 30), (20, 0), (20, 0)])  # (30,30) -> (20,0): the outline would cross itself
    assert w.scene.obstacles[0].polygon == [(10, 10), (30, 10), (30, 30), (10, 30)]
    assert "self-intersecting" in w.statusBar().currentMessage()


def test_network_tool_draws_chains_and_branches(make_studio, drive):
    w = make_studio(new=(100, 100))
    d = drive(w)
    w.actions["view.snap_vertices"].setChecked(True)
    d.tool("network")
    d.click(10, 10)
    assert w.scene.networks == []  # one node is not a network yet
    d.click(50, 10)
    d.click(50, 50)
    d.key(Key.Key_Return)
    d.click(50, 10)  # continue from an existing node: a branch
    d.click(90, 10)
    d.key(Key.Key_Escape)
    net = w.scene.networks[0]
    assert net.nodes == [(10, 10), (50, 10), (50, 50), (90, 10)]
    assert net.edges == [(0, 1), (1, 2), (1, 3)]
    assert w.undo_stack.count() == 3
    w.undo_stack.undo()
    assert w.scene.networks[0].edges == [(0, 1), (1, 2)]


def test_agent_tool_places_planned_and_route_agents(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("agent")
    w.state.set("agent_mode", "ecm")
    d.click(40, 20)
    d.click(90, 90)
    assert w.scene.agents == [Agent("a1", "pedestrian", start=(40, 20), goal=(90, 90), planner="ecm")]
    d.click(20, 20)  # inside b1: refused
    assert len(w.scene.agents) == 1 and "inside obstacle 'b1'" in w.statusBar().currentMessage()
    w.state.set("agent_mode", "route")
    d.click(50, 80)
    assert w.scene.agents[-1] == Agent("a2", "pedestrian", route="r1")


def test_cut_copy_paste_delete(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("select")
    d.click(20, 20)
    d.shortcut(SK.Copy)
    d.shortcut(SK.Paste)
    step = w.editor.grid_step
    assert [o.id for o in w.scene.obstacles] == ["b1", "b2", "o1"]
    assert w.scene.obstacles[2].polygon[0] == (10 + step, 10 - step)
    assert w.doc.selection == (("obstacle", "o1"),)
    d.shortcut(SK.Delete)
    assert [o.id for o in w.scene.obstacles] == ["b1", "b2"]
    d.click(70, 20)
    d.shortcut(SK.Cut)
    assert [o.id for o in w.scene.obstacles] == ["b1"]
    d.shortcut(SK.Paste)
    assert [o.id for o in w.scene.obstacles] == ["b1", "b2"]
    d.shortcut(SK.SelectAll)
    assert len(w.doc.selection) == 4
    d.shortcut(SK.Delete)
    assert w.scene.obstacles == [] and w.scene.routes == [] and w.scene.terrains == []
    for _ in range(5):
        w.undo_stack.undo()
    assert [o.id for o in w.scene.obstacles] == ["b1", "b2"] and len(w.scene.routes) == 1


def test_deleting_a_route_takes_its_agents_and_undo_restores_both(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    w.editor.apply({"agents": [Agent("a1", "pedestrian", route="r1")]}, "agent")
    d = drive(w)
    d.click(50, 80)
    assert w.doc.selection == (("route", "r1"),)
    d.shortcut(SK.Delete)
    assert w.scene.routes == [] and w.scene.agents == []
    assert "followed the route" in w.statusBar().currentMessage()
    w.undo_stack.undo()
    assert len(w.scene.routes) == 1 and len(w.scene.agents) == 1


def test_locked_layer_cannot_be_picked_and_hidden_layer_is_not_drawn(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    model = w.scene_tree.model
    row = [model.kind_of(model.index(r, 0)) for r in range(model.rowCount())].index("obstacle")
    model.setData(model.index(row, 2), QtCore.Qt.CheckState.Checked.value, QtCore.Qt.ItemDataRole.CheckStateRole)
    assert w.doc.layers["obstacle"].locked
    d.click(20, 20)
    assert w.doc.selection == ()
    model.setData(model.index(row, 1), QtCore.Qt.CheckState.Unchecked.value, QtCore.Qt.ItemDataRole.CheckStateRole)
    assert not w.layers.layers["obstacle"].item.isVisible()


def test_scene_tree_selection_follows_the_document_both_ways(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.click(70, 20)
    rows = w.scene_tree.tree.selectionModel().selectedRows(0)
    assert [idx.data() .split()[0] for idx in rows] == ["b2"]
    model = w.scene_tree.model
    row = [model.kind_of(model.index(r, 0)) for r in range(model.rowCount())].index("route")
    idx = model.index(0, 0, model.index(row, 0))
    w.scene_tree.tree.selectionModel().select(idx, QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert w.doc.selection == (("route", "r1"),)


def test_scene_tree_shows_a_moved_or_reshaped_item_without_laying_itself_out_again(make_studio, drive):
    """An edit that keeps every row the same item (a drag, a reshape) refreshes the rows' texts, keeping the tree's
    layout and selection; one that adds an item lays the tree out again with the new row."""
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.click(70, 20)
    model = w.scene_tree.model
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    row = [model.kind_of(model.index(r, 0)) for r in range(model.rowCount())].index("obstacle")
    parent = model.index(row, 0)
    w.editor.apply({"obstacles": [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)]),
                                  Obstacle("b2", [(62, 10), (82, 10), (82, 30), (70, 35), (62, 30)])]}, "reshape")
    assert resets == []
    assert model.index(1, 0, parent).data().endswith("5 vertices")
    rows = w.scene_tree.tree.selectionModel().selectedRows(0)
    assert [idx.data().split()[0] for idx in rows] == ["b2"]
    w.editor.apply({"obstacles": [*w.scene.obstacles, Obstacle("b3", [(40, 60), (50, 60), (50, 65)])]}, "add")
    assert resets == [1]
    assert [model.index(r, 0, parent).data().split()[0] for r in range(model.rowCount(parent))] == ["b1", "b2", "b3"]
    rows = w.scene_tree.tree.selectionModel().selectedRows(0)
    assert [idx.data().split()[0] for idx in rows] == ["b2"]


def test_network_planner_agents_keep_their_network(make_studio, drive):
    w = make_studio(new=(100, 100))
    w.editor.apply({"networks": [Network("n1", [(5, 5), (95, 95)], [(0, 1)])],
                    "agents": [Agent("a1", "pedestrian", start=(5, 95), goal=(95, 5), planner="network")]}, "s")
    w.doc.select([("network", "n1")])
    drive(w).shortcut(SK.Delete)
    assert len(w.scene.networks) == 1
    assert "plans on a network" in w.statusBar().currentMessage()


def test_switching_tools_keeps_the_selection_and_drops_work_in_progress(make_studio, drive):
    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.click(20, 20)
    d.tool("obstacle")
    d.click(40, 60)
    assert w.host.active.busy()
    d.tool("vertex")
    assert w.doc.selection == (("obstacle", "b1"),)
    d.tool("obstacle")
    assert not w.host.active.busy()


def test_obstacle_path_tool_makes_the_selected_obstacle_move(make_studio, drive):
    """Select an obstacle, draw its path with the Obstacle Path tool (clicks, Enter): one undoable edit gives it
    the path and a first speed; the Inspector sets Speed, Loop and Turns, and Stand Still takes the path away.
    With no obstacle selected the tool says so and draws nothing."""
    from PySide6 import QtWidgets

    w = make_studio(new=(100, 100))
    setup(w)
    d = drive(w)
    d.tool("motion_path")
    d.click(20, 60)
    assert "Select one obstacle" in w.statusBar().currentMessage()
    assert not w.host.tools["motion_path"].points
    d.tool("select")
    d.click(20, 20)
    d.tool("motion_path")
    for x, y in ((20, 20), (20, 60), (45, 60)):
        d.click(x, y)
    d.key(Key.Key_Backspace)
    d.click(50, 60)
    d.key(Key.Key_Return)
    b1 = w.scene.obstacles[0]
    assert b1.moving and b1.speed == 1.4 and not b1.loop
    assert [tuple(round(c) for c in p) for p in b1.path] == [(20, 20), (20, 60), (50, 60)]
    QtWidgets.QApplication.processEvents()
    insp = w.inspector
    insp.findChild(QtWidgets.QDoubleSpinBox, "inspector.speed").setValue(8.0)
    QtWidgets.QApplication.processEvents()
    insp.findChild(QtWidgets.QCheckBox, "inspector.loop").setChecked(True)
    QtWidgets.QApplication.processEvents()
    insp.findChild(QtWidgets.QCheckBox, "inspector.turns").setChecked(True)
    QtWidgets.QApplication.processEvents()
    b1 = w.scene.obstacles[0]
    assert (b1.speed, b1.loop, b1.turns) == (8.0, True, True)
    insp.findChild(QtWidgets.QPushButton, "inspector.stand_still").click()
    QtWidgets.QApplication.processEvents()
    assert not w.scene.obstacles[0].moving
    assert insp.findChild(QtWidgets.QLabel, "inspector.motion_hint") is not None
    for _ in range(5):
        w.undo_stack.undo()
    assert not w.scene.obstacles[0].moving and w.scene.obstacles[0].polygon == b1.polygon


def test_scene_tree_model_keeps_qts_contract_and_lays_a_large_layer_out_without_counting_rows(make_studio, qtbot):
    """Qt's own model tester finds nothing wrong with the tree's model (its indexes checked without hasIndex); the
    first selection in a layer of 300 obstacles expands and lays it out without asking each row for its row count
    (an item row says it never has children)."""
    from PySide6.QtTest import QAbstractItemModelTester

    w = make_studio(new=(1000, 1000))
    setup(w)
    w.editor.apply({"obstacles": [Obstacle(f"o{k}", [(k % 30 * 30 + 1, k // 30 * 30 + 1), (k % 30 * 30 + 9,
                                                     k // 30 * 30 + 1), (k % 30 * 30 + 5, k // 30 * 30 + 9)])
                                  for k in range(300)]}, "many")
    model = w.scene_tree.model
    warnings = []
    QtCore.qInstallMessageHandler(lambda mode, ctx, text: warnings.append(text))
    try:
        QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Warning)
    finally:
        QtCore.qInstallMessageHandler(None)
    assert warnings == [], warnings[:3]
    row = [model.kind_of(model.index(r, 0)) for r in range(model.rowCount())].index("obstacle")
    parent = model.index(row, 0)
    assert not model.index(300, 0, parent).isValid() and not model.index(0, 3, parent).isValid()
    assert not model.index(0, 0, model.index(0, 0, parent)).isValid()
    counted = []
    row_count = model.rowCount
    model.rowCount = lambda *a: (counted.append(1), row_count(*a))[1]
    w.scene_tree.tree.collapse(parent)
    w.doc.select([("obstacle", "o250")])
    assert w.scene_tree.tree.isExpanded(parent)
    assert [i.data().split()[0] for i in w.scene_tree.tree.selectionModel().selectedRows(0)] == ["o250"]
    assert len(counted) < 20, f"{len(counted)} row counts asked to lay out 300 rows"
