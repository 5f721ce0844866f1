"""``miran sweep SPEC``: run a parameter sweep on Dask and write its results table (core.sweep).

A LocalCluster of ``--workers`` processes by default (one per CPU, at most one per run; a sweep that one process
would run alone, one run or one CPU, runs in this process, as ``--workers 0`` does), or the workers of a running
scheduler (``--scheduler tcp://host:8786``); ``--batch`` runs per Dask task (sized automatically by default).
Finished runs stream to a journal beside ``--out`` with a progress bar and ETA; the run table goes to ``--out``
(.parquet or .csv) and the character table beside it. ``--resume`` skips the runs already there; Ctrl+C keeps what
finished (exit 130).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import time

from core.cli.output import print_json
from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep", help="run a parameter sweep (grid / random samples) on Dask",
                       description="Run every run of a miran-sweep spec (JSON or TOML) on a Dask LocalCluster or a "
                                   "running scheduler, and write one row per run and one per character. Needs the "
                                   "'sweep' extra: pip install 'miran-studio[sweep]'.")
    p.add_argument("spec", metavar="SPEC", help="the sweep spec (.json or .toml)")
    p.add_argument("--workers", metavar="N",
                   help="LocalCluster worker processes (default: one per CPU, at most one per run, and none, "
                        "in this process, when that is one; 0: run in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler (tcp://host:8786) instead")
    p.add_argument("--out", metavar="FILE", help="the run table, .parquet or .csv (default: <spec name>.parquet); "
                                                 "the character table goes beside it")
    p.add_argument("--batch", metavar="N",
                   help="runs per Dask task (default: sized so that a task lasts about a second; the tables "
                        "are the same whatever it is)")
    p.add_argument("--resume", action="store_true", help="keep the runs already in --out and run the others")
    p.add_argument("--keep-paths", action="store_true",
                   help="write each run's walked paths (miran-paths) into <out stem>.paths/")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of text")
    return p


def _workers(args) -> int | None:
    if args.workers is None:
        return None
    try:
        n = int(args.workers)
        if n < 0 or n > 4096:
            raise ValueError
        return n
    except ValueError:
        raise InputError([Problem("--workers", f"expected a whole number from 0 to 4096, got {args.workers!r}")]
                         ) from None


def _default_workers(sweep, spec, n_before: int) -> int:
    """Workers when --workers is not given: one per CPU, but no more than the runs to do. When that is one (a single
    run, or a single CPU) the sweep runs in this process: a cluster could not share the work, only add its start
    (about 2 s of wall on a two-core machine, against 2 s for a whole one-run sweep in this process)."""
    return max(1, min(sweep.default_workers(), spec.n_runs - n_before))


def _batch(args) -> int | None:
    from core.sweep.batches import MAX_BATCH

    if args.batch is None:
        return None
    try:
        n = int(args.batch)
        if n < 1 or n > MAX_BATCH:
            raise ValueError
        return n
    except ValueError:
        raise InputError([Problem("--batch", f"expected a whole number of runs per task from 1 to {MAX_BATCH}, "
                                             f"got {args.batch!r}")]) from None


# A scheduler address: [protocol://]host:port.
ADDRESS = re.compile(r"^([a-z]+://)?(\[[0-9A-Fa-f:.]+\]|[^\s/:\[\]]+):\d{1,5}$")


@contextlib.contextmanager
def _connected(sweep, address: str):
    """A client of the scheduler at ``address``; InputError naming --scheduler when it is malformed or unreachable."""
    if not ADDRESS.match(address):
        raise InputError([Problem("--scheduler", f"expected an address such as tcp://host:8786, got {address!r}")])
    from core.sweep.cluster import SchedulerUnreachable

    try:
        cm = sweep.scheduler_client(address)
        client = cm.__enter__()
    except (SchedulerUnreachable, OSError, ValueError) as e:
        raise InputError([Problem("--scheduler", f"cannot reach a Dask scheduler at {address}: {e}")]) from None
    try:
        yield client
    finally:
        cm.__exit__(None, None, None)


def _default_out(name: str) -> str:
    """``<spec name>.parquet`` in the current folder; the name is checked as a name when the spec is read, and
    this refuses any that would still lead out of the folder."""
    from core.scene.outputs import derived_path

    try:
        return str(derived_path(".", f"{name}.parquet"))
    except ValueError as e:
        raise InputError([Problem("name", f"{e}: give the table's path with --out")]) from None


def run(args) -> int:
    import core.sweep as sweep

    workers = _workers(args)
    if args.scheduler is not None and workers is not None:
        raise InputError([Problem("--scheduler", "give --scheduler or --workers, not both")])
    batch = _batch(args)
    if batch is not None and workers == 0:
        raise InputError([Problem("--batch", "batches are Dask tasks: --workers 0 runs in this process without Dask")])
    try:
        spec = sweep.load_spec(args.spec)
        out = sweep.table.check_out_path(args.out if args.out is not None else _default_out(spec.name))
        inputs = [("SPEC", args.spec)] + [(f"scenes[{i}]", sc.path) for i, sc in enumerate(spec.scenes)]
        sweep.table.check_outputs(out, inputs, args.keep_paths)
        if args.resume and not (out.exists() or sweep.table.journal_path(out).exists()):
            print(f"note: nothing to resume in {out}; running the whole sweep", file=sys.stderr)
        n_before = len(sweep.finished_runs(out, spec.tasks())) if args.resume else 0
        t0 = time.perf_counter()
        options = dict(out=out, resume=args.resume, keep_paths=args.keep_paths, progress=sys.stderr.isatty())
        where = "this process"
        auto = _default_workers(sweep, spec, n_before) if workers is None else 0
        if args.scheduler is not None:
            with _connected(sweep, args.scheduler) as client:
                where = f"the scheduler at {args.scheduler}"
                tables = sweep.run(spec, client, warm_cache=True, batch=batch, **options)
        elif workers == 0 or (auto == 1 and batch is None):
            tables = sweep.run(spec, None, **options)
        else:
            n = workers or auto
            where = f"a LocalCluster of {n} worker{'s' if n != 1 else ''}"
            with sweep.local_client(n) as client:
                tables = sweep.run(spec, client, warm_cache=True, batch=batch, **options)
    except sweep.MissingExtra as e:
        raise InputError([Problem("", str(e))]) from None
    except sweep.SweepInterrupted as e:
        print(str(e), file=sys.stderr)
        return 130
    except OSError as e:
        raise InputError([Problem("--out", f"cannot write {e.filename or ''}: {e.strerror or e}")]) from None
    wall = time.perf_counter() - t0
    total = len(tables.runs)
    summary = {"spec": args.spec, "name": spec.name, "runs": total, "skipped": n_before, "ran": total - n_before,
               "characters": len(tables.characters), "on": where, "wall_seconds": wall, "out": str(out),
               "characters_out": str(sweep.characters_path(out))}
    if args.json:
        print_json(summary)
        return 0
    kept = f" ({n_before} already in {out})" if n_before else ""
    ran = total - n_before
    print(f"{spec.name}: {total} run{'s' if total != 1 else ''}{kept}, {ran} ran "
          f"{'in' if where == 'this process' else 'on'} {where} in {wall:.1f} s")
    print(f"wrote {out} ({total} run{'s' if total != 1 else ''}) and {sweep.characters_path(out)} "
          f"({len(tables.characters)} characters)")
    if args.keep_paths:
        print(f"paths in {sweep.table.paths_dir(out)}/")
    return 0

