"""The plots dock (pyqtgraph): the traced agent's length per terrain type and speed over time, everyone's arrivals
over time, and the measurement area's density and the measurement line's crossings when the scene has them. Fed
by the worker's ``Stats`` snapshots (a few times a second) and the replay's measurements, whole arrays per update.

Each plot is a widget of its own in a grid that reflows with the dock's width (one row when every plot gets
``MIN_PLOT_WIDTH`` pixels, more rows otherwise), and the dock's least height grows with the rows, so every plot
stays whole and readable at 1280 x 800. The sweep's plot has a dock of its own (``QtSweepPlot``).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.picking import nice_step

from ..layers.qt_sim_agents import COMPARE_COLOUR, MAIN_TRAIL

BACKGROUND = "#ffffff"
SWEEP_COLOURS = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#dc2626", "#0891b2")
MIN_PLOT_WIDTH = 190       # pixels a plot needs for its title, axis labels and ticks not to collide
MIN_PLOT_HEIGHT = 140
LEFT_AXIS_PX = 46
MEASURE_AXIS_PX = 58       # densities read 0.0015: their ticks need more room
TITLE_SIZE = "9pt"
# The ends a run's plot grows through, times powers of ten: its range changes a few times a decade rather than at
# every update, so its axes (ticks, labels, grid) keep their cached drawing while the run plays.
NICE_ENDS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
TIPS = {"terrain": "The traced agent's walked length on each terrain type",
        "speed": "The traced agent's speed over time",
        "arrivals": "How many agents have arrived, over time",
        "density": "The measurement area's classic and Voronoi density and specific flow J = ρv over time (PedPy)",
        "flow": "How many agents have crossed the measurement line, over time (PedPy's N(t))"}


def _plot_widget(title: str, tip: str) -> pg.PlotWidget:
    """A small plot widget with the panel's look: white, no context menu, no SI prefixes, starting at 0."""
    w = pg.PlotWidget(background=BACKGROUND)
    w.setMinimumSize(MIN_PLOT_WIDTH, MIN_PLOT_HEIGHT)
    w.setToolTip(tip)
    p = w.getPlotItem()
    p.setMenuEnabled(False)
    p.setTitle(title, size=TITLE_SIZE)
    p.showGrid(x=False, y=True, alpha=0.25)
    p.getAxis("left").setWidth(LEFT_AXIS_PX)
    for axis in ("left", "bottom"):
        # No "(x0.001)" scale or "ms" on a near-empty range: lengths, speeds, times and counts read as they are.
        p.getAxis(axis).enableAutoSIPrefix(False)
    p.setLimits(yMin=0.0, xMin=0.0)
    p.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)
    for axis in ("left", "bottom"):
        # An axis replays its drawing (a QPicture) at every paint, and a picture's text is laid out again each
        # time: 2 ms an axis in the software renderer. A pixmap of it is copied instead, drawn anew when it changes.
        p.getAxis(axis).setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
    return w


def nice_end(v: float) -> float | None:
    """The least of ``NICE_ENDS`` times a power of ten that is at least ``v``; None for nothing (v <= 0, NaN)."""
    return nice_step(v, NICE_ENDS) if math.isfinite(v) and v > 0.0 else None


class Extent(pg.GraphicsObject):
    """An invisible item over (0, 0) to (x, y): a plot's auto-range takes it in, so the range follows the data in
    ``nice_end`` steps instead of with every new sample. An end of None has no say on its axis; with both None
    (no data) the item stands aside and an empty plot keeps its 0 to 1."""

    def __init__(self) -> None:
        super().__init__()
        self.x: float | None = None
        self.y: float | None = None
        self.hide()

    def reach(self, x: float | None, y: float | None) -> None:
        """Span (0, 0) to (x, y) from now on."""
        self.setVisible(x is not None or y is not None)
        if (x, y) != (self.x, self.y):
            self.x, self.y = x, y
            self.informViewBoundsChanged()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None) -> tuple[float, float] | None:
        end = self.x if ax == 0 else self.y
        return None if end is None else (0.0, end)

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF()

    def paint(self, *args) -> None:
        pass


class QtSimPlots(QtWidgets.QWidget):
    """Terrain lengths (bars), speed (curve), arrivals (staircase) and, when drawn, the measurement plots."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sim.plots")
        self.setAutoFillBackground(True)
        pal = self.palette()
        pal.setColor(self.backgroundRole(), pg.mkColor(BACKGROUND))
        self.setPalette(pal)
        self.grid = QtWidgets.QGridLayout(self)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.grid.setSpacing(4)
        self.widgets: dict[str, pg.PlotWidget] = {}
        # Short titles (the traced agent is named in the Simulation panel).
        for name, title in (("terrain", "Length per terrain"), ("speed", "Speed"), ("arrivals", "Arrivals")):
            self.widgets[name] = _plot_widget(title, TIPS[name])
        self.widgets["terrain"].setObjectName("sim.plot.terrain")
        self.widgets["speed"].setObjectName("sim.plot.speed")
        self.widgets["arrivals"].setObjectName("sim.plot.arrivals")
        self.terrain = self.widgets["terrain"].getPlotItem()
        self.speed = self.widgets["speed"].getPlotItem()
        self.arrivals = self.widgets["arrivals"].getPlotItem()
        self.terrain.setLimits(xMin=-0.5)
        self.terrain.setLabel("left", "m")
        self.speed.setLabel("left", "m/s")
        self.speed.setLabel("bottom", "time (s)")
        self.arrivals.setLabel("left", "agents")
        self.arrivals.setLabel("bottom", "time (s)")
        self.terrain.setMouseEnabled(x=False, y=False)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.compare_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.terrain.addItem(self.bars)
        self.terrain.addItem(self.compare_bars)
        self.speed_curve = self.speed.plot(pen=pg.mkPen(MAIN_TRAIL, width=1.5))
        self.arrival_curve = self.arrivals.plot(pen=pg.mkPen(MAIN_TRAIL, width=2))
        self.compare_arrival_curve = self.arrivals.plot(pen=pg.mkPen(COMPARE_COLOUR, width=2))
        self.extents = {name: Extent() for name in ("terrain", "speed", "arrivals")}
        for name, extent in self.extents.items():
            self.widgets[name].getPlotItem().addItem(extent)
        self.density_plot: pg.PlotItem | None = None
        self.flow_plot: pg.PlotItem | None = None
        self.names: list[str] = []
        self.colours: list[str] = []
        self.last = None
        self._columns = 0
        self.set_terrains([], [])
        self.clear_data()
        self._reflow(force=True)

    # ----- layout ---------------------------------------------------------------------------------------------

    def shown(self) -> list[pg.PlotWidget]:
        """The plot widgets the panel shows, in order."""
        return [w for name, w in self.widgets.items() if name in ("terrain", "speed", "arrivals")
                or getattr(self, f"{name}_plot", None) is not None]

    def columns_for(self, width: int, n: int) -> int:
        """How many plots a row holds at this width: all when each gets MIN_PLOT_WIDTH, else as many as do."""
        return max(1, min(n, (width - 4) // (MIN_PLOT_WIDTH + self.grid.spacing())))

    def _reflow(self, force: bool = False) -> None:
        shown = self.shown()
        cols = self.columns_for(self.width(), len(shown))
        if cols == self._columns and not force and all(self.grid.indexOf(w) >= 0 for w in shown):
            return
        self._columns = cols
        for w in self.widgets.values():
            self.grid.removeWidget(w)
            w.setParent(self)
            w.hide()
        for k, w in enumerate(shown):
            self.grid.addWidget(w, k // cols, k % cols)
            w.show()
        for c in range(self.grid.columnCount()):
            self.grid.setColumnStretch(c, 1 if c < cols else 0)
        rows = math.ceil(len(shown) / cols)
        self.setMinimumHeight(rows * MIN_PLOT_HEIGHT + (rows - 1) * self.grid.spacing() + 4)

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._reflow()
        self._label_terrains()

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(len(self.shown()) * (MIN_PLOT_WIDTH + 4), MIN_PLOT_HEIGHT + 24)

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(MIN_PLOT_WIDTH + 4, self.minimumHeight())

    # ----- the run's plots ------------------------------------------------------------------------------------

    def set_terrains(self, names: list[str], colours: list[str]) -> None:
        """The terrain types' names and colours, in the order of the lengths."""
        self.names, self.colours = list(names), list(colours)
        self._label_terrains()

    def _label_terrains(self) -> None:
        """Name the bars, each name cut to its bar's width (whole in the tool tip): names wider than their bar
        would overlap their neighbours."""
        ax = self.terrain.getAxis("bottom")
        fm = QtGui.QFontMetrics(ax.style.get("tickFont") or self.font())
        width = self.terrain.getViewBox().width() or (self.widgets["terrain"].width() - LEFT_AXIS_PX)
        room = max(8, int(width / max(1, len(self.names))) - 6)
        ax.setTicks([[(k, fm.elidedText(n, QtCore.Qt.TextElideMode.ElideRight, room))
                      for k, n in enumerate(self.names)]])
        self.widgets["terrain"].setToolTip(TIPS["terrain"] + (": " + ", ".join(self.names) if self.names else ""))

    def show_stats(self, st) -> None:
        """Draw a Stats snapshot."""
        self.last = st
        self._bars(st.terrain_lengths, st.compare_terrain_lengths)
        self._speed(st.speed_t, st.speed_v)
        self._arrivals(st.arrivals, st.compare_arrivals, st.n)

    def _speed(self, t: np.ndarray, v: np.ndarray) -> None:
        self.speed_curve.setData(t, v)
        self.extents["speed"].reach(nice_end(_top(t)), nice_end(_top(v)))

    def _arrivals(self, times: np.ndarray, compare_times: np.ndarray, n: int) -> None:
        """Everyone's arrivals as a staircase (the compared run's beside), titled with the count; the title is set
        only when it changes (a new title lays the plot out again)."""
        self.arrival_curve.setData(*_steps(times))
        self.compare_arrival_curve.setData(*_steps(compare_times))
        self.extents["arrivals"].reach(nice_end(max(_top(times), _top(compare_times))),
                                       nice_end(max(len(times), len(compare_times))))
        title = f"Arrivals: {len(times)} of {n}"
        if self.arrivals.titleLabel.text != title:
            self.arrivals.setTitle(title, size=TITLE_SIZE)

    def _bars(self, lengths: np.ndarray, compare_lengths: np.ndarray) -> None:
        """The lengths per terrain type as bars in the terrain types' colours, beside the compared run's."""
        T = len(lengths)
        self.extents["terrain"].reach(None, nice_end(max(_top(lengths), _top(compare_lengths))))
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
        self._speed(speed_t, speed_v)
        self._arrivals(arrivals, np.zeros(0), n)

    def plot_items(self) -> tuple[pg.PlotItem, ...]:
        """The three plots of the run (terrain lengths, speed, arrivals)."""
        return (self.terrain, self.speed, self.arrivals)

    def clear_data(self) -> None:
        """Empty the run's plots and put their axes back to 0..1: a reset run starts from clean axes, not the last
        run's ranges."""
        for c in (self.speed_curve, self.arrival_curve, self.compare_arrival_curve):
            c.setData([], [])
        self.bars.setOpts(x=[], height=[])
        self.compare_bars.setOpts(x=[], height=[])
        self.arrivals.setTitle("Arrivals", size=TITLE_SIZE)
        for extent in self.extents.values():
            extent.reach(None, None)
        self.last = None
        for p in self.plot_items():
            span = (-0.5, max(len(self.names), 1) - 0.5) if p is self.terrain else (0.0, 1.0)
            p.setRange(xRange=span, yRange=(0.0, 1.0), padding=0)
            p.enableAutoRange()

    def reset(self, names: list[str], colours: list[str]) -> None:
        """Another document: its terrain types, empty plots, and no measurement plots until it has some."""
        self.set_terrains(names, colours)
        self.clear_data()
        self.hide_measurements(area=True, line=True)

    # ----- measurements ---------------------------------------------------------------------------------------

    def _measure_plot(self, name: str, title: str, left: str) -> pg.PlotItem:
        """The measurement plot ``name`` (density or flow), made on first use, emptied, with its title."""
        attr = f"{name}_plot"
        plot = getattr(self, attr)
        if plot is None:
            w = self.widgets.get(name) or _plot_widget(title, TIPS[name])
            w.setObjectName(f"sim.plot.{name}")
            self.widgets[name] = w
            plot = w.getPlotItem()
            plot.showGrid(x=True, y=True, alpha=0.25)
            plot.setLabel("left", left)
            plot.setLabel("bottom", "time (s)")
            plot.getAxis("left").setWidth(MEASURE_AXIS_PX)
            if plot.legend is None:
                plot.addLegend(offset=(-2, 2), labelTextSize="7pt", brush=pg.mkBrush(255, 255, 255, 190))
            setattr(self, attr, plot)
            self._reflow(force=True)
        plot.clear()
        plot.setTitle(title, size=TITLE_SIZE)
        return plot

    def hide_measurements(self, area: bool, line: bool) -> None:
        """Remove the measurement area's plot (``area``) and the line's (``line``): the scene has none now."""
        changed = False
        for name, gone in (("density", area), ("flow", line)):
            plot = getattr(self, f"{name}_plot")
            if gone and plot is not None:
                plot.clear()
                plot.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)
                setattr(self, f"{name}_plot", None)
                changed = True
        if changed:
            self._reflow(force=True)

    def show_measurements(self, m) -> None:
        """Draw a measurement (``app.sim.qt_replay.Measurement``): the area's classic and Voronoi density and
        specific flow J = rho v over time and the line's cumulative crossings N(t)."""
        if m.area is not None:
            title = "Area"
            v = float(m.speed[-1]) if m.speed is not None and len(m.t) else math.nan
            # PedPy's mean speed of an empty area is 0: "0.00 m/s" would read as people standing still.
            empty = len(m.t) > 0 and len(m.classic) == len(m.t) and float(m.classic[-1]) == 0.0
            if math.isfinite(v) and not empty:
                title += f": {v:.2f} m/s now"
            elif len(m.t):
                title += ": nobody in it now"
            p = self._measure_plot("density", title, "1/m², 1/(m·s)")
            p.plot(m.t, m.classic, pen=pg.mkPen("#0f766e", width=1.5), name="classic")
            p.plot(m.t, m.voronoi, pen=pg.mkPen("#b91c1c", width=1.5), name="Voronoi")
            if m.specific_flow is not None:
                p.plot(m.t, m.specific_flow, pen=pg.mkPen("#7c3aed", width=1.5,
                                                          style=QtCore.Qt.PenStyle.DashLine), name="flow J = ρv")
            _fit(p, m.t)
        if m.line is not None:
            flow = f": {m.flow:.2f} /s lately" if math.isfinite(m.flow) and len(m.t) else ""
            p = self._measure_plot("flow", f"Line{flow}", "agents")
            p.plot(m.t, m.n_t, pen=pg.mkPen("#1d4ed8", width=2), name="crossed")
            _fit(p, m.t)


def _fit(plot: pg.PlotItem, t: np.ndarray) -> None:
    """Follow the data when there is some; an empty plot shows 0..1 (not -400 to 400 ms)."""
    if len(t) and float(np.nanmax(t)) > float(np.nanmin(t)):
        plot.enableAutoRange()
    else:
        plot.disableAutoRange()
        plot.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)


class QtSweepPlot(pg.PlotWidget):
    """The sweep's plot (its own dock): one line per hue value with standard-deviation error bars."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, background=BACKGROUND)
        self.setObjectName("sim.sweep_plot")
        self.setMinimumSize(MIN_PLOT_WIDTH + 40, MIN_PLOT_HEIGHT)
        self.setToolTip("The last sweep's result: mean and standard deviation over the seeds")
        p = self.getPlotItem()
        p.setMenuEnabled(False)
        p.showGrid(x=True, y=True, alpha=0.25)
        p.getAxis("left").setWidth(LEFT_AXIS_PX)
        p.addLegend(offset=(-2, 2), labelTextSize="7pt", brush=pg.mkBrush(255, 255, 255, 190))
        self.plot_item = p
        self.clear_sweep()

    def show_sweep(self, lines, x: str, y: str) -> None:
        """A sweep's table (core.sweep.plot.series) over parameter ``x``, measure ``y``."""
        p = self.plot_item
        p.clear()
        p.setTitle("Sweep", size=TITLE_SIZE)
        p.setLabel("left", y)
        p.setLabel("bottom", x)
        for k, s in enumerate(lines):
            colour = SWEEP_COLOURS[k % len(SWEEP_COLOURS)]
            xs = np.asarray(s.x, dtype=np.float64)
            p.plot(xs, s.mean, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6, symbolBrush=colour,
                   name=s.label)
            p.addItem(pg.ErrorBarItem(x=xs, y=s.mean, height=2.0 * s.std, pen=pg.mkPen(colour)))
        p.enableAutoRange()

    def clear_sweep(self) -> None:
        """No sweep yet (or the document it was run on was closed)."""
        p = self.plot_item
        p.clear()
        p.setTitle("Sweep", size=TITLE_SIZE)
        p.setLabel("left", "")
        p.setLabel("bottom", "")
        p.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0)


def _top(values: np.ndarray) -> float:
    """The largest finite value, 0 for none."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(v.max()) if len(v) else 0.0


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
