"""The inspector: the properties of the selection, editable (each change one undoable edit).

Nothing selected shows the scene (name, bounds, default simulation settings); one item shows its id and its own
fields, and the exact x and y of the vertex chosen with Edit Vertices; several show a count per kind.

An edit of the one selected item (a drag, a typed value, an undo) fills the form's widgets again in place when the
form still has the same rows: rebuilding it, at the press and again at the release of every drag, cost the window
a frame. Its widgets' callbacks therefore read the item as it is now, never as it was when they were made.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from PySide6 import QtCore, QtWidgets
from shapely.geometry import LineString, Polygon

from core.scene import INTEGRATORS, METHODS, PLANNERS, check_scene, scene_to_dict
from core.scene.edits import agent_ends, apply, item_rings, move_vertex, rename, replace_item

from ..model.document import lookup
from ..model.problem_names import problem_text
from ..qt_editor import QtEditor
from .qt_scene_tree import describe
from .qt_tool_options import planner_tip, planner_title
from .qt_widgets import number_box, quantity, section_label, set_quietly, swatch_icon

KIND_TITLES = {"terrain": "Terrain polygon", "obstacle": "Obstacle", "route": "Route", "network": "Network",
               "agent": "Agent"}
FOLLOW_PLANNER = "(planned: start and goal)"


class QtInspector(QtWidgets.QScrollArea):
    """Rebuilt when the selection changes, filled in place when only the selected item's values do."""

    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        self.editor = editor
        self.doc = editor.doc
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self._pending = False
        self.vertex: tuple[str, str, int, int] | None = None
        self._form: tuple | None = None          # the rows the form shows (``_rows``); None: rebuild at any edit
        self._fills: list[Callable[[], None]] = []
        self.rebuilds = 0                       # forms built so far (an in-place fill builds none)
        self.doc.selection_changed.connect(self.rebuild)
        self.doc.changed.connect(lambda fields: self.rebuild())
        self.doc.reset.connect(self._renew)
        self._rebuild()

    def show_vertex(self, vertex: tuple[str, str, int, int] | None) -> None:
        """Show (and edit) this vertex (kind, id, ring, index) of the selected item; None: no vertex."""
        if vertex != self.vertex:
            self.vertex = vertex
            self.rebuild()

    def rebuild(self) -> None:
        """Show the document's state soon (after the signal that asked for it: its sender may be one of the
        widgets replaced): in place when the rows are the same, else in a new form."""
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self._rebuild)

    def _renew(self) -> None:
        """Another document: a new form, whatever its rows (no widget outlives the document it showed)."""
        self._form = None
        self.rebuild()

    def _rows(self) -> tuple | None:
        """What decides the form's rows for one selected item: its kind and id, the choices its combo boxes list,
        whether it moves or follows a route, the vertex shown. None (the scene, several items): no in-place fill."""
        sel = self.doc.selected_items()
        if len(sel) != 1:
            return None
        kind, it = sel[0]
        scene = self.doc.scene
        rows: tuple = (kind, it.id)
        if kind == "terrain":
            rows += tuple((t.id, t.name, t.color) for t in scene.terrain_types)
        elif kind == "obstacle":
            rows += (it.moving,)
        elif kind == "agent":
            rows += (it.route is None, tuple(p.id for p in scene.profiles), tuple(r.id for r in scene.routes))
        if self.vertex is not None and self.vertex[:2] == (kind, it.id) and kind != "agent":
            ring, index = self.vertex[2:]
            rings = item_rings(kind, it)
            rows += (self.vertex, len(rings[ring]) if ring < len(rings) and index < len(rings[ring]) else None)
        return rows

    def _now(self, kind: str, item_id: str):
        """The item as the document holds it now (None once it is gone): what a widget's edit starts from."""
        return next((it for _, it in lookup(self.doc.scene, [(kind, item_id)])), None)

    def _fill(self, fill: Callable[[], None]) -> None:
        """Register how a widget shows the document's state again without being made anew."""
        self._fills.append(fill)

    def _rebuild(self) -> None:
        self._pending = False
        rows = self._rows()
        if rows is None or rows != self._form:
            self._build(rows)
        for fill in self._fills:
            fill()

    def _build(self, rows: tuple | None) -> None:
        """A new form for the selection (``rows`` what decides its rows), its fills registered."""
        self.rebuilds += 1
        self._form, self._fills = rows, []
        old = self.takeWidget()
        if old is not None:
            old.deleteLater()
        body = QtWidgets.QWidget()
        self.form = QtWidgets.QFormLayout(body)
        self.form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        sel = self.doc.selected_items()
        if not sel:
            self._scene()
        elif len(sel) == 1:
            self._item(*sel[0])
        else:
            self._many(sel)
        self.setWidget(body)

    # -- the scene ---------------------------------------------------------------------------------------------

    def _scene(self) -> None:
        scene = self.doc.scene
        self.form.addRow(section_label("Scene"))
        name = QtWidgets.QLineEdit(scene.name)
        name.setObjectName("inspector.name")
        name.editingFinished.connect(lambda: name.text() != self.doc.scene.name and self.editor.apply(
            {"name": name.text()}, "Rename scene"))
        self.form.addRow("Name", name)
        boxes = []
        for label, v in zip(("x min", "y min", "x max", "y max"), scene.bounds):
            sb = number_box(-1e7, 1e7, 2, " m")
            sb.setValue(v)
            boxes.append(sb)
            self.form.addRow(label, sb)
        for sb in boxes:
            sb.valueChanged.connect(lambda _=None: self._set_bounds(tuple(b.value() for b in boxes)))
        counts = ", ".join(f"{len(getattr(scene, f))} {f}" for f in ("obstacles", "terrains", "routes", "networks",
                                                                     "agents"))
        info = QtWidgets.QLabel(counts)
        info.setWordWrap(True)
        self.form.addRow("Contains", info)
        self.form.addRow(section_label("Simulation defaults"))
        sim = scene.simulation
        method = QtWidgets.QComboBox()
        method.addItems(METHODS)
        method.setCurrentText(sim.method)
        method.currentTextChanged.connect(lambda v: self._set_sim(method=v))
        integ = QtWidgets.QComboBox()
        integ.addItems(INTEGRATORS)
        integ.setCurrentText(sim.integrator)
        integ.currentTextChanged.connect(lambda v: self._set_sim(integrator=v))
        dt = number_box(1e-4, 10.0, 4, " s", 0.01)
        dt.setValue(sim.dt)
        dt.valueChanged.connect(lambda v: self._set_sim(dt=v))
        self.form.addRow("Method", method)
        self.form.addRow("Integrator", integ)
        self.form.addRow("Time step", dt)

    def _set_bounds(self, bounds) -> None:
        x0, y0, x1, y1 = bounds
        if x1 <= x0 or y1 <= y0:
            self.editor.message("The bounds need x max > x min and y max > y min.")
            self.rebuild()
            return
        _, problems = check_scene(scene_to_dict(apply(self.doc.scene, {"bounds": bounds})))
        if problems:
            self.editor.message(f"Bounds refused: {problem_text(self.doc.scene, problems[0])}"
                                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
            self.rebuild()
            return
        self.editor.apply({"bounds": tuple(float(b) for b in bounds)}, "Change bounds")

    def _set_sim(self, **kw) -> None:
        self.editor.apply({"simulation": dataclasses.replace(self.doc.scene.simulation, **kw)},
                          "Change simulation settings", merge_key="simulation")

    # -- one item ----------------------------------------------------------------------------------------------

    def _item(self, kind: str, it) -> None:
        scene = self.doc.scene
        self.form.addRow(section_label(KIND_TITLES[kind]))
        ident = QtWidgets.QLineEdit(it.id)
        ident.setObjectName("inspector.id")
        ident.editingFinished.connect(lambda: self._rename(kind, it.id, ident.text()))
        self._fill(lambda: set_quietly(ident, "setText", it.id))   # a refused rename shows the id again
        self.form.addRow("Id", ident)

        def now():
            """The item as it is at the edit or fill that asks."""
            return self._now(kind, it.id)
        self._label("", now, lambda cur: describe(self.doc.scene, kind, cur))
        if kind == "terrain":
            combo = QtWidgets.QComboBox()
            for t in scene.terrain_types:
                combo.addItem(swatch_icon(t.color), t.name or t.id, t.id)
            self._fill(lambda: set_quietly(combo, "setCurrentIndex", max(0, combo.findData(now().type))))
            combo.currentIndexChanged.connect(
                lambda _: self._replace(kind, now(), lambda cur: dataclasses.replace(cur, type=combo.currentData()),
                                        "Change terrain type"))
            self.form.addRow("Type", combo)
            self._label("Area", now, lambda cur: quantity(Polygon(cur.polygon, cur.holes).area, "m²"))
        elif kind == "obstacle":
            self._label("Area", now, lambda cur: quantity(Polygon(cur.polygon).area, "m²"))
            self._schedule(now)
            self._motion(now)
        elif kind == "route":
            self._label("Length", now, lambda cur: quantity(LineString(cur.points).length, "m"))

            def followers(cur) -> str:
                n = sum(1 for a in self.doc.scene.agents if a.route == cur.id)
                return f"{n} agent{'s' if n != 1 else ''}"
            self._label("Followed by", now, followers)
        elif kind == "agent":
            self._agent(now)
        if self.vertex is not None and self.vertex[:2] == (kind, it.id) and kind != "agent":
            self._vertex(kind, now, *self.vertex[2:])

    def _label(self, title: str, now: Callable, text: Callable[..., str]) -> None:
        """A row showing ``text(item)``, filled again after each edit."""
        label = QtWidgets.QLabel()
        self._fill(lambda: label.setText(text(now())))
        self.form.addRow(title, label)

    def _schedule(self, now: Callable) -> None:
        """When the obstacle stands during a run: Appears (s, 0: from the start) and Vanishes (s, "never": to the
        end); a Vanishes not later than Appears is refused with a message (core.scene.model.Obstacle)."""
        appears = number_box(0.0, 1e7, 1, " s")
        appears.setObjectName("inspector.appears")
        appears.setToolTip("Simulated time from which the obstacle stands (0: from the start).")
        vanishes = number_box(0.0, 1e7, 1, " s")
        vanishes.setObjectName("inspector.vanishes")
        vanishes.setSpecialValueText("never")
        vanishes.setToolTip("Simulated time at which the obstacle goes (never: it stays to the end).")

        def fill() -> None:
            cur = now()
            set_quietly(appears, "setValue", cur.appears)
            set_quietly(vanishes, "setValue", cur.vanishes if cur.vanishes is not None else 0.0)
        self._fill(fill)

        def changed(_=None) -> None:
            a, v = float(appears.value()), float(vanishes.value())
            gone = v if v > 0.0 else None
            if gone is not None and gone <= a:
                self.editor.message(f"Schedule refused: the obstacle must vanish after it appears ({a:g} s), not "
                                    f"at {gone:g} s.")
                self.rebuild()
                return
            self._replace("obstacle", now(), lambda cur: dataclasses.replace(cur, appears=a, vanishes=gone),
                          "Change obstacle schedule")

        appears.valueChanged.connect(changed)
        vanishes.valueChanged.connect(changed)
        self.form.addRow("Appears", appears)
        self.form.addRow("Vanishes", vanishes)

    def _motion(self, now: Callable) -> None:
        """A moving obstacle's Speed, Loop and Turns, and Stand Still to take its path away; for one that does not
        move, how to give it a path (the Obstacle Path tool). Each change one undoable edit."""
        if not now().moving:
            hint = QtWidgets.QLabel("Stands still. To make it move, draw its path with the Obstacle Path tool (P).")
            hint.setObjectName("inspector.motion_hint")
            hint.setWordWrap(True)
            self.form.addRow("Path", hint)
            return
        def path(cur) -> str:
            length = LineString([*cur.path, cur.path[0]] if cur.loop else cur.path).length
            return f"{len(cur.path)} points, {quantity(length, 'm')}{' round' if cur.loop else ''}"
        self._label("Path", now, path)
        speed = number_box(1e-3, 1e4, 2, " m/s")
        speed.setObjectName("inspector.speed")
        speed.setToolTip("How fast it is carried along its path (units per second).")
        self._fill(lambda: set_quietly(speed, "setValue", now().speed))
        speed.valueChanged.connect(lambda v: self._replace(
            "obstacle", now(), lambda cur: dataclasses.replace(cur, speed=float(v)), "Change obstacle speed"))
        self.form.addRow("Speed", speed)
        for key, label, tip in (("loop", "Loop", "Round and round its path (back from the last point to the first); "
                                                 "otherwise it stops at the end."),
                                ("turns", "Turns", "Turns with its path, to each leg's heading; otherwise it keeps "
                                                   "its orientation.")):
            box = QtWidgets.QCheckBox()
            box.setObjectName(f"inspector.{key}")
            box.setToolTip(tip)
            self._fill(lambda box=box, k=key: set_quietly(box, "setChecked", bool(getattr(now(), k))))
            box.toggled.connect(lambda on, k=key: self._replace(
                "obstacle", now(), lambda cur: dataclasses.replace(cur, **{k: on}), f"Change obstacle {k}"))
            self.form.addRow(label, box)
        still = QtWidgets.QPushButton("Stand Still")
        still.setObjectName("inspector.stand_still")
        still.setToolTip("Take its path away: it stands where its outline is.")
        still.clicked.connect(lambda: self._replace("obstacle", now(), lambda cur: dataclasses.replace(
            cur, path=None, speed=0.0, loop=False, turns=False), "Stop obstacle moving"))
        self.form.addRow("", still)

    def _vertex(self, kind: str, now: Callable, ring: int, index: int) -> None:
        """The chosen vertex's x and y; a change moves it (one undoable edit, checked like a drag)."""
        rings = item_rings(kind, now())
        if ring >= len(rings) or index >= len(rings[ring]):
            return
        where = f" of hole {ring}" if kind == "terrain" and ring > 0 else ""
        name = "Node" if kind == "network" else "Vertex"
        self.form.addRow(section_label(f"{name} {index + 1} of {len(rings[ring])}{where}"))
        xs, ys = number_box(-1e7, 1e7, 3, " m"), number_box(-1e7, 1e7, 3, " m")
        xs.setObjectName("inspector.vertex_x")
        ys.setObjectName("inspector.vertex_y")

        def fill() -> None:
            x, y = item_rings(kind, now())[ring][index]
            set_quietly(xs, "setValue", x)
            set_quietly(ys, "setValue", y)
        self._fill(fill)
        for sb in (xs, ys):
            sb.valueChanged.connect(lambda _=None: self._replace(
                kind, now(), lambda cur: move_vertex(kind, cur, ring, index, (xs.value(), ys.value())),
                f"Move {name.lower()}"))
        self.form.addRow("x", xs)
        self.form.addRow("y", ys)

    def _agent(self, now: Callable) -> None:
        scene = self.doc.scene
        prof = QtWidgets.QComboBox()
        prof.addItems([p.id for p in scene.profiles])
        self._fill(lambda: set_quietly(prof, "setCurrentText", now().profile))
        prof.currentTextChanged.connect(lambda v: self._replace(
            "agent", now(), lambda cur: dataclasses.replace(cur, profile=v), "Change agent profile"))
        self.form.addRow("Profile", prof)
        follow = QtWidgets.QComboBox()
        follow.addItem(FOLLOW_PLANNER, None)
        for r in scene.routes:
            follow.addItem(f"route {r.id}", r.id)
        self._fill(lambda: set_quietly(follow, "setCurrentIndex",
                                       max(0, follow.findData(now().route)) if now().route is not None else 0))
        follow.currentIndexChanged.connect(lambda _: self._set_follow(now(), follow.currentData()))
        self.form.addRow("Follows", follow)
        if now().route is None:
            planner = QtWidgets.QComboBox()
            planner.setObjectName("inspector.planner")
            for name in PLANNERS:
                planner.addItem(planner_title(name), name)
                planner.setItemData(planner.count() - 1, planner_tip(name), QtCore.Qt.ItemDataRole.ToolTipRole)
            self._fill(lambda: set_quietly(planner, "setCurrentIndex",
                                           max(0, planner.findData(now().planner or "cdt"))))
            planner.currentIndexChanged.connect(lambda _: self._replace(
                "agent", now(), lambda cur: dataclasses.replace(cur, planner=planner.currentData()),
                "Change agent planner"))
            self.form.addRow("Planner", planner)
            for key in ("start", "goal"):
                xs, ys = number_box(-1e7, 1e7, 3, " m"), number_box(-1e7, 1e7, 3, " m")
                row = QtWidgets.QHBoxLayout()
                row.addWidget(xs)
                row.addWidget(ys)

                def fill(key=key, xs=xs, ys=ys) -> None:
                    p = getattr(now(), key)
                    set_quietly(xs, "setValue", p[0])
                    set_quietly(ys, "setValue", p[1])
                self._fill(fill)
                for sb in (xs, ys):
                    sb.valueChanged.connect(lambda _=None, key=key, xs=xs, ys=ys: self._replace(
                        "agent", now(), lambda cur: dataclasses.replace(cur, **{key: (xs.value(), ys.value())}),
                        f"Move agent {key}"))
                self.form.addRow(key.capitalize(), row)

    def _set_follow(self, a, route: str | None) -> None:
        def follow(cur):
            if route is not None:
                return dataclasses.replace(cur, route=route, start=None, goal=None, planner=None)
            s, g = agent_ends(self.doc.scene, cur)
            return dataclasses.replace(cur, route=None, start=s, goal=g, planner="cdt")
        self._replace("agent", a, follow, "Change what the agent follows")

    def _replace(self, kind: str, old, change: Callable, text: str) -> None:
        """Replace ``old`` (the item as the document holds it now; None once gone) by ``change(old)``."""
        if old is None:
            return
        new = change(old)
        if new != old:
            refs = [(kind, new.id)]
            if self.editor.commit(replace_item(self.doc.scene, kind, old.id, new), text, refs=refs,
                                  select=refs):
                self.rebuild()

    def _rename(self, kind: str, old: str, new: str) -> None:
        if new.strip() == old:
            return
        try:
            changes = rename(self.doc.scene, kind, old, new)
        except (ValueError, KeyError) as e:
            self.editor.message(f"Cannot rename: {e.args[0]}")
            self.rebuild()
            return
        self.editor.apply(changes, f"Rename {kind} {old} to {new.strip()}", select=[(kind, new.strip())])

    # -- several -----------------------------------------------------------------------------------------------

    def _many(self, sel) -> None:
        self.form.addRow(section_label(f"{len(sel)} items selected"))
        counts: dict[str, int] = {}
        for kind, _ in sel:
            counts[kind] = counts.get(kind, 0) + 1
        for kind, n in counts.items():
            self.form.addRow(KIND_TITLES[kind], QtWidgets.QLabel(str(n)))
