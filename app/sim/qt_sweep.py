"""Simulation > Sweep…: a small parameter sweep of the open scene over one of the panel's parameters (core.sweep).

The dialog only gathers choices and shows results: it writes the scene being edited to a temporary file, builds a
``miran-sweep`` spec with the panel's live values as ``fixed`` and the chosen parameter's values as the grid, and
runs ``core.sweep.run`` on a LocalCluster in a worker thread (``workers`` 0: in that thread, without Dask). Progress
comes back as signals; the finished run table fills a table here and a plot in the plots dock; a row
double-clicked loads its parameters into the panel. Stop asks the sweep to stop after the run in progress.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from core.scene.io import save_scene
from core.scene.problems import InputError
from core.sim.params import DEFAULTS
from core.sweep.spec import FORMAT, VERSION
from ..panels.qt_spin import QtDoubleSpin, QtIntSpin

METHOD_CHOICES = ("miran", "irm", "disc-miran")
Y_CHOICES = ("mean_weighted_length", "mean_length", "mean_time", "arrival_rate", "min_clearance", "mean_speed",
             "cpu_time")
GLOBAL_CHOICES = ("c_s", "dt", "c_o", "c_b")
PROFILE_CHOICES = ("sigma", "d", "max_speed", "radius")


class SweepThread(QtCore.QThread):
    """Runs one sweep; ``progress(done, total)``, then ``done_ok(runs DataFrame)`` or ``failed(message)``."""

    progress = QtCore.Signal(int, int)
    done_ok = QtCore.Signal(object)
    failed = QtCore.Signal(str)

    def __init__(self, spec: dict, spec_dir: str, workers: int, parent=None) -> None:
        super().__init__(parent)
        self.spec, self.spec_dir, self.workers = spec, spec_dir, workers
        self._stop = False

    def stop(self) -> None:
        """Stop after the run in progress (what finished is kept and shown)."""
        self._stop = True

    def run(self) -> None:
        import core.sweep as sweep

        try:
            spec = sweep.parse_spec(self.spec, base_dir=self.spec_dir)
            options = dict(on_result=lambda d, n: self.progress.emit(d, n), should_stop=lambda: self._stop)
            if self.workers == 0:
                tables = sweep.run(spec, None, **options)
            else:
                with sweep.local_client(self.workers) as client:
                    tables = sweep.run(spec, client, warm_cache=True, **options)
            self.done_ok.emit(tables.runs)
        except sweep.SweepInterrupted as e:
            self.failed.emit(str(e))
        except InputError as e:
            self.failed.emit("\n".join(e.lines()))
        except sweep.MissingExtra as e:
            self.failed.emit(str(e))
        except Exception as e:  # a worker that died, a cluster that would not start: shown, not swallowed
            self.failed.emit(f"{type(e).__name__}: {e}")


class QtSweepDialog(QtWidgets.QDialog):
    """The sweep dialog. ``panel`` is the Simulation panel (QtSimParameters), ``plots`` what draws the result
    (``show_sweep(lines, x, y)`` and ``clear_sweep()``: the sweep dock)."""

    def __init__(self, parent, panel, plots) -> None:
        super().__init__(parent)
        self.setObjectName("sim.sweep_dialog")
        self.setWindowTitle("Sweep")
        self.panel, self.plots = panel, plots
        self.thread: SweepThread | None = None
        self.runs = None
        self._epoch = 0           # counts the documents: a sweep of a closed one is not shown
        self._tmp: tempfile.TemporaryDirectory | None = None
        lay = QtWidgets.QVBoxLayout(self)
        form = QtWidgets.QFormLayout()
        self.param = QtWidgets.QComboBox()
        self.param.setObjectName("sweep.parameter")
        self.param.currentIndexChanged.connect(self._param_chosen)
        self.lo = QtDoubleSpin()
        self.hi = QtDoubleSpin()
        for s, name in ((self.lo, "sweep.from"), (self.hi, "sweep.to")):
            s.setObjectName(name)
            s.setDecimals(3)
            s.setRange(0.001, 1e6)
        self.count = QtIntSpin()
        self.count.setObjectName("sweep.count")
        self.count.setRange(2, 50)
        self.count.setValue(5)
        rng = QtWidgets.QHBoxLayout()
        for label, w in (("from", self.lo), ("to", self.hi), ("values", self.count)):
            rng.addWidget(QtWidgets.QLabel(label))
            rng.addWidget(w)
        self.methods: dict[str, QtWidgets.QCheckBox] = {}
        mrow = QtWidgets.QHBoxLayout()
        for m in METHOD_CHOICES:
            cb = QtWidgets.QCheckBox(m)
            cb.setObjectName(f"sweep.method.{m}")
            self.methods[m] = cb
            mrow.addWidget(cb)
        current = panel.method.currentData()
        self.methods[current if current in self.methods else "miran"].setChecked(True)
        self.seeds = QtIntSpin()
        self.seeds.setObjectName("sweep.seeds")
        self.seeds.setRange(1, 100)
        self.agents = QtIntSpin()
        self.agents.setObjectName("sweep.agents")
        self.agents.setRange(0, 10000)
        self.steps = QtIntSpin()
        self.steps.setObjectName("sweep.steps")
        self.steps.setRange(0, 10_000_000)
        self.steps.setSpecialValueText("until everyone arrives")
        self.workers = QtIntSpin()
        self.workers.setObjectName("sweep.workers")
        self.workers.setRange(0, 256)
        self.workers.setValue(2)
        self.workers.setSpecialValueText("in this process")
        self.y = QtWidgets.QComboBox()
        self.y.setObjectName("sweep.y")
        self.y.addItems(Y_CHOICES)
        self.y.currentIndexChanged.connect(lambda _: self._show_results())
        form.addRow("Parameter", self.param)
        form.addRow("Values", rng)
        form.addRow("Methods", mrow)
        form.addRow("Seeds", self.seeds)
        form.addRow("Random agents", self.agents)
        form.addRow("Step limit", self.steps)
        form.addRow("Worker processes", self.workers)
        form.addRow("Plot", self.y)
        lay.addLayout(form)
        self.bar = QtWidgets.QProgressBar()
        self.bar.setObjectName("sweep.progress")
        self.status = QtWidgets.QLabel("")
        self.status.setObjectName("sweep.status")
        self.status.setWordWrap(True)
        lay.addWidget(self.bar)
        lay.addWidget(self.status)
        self.table = QtWidgets.QTableWidget(0, 0)
        self.table.setObjectName("sweep.table")
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setToolTip("Double-click a run to load its parameters into the Simulation panel")
        self.table.cellDoubleClicked.connect(self.load_row)
        lay.addWidget(self.table, 1)
        buttons = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.setObjectName("sweep.run")
        self.run_button.clicked.connect(self.start)
        self.stop_button = QtWidgets.QPushButton("Stop")
        self.stop_button.setObjectName("sweep.stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        close = QtWidgets.QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addStretch(1)
        for b in (self.run_button, self.stop_button, close):
            buttons.addWidget(b)
        lay.addLayout(buttons)
        self.fill_parameters()
        self.resize(620, 560)

    # ----- choices ----------------------------------------------------------------------------------------------

    def fill_parameters(self) -> None:
        """The panel's parameters: each profile's sigma, d, max speed, radius and weights, and a few globals."""
        self.param.blockSignals(True)
        self.param.clear()
        for pid, prof in self.panel.params.get("profiles", {}).items():
            for f in PROFILE_CHOICES:
                self.param.addItem(f"{pid}.{f}", float(prof[f]))
            for tid, w in prof.get("weights", {}).items():
                self.param.addItem(f"{pid}.weight.{tid}", float(w))
        for g in GLOBAL_CHOICES:
            self.param.addItem(g, float(self.panel.params.get(g, DEFAULTS[g])))
        self.param.blockSignals(False)
        self._param_chosen()

    def _param_chosen(self, *args) -> None:
        v = self.param.currentData()
        if v is None:
            return
        self.lo.setValue(max(0.001, 0.5 * v))
        self.hi.setValue(max(0.002, 2.0 * v))

    def values(self) -> list[float]:
        """The swept values: ``count`` evenly spaced from ``from`` to ``to``, rounded to 6 significant digits."""
        vals = np.linspace(self.lo.value(), self.hi.value(), self.count.value())
        return sorted({float(f"{v:.6g}") for v in vals})

    def spec(self, scene_file: str) -> dict[str, Any]:
        """The sweep spec of the dialog's choices, the panel's live values fixed."""
        name = self.param.currentText()
        fixed: dict[str, Any] = {}
        for pid, prof in self.panel.params.get("profiles", {}).items():
            for f in PROFILE_CHOICES:
                fixed[f"{pid}.{f}"] = float(prof[f])
            for tid, w in prof.get("weights", {}).items():
                fixed[f"{pid}.weight.{tid}"] = float(w)
        for g in GLOBAL_CHOICES:
            if g in self.panel.params:
                fixed[g] = float(self.panel.params[g])
        for g in ("integrator", "fidelity"):
            if g in self.panel.params:
                fixed[g] = self.panel.params[g]
        fixed.pop(name, None)
        methods = [m for m, cb in self.methods.items() if cb.isChecked()] or ["miran"]
        doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": "app-sweep", "scenes": [scene_file],
                               "fixed": fixed, "grid": {name: self.values(), "method": methods},
                               "seeds": list(range(self.seeds.value())), "agents": self.agents.value()}
        if self.steps.value():
            doc["limit"] = {"steps": self.steps.value()}
        return doc

    # ----- running ----------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Write the scene being edited to a temporary file and run the sweep in a worker thread."""
        if self.thread is not None:
            return
        self._tmp = tempfile.TemporaryDirectory(prefix="miran-sweep-")
        scene_file = Path(self._tmp.name) / "scene.json"
        save_scene(self.panel.doc.scene, scene_file)
        self.bar.setValue(0)
        self.status.setText("starting…")
        self.thread = SweepThread(self.spec(str(scene_file)), self._tmp.name, self.workers.value(), self)
        epoch = self._epoch
        self.thread.progress.connect(lambda d, n: epoch == self._epoch and self._progress(d, n))
        self.thread.done_ok.connect(lambda runs: epoch == self._epoch and self._done(runs))
        self.thread.failed.connect(lambda msg: epoch == self._epoch and self._failed(msg))
        self.thread.finished.connect(self._ended)
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.thread.start()

    def stop(self) -> None:
        if self.thread is not None:
            self.thread.stop()
            self.status.setText("stopping after the run in progress…")

    def forget(self) -> None:
        """Another document was opened: stop the sweep of the last one (its result is not shown), empty the table
        and the plot, and offer the new document's parameters."""
        self._epoch += 1
        if self.thread is not None:
            self.thread.stop()
        self.runs = None
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.bar.setValue(0)
        self.status.setText("")
        self.plots.clear_sweep()
        self.fill_parameters()

    def _progress(self, done: int, total: int) -> None:
        self.bar.setRange(0, total)
        self.bar.setValue(done)
        self.status.setText(f"{done} of {total} runs")

    def _done(self, runs) -> None:
        self.runs = runs
        self.status.setText(f"{len(runs)} runs")
        self._show_results()

    def _failed(self, message: str) -> None:
        self.status.setText(message)

    def _ended(self) -> None:
        self.thread = None
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def wait_done(self, ms: int) -> bool:
        """Wait for the sweep thread (tests, closing); True when it ended."""
        t = self.thread
        return t is None or t.wait(ms)

    def closeEvent(self, ev) -> None:
        if self.thread is not None:
            self.thread.stop()
            self.thread.wait()
        super().closeEvent(ev)

    # ----- results ----------------------------------------------------------------------------------------------

    def _columns(self) -> list[str]:
        name = self.param.currentText()
        return ["run", name, "method", "seed", self.y.currentText()]

    def _show_results(self) -> None:
        runs = self.runs
        if runs is None or not len(runs):
            return
        name, y = self.param.currentText(), self.y.currentText()
        if name not in runs.columns or y not in runs.columns:
            return
        cols = self._columns()
        self.table.setColumnCount(len(cols))
        self.table.setHorizontalHeaderLabels(cols)
        self.table.setRowCount(len(runs))
        for i, row in enumerate(runs[cols].itertuples(index=False)):
            for j, v in enumerate(row):
                text = f"{v:.6g}" if isinstance(v, float) else str(v)
                self.table.setItem(i, j, QtWidgets.QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        from core.sweep.plot import series

        self.plots.show_sweep(series(runs, name, y, "method"), name, y)

    def load_row(self, row: int, column: int = 0) -> None:
        """Load a run's swept value and method into the Simulation panel (applied live)."""
        if self.runs is None or not 0 <= row < len(self.runs):
            return
        r = self.runs.iloc[row]
        name = self.param.currentText()
        self.panel.apply_parameters({name: float(r[name]), "method": str(r["method"])})
        self.status.setText(f"loaded run {int(r['run'])}: {name} = {float(r[name]):.6g}, {r['method']}")
