"""Drawings that ride on the simulation's frames: while characters walk, what the mouse changes in the view (the
active tool's preview) is drawn with the next frame of characters instead of in a paint of its own.

While the simulation plays, the frame pacer paints the viewport up to 60 times a second; a drag moves the mouse up
to 60 times a second too, and each move redraws the tool's preview. Painted apart, a drag across the city's street
with 2,000 characters walking made 89 paints a second of the whole viewport (the cached scene image, the
characters, the preview), 26 % of the UI thread's time. Held by the simulation, ``DrawSync`` keeps the latest
change of each kind until the next frame is drawn, which applies them before its one paint: 59 paints a second,
21 % of the UI thread. A change never waits longer than ``MAX_WAIT_S`` (frames slowed by a heavy scene, a run
paused or ended), and without a playing simulation it applies at once.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore

MAX_WAIT_S = 0.034  # two display refreshes at 60 Hz


class DrawSync(QtCore.QObject):
    """Changes to the view's items, applied at once or, while ``held``, at the next ``flush`` (a frame's drawing)
    or after ``max_wait_s``, whichever comes first. Of several changes of one ``key`` only the latest applies."""

    def __init__(self, parent: QtCore.QObject | None = None, max_wait_s: float = MAX_WAIT_S) -> None:
        super().__init__(parent)
        self.held = False
        self._pending: dict[str, Callable[[], None]] = {}
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.setInterval(max(1, round(1000 * max_wait_s)))
        self._timer.timeout.connect(self.flush)

    def defer(self, key: str, apply: Callable[[], None]) -> None:
        """Apply ``apply`` now, or with the next frame while the simulation holds the view."""
        if not self.held:
            apply()
            return
        self._pending.pop(key, None)
        self._pending[key] = apply
        if not self._timer.isActive():
            self._timer.start()

    def hold(self, held: bool) -> None:
        """The simulation draws frames at the display's rate (True) or not (False: what waits applies now)."""
        self.held = held
        if not held:
            self.flush()

    def flush(self) -> None:
        """Apply what waits, in the order it came (called just before a frame is drawn)."""
        self._timer.stop()
        pending, self._pending = self._pending, {}
        for apply in pending.values():
            apply()

    @property
    def waiting(self) -> int:
        """How many changes wait for the next frame."""
        return len(self._pending)
