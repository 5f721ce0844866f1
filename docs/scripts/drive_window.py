"""What the scripts that drive the real window (screenshots_guide.py, tutorial_designer.py) share: letting its
events run for a while, waiting for a state under a time bound while watching the engine's errors, and writing a
picture as an 8-bit palette PNG. ``who`` starts each error message with the script's name."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

# A first start on a busy two-core machine compiles for longer than half an hour.
WAIT_S = 3600.0


def settle(app, seconds: float) -> None:
    """Process the application's events for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait_until(app, window, until: Callable[[], bool], what: str, who: str, seconds: float = WAIT_S) -> None:
    """Process events until ``until()`` holds; RuntimeError naming ``what`` after ``seconds`` or on an error of
    ``window``'s engine."""
    end = time.monotonic() + seconds
    while not until():
        if window.sim.errors:
            raise RuntimeError(f"{who}: the engine failed while waiting for {what}: {window.sim.errors}")
        if time.monotonic() > end:
            raise RuntimeError(f"{who}: timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.01)


def save_palette_png(image, path: Path, who: str) -> None:
    """Write the QImage ``image`` to ``path`` as an 8-bit palette PNG (about a fifth of a 24-bit one)."""
    from PySide6 import QtCore, QtGui

    img = image.convertToFormat(QtGui.QImage.Format.Format_Indexed8, QtCore.Qt.ImageConversionFlag.ThresholdDither)
    if not img.save(str(path), "PNG"):
        raise RuntimeError(f"{who}: could not write {path}")
