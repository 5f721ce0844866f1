"""All layers of the viewport, kept in step with the document: each redraws only when a field it draws changes.

Later overlays (trails, debug drawings) join with ``add``; the set forwards document and zoom changes to them.
With a ``RasterCache`` the scene layers and the bounds frame are painted from its image (they change only on an
edit, a pan or a zoom); the set invalidates it whenever it redraws one of them, only around the edited items
where an edit changed a few (``damage``). The selection and the tool preview follow the mouse and stay live
items.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ..model import Document
from .damage import changed_rects
from .qt_agents import AgentLayer
from .qt_base import FRAME, Z, Layer
from .qt_items import cosmetic_pen
from .qt_networks import NetworkLayer
from .qt_obstacles import ObstacleLayer
from .qt_preview import PreviewLayer
from .qt_raster_cache import RasterCache
from .qt_routes import RouteLayer
from .qt_selection import SelectionLayer
from .qt_terrain import TerrainLayer

SCENE_LAYERS = (TerrainLayer, ObstacleLayer, NetworkLayer, RouteLayer, AgentLayer)


class LayerSet:
    """The scene layers (by kind), the selection and preview overlays, and the bounds frame."""

    def __init__(self, doc: Document, view: pg.ViewBox, cache: RasterCache | None = None) -> None:
        self.doc = doc
        self.view = view
        self.cache = cache
        self.layers: dict[str, Layer] = {cls.kind: cls(doc, view) for cls in SCENE_LAYERS}
        self.selection = SelectionLayer(doc, view)
        self.preview = PreviewLayer(doc, view)
        self.extra: list[Layer] = []
        self._scene = doc.scene              # what the cached picture shows: an edit is compared with it
        self.frame = QtWidgets.QGraphicsRectItem()
        self.frame.setPen(cosmetic_pen(FRAME, 1.0))
        self.frame.setZValue(Z["frame"])
        view.addItem(self.frame, ignoreBounds=True)
        if cache is not None:
            cache.adopt(self.frame, *(it for layer in self.layers.values() for it in layer.items))
        doc.changed.connect(self._changed)
        doc.reset.connect(self.refresh_all)
        doc.selection_changed.connect(self.selection.refresh)
        doc.layers_changed.connect(self._layer_state)
        self.refresh_all()

    def add(self, layer: Layer) -> None:
        """Add an overlay layer; it is refreshed with the others."""
        self.extra.append(layer)
        layer.refresh()

    def all(self) -> list[Layer]:
        return [*self.layers.values(), *self.extra]

    def refresh_all(self) -> None:
        self._scene = self.doc.scene
        for layer in self.all():
            layer.refresh()
        for kind in self.layers:
            self._layer_state(kind)
        self.selection.refresh()
        self._frame()
        self._invalidate()

    def _changed(self, fields) -> None:
        rects = changed_rects(self._scene, self.doc.scene, fields)
        self._scene = self.doc.scene
        for layer in self.all():
            if layer.fields & fields:
                layer.refresh()
        self.selection.refresh()
        if "bounds" in fields:
            self._frame()
        if self.cache is not None:
            self.cache.invalidate(rects)    # only where the edited items were and are, when that is known

    def _layer_state(self, kind: str) -> None:
        if kind in self.layers:
            self.layers[kind].set_visible(self.doc.layers[kind].visible)
            self._invalidate()

    def _frame(self) -> None:
        x0, y0, x1, y1 = self.doc.scene.bounds
        self.frame.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))

    def view_changed(self, pixel: float) -> None:
        for layer in self.all():
            layer.view_changed(pixel)  # a zoom changes the view transform, which redraws the cache anyway

    def _invalidate(self) -> None:
        if self.cache is not None:
            self.cache.invalidate()
