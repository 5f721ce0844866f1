"""Benchmark section ``sweep``: runs per second of ``miran sweep`` on a LocalCluster of 1 and of 2 worker processes
(and their ratio), measured on wall-clock and on CPU time, and the overhead per run against the bare
``Simulation.run``.

The workload: the forest scene with its adult and child and 8 random characters planned on each run, a grid over the
adult's sigma and the method, several seeds (48 runs; 8 with ``--quick``). Every measurement is made in this one
call, against its baseline: the bare runs (the same tasks' Simulations built and run one after the other in this
process) and the 1-worker sweep. No timed run compiles or loads a kernel: the bare runs are done once untimed, and
each worker first runs every parameter combination to its end (kernels loaded from numba's cache, scene built). The
rounds alternate 1 and 2 workers (3 rounds, 1 with ``--quick``), each on a fresh LocalCluster, and the sweeps run
batched (several runs per Dask task, the default) and, for comparison, one run per task.

Wall-clock figures share the machine with whatever else runs: read them beside the machine reference, the speed-up a
plain process pool gets, measured before each round, and their quotient per round. The CPU-time figures do not
depend on the neighbours as much: the CPU seconds of the worker processes per run and of the calling process (Dask
client, scheduler and nannies, journal, tables) per run. From them, the speed-up 2 workers would give on an idle
two-core machine: one worker takes max(w1, c1) per run (it and the caller each on a core), two take max((w2 + c2) /
2, c2) (the two cores shared by the workers' w2 and the caller's c2 per run).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .record import Record

if TYPE_CHECKING:
    from core.sweep.spec import RunTask, SweepSpec

SECTION = "sweep"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"


class Sweep(NamedTuple):
    """One timed sweep: wall seconds, and CPU seconds per run of the workers (summed) and of the calling process."""

    wall: float
    worker_cpu: float
    client_cpu: float


def _rec(name: str, value, unit: str, reference: str = "") -> Record:
    return Record(SECTION, name, value, unit, reference)


def _spec(folder: Path, quick: bool) -> Path:
    doc = {"format": "miran-sweep", "version": 1, "name": "bench", "scenes": [str(SCENES_DIR / "forest.json")],
           "grid": {"adult.sigma": [20, 80], "method": ["miran", "irm"]},
           "seeds": [0, 1] if quick else list(range(12)),
           "agents": 8}
    path = folder / "bench.sweep.json"
    path.write_text(json.dumps(doc))
    return path


def _best(fn, repeat: int) -> float:
    """Smallest wall seconds of ``repeat`` calls of ``fn()``."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _bare(spec) -> None:
    """Build and run every task's Simulation in this process, one after the other."""
    from core.sweep.task import build_simulation, scene_entry

    texts = spec.scene_texts()
    for t in spec.tasks():
        entry = scene_entry(t.scene_sha, texts[t.scene_sha])
        with entry.lock:
            build_simulation(entry, t).run(until=t.time, max_steps=t.steps)


def _thread_cpu(fn) -> float:
    """CPU seconds of this thread for one call of ``fn()``."""
    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


def _spin(n: int) -> int:
    """Pure-Python CPU work for the machine's own parallel reference."""
    s = 0
    for i in range(n):
        s += i
    return s


def _pool_speedup(repeat: int) -> float:
    """Wall time of 2 equal CPU-bound jobs on 1 process over that on 2 processes: what this machine gives two
    processes right now (1.0 on a saturated machine, near 2 on an idle two-core one)."""
    from concurrent.futures import ProcessPoolExecutor

    n = 3_000_000
    times = []
    for workers in (1, 2):
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_spin, [1000, 1000]))
            times.append(_best(lambda: list(pool.map(_spin, [n, n])), repeat))
    return times[0] / times[1]


def _process_cpu() -> float:
    """CPU seconds of this whole process, every thread (run in each worker through ``client.run``)."""
    return time.process_time()


def _timed(client, spec, batch: int | None) -> Sweep:
    """One sweep of ``spec`` on ``client``: its wall time and CPU seconds per run of the workers and of this process
    (which runs the LocalCluster's scheduler and nannies besides the client)."""
    import core.sweep as sweep

    w0 = client.run(_process_cpu)
    t0, c0 = time.perf_counter(), time.process_time()
    sweep.run(spec, client, batch=batch)
    wall, client_cpu = time.perf_counter() - t0, time.process_time() - c0
    w1 = client.run(_process_cpu)
    n = spec.n_runs
    return Sweep(wall, sum(w1[k] - w0[k] for k in w1) / n, client_cpu / n)


def _warm_runs(tasks, texts: dict[str, str]) -> None:
    """Run ``tasks`` to their end in this process (a worker): every kernel a whole run calls is then loaded from
    numba's cache (a 2-step warm-up leaves some to the first long run, tens of ms each) and the scene built."""
    from core.sweep.task import run_task

    for t in tasks:
        run_task(t, texts[t.scene_sha])


def _round(spec: SweepSpec, workers: int) -> tuple[Sweep, Sweep]:
    """(batched sweep, one-run-per-task sweep) on a fresh LocalCluster of ``workers`` processes, each worker first
    warmed by a whole run of each parameter combination, so that no timed run loads a kernel or builds the scene."""
    import core.sweep as sweep

    first: dict[Any, RunTask] = {}
    for t in spec.tasks():
        first.setdefault(t.params, t)
    with sweep.local_client(workers) as client:
        client.run(_warm_runs, list(first.values()), spec.scene_texts())
        return _timed(client, spec, None), _timed(client, spec, 1)


def _idle_speedup(one: Sweep, two: Sweep) -> float:
    """The speed-up of 2 workers over 1 on an idle two-core machine, from the CPU seconds per run (module doc)."""
    return max(one.worker_cpu, one.client_cpu) / max((two.worker_cpu + two.client_cpu) / 2, two.client_cpu)


def run(quick: bool) -> list[Record]:
    import core.sweep as sweep

    cpus = sweep.default_workers()
    with tempfile.TemporaryDirectory() as tmp:
        spec = sweep.load_spec(_spec(Path(tmp), quick))
    n = spec.n_runs
    rounds = 1 if quick else 3
    sweep.warm(spec.tasks(), spec.scene_texts())
    _bare(spec)
    bare = _best(lambda: _bare(spec), 1 if quick else 2)
    bare_cpu = min(_thread_cpu(lambda: _bare(spec)) for _ in range(1 if quick else 2)) / n
    in_process = _best(lambda: sweep.run(spec), 1)
    loads, pools = [], []
    batched: dict[int, list[Sweep]] = {1: [], 2: []}
    single: dict[int, list[Sweep]] = {1: [], 2: []}
    for _ in range(rounds):
        pools.append(_pool_speedup(2))
        for workers in (1, 2):
            loads.append(os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
            b, s = _round(spec, workers)
            batched[workers].append(b)
            single[workers].append(s)
    pool = max(pools)

    def best(xs: list[Sweep]) -> Sweep:
        """The round of smallest wall time (the least disturbed by the neighbours)."""
        return min(xs, key=lambda s: s.wall)

    one, two = best(batched[1]), best(batched[2])
    one_s, two_s = best(single[1]), best(single[2])
    ratios = [a.wall / b.wall for a, b in zip(batched[1], batched[2])]
    # what the sweep got of what the machine gave two processes in the same round
    shares = [r / p for r, p in zip(ratios, pools)]
    cpu_ratios = [_idle_speedup(a, b) for a, b in zip(batched[1], batched[2])]
    where = (f"{n} forest runs, 10 characters each; {cpus} CPUs, load average {min(loads):.1f} to {max(loads):.1f} "
             f"while measured")
    per_round = ", ".join(f"{r:.2f}" for r in ratios)
    return [
        _rec("bare Simulation build + run per run", 1e3 * bare / n, "ms", where),
        _rec("runs per second 1 worker", n / one.wall, "runs/s", f"batched, best of {rounds} rounds; {where}"),
        _rec("runs per second 2 workers", n / two.wall, "runs/s", f"batched, best of {rounds} rounds; {where}"),
        _rec("speed-up 2 workers vs 1", one.wall / two.wall, "x",
             f"wall-clock, best rounds; per round {per_round}; issue #17 asks >= 1.7 on 2 cores; {where}"),
        _rec("speed-up 2 workers vs 1 from CPU time, idle 2-core machine", statistics.median(cpu_ratios), "x",
             "median over rounds of max(w1, c1) / max((w2 + c2) / 2, c2), w = worker CPU per run, c = calling "
             "process CPU per run (per round " + ", ".join(f"{r:.2f}" for r in cpu_ratios) + ")"),
        _rec("speed-up 2 workers vs 1, one run per task", one_s.wall / two_s.wall, "x",
             f"wall-clock, best rounds, --batch 1 (no batching); {where}"),
        _rec("machine reference: plain process pool speed-up 2 vs 1", pool, "x",
             "2 pure-Python CPU jobs on 1 vs 2 processes, measured before each round (best; per round "
             + ", ".join(f"{p:.2f}" for p in pools) + "): the most 2 workers could give"),
        _rec("speed-up 2 workers vs 1 over the machine reference", statistics.median(shares), "",
             "median over rounds of the sweep's wall-clock speed-up divided by the process pool's in the same round "
             "(per round " + ", ".join(f"{x:.2f}" for x in shares) + "); 1 = all the parallelism the machine gave"),
        _rec("runs per worker CPU-second 1 worker", 1 / statistics.median(s.worker_cpu for s in batched[1]),
             "runs/s", "CPU of the worker process (all its threads), median over rounds"),
        _rec("runs per worker CPU-second 2 workers", 1 / statistics.median(s.worker_cpu for s in batched[2]),
             "runs/s", "CPU of both worker processes, median over rounds"),
        _rec("overhead per task CPU, calling process", 1e3 * statistics.median(s.client_cpu for s in batched[1]),
             "ms", "CPU per run of the process running the sweep (client, scheduler, nannies, journal, tables), "
                   "1 worker, batched, median over rounds"),
        _rec("calling process CPU per run 2 workers", 1e3 * statistics.median(s.client_cpu for s in batched[2]),
             "ms", "as above, 2 workers"),
        _rec("calling process CPU per run, one run per task", 1e3 * statistics.median(s.client_cpu for s in single[1]),
             "ms", "as above, 1 worker, --batch 1: what batching saves"),
        _rec("overhead per task 1 worker", 1e3 * (one.wall - bare) / n, "ms",
             "LocalCluster wall per run minus bare, batched"),
        _rec("overhead per task CPU, worker", 1e3 * (statistics.median(s.worker_cpu for s in batched[1]) - bare_cpu),
             "ms", "a run's CPU in its worker process (Dask's threads, build, run, reduce to rows) minus the bare "
                   "build + run's CPU"),
        _rec("overhead per task in-process", 1e3 * (in_process - bare) / n, "ms",
             "core.sweep.run(client=None) wall per run minus bare"),
    ]
