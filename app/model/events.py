"""A minimal signal (observer list) so models can emit without Qt, as napari's EventEmitter does."""

from __future__ import annotations

from typing import Any, Callable


class Signal:
    """Callbacks connected to a model event; ``emit`` calls them in connection order."""

    def __init__(self) -> None:
        self._slots: list[Callable[..., Any]] = []

    def connect(self, slot: Callable[..., Any]) -> None:
        if slot not in self._slots:
            self._slots.append(slot)

    def disconnect(self, slot: Callable[..., Any] | None = None) -> None:
        """Disconnect one slot, or every slot when None."""
        if slot is None:
            self._slots.clear()
        elif slot in self._slots:
            self._slots.remove(slot)

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            slot(*args)
