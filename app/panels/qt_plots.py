"""The plots dock (pyqtgraph): the traced agent's length per terrain type and speed over time; everyone's
arrivals over time. Fed by the worker's ``Stats`` snapshots (a few times a second), whole arrays per update."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ..layers.qt_sim_agents import COMPARE_COLOUR, MAIN_TRAIL

BACKGROUND = "#ffffff"
SWEEP_COLOURS = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#dc2626", "#0891b2")


class QtSimPlots(pg.GraphicsLayoutWidget):
    """Three plots side by side: terrain lengths (bars), speed (curve), arrivals (staircase)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sim.plots")
        self.setBackground(BACKGROUND)
        # Short titles (the traced agent is named in the Simulation panel): long ones set a least width that
        # pushed the third plot past the dock's edge in a 1280-pixel-wide window.
        self.terrain = self.addPlot(row=0, col=0, title="Length per terrain")
        self.speed = self.addPlot(row=0, col=1, title="Speed")
        self.arrivals = self.addPlot(row=0, col=2, title="Arrivals")
        for p in (self.terrain, self.speed, self.arrivals):
            p.setToolTip({"Length per terrain": "The traced agent's walked length on each terrain type",
                          "Speed": "The traced agent's speed over time",
                          "Arrivals": "How many agents have arrived, over time"}[p.titleLabel.text])
        for p in (self.terrain, self.speed, self.arrivals):
            p.setMenuEnabled(False)
            p.showGrid(x=False, y=True, alpha=0.25)
            p.getAxis("left").setWidth(42)
            for axis in ("left", "bottom"):
                # No "(x0.001)" scale on a near-empty range: lengths, speeds, times and counts read as they are.
                p.getAxis(axis).enableAutoSIPrefix(False)
            # Lengths, speeds, times and counts are never negative: an empty plot is not centred on 0.
            p.setLimits(yMin=0.0, xMin=-0.5 if p is self.terrain else 0.0)
        self.terrain.setLabel("left", "m")
        self.speed.setLabel("left", "m/s")
        self.speed.setLabel("bottom", "time", units="s")
        self.arrivals.setLabel("left", "agents")
        self.arrivals.setLabel("bottom", "time", units="s")
        self.terrain.setMouseEnabled(x=False, y=False)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.compare_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.terrain.addItem(self.bars)
        self.terrain.addItem(self.compare_bars)
        self.speed_curve = self.speed.plot(pen=pg.mkPen(MAIN_TRAIL, width=1.5))
        self.arrival_curve = self.arrivals.plot(pen=pg.mkPen(MAIN_TRAIL, width=2))
        self.compare_arrival_curve = self.arrivals.plot(pen=pg.mkPen(COMPARE_COLOUR, width=2))
        self.names: list[str] = []
        self.colours: list[str] = []
        self.last = None
        self.set_terrains([], [])
        self.clear_data()

    def set_terrains(self, names: list[str], colours: list[str]) -> None:
        """The terrain types' names and colours, in the order of the lengths."""
        self.names, self.colours = list(names), list(colours)
        ax = self.terrain.getAxis("bottom")
        ax.setTicks([[(k, n) for k, n in enumerate(self.names)]])

    def show_stats(self, st) -> None:
        """Draw a Stats snapshot."""
        self.last = st
        self._bars(st.terrain_lengths, st.compare_terrain_lengths)
        self.speed_curve.setData(st.speed_t, st.speed_v)
        self.arrival_curve.setData(*_steps(st.arrivals))
        self.compare_arrival_curve.setData(*_steps(st.compare_arrivals))
        self.arrivals.setTitle(f"Arrivals: {len(st.arrivals)} of {st.n}")

    def _bars(self, lengths: np.ndarray, compare_lengths: np.ndarray) -> None:
        """The lengths per terrain type as bars in the terrain types' colours, beside the compared run's."""
        T = len(lengths)
        if T == 0:
            self.bars.setOpts(x=[], height=[])  # pyqtgraph fails on an empty list of pens
            self.compare_bars.setOpts(x=[], height=[])
            return
        x = np.arange(T, dtype=np.float64)
        colours = (self.colours + ["#9ca3af"] * T)[:T]
        compare = len(compare_lengths) == T and T > 0
        shift = 0.2 if compare else 0.0
        self.bars.setOpts(x=x - shift, height=lengths, width=0.38 if compare else 0.7,
                          brushes=[pg.mkBrush(c) for c in colours], pens=[pg.mkPen("#374151")] * T)
        if compare:
            self.compare_bars.setOpts(x=x + shift, height=compare_lengths, width=0.38,
                                      brushes=[pg.mkBrush(COMPARE_COLOUR)] * T, pens=[pg.mkPen("#7c2d12")] * T)
        else:
            self.compare_bars.setOpts(x=[], height=[])

    def show_replay(self, speed_t: np.ndarray, speed_v: np.ndarray, arrivals: np.ndarray, n: int,
                    terrain_lengths: np.ndarray) -> None:
        """The replay at a time: the traced agent's lengths per terrain type, its speed and everyone's arrivals up
        to then (no compared run: a recording holds one)."""
        self._bars(terrain_lengths, np.zeros(0))
        self.speed_curve.setData(speed_t, speed_v)
        self.arrival_curve.setData(*_steps(arrivals))
        self.compare_arrival_curve.setData([], [])
        self.arrivals.setTitle(f"Arrivals: {len(arrivals)} of {n}")

    def show_sweep(self, lines, x: str, y: str) -> None:
        """A sweep's table (core.sweep.plot.series): one line per hue value with standard-deviation error bars, in
        a fourth plot made on first use."""
        plot = getattr(self, "sweep", None)
        if plot is None:
            plot = self.sweep = self.addPlot(row=0, col=3)
            plot.setMenuEnabled(False)
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.getAxis("left").setWidth(42)
            plot.addLegend(offset=(-4, 4))
        plot.clear()
        plot.setTitle(f"Sweep: {y}")
        plot.setLabel("bottom", x)
        for k, s in enumerate(lines):
            colour = SWEEP_COLOURS[k % len(SWEEP_COLOURS)]
            xs = np.asarray(s.x, dtype=np.float64)
            plot.plot(xs, s.mean, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6, symbolBrush=colour,
                      name=s.label)
            plot.addItem(pg.ErrorBarItem(x=xs, y=s.mean, height=2.0 * s.std, pen=pg.mkPen(colour)))

    def plot_items(self) -> tuple[pg.PlotItem, ...]:
        """The three plots (terrain lengths, speed, arrivals)."""
        return (self.terrain, self.speed, self.arrivals)

    def clear_data(self) -> None:
        """Empty every plot and put its axes back to 0..1 (GraphicsLayoutWidget's own ``clear`` would remove the
        plots themselves): a reset run starts from clean axes, not the last run's ranges."""
        for c in (self.speed_curve, self.arrival_curve, self.compare_arrival_curve):
            c.setData([], [])
        self.bars.setOpts(x=[], height=[])
        self.compare_bars.setOpts(x=[], height=[])
        self.arrivals.setTitle("Arrivals")
        self.last = None
        for p in self.plot_items():
            span = (-0.5, max(len(self.names), 1) - 0.5) if p is self.terrain else (0.0, 1.0)
            p.setRange(xRange=span, yRange=(0.0, 1.0), padding=0)
            p.enableAutoRange()


def _steps(times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cumulative count of sorted arrival times as a staircase: x (2k + 1,) and y (2k + 1,), starting at
    (0, 0) and rising by one at each arrival."""
    t = np.asarray(times, dtype=np.float64)
    if len(t) == 0:
        return np.zeros(0), np.zeros(0)
    x = np.concatenate([[0.0], np.repeat(t, 2)])
    k = np.arange(len(t) + 1, dtype=np.float64)
    y = np.concatenate([[0.0], np.repeat(k[1:], 2)])
    y[1::2] -= 1.0
    return x, y


def _measure_plot(plots: QtSimPlots, name: str, col: int, span: int, title: str, left: str):
    """A plot of the measurement made on first use in the second row (the first is full at the default width)."""
    plot = getattr(plots, name, None)
    if plot is None:
        plot = plots.addPlot(row=1, col=col, colspan=span)
        plot.setMenuEnabled(False)
        plot.showGrid(x=True, y=True, alpha=0.25)
        plot.getAxis("left").setWidth(42)
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.setLabel("left", left)
        plot.setLabel("bottom", "time", units="s")
        plot.addLegend(offset=(-4, 4))
        setattr(plots, name, plot)
    plot.clear()
    plot.setTitle(title)
    return plot


def hide_measurements(plots: QtSimPlots, area: bool, line: bool) -> None:
    """Remove the measurement area's plot (``area``) and the line's (``line``), the scene having none now."""
    for name, gone in (("density_plot", area), ("flow_plot", line)):
        plot = getattr(plots, name, None)
        if gone and plot is not None:
            plots.removeItem(plot)
            setattr(plots, name, None)


def show_measurements(plots: QtSimPlots, m) -> None:
    """Draw a measurement (``app.sim.qt_replay.Measurement``): the area's classic and Voronoi density and specific
    flow J = rho v over time and the line's cumulative crossings N(t), each in a plot of its own made on first
    use."""
    if m.area is not None:
        title = "Measurement area: density"
        if m.speed is not None and len(m.t):
            title += f", now {m.speed[-1]:.2f} m/s, J {m.specific_flow[-1]:.2f} /(m·s)"
        p = _measure_plot(plots, "density_plot", 0, 1, title, "1/m², 1/(m·s)")
        p.plot(m.t, m.classic, pen=pg.mkPen("#0f766e", width=1.5), name="classic")
        p.plot(m.t, m.voronoi, pen=pg.mkPen("#b91c1c", width=1.5), name="Voronoi")
        if m.specific_flow is not None:
            p.plot(m.t, m.specific_flow, pen=pg.mkPen("#7c3aed", width=1.5, style=QtCore.Qt.PenStyle.DashLine),
                   name="flow J = ρv")
    if m.line is not None:
        p = _measure_plot(plots, "flow_plot", 1, 2, f"Measurement line: N(t), {m.flow:.2f} agents/s lately",
                          "agents")
        p.plot(m.t, m.n_t, pen=pg.mkPen("#1d4ed8", width=2), name="crossed")
