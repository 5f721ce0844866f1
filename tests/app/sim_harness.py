"""A Qt-free harness for the simulation controller: its thread, its preview thread and a reader of its mailbox."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from app.sim.controller import SimController
from app.sim.mailbox import Mailbox
from app.sim.messages import cmd
from app.sim.preview import PreviewRunner, RequestSlot

SCENES = Path(__file__).resolve().parents[2] / "scenes"


class Harness:
    """``send`` commands; ``wait(pred)`` drains the mailbox until ``pred(self)`` holds. ``latest`` keeps the last
    snapshot of each kind, ``events`` every event, ``frames`` every frame received."""

    def __init__(self, display_hz: float = 60.0) -> None:
        self.box = Mailbox()
        self.q: queue.Queue = queue.Queue()
        self.slot = RequestSlot()
        self.wakes = 0
        self.controller = SimController(self.box, self._wake, self.slot, display_hz)
        self.thread = threading.Thread(target=self.controller.serve, args=(self.q,), daemon=True)
        self.preview = threading.Thread(target=PreviewRunner(self.slot, lambda g: self.box.put("ghost", g)).serve,
                                        daemon=True)
        self.latest: dict = {}
        self.events: list = []
        self.frames: list = []
        self.published: list[float] = []  # when each frame was put in the mailbox (monotonic s)
        put = self.box.put

        def counting_put(kind, value):
            if kind == "frame":
                self.published.append(time.monotonic())
            return put(kind, value)
        self.box.put = counting_put
        self.thread.start()
        self.preview.start()

    def _wake(self) -> None:
        self.wakes += 1

    def send(self, name: str, *args) -> None:
        self.q.put(cmd(name, *args))

    def drain(self) -> None:
        latest, events = self.box.take()
        self.latest.update(latest)
        self.events.extend(events)
        if "frame" in latest:
            self.frames.append(latest["frame"])

    def wait(self, pred, timeout: float = 120.0, what: str = "") -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.drain()
            if pred(self):
                return
            time.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what or pred}; events: {self.events[-5:]}")

    def errors(self) -> list:
        return [e for e in self.events if e.kind == "error"]

    def close(self) -> None:
        self.send("stop")
        self.slot.stop()
        self.thread.join(60)
        self.preview.join(60)
