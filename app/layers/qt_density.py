"""The density heatmap (one pyqtgraph ImageItem over the scene's bounds) and the measurement area and line."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from .qt_sim_agents import SimLayer

Z_DENSITY = 6.5     # above the terrain, below the routes, trails and agents
Z_MEASURE = 9.5
# Agents per square metre the colour scale never reaches below (an empty or near-empty run) and never exceeds:
# 2 /m² is a dense crowd already (walking slows down), and a scale of 1e-6 /m² would paint noise.
DENSITY_FLOOR = 1e-3
DENSITY_MAX = 2.0
# The top of the scale is this percentile of the occupied pixels: a few crowded pixels do not wash out the rest.
TOP_PERCENTILE = 98.0
MEASURE_PEN = "#0f766e"
# Stops of the colour scale (position, RGBA): transparent for no one, then yellow through orange to dark red, at
# most about two thirds opaque, so the terrain underneath still reads.
STOPS = ((0.0, (255, 237, 160, 0)), (0.05, (254, 217, 118, 30)), (0.25, (253, 141, 60, 110)),
         (0.6, (227, 26, 28, 150)), (1.0, (128, 0, 38, 175)))


def density_lut() -> np.ndarray:
    """(256, 4) uint8 RGBA of the colour scale from 0 to its top."""
    cmap = pg.ColorMap([p for p, _ in STOPS], [c for _, c in STOPS])
    return cmap.getLookupTable(0.0, 1.0, 256, alpha=True)


def density_top(grid: np.ndarray) -> float:
    """The top of the colour scale for a density grid: a high percentile of its occupied pixels, rounded up to
    1, 2 or 5 times a power of ten, within [DENSITY_FLOOR, DENSITY_MAX] (agents / m²)."""
    g = np.asarray(grid, dtype=np.float64)
    occupied = g[np.isfinite(g) & (g > 0)]
    if len(occupied) == 0:
        return DENSITY_FLOOR
    top = float(np.percentile(occupied, TOP_PERCENTILE))
    exp = np.floor(np.log10(max(top, DENSITY_FLOOR)))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10 ** exp >= top * (1 - 1e-9):
            top = m * 10 ** exp
            break
    return float(min(max(top, DENSITY_FLOOR), DENSITY_MAX))


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
        self.top = DENSITY_FLOOR

    def show(self, grid: np.ndarray, bounds: tuple[float, float, float, float]) -> None:
        """Draw densities (agents / m²) over ``bounds``; 0 .. ``density_top(grid)`` maps onto the colour scale
        (denser pixels take its top colour)."""
        self.grid = grid
        self.top = density_top(grid)
        img = np.nan_to_num(np.asarray(grid, dtype=np.float64), nan=0.0)
        self.image.setImage(img, levels=(0.0, self.top), autoLevels=False)
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
