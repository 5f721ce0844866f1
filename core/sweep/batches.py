"""Several runs per Dask task: the batch a worker runs, and how many runs the caller puts in each.

Dask costs the calling process a few milliseconds of CPU per task (client, scheduler, the result's round trip),
which on a two-core machine is taken from the workers: against runs of ~80 ms that alone kept 2 workers under 1.7x
one. A batch pays it once for all its runs. Results still reach the caller run by run (each is journalled as its
own line), a batch that fails part-way still returns the runs it finished, and every run is seeded by the spec
alone, so batching changes no value of the tables.
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping, Sequence

from core.scene.problems import InputError, Problem

from .spec import RunTask
from .task import run_task

# A batch is sized to last about this long in its worker: the per-task cost (a few ms, more on a loaded machine) is
# then under 1 % of the work, the progress bar still moves every second, and a kill loses about a second per worker.
TARGET_SECONDS = 1.0
# Never more than 1 / (GUIDED x worker threads) of the runs not yet submitted in one batch (guided self-scheduling:
# batches shrink towards the end, so that all workers finish together).
GUIDED = 2
# The most runs one batch holds (an explicit --batch as well).
MAX_BATCH = 10_000


def run_batch(tasks: Sequence[RunTask], texts: Mapping[str, str]) -> dict[str, Any]:
    """Run ``tasks`` one after the other in this process (``texts``: scene sha -> file text).

    Returns ``{"results": [run_task results], "error": the problems of the InputError that stopped the batch as
    ``(source, [(path, message)])`` or None, "seconds": wall seconds of the finished runs}``: the runs before a
    failing one are kept, as in-process (``batch_error`` turns the problems back into the InputError)."""
    results: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    error = None
    for t in tasks:
        try:
            results.append(run_task(t, texts[t.scene_sha]))
        except InputError as e:
            # as plain data: an InputError pickled by Dask would come back with its message as its problems
            error = (e.source, [(p.path, p.message) for p in e.problems])
            break
    return {"results": results, "error": error, "seconds": time.perf_counter() - t0}


def batch_error(batch: dict[str, Any]) -> InputError | None:
    """The InputError that stopped a ``run_batch`` result, or None."""
    if batch["error"] is None:
        return None
    source, problems = batch["error"]
    return InputError([Problem(path, message) for path, message in problems], source)


class BatchSizer:
    """How many runs the next Dask task holds.

    ``fixed``: always that many (the last batch takes what is left). Otherwise the first batches hold one run each,
    to measure how long a run takes in a worker; then each holds enough runs to last about TARGET_SECONDS there,
    at most 1 / (GUIDED x ``nthreads``) of the runs left, and at least one."""

    def __init__(self, nthreads: int, fixed: int | None = None) -> None:
        self.nthreads = max(1, int(nthreads))
        self.fixed = fixed
        self.runs = 0
        self.seconds = 0.0

    def observe(self, runs: int, seconds: float) -> None:
        """A batch of ``runs`` finished in ``seconds`` of its worker's wall time."""
        self.runs += runs
        self.seconds += seconds

    def next(self, remaining: int) -> int:
        """Runs in the next batch, ``remaining`` runs being still to submit (at least 1, at most ``remaining``)."""
        if remaining <= 0:
            return 0
        if self.fixed is not None:
            return min(self.fixed, remaining)
        if self.runs == 0:
            return 1
        per_run = max(self.seconds / self.runs, 1e-6)
        target = max(1, int(TARGET_SECONDS / per_run))
        guided = max(1, math.ceil(remaining / (GUIDED * self.nthreads)))
        return min(target, guided, MAX_BATCH, remaining)
