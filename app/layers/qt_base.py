"""The layer base class and the shared palette."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui

from ..model import Document

OBSTACLE_FILL = "#465061"
OBSTACLE_EDGE = "#262c36"
ROUTE = "#2563eb"
NETWORK = "#c2410c"
NETWORK_NODE = "#fb923c"
SELECTION = "#f59e0b"
PREVIEW = "#0284c7"
PROBLEM = "#dc2626"
FRAME = "#1f2937"
TEST_PATH = "#059669"  # the test path: emerald, apart from routes (blue), trails (slate) and terrain borders
FREE_SPACE = "#0f766e"  # the outline of the free space shrunk by a profile's radius
PROFILE_COLOURS = ("#e11d48", "#7c3aed", "#0d9488", "#ca8a04", "#2563eb", "#db2777", "#65a30d", "#ea580c")

Z = {"static": -1, "terrain": 0, "grid": 5, "obstacle": 10, "network": 20, "route": 30, "agent": 40, "frame": 45,
     "selection": 50, "free_space": 52, "test_path": 55, "preview": 60}


def brush(color, alpha: int | None = None) -> QtGui.QBrush:
    c = QtGui.QColor(color)
    if alpha is not None:
        c.setAlpha(alpha)
    return QtGui.QBrush(c)


def xy(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The columns of an (n, 2) array, contiguous, for pyqtgraph's setData."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 2)
    return np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1])


class Layer:
    """Draws one kind of item from the document's scene into a ViewBox; redrawn when one of ``fields`` changes."""

    kind = ""
    fields: frozenset[str] = frozenset()

    def __init__(self, doc: Document, view: pg.ViewBox) -> None:
        self.doc = doc
        self.view = view
        self.items: list = []

    def add(self, item, z_offset: float = 0.0):
        item.setZValue(Z[self.kind] + z_offset)
        self.view.addItem(item, ignoreBounds=True)
        self.items.append(item)
        return item

    def refresh(self) -> None:
        """Redraw from the current scene."""

    def view_changed(self, pixel: float) -> None:
        """The zoom changed; ``pixel`` is one screen pixel in scene units (for zoom-dependent drawings)."""

    def set_visible(self, visible: bool) -> None:
        for it in self.items:
            it.setVisible(visible)
