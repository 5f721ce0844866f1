"""The simulation threads and the UI-side bridge to them.

- ``QtSimWorker`` (QThread) runs a ``SimController`` over a command queue;
- ``QtPreviewWorker`` (QThread) runs the ghost preview's ``PreviewRunner``;
- ``QtSimBridge`` (QObject, UI thread) puts commands on the queue and turns the mailbox into signals.

The UI never waits on the engine: ``send`` only enqueues, and snapshots arrive through one queued ``mail`` signal
per drain of the mailbox (latest wins), however fast the worker publishes.
"""

from __future__ import annotations

import atexit
import ctypes
import queue
import weakref

from PySide6 import QtCore

from core.priority import lower_thread_priority

from .controller import SimController
from .mailbox import Mailbox
from .warmup import stop_background
from .messages import (BuildInfo, Command, EcmView, Event, Frame, Ghost, MeshView, Recorded, Stats, TraceView, Trails,
                       cmd)
from .preview import PreviewRunner, RequestSlot

# Milliseconds ``shutdown`` waits for a thread in the middle of a long kernel call (or the first JIT compilation)
# before leaving it to finish alone. Qt aborts the process when a running QThread is destroyed, so live bridges are
# shut down at exit, and a thread still busy then is kept referenced for good (the OS ends it with the process).
STOP_WAIT_MS = 5000
EXIT_WAIT_MS = 30000
WORKER_NICE = 5
_orphans: list[QtCore.QThread] = []
_bridges: "weakref.WeakSet[QtSimBridge]" = weakref.WeakSet()


@atexit.register
def _stop_at_exit() -> None:
    for b in list(_bridges):
        b.shutdown(EXIT_WAIT_MS)
    for t in _orphans:
        if t.isRunning() and not t.wait(EXIT_WAIT_MS):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(t))


def lower_priority(steps: int = WORKER_NICE) -> None:
    """Raise the calling thread's nice value on Linux (``core.priority``): on a busy machine the engine takes the CPU
    the UI thread leaves, not the other way round. With 2,000 agents on the city at the fastest speed on the loaded
    2-core development machine the view drew 30 frames a second (a 10 ms timer: 27 ms median) and 48 (14 ms) with
    the engine niced by 5, which then stepped 38 instead of 61 times a second; at 1x real time the engine needs far
    less than it gets."""
    lower_thread_priority(steps)


class QtSimWorker(QtCore.QThread):
    """Runs the controller; ``mail`` is emitted (from this thread) when the mailbox needs draining."""

    mail = QtCore.Signal()

    def __init__(self, commands: "queue.Queue[Command]", outbox: Mailbox, slot: RequestSlot,
                 display_hz: float) -> None:
        super().__init__()
        self.setObjectName("sim.worker")
        self.commands = commands
        self.controller = SimController(outbox, self.mail.emit, slot, display_hz)

    def run(self) -> None:
        lower_priority()
        self.controller.serve(self.commands)


class QtPreviewWorker(QtCore.QThread):
    """Runs ghost previews from the request slot."""

    mail = QtCore.Signal()

    def __init__(self, slot: RequestSlot, outbox: Mailbox) -> None:
        super().__init__()
        self.setObjectName("sim.preview")
        self.slot = slot
        self.outbox = outbox

    def run(self) -> None:
        lower_priority()

        def publish(ghost: Ghost) -> None:
            if self.outbox.put("ghost", ghost):
                self.mail.emit()

        def failed(e: BaseException) -> None:
            if self.outbox.event(Event("error", ("The ghost preview failed", f"{type(e).__name__}: {e}"))):
                self.mail.emit()

        PreviewRunner(self.slot, publish, failed).serve()


class QtSimBridge(QtCore.QObject):
    """The UI's handle on the simulation threads. Signals carry the latest snapshot of each kind."""

    build = QtCore.Signal(object)      # BuildInfo
    frame = QtCore.Signal(object)      # Frame
    trace = QtCore.Signal(object)      # TraceView or None
    trails = QtCore.Signal(object)     # Trails
    ghost = QtCore.Signal(object)      # Ghost
    stats = QtCore.Signal(object)      # Stats
    ecm = QtCore.Signal(object)        # EcmView
    event = QtCore.Signal(object)      # Event
    replay = QtCore.Signal(object)     # Recorded (a core.sim.replay.Replay of one run)
    mesh = QtCore.Signal(object)       # MeshView (the running world's triangulation after a change)

    KINDS = {"build": BuildInfo, "frame": Frame, "trace": TraceView, "trails": Trails, "ghost": Ghost,
             "stats": Stats, "ecm": EcmView, "replay": Recorded, "mesh": MeshView}

    def __init__(self, parent: QtCore.QObject | None = None, display_hz: float = 60.0) -> None:
        super().__init__(parent)
        self.commands: "queue.Queue[Command]" = queue.Queue()
        self.outbox = Mailbox()
        self.slot = RequestSlot()
        self.worker = QtSimWorker(self.commands, self.outbox, self.slot, display_hz)
        self.preview = QtPreviewWorker(self.slot, self.outbox)
        self.worker.mail.connect(self.drain, QtCore.Qt.ConnectionType.QueuedConnection)
        self.preview.mail.connect(self.drain, QtCore.Qt.ConnectionType.QueuedConnection)
        self.running = False

    def start(self, scene=None) -> None:
        """Start both threads; the first command warms the JIT up for ``scene`` (its method and integrator)."""
        if not self.running:
            self.running = True
            _bridges.add(self)
            self.worker.start()
            self.preview.start()
            self.send("warmup", scene)

    def send(self, name: str, *args) -> None:
        """Enqueue a command (never blocks)."""
        if self.running:
            self.commands.put(cmd(name, *args))

    def cancel_build(self) -> None:
        """Stop the build in progress at its next progress report."""
        self.worker.controller.cancel.set()

    @QtCore.Slot()
    def drain(self) -> None:
        """Take everything the threads published and emit it: events first (in order), then latest snapshots."""
        latest, events = self.outbox.take()
        for ev in events:
            self.event.emit(ev)
        for kind in ("build", "mesh", "frame", "trace", "trails", "ghost", "stats", "ecm", "replay"):
            if kind in latest:
                getattr(self, kind).emit(latest[kind])

    def shutdown(self, wait_ms: int = STOP_WAIT_MS) -> None:
        """Stop both threads; a thread stuck in a long kernel call is left to finish on its own."""
        if not self.running:
            return
        self.running = False
        _bridges.discard(self)
        if not _bridges:
            stop_background()  # the last window: a first start's compile in the background ends its workers
        self.worker.controller.cancel.set()
        self.commands.put(cmd("stop"))
        self.slot.stop()
        for t in (self.worker, self.preview):
            if not t.wait(wait_ms):
                _orphans.append(t)
