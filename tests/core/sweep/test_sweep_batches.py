"""Batches of runs per Dask task: how many runs each holds, and a batch that fails part-way keeps its finished runs.
(That batching leaves the tables unchanged on a LocalCluster is in test_sweep_run.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from core.scene.problems import InputError
from core.sweep import load_spec
from core.sweep.batches import GUIDED, MAX_BATCH, TARGET_SECONDS, BatchSizer, batch_error, run_batch

ROOT = Path(__file__).resolve().parents[3]


def _drain(sizer: BatchSizer, total: int, seconds_per_run: float) -> list[int]:
    """Batch sizes for ``total`` runs, each batch observed as taking ``seconds_per_run`` per run."""
    sizes = []
    left = total
    while left:
        n = sizer.next(left)
        assert 1 <= n <= left
        sizes.append(n)
        sizer.observe(n, n * seconds_per_run)
        left -= n
    return sizes


def test_a_fixed_batch_holds_that_many_runs_and_the_last_what_is_left():
    assert _drain(BatchSizer(2, fixed=5), 16, 0.1) == [5, 5, 5, 1]
    assert _drain(BatchSizer(2, fixed=1), 3, 0.1) == [1, 1, 1]
    assert BatchSizer(2, fixed=5).next(0) == 0


def test_batches_last_about_the_target_and_shrink_towards_the_end():
    per_run = 0.01                      # TARGET_SECONDS / per_run runs make a batch
    sizer = BatchSizer(2)
    sizes = _drain(sizer, 1000, per_run)
    assert sizes[0] == 1                # nothing measured yet
    assert sum(sizes) == 1000
    target = int(TARGET_SECONDS / per_run)
    assert max(sizes) == target
    # guided: no batch holds more than 1 / (GUIDED x threads) of what was left when it was made
    left = 1000
    for n in sizes:
        assert n <= max(1, -(-left // (GUIDED * 2)))
        left -= n
    # the batches shrink towards the end, down to single runs, so that both workers finish together
    assert sizes[1:] == sorted(sizes[1:], reverse=True) and sizes[-1] == 1


def test_long_runs_go_one_per_task():
    assert _drain(BatchSizer(2), 10, 2.0) == [1] * 10


def test_the_size_follows_the_threads_of_the_cluster():
    sizer = BatchSizer(1)
    sizer.observe(1, 0.001)
    assert sizer.next(400) == 200       # 1 thread: half of what is left
    sizer.nthreads = 8
    assert sizer.next(400) == 25        # 8 threads: 1/16
    assert BatchSizer(4, fixed=MAX_BATCH).next(MAX_BATCH + 5) == MAX_BATCH


def test_a_batch_that_fails_part_way_returns_its_finished_runs_and_the_error(tmp_path):
    doc = {"format": "miran-sweep", "version": 1, "name": "fail", "scenes": [str(ROOT / "scenes/mckenna_road.json")],
           "grid": {"planner": ["cdt", "network"]}, "agents": 1, "limit": {"steps": 20}}
    path = tmp_path / "fail.json"
    path.write_text(json.dumps(doc))
    spec = load_spec(path)
    out = run_batch(spec.tasks(), spec.scene_texts())
    assert [r["run"]["planner"] for r in out["results"]] == ["cdt"]
    error = batch_error(out)
    assert isinstance(error, InputError)
    assert error.problems[0].path == "run 1 (mckenna_road, seed=0, agents=1, planner=network): agents"
    assert batch_error({"error": None}) is None
    assert out["seconds"] > 0
