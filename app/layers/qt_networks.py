"""The network layer: all edges as one path of point pairs, all nodes as one scatter."""

from __future__ import annotations

import pyqtgraph as pg

from .arrays import network_arrays
from .qt_base import NETWORK, NETWORK_NODE, Layer
from .qt_items import PathsItem, ScatterItem, cosmetic_pen


class NetworkLayer(Layer):
    kind = "network"
    fields = frozenset({"networks"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.edges = self.add(PathsItem())
        self.nodes = self.add(ScatterItem(size=8, symbol="s", pen=pg.mkPen(NETWORK, width=1.2),
                                          brush=pg.mkBrush(NETWORK_NODE), pxMode=True), 0.1)
        self._pen = cosmetic_pen(NETWORK, 1.0)

    def refresh(self) -> None:
        edges, nodes = network_arrays(self.doc.scene)
        self.edges.set_lines(edges, self._pen, connect="pairs")
        self.nodes.setData(pos=nodes)
