"""The test path in the window (RecastDemo's test tool): while an agent is placed, or its start, goal or whole
self is dragged, or one planned agent is selected, its route is planned in ``ProbePlanner``'s thread and drawn
with its cost and narrowest clearance; View > Show Free Space for Radius outlines where the current profile's
disc can stand. Each change of the tool's preview asks for a plan; only the newest is drawn."""

from __future__ import annotations

from PySide6 import QtCore

from .layers.qt_test_path import TestPathLayer
from .probe_planner import ProbePlanner, ProbeResult


class QtTestPath(QtCore.QObject):
    """Connects the tools' probe requests to the planning thread and its results to the layer."""

    result_ready = QtCore.Signal(object)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.w = window
        self.layer = TestPathLayer(window.doc, window.viewport.view)
        window.layers.add(self.layer)
        self.enabled = True
        self.shrink_on = False
        self.last_result: ProbeResult | None = None
        self._asked: tuple | None = None
        self.planner = ProbePlanner(self.result_ready.emit)  # emitted in the thread, queued to the UI thread
        self.result_ready.connect(self._show)
        window.host.preview_changed.connect(self.update)
        window.doc.changed.connect(self.update)
        window.doc.reset.connect(self.update)
        window.doc.selection_changed.connect(self.update)
        window.state.changed.connect(self.update)

    def set_enabled(self, on: bool) -> None:
        """View > Show Test Path."""
        self.enabled = bool(on)
        self.update()

    def set_shrunk(self, on: bool) -> None:
        """View > Show Free Space for Radius: the free space shrunk by the current profile's radius."""
        self.shrink_on = bool(on)
        self.update()

    def radius(self) -> float | None:
        """The current profile's radius, or None when the scene has no such profile."""
        pid = self.w.state.profile
        return next((p.radius for p in self.w.doc.scene.profiles if p.id == pid), None)

    def update(self, *args) -> None:
        """Ask for the plan the current tool state needs, unless it is what was asked last."""
        scene = self.w.doc.scene
        req = self.w.host.probe() if self.enabled else None
        shrink = self.radius() if self.shrink_on else None
        if self._asked is not None and self._asked[0] is scene and self._asked[1:] == (req, shrink):
            return
        self._asked = (scene, req, shrink)
        if req is None:
            self.layer.show_probe(None)
        if shrink is None:
            self.layer.show_free_space(None)
        if req is not None or shrink is not None:
            self.planner.submit(scene, req, shrink)

    def _show(self, result: ProbeResult) -> None:
        if result.serial != self.planner.latest():
            return  # overtaken while it crossed to this thread
        self.last_result = result
        asked = self._asked
        if asked is not None and asked[1] is not None:
            self.layer.show_probe(result.probe)
        if result.shrink is not None:
            self.layer.show_free_space(result.rings)

    def shutdown(self) -> None:
        self.planner.stop()
