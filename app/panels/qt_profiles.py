"""The profiles panel: a weight per terrain type, radius, maximum speed and MIRAN's sigma and d (MIRAN 2013,
section 4) for each kind of character. The chosen profile is the one the agent tool gives new agents."""

from __future__ import annotations

import dataclasses

from PySide6 import QtCore, QtWidgets

from core.scene import Profile
from core.scene.edits import add_item, find, new_id, profile_usage, remove_profile, rename, replace_item
from core.scene.ranges import candidates_problem, range_problem

from .. import qt_dialogs as dialogs
from ..qt_editor import QtEditor
from .qt_widgets import number_box, set_quietly, swatch_icon

FIELDS = (  # name, label, minimum, maximum, decimals, suffix, step, tooltip
    ("radius", "Radius", 0.01, 100.0, 3, " m", 0.05, "The disc that stands for the character (disc MIRAN)."),
    ("max_speed", "Max speed", 0.01, 100.0, 3, " m/s", 0.1, "The fastest the character walks."),
    ("sigma", "Sigma", 0.01, 1e6, 3, "", 1.0, "How closely the indicative route is followed (MIRAN, Figure 7)."),
    ("d", "d", 0.01, 1e6, 3, " m", 0.5, "How far ahead along the route the attraction point looks (MIRAN)."),
)


class QtProfiles(QtWidgets.QWidget):
    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.doc = editor.doc
        self.state = editor.state
        self.combo = QtWidgets.QComboBox()
        self.combo.setObjectName("profiles.current")
        add = QtWidgets.QPushButton("Add")
        ren = QtWidgets.QPushButton("Rename…")
        rem = QtWidgets.QPushButton("Remove")
        add.clicked.connect(self.add_profile)
        ren.clicked.connect(self.rename_profile)
        rem.clicked.connect(lambda: self.remove(self.state.profile))
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.combo, 1)
        for b in (add, ren, rem):
            top.addWidget(b)
        form = QtWidgets.QFormLayout()
        self.boxes: dict[str, QtWidgets.QDoubleSpinBox] = {}
        for name, label, lo, hi, dec, suffix, step, tip in FIELDS:
            sb = number_box(lo, hi, dec, suffix, step)
            sb.setObjectName(f"profiles.{name}")
            sb.setToolTip(tip)
            sb.valueChanged.connect(lambda v, name=name: self._set(name, v))
            self.boxes[name] = sb
            form.addRow(label, sb)
        self.weights = QtWidgets.QTableWidget(0, 2)
        self.weights.setObjectName("profiles.weights")
        self.weights.setHorizontalHeaderLabels(["Terrain type", "Weight"])
        self.weights.verticalHeader().hide()
        self.weights.horizontalHeader().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.weights.setToolTip("The cost of walking a metre on each terrain type (1 = neutral; higher avoids it).")
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addLayout(form)
        lay.addWidget(QtWidgets.QLabel("Weights per terrain type"))
        lay.addWidget(self.weights, 1)
        self._weight_boxes: dict[str, QtWidgets.QDoubleSpinBox] = {}
        self._pending = False
        self.combo.currentTextChanged.connect(lambda v: v and self.state.set("profile", v))
        self.doc.changed.connect(lambda f: f & {"profiles", "terrain_types"} and self.schedule_fill())
        self.doc.reset.connect(self.schedule_fill)
        self.state.changed.connect(lambda name: name == "profile" and self.schedule_fill())
        self.fill()

    def schedule_fill(self) -> None:
        """Refill after the current signal (a spin box that reported an edit must not be replaced inside it)."""
        if not self._pending:
            self._pending = True
            QtCore.QTimer.singleShot(0, self.fill)

    def profile(self) -> Profile | None:
        return find(self.doc.scene, "profile", self.state.profile)

    def fill(self) -> None:
        self._pending = False
        scene = self.doc.scene
        ids = [p.id for p in scene.profiles]
        was = self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems(ids)
        self.combo.setCurrentText(self.state.profile)
        self.combo.blockSignals(was)
        p = self.profile()
        for name, box in self.boxes.items():
            box.setEnabled(p is not None)
            if p is not None:
                set_quietly(box, "setValue", getattr(p, name))
        if p is None:
            self.weights.setRowCount(0)
            self._weight_boxes = {}
            return
        type_ids = [t.id for t in scene.terrain_types]
        if list(self._weight_boxes) == type_ids:
            for r, t in enumerate(scene.terrain_types):
                self.weights.item(r, 0).setText(t.name or t.id)
                self.weights.item(r, 0).setIcon(swatch_icon(t.color))
                set_quietly(self._weight_boxes[t.id], "setValue", p.weight(t.id))
            return
        self.weights.setRowCount(len(type_ids))
        self._weight_boxes = {}
        for r, t in enumerate(scene.terrain_types):
            label = QtWidgets.QTableWidgetItem(swatch_icon(t.color), t.name or t.id)
            label.setFlags(label.flags() & ~QtCore.Qt.ItemFlag.ItemIsEditable)
            self.weights.setItem(r, 0, label)
            sb = number_box(0.001, 1e6, 3, "", 0.1)
            sb.setFrame(False)
            sb.setObjectName(f"profiles.weight.{t.id}")
            set_quietly(sb, "setValue", p.weight(t.id))
            sb.valueChanged.connect(lambda v, tid=t.id: self._set_weight(tid, v))
            self.weights.setCellWidget(r, 1, sb)
            self._weight_boxes[t.id] = sb
        # The weight column as wide as its spin boxes need (the widest weight must not be cut).
        need = max((sb.minimumSizeHint().width() for sb in self._weight_boxes.values()), default=80)
        self.weights.setColumnWidth(1, need + 4)

    def _set(self, name: str, value: float) -> None:
        p = self.profile()
        if p is None or getattr(p, name) == value:
            return
        new = dataclasses.replace(p, **{name: value})
        msg = range_problem(name, value) or candidates_problem(new.sigma, new.d)
        if msg:  # the box's own range holds each field; sigma / d can still pass the candidates' limit
            self.editor.message(f"Profile {p.id}: {name} not changed: {msg}")
            self.schedule_fill()
            return
        self.editor.apply(replace_item(self.doc.scene, "profile", p.id, new),
                          f"Change {p.id} {name.replace('_', ' ')}", merge_key=f"profile:{p.id}:{name}")

    def _set_weight(self, type_id: str, value: float) -> None:
        p = self.profile()
        if p is None or p.weight(type_id) == value:
            return
        weights = {**p.weights, type_id: value}
        self.editor.apply(replace_item(self.doc.scene, "profile", p.id, dataclasses.replace(p, weights=weights)),
                          f"Change {p.id} weight of {type_id}", merge_key=f"profile:{p.id}:w:{type_id}")

    def add_profile(self) -> str:
        pid = new_id(self.doc.scene, "profile")
        self.editor.apply(add_item(self.doc.scene, "profile", Profile(pid)), "Add profile")
        self.state.set("profile", pid)
        return pid

    def rename_profile(self) -> None:
        p = self.profile()
        if p is None:
            return
        new = dialogs.ask_text(self, "Rename profile", "Profile id", p.id)
        if new is None:
            return
        try:
            changes = rename(self.doc.scene, "profile", p.id, new)
        except ValueError as e:
            self.editor.message(f"Cannot rename: {e.args[0]}")
            return
        self.editor.apply(changes, f"Rename profile {p.id}")
        self.state.set("profile", new.strip())

    def remove(self, pid: str) -> bool:
        """Remove a profile; when agents use it, ask whether they take another profile or go too."""
        scene = self.doc.scene
        if find(scene, "profile", pid) is None:
            return False
        used = profile_usage(scene, pid)
        replacement = None
        if used:
            others = [p.id for p in scene.profiles if p.id != pid]
            options = [f"Give them “{o}”" for o in others] + [f"Delete the {used} agent{'s' if used != 1 else ''}"]
            choice = dialogs.ask_choice(self, "Remove profile", f"{used} agent{'s' if used != 1 else ''} use "
                                        f"“{pid}”. What should become of them?", options)
            if choice is None:
                return False
            replacement = others[choice] if choice < len(others) else None
        self.editor.apply(remove_profile(scene, pid, replacement), f"Remove profile {pid}")
        return True
