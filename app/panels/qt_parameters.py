"""The simulation panel: method, integrator, fidelity (exact or fast, core.sim.fidelity), dt, speed, the chosen
profile's sigma, d and terrain weights, the force constants, the traced agent and random agents. Every change is a
command to the worker and applies on the next step; sliders send while they move, so the ghost preview and the
walking agents follow the drag.

The panel shows the running simulation's values (``BuildInfo.params``); "Save to Scene" writes them into the
scene as one undoable edit.
"""

from __future__ import annotations

import dataclasses
import math

from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.edits import replace_item
from core.scene.model import METHODS, SimulationSettings
from core.sim.params import DEFAULTS
from core.sim.simulation import default_threads

from ..layers.qt_base import PROFILE_COLOURS
from .qt_widgets import section_label, set_quietly, swatch_icon
from .qt_spin import QtDoubleSpin, QtIntSpin

METHOD_TITLES = {"miran": "MIRAN", "disc-miran": "Disc MIRAN", "irm": "IRM"}
SPEEDS = ((0.25, "¼×"), (0.5, "½×"), (1.0, "1× (real time)"), (2.0, "2×"), (4.0, "4×"), (8.0, "8×"),
          (16.0, "16×"), (0.0, "As fast as possible"))
# name, label, minimum, maximum, decimals, suffix, log scale, tooltip (core.sim.params)
FORCES = (
    ("c_s", "Steering c_s", 0.1, 40.0, 2, " 1/s", True, "Steering strength: F_s = c_s vmax toward the attraction "
                                                      "point (MIRAN 3.4)."),
    ("c_b", "Boundary c_b", 0.0, 20.0, 2, "", False, "Boundary force scale (IRM eq. 1's C_b)."),
    ("kappa", "Steepness κ", 0.05, 20.0, 2, "", True, "Steepness of the boundary force (IRM 4.1)."),
    ("safe_distance", "Safe distance", 0.0, 20.0, 2, " m", False, "Clearance under which F_b acts (0: automatic)."),
    ("c_o", "Avoidance c_o", 0.0, 20.0, 2, "", False, "Obstacle-avoidance strength (IRM eq. 6)."),
    ("d_o", "Avoidance range", 0.0, 20.0, 2, " m", False, "Influence region of F_o (0: automatic)."),
    ("f_max", "Force cap", 0.5, 200.0, 1, "", True, "Cap on |F_b| and |F_o| relative to vmax."),
)
PROFILE_SLIDERS = (
    ("sigma", "σ (sigma)", 0.5, 5000.0, 1, " m", True, "How far ahead along the route the attraction point may lie "
                                                     "(MIRAN 3.2, Figure 7)."),
    ("d", "d", 0.1, 500.0, 2, " m", True, "Spacing of the candidate attraction points (MIRAN 3.2)."),
    ("max_speed", "Max speed", 0.05, 30.0, 2, " m/s", True, "The fastest the character walks."),
    ("radius", "Radius", 0.01, 10.0, 2, " m", True, "The disc of disc MIRAN."),
)
WEIGHT_RANGE = (0.05, 200.0)
ADD_COUNT = 100      # random agents the Add button offers at first


class SliderField(QtWidgets.QWidget):
    """A slider (linear or logarithmic) with a spin box; ``changed(value)`` fires while the slider moves."""

    changed = QtCore.Signal(float)
    STEPS = 1000

    def __init__(self, lo: float, hi: float, decimals: int, suffix: str = "", log: bool = False,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.lo, self.hi, self.log = lo, hi, log and lo > 0
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, self.STEPS)
        self.spin = QtDoubleSpin()
        self.spin.setRange(lo, hi)
        self.spin.setDecimals(decimals)
        self.spin.setKeyboardTracking(False)
        self.spin.setSuffix(suffix)
        self.spin.setMinimumWidth(84)
        self.spin.setSingleStep(10 ** -max(0, decimals - 1))
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)
        self.slider.valueChanged.connect(self._slid)
        self.spin.valueChanged.connect(self._typed)

    def _to_slider(self, v: float) -> int:
        v = min(max(v, self.lo), self.hi)
        if self.log:
            u = math.log(v / self.lo) / math.log(self.hi / self.lo)
        else:
            u = (v - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.0
        return int(round(u * self.STEPS))

    def _from_slider(self, k: int) -> float:
        u = k / self.STEPS
        return self.lo * (self.hi / self.lo) ** u if self.log else self.lo + u * (self.hi - self.lo)

    def value(self) -> float:
        return self.spin.value()

    def set_value(self, v: float) -> None:
        """Show a value without emitting ``changed``."""
        set_quietly(self.spin, "setValue", v)
        set_quietly(self.slider, "setValue", self._to_slider(v))

    def _slid(self, k: int) -> None:
        v = self._from_slider(k)
        set_quietly(self.spin, "setValue", v)
        self.changed.emit(self.spin.value())

    def _typed(self, v: float) -> None:
        set_quietly(self.slider, "setValue", self._to_slider(v))
        self.changed.emit(v)


class QtSimParameters(QtWidgets.QScrollArea):
    """The simulation dock's contents. ``send(name, *args)`` is the bridge's command function; ``editor`` the
    scene editor (for names, colours and Save to Scene); ``actions`` the preview and side-by-side actions."""

    agent_chosen = QtCore.Signal(int)
    # The fidelity the panel shows ("exact" or "fast"), whenever it is chosen or shown for another scene.
    fidelity_shown = QtCore.Signal(str)

    def __init__(self, send, editor, actions: dict[str, QtGui.QAction], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("sim.parameters")
        self.send = send
        self.editor = editor
        self.doc = editor.doc
        self.info = None
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        body = QtWidgets.QWidget()
        self.setWidget(body)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(6)

        run = QtWidgets.QFormLayout()
        self.method = QtWidgets.QComboBox()
        self.method.setObjectName("sim.method")
        for m in METHODS:
            self.method.addItem(METHOD_TITLES.get(m, m), m)
        self.method.activated.connect(lambda _: self.send("method", self.method.currentData()))
        self.integrator = QtWidgets.QComboBox()
        self.integrator.setObjectName("sim.integrator")
        self.integrator.addItem("Euler", "euler")
        self.integrator.addItem("Verlet", "verlet")
        self.integrator.activated.connect(lambda _: self.send("param", "integrator", self.integrator.currentData()))
        self.fidelity = QtWidgets.QComboBox()
        self.fidelity.setObjectName("sim.fidelity")
        self.fidelity.addItem("Exact", "exact")
        self.fidelity.addItem("Fast (crowd level of detail)", "fast")
        self.fidelity.setToolTip("Exact: the papers' method at every step. Fast: each character keeps its "
                                 "attraction point for a few steps while it stays in sight, and feels the personal "
                                 "space of its 8 nearest neighbours only; for large crowds")
        self.fidelity.activated.connect(self._fidelity_chosen)
        self.dt = SliderField(0.005, 1.0, 3, " s", log=True)
        self.dt.setObjectName("sim.dt")
        self.dt.changed.connect(lambda v: self.send("param", "dt", v))
        self.speed = QtWidgets.QComboBox()
        self.speed.setObjectName("sim.speed")
        for f, text in SPEEDS:
            self.speed.addItem(text, f)
        self.speed.setCurrentIndex(2)
        self.speed.activated.connect(lambda _: self.send("speed", self.speed.currentData()))
        # Cores stepping the agents (core.sim.Simulation threads): all but one, left to the UI, by default.
        self.threads = QtIntSpin()
        self.threads.setObjectName("sim.threads")
        self.threads.setRange(1, max(1, default_threads() + 1))
        self.threads.setValue(default_threads())
        self.threads.setToolTip("Threads that step the agents (the paths are the same whatever the number)")
        self.threads.valueChanged.connect(lambda v: self.send("threads", int(v)))
        run.addRow("Method", self.method)
        run.addRow("Integrator", self.integrator)
        run.addRow("Fidelity", self.fidelity)
        run.addRow("Time step", self.dt)
        run.addRow("Speed", self.speed)
        run.addRow("Threads", self.threads)
        lay.addLayout(run)
        # Two rows, so that the panel fits a 1280-pixel-wide window: the toggles, then the side-by-side method.
        toggles = QtWidgets.QHBoxLayout()
        for name in ("sim.preview", "sim.compare"):
            b = QtWidgets.QToolButton()
            b.setDefaultAction(actions[name])
            b.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
            toggles.addWidget(b)
        toggles.addStretch(1)
        lay.addLayout(toggles)
        self.compare_method = QtWidgets.QComboBox()
        self.compare_method.setObjectName("sim.compare_method")
        self.compare_method.setToolTip("The method run side by side with the panel's method (MIRAN Figure 8)")
        run2 = QtWidgets.QFormLayout()
        run2.addRow("Side by side with", self.compare_method)
        lay.addLayout(run2)

        lay.addWidget(section_label("Profile"))
        self.profile = QtWidgets.QComboBox()
        self.profile.setObjectName("sim.profile")
        self.profile.currentIndexChanged.connect(lambda _: self._show_profile())
        lay.addWidget(self.profile)
        pform = QtWidgets.QFormLayout()
        self.profile_fields: dict[str, SliderField] = {}
        for name, label, lo, hi, dec, suffix, log, tip in PROFILE_SLIDERS:
            f = SliderField(lo, hi, dec, suffix, log)
            f.setObjectName(f"sim.{name}")
            f.setToolTip(tip)
            f.changed.connect(lambda v, name=name: self._profile_changed(name, v))
            self.profile_fields[name] = f
            pform.addRow(label, f)
        lay.addLayout(pform)
        lay.addWidget(section_label("Terrain weights w(T)"))
        self.weight_form = QtWidgets.QFormLayout()
        self.weight_fields: dict[str, SliderField] = {}
        lay.addLayout(self.weight_form)

        forces = QtWidgets.QGroupBox("Forces")
        forces.setCheckable(True)
        forces.setChecked(False)
        forces.setObjectName("sim.forces")
        fform = QtWidgets.QFormLayout()
        fbody = QtWidgets.QWidget()
        fbody.setLayout(fform)
        fbody.setVisible(False)
        forces.toggled.connect(fbody.setVisible)
        flay = QtWidgets.QVBoxLayout(forces)
        flay.setContentsMargins(4, 4, 4, 4)
        flay.addWidget(fbody)
        self.force_fields: dict[str, SliderField] = {}
        for name, label, lo, hi, dec, suffix, log, tip in FORCES:
            f = SliderField(lo, hi, dec, suffix, log)
            f.setObjectName(f"sim.{name}")
            f.setToolTip(tip)
            f.changed.connect(lambda v, name=name: self.send("param", name, v))
            self.force_fields[name] = f
            fform.addRow(label, f)
        self.interact = QtWidgets.QCheckBox("Characters push each other (F_o)")
        self.interact.setObjectName("sim.interact")
        self.interact.toggled.connect(lambda on: self.send("param", "interact", on))
        fform.addRow(self.interact)
        lay.addWidget(forces)

        lay.addWidget(section_label("Agents"))
        aform = QtWidgets.QFormLayout()
        self.agent = QtIntSpin()
        self.agent.setObjectName("sim.agent")
        self.agent.setRange(-1, -1)
        self.agent.setSpecialValueText("none")
        self.agent.valueChanged.connect(self._agent_spun)
        self.agent_id = QtWidgets.QLabel("—")
        arow = QtWidgets.QHBoxLayout()
        arow.addWidget(self.agent)
        arow.addWidget(self.agent_id, 1)
        aform.addRow("Traced", arow)
        self.add_n = QtIntSpin()
        self.add_n.setObjectName("sim.add_count")
        self.add_n.setRange(1, 20000)
        self.add_n.setValue(ADD_COUNT)
        self.add_seed = QtIntSpin()
        self.add_seed.setRange(0, 2 ** 31 - 1)
        self.add_seed.setValue(1)
        self.add_seed.setPrefix("seed ")
        add = QtWidgets.QPushButton("Add Random Agents")
        add.setObjectName("sim.add_agents")
        add.setToolTip("Add this many agents with random starts and goals (this seed); their routes are planned "
                       "(cdt)")
        add.clicked.connect(self.add_agents)
        nrow = QtWidgets.QHBoxLayout()
        nrow.addWidget(self.add_n, 1)
        nrow.addWidget(self.add_seed, 1)
        aform.addRow("Random", nrow)
        aform.addRow("", add)
        lay.addLayout(aform)
        save = QtWidgets.QPushButton("Save to Scene")
        save.setObjectName("sim.save_to_scene")
        save.setToolTip("Write the tuned profile and the method, integrator, fidelity and time step into the scene "
                        "(undoable)")
        save.clicked.connect(self.save_to_scene)
        lay.addWidget(save)
        lay.addStretch(1)
        self.doc.reset.connect(self.show_scene)
        self.doc.changed.connect(self._scene_edited)
        self.show_scene()

    def _fidelity_chosen(self, _index: int) -> None:
        """Exact or fast for the next step; kept in ``params`` too, which the sweep dialog fixes its runs from."""
        self.params["fidelity"] = self.fidelity.currentData()
        self.send("param", "fidelity", self.params["fidelity"])
        self.fidelity_shown.emit(self.params["fidelity"])

    # ----- showing ---------------------------------------------------------------------------------------------

    def show_scene(self) -> None:
        """Another document (or imported contents): show the scene's own values until the simulation is built;
        nothing tuned for the last one stays."""
        self.info = None
        scene = self._scene = self.doc.scene
        params = {"dt": scene.simulation.dt, "integrator": scene.simulation.integrator,
                  "fidelity": scene.simulation.fidelity,
                  **{name: DEFAULTS[name] for name in self.force_fields}, "interact": bool(DEFAULTS["interact"]),
                  "profiles": {p.id: {"max_speed": p.max_speed, "sigma": p.sigma, "d": p.d, "radius": p.radius,
                                      "weights": {t.id: p.weight(t.id) for t in scene.terrain_types}}
                               for p in scene.profiles}}
        for combo in (self.profile, self.compare_method):   # the first profile, the default side-by-side method
            _clear_quietly(combo)
        set_quietly(self.agent, "setValue", -1)
        self.add_n.setValue(ADD_COUNT)
        self.add_seed.setValue(1)
        self._show(params, scene.simulation.method, [p.id for p in scene.profiles], ())

    def _scene_edited(self, fields) -> None:
        """Profiles or settings edited in the scene apply live (the worker does the same): show them."""
        old, new = self._scene, self.doc.scene
        self._scene = new
        if not fields & {"profiles", "simulation", "terrain_types"}:
            return
        profiles = self.params.setdefault("profiles", {})
        for p in new.profiles:
            try:
                q = old.profile(p.id)
            except KeyError:
                continue
            live = profiles.setdefault(p.id, {"weights": {}})
            for f in ("max_speed", "sigma", "d", "radius"):
                if getattr(p, f) != getattr(q, f):
                    live[f] = getattr(p, f)
            for t in new.terrain_types:
                if p.weight(t.id) != q.weight(t.id):
                    live["weights"][t.id] = p.weight(t.id)
        sim, was = new.simulation, old.simulation
        if sim.dt != was.dt:
            self.params["dt"] = sim.dt
            self.dt.set_value(sim.dt)
        if sim.integrator != was.integrator:
            set_quietly(self.integrator, "setCurrentIndex", max(0, self.integrator.findData(sim.integrator)))
        if sim.fidelity != was.fidelity:
            self.params["fidelity"] = sim.fidelity
            set_quietly(self.fidelity, "setCurrentIndex", max(0, self.fidelity.findData(sim.fidelity)))
            self.fidelity_shown.emit(sim.fidelity)
        if sim.method != was.method:
            set_quietly(self.method, "setCurrentIndex", max(0, self.method.findData(sim.method)))
        self._show_profile()

    def show_build(self, info) -> None:
        """The simulation was (re)built: show its live values."""
        self.info = info
        self._show(info.params, info.method, list(info.profiles), info.ids, info.methods)

    def _show(self, params: dict, method: str, profiles: list[str], ids, methods=None) -> None:
        self.params = params
        avail = set(methods) if methods is not None else set(METHODS)
        model = self.method.model()
        for k in range(self.method.count()):
            m = self.method.itemData(k)
            model.item(k).setEnabled(m in avail)
            model.item(k).setToolTip("" if m in avail else "not available in this version of the engine")
        set_quietly(self.method, "setCurrentIndex", max(0, self.method.findData(method)))
        cur = self.compare_method.currentData()
        self.compare_method.blockSignals(True)
        self.compare_method.clear()
        for m in METHODS:
            if m in avail:
                self.compare_method.addItem(METHOD_TITLES.get(m, m), m)
        default = cur if cur in avail else ("irm" if "irm" in avail else next((m for m in METHODS if m in avail
                                                                             and m != method), method))
        self.compare_method.setCurrentIndex(max(0, self.compare_method.findData(default)))
        self.compare_method.blockSignals(False)
        if "integrator" in params:
            set_quietly(self.integrator, "setCurrentIndex", max(0, self.integrator.findData(params["integrator"])))
        set_quietly(self.fidelity, "setCurrentIndex", max(0, self.fidelity.findData(params.get("fidelity", "exact"))))
        self.fidelity_shown.emit(str(self.fidelity.currentData()))
        if "dt" in params:
            self.dt.set_value(float(params["dt"]))
        for name, f in self.force_fields.items():
            if name in params:
                f.set_value(float(params[name]))
        if "interact" in params:
            set_quietly(self.interact, "setChecked", bool(params["interact"]))
        keep = self.profile.currentText()
        self.profile.blockSignals(True)
        self.profile.clear()
        for k, pid in enumerate(profiles):
            self.profile.addItem(swatch_icon(PROFILE_COLOURS[k % len(PROFILE_COLOURS)]), pid)
        self.profile.setCurrentIndex(max(0, self.profile.findText(keep)))
        self.profile.blockSignals(False)
        self._show_profile()
        self.agent.blockSignals(True)
        self.agent.setRange(-1, len(ids) - 1)
        self.agent.blockSignals(False)
        self.ids = tuple(ids)
        self._agent_label()

    def _show_profile(self) -> None:
        pid = self.profile.currentText()
        prof = self.params.get("profiles", {}).get(pid)
        for name, f in self.profile_fields.items():
            f.setEnabled(prof is not None)
            if prof is not None:
                f.set_value(float(prof[name]))
        while self.weight_form.rowCount():
            self.weight_form.removeRow(0)
        self.weight_fields = {}
        if prof is None:
            return
        types = {t.id: t for t in self.doc.scene.terrain_types}
        for tid, w in prof["weights"].items():
            f = SliderField(*WEIGHT_RANGE, 2, "", log=True)
            f.setObjectName(f"sim.weight.{tid}")
            f.set_value(float(w))
            f.changed.connect(lambda v, tid=tid: self._weight_changed(tid, v))
            t = types.get(tid)
            label = _swatch_label(t.color, t.name or t.id) if t is not None else QtWidgets.QLabel(tid)
            self.weight_form.addRow(label, f)
            self.weight_fields[tid] = f

    def _agent_label(self) -> None:
        i = self.agent.value()
        ids = getattr(self, "ids", ())
        self.agent_id.setText(ids[i] if 0 <= i < len(ids) else "—")

    def set_agent(self, index: int) -> None:
        """Show the traced agent chosen elsewhere (a click in the viewport)."""
        set_quietly(self.agent, "setValue", index)
        self._agent_label()

    # ----- editing ---------------------------------------------------------------------------------------------

    def _profile_changed(self, name: str, value: float) -> None:
        pid = self.profile.currentText()
        if pid:
            self.params.setdefault("profiles", {}).setdefault(pid, {})[name] = value
            self.send("profile", pid, name, value)

    def _weight_changed(self, tid: str, value: float) -> None:
        pid = self.profile.currentText()
        if pid:
            self.params["profiles"][pid]["weights"][tid] = value
            self.send("weight", pid, tid, value)

    def apply_parameters(self, values: dict) -> None:
        """Set parameters named as in a sweep spec (``method``, ``dt``, a force constant, ``<profile>.<field>``,
        ``<profile>.weight.<terrain>``), show them and send them to the simulation (the sweep dialog's rows)."""
        for name, v in values.items():
            if name == "method":
                set_quietly(self.method, "setCurrentIndex", max(0, self.method.findData(v)))
                self.send("method", v)
            elif name == "dt":
                self.dt.set_value(float(v))
                self.send("param", "dt", float(v))
            elif name in self.force_fields:
                self.force_fields[name].set_value(float(v))
                self.send("param", name, float(v))
            elif "." in name:
                pid, _, field = name.partition(".")
                k = self.profile.findText(pid)
                if k < 0:
                    continue
                self.profile.setCurrentIndex(k)
                if field in self.profile_fields:
                    self.profile_fields[field].set_value(float(v))
                    self._profile_changed(field, float(v))
                elif field.partition(".")[2] in self.weight_fields:
                    tid = field.partition(".")[2]
                    self.weight_fields[tid].set_value(float(v))
                    self._weight_changed(tid, float(v))

    def _agent_spun(self, i: int) -> None:
        self._agent_label()
        self.agent_chosen.emit(i)

    def add_agents(self) -> None:
        pid = self.profile.currentText() or None
        self.send("add_agents", self.add_n.value(), self.add_seed.value(), pid)
        self.add_seed.setValue(self.add_seed.value() + 1)

    def save_to_scene(self) -> None:
        """Write the live profile values and run settings into the scene (one undoable edit)."""
        scene = self.doc.scene
        profiles = self.params.get("profiles", {})
        changes: dict = {}
        current = scene
        for p in scene.profiles:
            live = profiles.get(p.id)
            if live is None:
                continue
            weights = {**p.weights, **{t: float(w) for t, w in live["weights"].items() if float(w) != p.weight(t)}}
            new = dataclasses.replace(p, weights=weights, **{f: float(live[f]) for f in ("max_speed", "sigma", "d",
                                                                                          "radius")})
            if new != p:
                ch = replace_item(current, "profile", p.id, new)
                changes.update(ch)
                current = dataclasses.replace(current, **ch)
        method = self.method.currentData()
        sim = SimulationSettings(method if method in METHODS else scene.simulation.method,
                                 self.integrator.currentData(), round(self.dt.value(), 6),
                                 self.fidelity.currentData())
        if sim != scene.simulation:
            changes["simulation"] = sim
        if changes:
            self.editor.apply(changes, "Save tuned parameters to the scene")
        else:
            self.editor.message("The scene already has these parameters.")


def _clear_quietly(combo: QtWidgets.QComboBox) -> None:
    was = combo.blockSignals(True)
    combo.clear()
    combo.blockSignals(was)


def _swatch_label(color: str, text: str) -> QtWidgets.QWidget:
    w = QtWidgets.QWidget()
    lay = QtWidgets.QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(4)
    icon = QtWidgets.QLabel()
    icon.setPixmap(swatch_icon(color).pixmap(12, 12))
    lay.addWidget(icon)
    lay.addWidget(QtWidgets.QLabel(text), 1)
    return w
