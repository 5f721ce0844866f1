"""Running a sweep: the runs go to a Dask client in batches (several runs per task, core.sweep.batches) or run in
this process; each finished run streams to the journal as its own line (fsynced once per batch), and the tables
are written in run order at the end, every ``flush_seconds`` and on Ctrl+C.

Deterministic whatever ran it: every run is seeded by the spec alone, and the tables are sorted by run index, so
the same spec gives the same tables on one process, a LocalCluster or a cluster's scheduler (``cpu_time`` aside).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from core.interrupts import acknowledge, is_interrupt, sigint_handler
from core.scene.problems import InputError, Problem

from .batches import MAX_BATCH, BatchSizer, batch_error, run_batch
from .deps import require
from .spec import RunTask, SweepSpec, load_spec, parse_spec
from .table import RUN_KEYS, Journal, SweepTables, characters_path, check_out_path, check_outputs, csv_header, \
    frames, journal_path, paths_dir, read_tables, results_from_tables, sniff_table, write_tables
from .task import run_task, warm, warm_if_cached, warm_tasks

# Batches in flight per worker thread: one running and one waiting, so that a worker never waits for the round
# trip; few enough that the batch sizes follow the measured run time and Ctrl+C stops at once.
IN_FLIGHT_PER_WORKER = 2


class SweepInterrupted(Exception):
    """Ctrl+C stopped the sweep; the tables hold the ``kept`` runs that finished (``total`` in the spec)."""

    def __init__(self, kept: int, total: int, out: str | None) -> None:
        self.kept, self.total, self.out = kept, total, out
        where = f" in {out}" if out else ""
        super().__init__(f"interrupted: kept {kept} of {total} runs{where}"
                         + ("; run again with --resume to finish" if out else ""))


def as_spec(spec: SweepSpec | str | os.PathLike | dict) -> SweepSpec:
    """A SweepSpec from a spec, a spec file path, or a spec document (scene paths relative to the working dir)."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, dict):
        return parse_spec(spec)
    return load_spec(spec)


def run(spec: SweepSpec | str | os.PathLike | dict, client: Any = None, *, out: str | os.PathLike | None = None,
        resume: bool = False, keep_paths: bool = False, progress: bool = False,
        on_result: Callable[[int, int], None] | None = None, flush_seconds: float = 30.0,
        warm_cache: bool = False, should_stop: Callable[[], bool] | None = None,
        batch: int | None = None) -> SweepTables:
    """Run every run of ``spec`` and return its tables (pandas DataFrames, run order).

    ``client``: a ``distributed.Client`` (a LocalCluster's or a scheduler's) to run the tasks on; None runs them one
    after the other in this process. ``out``: write the tables there (``.parquet`` or ``.csv``) and stream each
    finished run to a journal beside it; ``resume``: keep the runs already in ``out`` (and in a journal a killed
    sweep left) and run only the others. ``keep_paths`` writes each run's walked paths (miran-paths) into
    ``<out stem>.paths/``. ``progress`` shows a tqdm bar with the ETA on stderr; ``on_result(done, total)`` is
    called after each run. ``warm_cache`` first runs every kernel once (numba's cache, see ``task.warm``): on one
    worker of ``client`` before the others run anything, or in this process without one. Ctrl+C, or
    ``should_stop()`` turning true (checked between runs, on Dask between batches; for a caller in another thread,
    e.g. the app), raises SweepInterrupted after writing what finished. ``batch``: runs per Dask task (None: sized
    from the measured run time, see core.sweep.batches); it changes no value of the tables.
    """
    require("pandas", "the sweep's tables")
    spec = as_spec(spec)
    if keep_paths and out is None:
        raise InputError([Problem("keep_paths", "keeping paths needs an output table to write them beside")])
    if batch is not None and not (isinstance(batch, int) and 1 <= batch <= MAX_BATCH):
        raise InputError([Problem("batch", f"expected a whole number of runs per task from 1 to {MAX_BATCH}, "
                                           f"got {batch!r}")])
    if out is not None:
        check_out_path(out, "out")
        check_outputs(out, spec_inputs(spec), keep_paths, "out")
    tasks = spec.tasks(keep_paths)
    texts = spec.scene_texts()
    results: dict[str, dict[str, Any]] = {}
    journal: Journal | None = None
    if out is not None:
        journal = Journal(journal_path(out))
        if resume:
            results = finished_runs(out, tasks)
        else:
            journal.remove()
        if keep_paths:
            paths_dir(out).mkdir(exist_ok=True)
    todo = [t for t in tasks if t.run_id not in results]
    if warm_cache and todo:
        if client is None:
            warm(todo, texts)
        else:
            _warm_on_a_worker(client, todo, texts)
    bar = _bar(len(tasks), len(tasks) - len(todo), progress)
    state = {"flushed": time.monotonic()}

    def done(res: dict[str, Any]) -> None:
        """One finished run: journalled (flushed, not yet fsynced), counted, the tables rewritten when due."""
        results[res["run"]["run_id"]] = res
        if journal is not None and out is not None:
            journal.append(res)
            if res.get("paths") is not None:
                from core.scene.jsonio import write_json_atomic

                r = res["run"]
                write_json_atomic(paths_dir(out) / f"{r['run']:06d}-{r['run_id']}.json", res["paths"], indent=None)
            if time.monotonic() - state["flushed"] > flush_seconds:
                write_tables(out, results.values())
                state["flushed"] = time.monotonic()
        if bar is not None:
            bar.update(1)
        if on_result is not None:
            on_result(len(results), len(tasks))

    def stop_asked() -> bool:
        return should_stop is not None and should_stop()

    try:
        if client is None:
            with _stop_between_runs() as stop:
                for t in todo:
                    if stop() or stop_asked():
                        raise KeyboardInterrupt
                    done(run_task(t, texts[t.scene_sha]))
                    if journal is not None:
                        journal.sync()
        else:
            _on_client(client, todo, texts, done, journal.sync if journal is not None else None, batch, stop_asked)
    except BaseException as e:
        if is_interrupt(e):
            acknowledge()           # writing what finished and closing the cluster may take longer than a re-ask
        _finish(out, journal, results, bar)
        if is_interrupt(e):
            # a KeyboardInterrupt, or numba's SystemError caused by one (core.interrupts)
            raise SweepInterrupted(len(results), len(tasks), str(out) if out is not None else None) from None
        raise
    return _finish(out, journal, results, bar)


def _finish(out, journal: Journal | None, results: dict, bar) -> SweepTables:
    """Write the tables of every finished run (then the journal is no longer needed) and return them."""
    if bar is not None:
        bar.close()
    if journal is not None:
        journal.close()
    if out is None or not results:
        return frames(results.values())
    tables = write_tables(out, results.values())
    if journal is not None:
        journal.remove()
    return tables


def check_resumable(out: str | os.PathLike) -> None:
    """InputError, before pandas is loaded, when the table at ``out`` is a CSV file without a sweep table's
    columns or a file that is not Parquet (the full check is ``results_from_tables``)."""
    p = Path(out)
    if not p.is_file():
        return
    if p.suffix.lower() == ".csv":
        cols = csv_header(p)
        missing = [c for c in RUN_KEYS if cols is None or c not in cols]
        if missing:
            raise InputError([Problem("", f"not a sweep's run table: no column {', '.join(map(repr, missing))}")],
                             str(p))
    for f in (p, characters_path(p)):
        if f.is_file():
            sniff_table(f)


def spec_inputs(spec: SweepSpec) -> list[tuple[str, str]]:
    """The files a sweep reads, as (label, path): its spec file (when it has one) and its scenes."""
    own = [("the spec", spec.source)] if spec.source else []
    return own + [(f"scenes[{i}]", sc.path) for i, sc in enumerate(spec.scenes)]


def finished_runs(out: str | os.PathLike, tasks: list[RunTask]) -> dict[str, dict[str, Any]]:
    """run_id -> result of the ``tasks`` an earlier attempt finished: in the table at ``out`` or in the journal a
    killed sweep left beside it."""
    wanted = {t.run_id for t in tasks}
    found: dict[str, dict[str, Any]] = {}
    check_resumable(out)
    if Path(out).exists():
        found.update(results_from_tables(read_tables(out), str(out)))
    for r in Journal(journal_path(out)).read():
        found[str(r["run"]["run_id"])] = r
    return {k: v for k, v in found.items() if k in wanted}


@contextlib.contextmanager
def _stop_between_runs():
    """In this process's main thread, a first Ctrl+C lets the run in progress finish and then stops (a
    KeyboardInterrupt raised inside a numba kernel would surface as a SystemError); a second one stops at once.
    Yields a function that says whether a stop was asked."""
    asked = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return

    def handler(signum, frame):
        if asked:
            sigint_handler(signum, frame)  # KeyboardInterrupt, deferred out of a kernel call
            return
        asked.append(signum)
        print("stopping after the run in progress (Ctrl+C again to stop now)", file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(asked)
    finally:
        signal.signal(signal.SIGINT, previous)


def _bar(total: int, initial: int, show: bool):
    if not show:
        return None
    tqdm = require("tqdm", "the progress bar").tqdm
    return tqdm(total=total, initial=initial, unit="run", file=sys.stderr, dynamic_ncols=True, smoothing=0.05)


def _warm_on_a_worker(client, todo: list[RunTask], texts: dict[str, str]) -> None:
    """``task.warm`` on one worker before any run is handed out: the kernels it compiles (or loads) go to numba's
    cache for the others, and it keeps them loaded, with the scene built, for its own runs. Meanwhile every other
    worker warms too where the cache already holds every kernel (``task.warm_if_cached``: it then only loads them),
    and otherwise waits. The calling process never loads the engine's kernels (about a second of a sweep's start
    on two cores)."""
    if not client.nthreads():
        client.wait_for_workers(1)           # a cluster whose workers start later (a Slurm job in its queue)
    short = warm_tasks(todo)
    needed = {t.scene_sha: texts[t.scene_sha] for t in short}
    first, *others = sorted(client.nthreads())
    loads = [client.submit(warm_if_cached, short, needed, key=f"miran-load-{k}-{todo[0].run_id}", pure=False,
                           workers=[w]) for k, w in enumerate(others)]
    try:
        client.submit(warm, short, needed, key=f"miran-warm-{todo[0].run_id}", pure=False, workers=[first]).result()
        for f in loads:
            f.result()
    finally:
        for f in loads:
            f.cancel()


def _on_client(client, todo: list[RunTask], texts: dict[str, str], done: Callable[[dict], None],
               synced: Callable[[], None] | None, batch: int | None, stop_asked: Callable[[], bool]) -> None:
    """Submit the runs to ``client`` in batches (core.sweep.batches), a window at a time, and hand each finished
    run to ``done``; ``synced()`` after each batch's runs (the journal's fsync). A batch's InputError, or
    ``stop_asked()`` (as KeyboardInterrupt), is raised after its finished runs are handed over."""
    distributed = require("distributed", "running a sweep on Dask")
    if not todo:
        return
    if not client.nthreads():
        # a cluster whose workers start later (a Slurm job waiting in its queue): scattering needs one
        client.wait_for_workers(1)
    # each scene's text goes to every worker once (and from a worker to one that joins later), not with each task
    scattered = {sha: client.scatter(texts[sha], broadcast=True, hash=False) for sha in {t.scene_sha for t in todo}}
    threads = _ThreadCount(client)
    sizer = BatchSizer(threads(), batch)
    pending = list(reversed(todo))

    def submit():
        sizer.nthreads = threads()
        n = sizer.next(len(pending))
        if n == 0:
            return None
        chunk = tuple(pending.pop() for _ in range(n))
        shas = {t.scene_sha: scattered[t.scene_sha] for t in chunk}
        return client.submit(run_batch, chunk, shas, key=f"miran-runs-{chunk[0].index}-{n}-{chunk[0].run_id}",
                             pure=False)

    first = [f for f in (submit() for _ in range(IN_FLIGHT_PER_WORKER * threads())) if f is not None]
    # with_results: the results come back with the completion notices, not one request per result
    ac = distributed.as_completed(first, loop=client.loop, with_results=True)
    try:
        for fut, res in ac:
            fut.release()
            sizer.observe(len(res["results"]), res["seconds"])
            for r in res["results"]:
                done(r)
            if synced is not None:
                synced()
            error = batch_error(res)
            if error is not None:
                raise error
            if stop_asked():
                raise KeyboardInterrupt
            # keep the window full, wider when workers joined (a cluster that scales up)
            while pending and ac.count() < IN_FLIGHT_PER_WORKER * threads():
                ac.add(submit())
    except BaseException:
        for f in list(ac.futures):
            f.cancel()
        raise


class _ThreadCount:
    """The worker threads of a client's cluster, asked of the scheduler at most once a second (workers come and go:
    a Slurm cluster's jobs start later); at least 1."""

    def __init__(self, client) -> None:
        self.client = client
        self.value = 1
        self.asked = -math.inf

    def __call__(self) -> int:
        now = time.monotonic()
        if now - self.asked >= 1.0:
            self.value = max(1, sum(self.client.nthreads().values()))
            self.asked = now
        return self.value
