"""Running a sweep: the tasks go to a Dask client (or run in this process), results stream to the journal as they
finish, and the tables are written in run order at the end, every ``flush_seconds`` and on Ctrl+C.

Deterministic whatever ran it: every run is seeded by the spec alone, and the tables are sorted by run index, so
the same spec gives the same tables on one process, a LocalCluster or a cluster's scheduler (``cpu_time`` aside).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from core.scene.problems import InputError, Problem

from .deps import require
from .spec import RunTask, SweepSpec, load_spec, parse_spec
from .table import Journal, SweepTables, frames, journal_path, paths_dir, read_tables, results_from_tables, \
    write_tables
from .task import run_task, warm

# Tasks in flight per worker thread: enough to keep workers busy, few enough that Ctrl+C stops at once.
IN_FLIGHT_PER_WORKER = 4


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
        warm_cache: bool = False, should_stop: Callable[[], bool] | None = None) -> SweepTables:
    """Run every run of ``spec`` and return its tables (pandas DataFrames, run order).

    ``client``: a ``distributed.Client`` (a LocalCluster's or a scheduler's) to run the tasks on; None runs them one
    after the other in this process. ``out``: write the tables there (``.parquet`` or ``.csv``) and stream each
    finished run to a journal beside it; ``resume``: keep the runs already in ``out`` (and in a journal a killed
    sweep left) and run only the others. ``keep_paths`` writes each run's walked paths (miran-paths) into
    ``<out stem>.paths/``. ``progress`` shows a tqdm bar with the ETA on stderr; ``on_result(done, total)`` is
    called after each run. ``warm_cache`` first runs every kernel once in this process (numba's cache, see
    ``task.warm``). Ctrl+C, or ``should_stop()`` turning true (checked after each run; for a caller in another
    thread, e.g. the app), raises SweepInterrupted after writing what finished.
    """
    require("pandas", "the sweep's tables")
    spec = as_spec(spec)
    if keep_paths and out is None:
        raise InputError([Problem("keep_paths", "keeping paths needs an output table to write them beside")])
    tasks = spec.tasks(keep_paths)
    texts = spec.scene_texts()
    results: dict[str, dict[str, Any]] = {}
    journal = Journal(journal_path(out)) if out is not None else None
    if out is not None:
        if resume:
            results = finished_runs(out, tasks)
        else:
            journal.remove()
        if keep_paths:
            paths_dir(out).mkdir(exist_ok=True)
    todo = [t for t in tasks if t.run_id not in results]
    if warm_cache and todo:
        warm(todo, texts)
    bar = _bar(len(tasks), len(tasks) - len(todo), progress)
    state = {"flushed": time.monotonic()}

    def done(res: dict[str, Any]) -> None:
        results[res["run"]["run_id"]] = res
        if journal is not None:
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
        if should_stop is not None and should_stop():
            raise KeyboardInterrupt

    try:
        if client is None:
            with _stop_between_runs() as stop:
                for t in todo:
                    if stop() or (should_stop is not None and should_stop()):
                        raise KeyboardInterrupt
                    done(run_task(t, texts[t.scene_sha]))
        else:
            _on_client(client, todo, texts, done)
    except KeyboardInterrupt:
        _finish(out, journal, results, bar)
        raise SweepInterrupted(len(results), len(tasks), str(out) if out is not None else None) from None
    except BaseException:
        _finish(out, journal, results, bar)
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
    journal.remove()
    return tables


def finished_runs(out: str | os.PathLike, tasks: list[RunTask]) -> dict[str, dict[str, Any]]:
    """run_id -> result of the ``tasks`` an earlier attempt finished: in the table at ``out`` or in the journal a
    killed sweep left beside it."""
    wanted = {t.run_id for t in tasks}
    found: dict[str, dict[str, Any]] = {}
    if Path(out).exists():
        found.update(results_from_tables(read_tables(out)))
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
            raise KeyboardInterrupt
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


def _on_client(client, todo: list[RunTask], texts: dict[str, str], done: Callable[[dict], None]) -> None:
    """Submit the tasks to ``client`` a window at a time and hand each result to ``done`` as it finishes."""
    distributed = require("distributed", "running a sweep on Dask")
    if not todo:
        return
    scattered = {sha: client.scatter(text, broadcast=True, hash=False) for sha, text in texts.items()
                 if any(t.scene_sha == sha for t in todo)}
    nthreads = sum(client.nthreads().values()) or 1
    window = IN_FLIGHT_PER_WORKER * nthreads
    pending = iter(todo)

    def submit():
        t = next(pending, None)
        if t is None:
            return None
        return client.submit(run_task, t, scattered[t.scene_sha], key=f"miran-run-{t.index}-{t.run_id}",
                             pure=False)

    first = [f for f in (submit() for _ in range(window)) if f is not None]
    # with_results: the results come back with the completion notices, not one request per result
    ac = distributed.as_completed(first, loop=client.loop, with_results=True)
    try:
        for fut, res in ac:
            fut.release()
            done(res)
            nxt = submit()
            if nxt is not None:
                ac.add(nxt)
    except BaseException:
        for f in list(ac.futures):
            f.cancel()
        raise
