"""The density heatmap (one pyqtgraph ImageItem over the scene's bounds) and the measurement area and line."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from .qt_sim_agents import SimLayer

Z_DENSITY = 6.5     # above the terrain, below the routes, trails and agents
Z_MEASURE = 9.5
# Agents per square metre at the top of the colour scale: 2 /m² is a dense crowd already (walking slows down).
DENSITY_MAX = 2.0
MEASURE_PEN = "#0f766e"


def density_lut() -> np.ndarray:
    """(256, 4) uint8 RGBA: transparent for no one, then yellow through orange to dark red as density grows."""
    cmap = pg.ColorMap([0.0, 0.01, 0.25, 0.6, 1.0], [(255, 237, 160, 0), (254, 204, 92, 185),
                                                     (253, 141, 60, 210), (227, 26, 28, 225), (128, 0, 38, 235)])
    return cmap.getLookupTable(0.0, 1.0, 256, alpha=True)


class DensityLayer(SimLayer):
    """A heatmap of (rows, cols) densities, row 0 at the bottom of ``bounds``; NaN pixels transparent."""

    def __init__(self, view: pg.ViewBox) -> None:
        super().__init__(view)
        self.image = self.add(pg.ImageItem(axisOrder="row-major"), Z_DENSITY)
        self.image.setLookupTable(density_lut())
        self.area = self.add(pg.PlotCurveItem(pen=pg.mkPen(MEASURE_PEN, width=2)), Z_MEASURE)
        self.line = self.add(pg.PlotCurveItem(pen=pg.mkPen(MEASURE_PEN, width=3, style=QtCore.Qt.PenStyle.DashLine)),
                             Z_MEASURE)
        self.grid: np.ndarray | None = None

    def show(self, grid: np.ndarray, bounds: tuple[float, float, float, float]) -> None:
        """Draw densities (agents / m^2) over ``bounds``; 0 .. DENSITY_MAX maps onto the colour scale."""
        self.grid = grid
        img = np.nan_to_num(np.asarray(grid, dtype=np.float64), nan=0.0)
        self.image.setImage(img, levels=(0.0, DENSITY_MAX), autoLevels=False)
        x0, y0, x1, y1 = bounds
        self.image.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        self.changed()

    def show_area(self, ring) -> None:
        """Outline the measurement area (None: none)."""
        if ring is None:
            self.area.setData([], [])
            return
        a = np.asarray(list(ring) + [ring[0]], dtype=np.float64)
        self.area.setData(a[:, 0], a[:, 1])

    def show_line(self, line) -> None:
        """Draw the measurement line (None: none)."""
        if line is None:
            self.line.setData([], [])
            return
        a = np.asarray(line, dtype=np.float64)
        self.line.setData(a[:, 0], a[:, 1])

    def clear(self) -> None:
        self.grid = None
        self.image.clear()
        self.changed()
