"""The tool options bar: the terrain type the terrain tool paints, the profile and planner (or route) of new
agents, shown with the active tool's hint."""

from __future__ import annotations

from PySide6 import QtWidgets

from ..qt_editor import QtEditor
from ..model.tool_state import AGENT_MODES, ROUTE_MODE
from .qt_widgets import set_quietly, swatch_icon


class QtToolOptions(QtWidgets.QToolBar):
    def __init__(self, editor: QtEditor, parent=None) -> None:
        super().__init__("Tool Options", parent)
        self.setObjectName("toolbar.options")
        self.editor = editor
        self.doc = editor.doc
        self.state = editor.state
        self.terrain = QtWidgets.QComboBox()
        self.terrain.setObjectName("options.terrain_type")
        self.terrain.setMinimumContentsLength(12)
        self.profile = QtWidgets.QComboBox()
        self.profile.setObjectName("options.profile")
        self.profile.setMinimumContentsLength(10)
        self.mode = QtWidgets.QComboBox()
        self.mode.setObjectName("options.agent_mode")
        for m in AGENT_MODES:
            self.mode.addItem("follow a route" if m == ROUTE_MODE else f"{m} planner", m)
        for label, w in (("Terrain type", self.terrain), ("Profile", self.profile), ("New agents", self.mode)):
            lab = QtWidgets.QLabel(f"  {label} ")
            self.addWidget(lab)
            self.addWidget(w)
        self.terrain.currentIndexChanged.connect(
            lambda _: self.terrain.currentData() and self.state.set("terrain_type", self.terrain.currentData()))
        self.profile.currentTextChanged.connect(lambda v: v and self.state.set("profile", v))
        self.mode.currentIndexChanged.connect(lambda _: self.state.set("agent_mode", self.mode.currentData()))
        self.doc.changed.connect(lambda f: f & {"terrain_types", "profiles"} and self.fill())
        self.doc.reset.connect(self.fill)
        self.state.changed.connect(lambda name: self.fill())
        self.fill()

    def fill(self) -> None:
        scene = self.doc.scene
        self.state.fit_to(scene)
        was = self.terrain.blockSignals(True)
        self.terrain.clear()
        for t in scene.terrain_types:
            self.terrain.addItem(swatch_icon(t.color), t.name or t.id, t.id)
        self.terrain.setCurrentIndex(max(0, self.terrain.findData(self.state.terrain_type)))
        self.terrain.blockSignals(was)
        was = self.profile.blockSignals(True)
        self.profile.clear()
        self.profile.addItems([p.id for p in scene.profiles])
        self.profile.setCurrentText(self.state.profile)
        self.profile.blockSignals(was)
        set_quietly(self.mode, "setCurrentIndex", max(0, self.mode.findData(self.state.agent_mode)))
