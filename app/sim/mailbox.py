"""The worker's outbox: the latest snapshot of each kind (latest wins, no backlog) plus a short list of events.

The worker ``put``s; the UI ``take``s everything at once. ``put`` returns True only when the box was empty, so
the worker sends at most one wake-up per drain, however fast it publishes and however slow the UI draws.
"""

from __future__ import annotations

import threading
from typing import Any

from .messages import Event

MAX_EVENTS = 200


class Mailbox:
    """Latest-wins slots by kind and an event list, guarded by one lock held only to swap references."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[str, Any] = {}
        self._events: list[Event] = []
        self._full = False

    def put(self, kind: str, value: Any) -> bool:
        """Replace the snapshot of this kind; True when the reader must be woken."""
        with self._lock:
            self._latest[kind] = value
            wake = not self._full
            self._full = True
        return wake

    def event(self, ev: Event) -> bool:
        """Queue a one-off event (progress events replace the previous one); True when the reader must be woken."""
        with self._lock:
            if ev.kind == "progress" and self._events and self._events[-1].kind == "progress":
                self._events[-1] = ev
            elif len(self._events) < MAX_EVENTS:
                self._events.append(ev)
            wake = not self._full
            self._full = True
        return wake

    def take(self) -> tuple[dict[str, Any], list[Event]]:
        """Everything published since the last take."""
        with self._lock:
            latest, events = self._latest, self._events
            self._latest, self._events = {}, []
            self._full = False
        return latest, events
