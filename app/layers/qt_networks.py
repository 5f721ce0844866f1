"""The network layer: all edges as one curve of point pairs, all nodes as one scatter."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore

from .arrays import network_arrays
from .qt_base import NETWORK, NETWORK_NODE, Layer, xy
from .qt_items import cosmetic_pen


class NetworkLayer(Layer):
    kind = "network"
    fields = frozenset({"networks"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.edges = self.add(pg.PlotCurveItem(pen=cosmetic_pen(NETWORK, 2.0, QtCore.Qt.PenStyle.DashLine),
                                               antialias=True))
        self.nodes = self.add(pg.ScatterPlotItem(size=8, symbol="s", pen=pg.mkPen(NETWORK, width=1.2),
                                                 brush=pg.mkBrush(NETWORK_NODE), pxMode=True), 0.1)

    def refresh(self) -> None:
        edges, nodes = network_arrays(self.doc.scene)
        self.edges.setData(*xy(edges), connect="pairs")
        self.nodes.setData(pos=nodes)
