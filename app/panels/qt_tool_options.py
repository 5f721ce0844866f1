"""The tool options bar: the terrain type the terrain tool paints, the profile and planner (or route) of new
agents, shown with the active tool's hint."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from core.scene.model import TERRAIN_PLANNERS

from ..qt_editor import QtEditor
from ..model.tool_state import AGENT_MODES, ROUTE_MODE
from .qt_widgets import set_quietly, swatch_icon


def planner_title(mode: str) -> str:
    """How the planner list names a way of placing agents, saying whether the planner weighs terrain."""
    if mode == ROUTE_MODE:
        return "follow a route"
    return f"{mode} planner ({'weighs terrain' if mode in TERRAIN_PLANNERS else 'shortest, ignores terrain'})"


def planner_tip(mode: str) -> str:
    if mode == ROUTE_MODE:
        return "New agents follow a route of the scene (click one)"
    if mode in TERRAIN_PLANNERS:
        return f"{mode}: the route of least cost, each piece weighted by the profile's weight of its terrain"
    return f"{mode}: the shortest route whatever the terrain; its cost is its length"


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
            self.mode.addItem(planner_title(m), m)
            self.mode.setItemData(self.mode.count() - 1, planner_tip(m), QtCore.Qt.ItemDataRole.ToolTipRole)
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
