"""Running sweeps: in-process, on a LocalCluster and on a separately started scheduler with two workers, the same
tables; resume after a kill redoes nothing finished; Ctrl+C keeps what finished; the plots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest


import core.sweep as sweep  # noqa: E402
from core.scene.problems import InputError  # noqa: E402
from core.cli.main import main  # noqa: E402
from core.sweep.table import journal_path, read_tables, same_tables  # noqa: E402
from core.sweep.task import scenes_built  # noqa: E402

pytestmark = [pytest.mark.subprocess, pytest.mark.cluster]

ROOT = Path(__file__).resolve().parents[3]
SCENES = ROOT / "scenes"
BIN = Path(sys.executable).parent
# Bounds on the separately started processes (seconds): start, and stop before they are killed.
START_TIMEOUT = 180
STOP_TIMEOUT = 30


def small_spec(tmp_path: Path) -> Path:
    """16 short runs of the McKenna road scene: its walker and two random ones, planned on each run."""
    doc = {"format": "miran-sweep", "version": 1, "name": "small", "scenes": [str(SCENES / "mckenna_road.json")],
           "grid": {"pedestrian.sigma": [20, 60], "method": ["miran", "irm"]},
           "random": {"samples": 2, "seed": 9, "parameters": {"pedestrian.weight.road": {"uniform": [1, 8]}}},
           "seeds": [0, 1], "agents": 2, "limit": {"steps": 200}}
    path = tmp_path / "small.sweep.json"
    path.write_text(json.dumps(doc))
    return path


def long_spec(tmp_path: Path) -> Path:
    """30 runs of the forest with ten characters each, long enough to stop part-way."""
    doc = {"format": "miran-sweep", "version": 1, "name": "long", "scenes": [str(SCENES / "forest.json")],
           "grid": {"adult.sigma": [20, 40, 60, 80, 100], "method": ["miran", "irm"]}, "seeds": [0, 1, 2],
           "agents": 8}
    path = tmp_path / "long.sweep.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory):
    """The long sweep run in this process, once for the tests that kill and resume it."""
    return sweep.run(long_spec(tmp_path_factory.mktemp("long")))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The small sweep run in this process: the tables every other way of running it must reproduce."""
    tmp = tmp_path_factory.mktemp("ref")
    spec = small_spec(tmp)
    return spec, sweep.run(spec)


def test_in_process_tables_hold_a_row_per_run_and_per_character(reference):
    _, t = reference
    assert len(t.runs) == 16 and list(t.runs["run"]) == list(range(16))
    assert len(t.characters) == 16 * 3
    assert t.runs["run_id"].is_unique
    assert set(t.runs["method"]) == {"miran", "irm"} and set(t.runs["pedestrian.sigma"]) == {20, 60}
    for col in ("length.sidewalk", "length.road", "weighted_length", "min_clearance", "mean_speed", "status"):
        assert col in t.characters.columns
    assert (t.runs["cpu_time"] > 0).all()
    # the parameters reach the runs: the walked lengths differ between the grid points
    assert t.runs["mean_length"].nunique() > 4
    # each character's weighted length is its terrain lengths weighted by its run's weights
    runs = t.runs.set_index("run")
    c = t.characters.iloc[0]
    w = runs.loc[c["run"], "pedestrian.weight.road"]
    expect = (c["length.default"] * 1.0 + c["length.sidewalk"] * 0.5 + c["length.road"] * w
              + c["length.mud"] * 40.0)
    assert c["weighted_length"] == pytest.approx(expect, rel=1e-9)


def test_a_local_cluster_of_two_processes_gives_the_in_process_tables(reference):
    from distributed import get_task_stream

    spec, ref = reference
    with sweep.local_client(2) as client:
        assert len(client.nthreads()) == 2
        with get_task_stream(client) as ts:
            got = sweep.run(spec, client, warm_cache=True)
        compiled = client.run(_kernels_compiled_here)
        built = client.run(scenes_built)
    assert same_tables(ref, got)
    # each worker built the scene, its navigation mesh and planner context once for all its runs
    assert list(built.values()) == [1, 1], built
    # numba's cache was warmed by one worker before the runs, and by the other at the same time where the cache
    # held every kernel already: each loaded the step kernel, none compiled it
    tasks = sorted(ts.data, key=lambda t: t["startstops"][0]["start"])
    keys = [str(t["key"]) for t in tasks]
    warms = [t for t in tasks if str(t["key"]).startswith(("miran-warm-", "miran-load-"))]
    assert sorted(str(t["key"]).split("-")[1] for t in warms) == ["load", "warm"], keys
    assert len({t["worker"] for t in warms}) == 2 and set(keys[:2]) == {str(t["key"]) for t in warms}, keys
    first_run = min(t["startstops"][0]["start"] for t in tasks if str(t["key"]).startswith("miran-runs-"))
    assert all(t["startstops"][-1]["stop"] <= first_run for t in warms), keys
    assert len(compiled) == 2 and all(v == (True, 0) for v in compiled.values()), compiled


@pytest.mark.cold_cache
def test_a_worker_warms_beside_the_first_only_from_a_cache_holding_every_kernel(tmp_path):
    """``warm_if_cached`` in a fresh process: on an empty cache it runs nothing and compiles nothing; on the
    session's cache it warms exactly when that cache holds every kernel of the manifest."""
    from core.jitprecompile import is_cached, load_manifest

    doc = {"format": "miran-sweep", "version": 1, "name": "w", "scenes": [str(SCENES / "mckenna_road.json")],
           "agents": 1, "limit": {"steps": 5}}
    code = textwrap.dedent(f"""
        import json, sys
        from core.sweep.runner import as_spec
        from core.sweep.task import warm_if_cached
        spec = as_spec(json.loads({json.dumps(doc)!r}))
        warmed = warm_if_cached(spec.tasks(), spec.scene_texts())
        from numba.core.dispatcher import Dispatcher
        misses = sum(sum(v.stats.cache_misses.values()) for name, mod in list(sys.modules.items())
                     if name.startswith("core.") and mod is not None
                     for v in list(vars(mod).values()) if isinstance(v, Dispatcher))
        print(json.dumps([warmed, misses]))
    """)
    env_empty = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    empty = subprocess.run([sys.executable, "-c", code], env=env_empty, capture_output=True, text=True, timeout=600)
    assert empty.returncode == 0, empty.stderr[-2000:]
    assert json.loads(empty.stdout.splitlines()[-1]) == [False, 0]
    filled = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert filled.returncode == 0, filled.stderr[-2000:]
    warmed, _ = json.loads(filled.stdout.splitlines()[-1])
    assert warmed == all(is_cached(e) for e in load_manifest())


def fail_spec(tmp_path: Path) -> Path:
    """Two runs of the McKenna road scene, the second of which cannot plan its random character (no network)."""
    doc = {"format": "miran-sweep", "version": 1, "name": "fail", "scenes": [str(SCENES / "mckenna_road.json")],
           "grid": {"planner": ["cdt", "network"]}, "agents": 1, "limit": {"steps": 20}}
    path = tmp_path / "fail.json"
    path.write_text(json.dumps(doc))
    return path


def test_batching_leaves_the_tables_unchanged(reference, tmp_path):
    """One run per Dask task, five, or sized from the run time: the same tables as in-process; the batches are
    the Dask tasks; a batch that fails part-way keeps the runs it finished."""
    from distributed import get_task_stream

    spec, ref = reference
    with sweep.local_client(2) as client:
        for batch, tasks in ((1, 16), (5, 4), (None, None)):
            with get_task_stream(client) as ts:
                got = sweep.run(spec, client, batch=batch, warm_cache=True)
            keys = [str(t["key"]) for t in ts.data if str(t["key"]).startswith("miran-runs-")]
            assert same_tables(ref, got), batch
            if tasks is not None:
                assert len(keys) == tasks, keys
        out = tmp_path / "fail.csv"
        with pytest.raises(InputError) as e:
            sweep.run(fail_spec(tmp_path), client, out=out, batch=2)
        # the warm-up runs on a worker: a run it cannot build is refused as in this process, every problem named
        with pytest.raises(InputError) as w:
            sweep.run(fail_spec(tmp_path), client, warm_cache=True)
    assert "run 1 (mckenna_road, seed=0, agents=1, planner=network)" in str(e.value)
    assert list(read_tables(out).runs["planner"]) == ["cdt"]
    assert [line.split(":")[0] for line in w.value.lines()] == ["run 1 (mckenna_road, seed=0, agents=1, "
                                                                 "planner=network)"], w.value.lines()


def _kernels_compiled_here() -> tuple[bool, int]:
    """(whether this process ran a step driver, how many of their signatures it compiled instead of loading)."""
    from core.sim import kernels

    drivers = (kernels.advance_serial, kernels.advance_blocks)
    return (any(d.signatures for d in drivers),
            sum(sum(d.stats.cache_misses.values()) for d in drivers))


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=STOP_TIMEOUT)


def test_a_scheduler_and_two_workers_started_apart_give_the_same_table(reference, tmp_path):
    import distributed

    spec, ref = reference
    sched_file = tmp_path / "scheduler.json"
    log = open(tmp_path / "dask.log", "w")
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)], stdout=log, stderr=log)]
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not sched_file.exists() and time.monotonic() < deadline:
            assert procs[0].poll() is None, (tmp_path / "dask.log").read_text()
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1",
                                           "--no-dashboard", "--host", "127.0.0.1"], stdout=log, stderr=log,
                                          cwd=ROOT))
        with distributed.Client(address, timeout=START_TIMEOUT) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT)
        out = tmp_path / "r.parquet"
        assert main(["sweep", str(spec), "--scheduler", address, "--out", str(out)]) == 0
        got = read_tables(out)
    finally:
        _stop(procs)
        log.close()
    assert same_tables(ref, got)


def _cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core.cli", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _wait_for_runs(path: Path, n: int, proc: subprocess.Popen) -> int:
    """Wait until the journal at ``path`` holds ``n`` finished runs; returns how many it holds."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        lines = path.read_text().count("\n") if path.exists() else 0
        if lines >= n:
            return lines
        assert proc.poll() is None, "the sweep ended before it could be stopped: " + proc.stderr.read()
        time.sleep(0.01)
    raise AssertionError("the sweep did not start in time")


def test_resume_after_a_killed_sweep_redoes_nothing_finished(tmp_path, long_reference):
    spec = long_spec(tmp_path)
    out = tmp_path / "r.csv"
    p = _cli("sweep", str(spec), "--workers", "0", "--out", str(out))
    try:
        _wait_for_runs(journal_path(out), 3, p)
        p.kill()
    finally:
        p.wait(timeout=STOP_TIMEOUT)
    assert p.returncode == -signal.SIGKILL
    before = {r["run"]["run_id"]: r["run"] for r in sweep.table.Journal(journal_path(out)).read()}
    assert 3 <= len(before) < 30 and not out.exists()
    r = _cli("sweep", str(spec), "--workers", "0", "--out", str(out), "--resume", "--json")
    stdout, stderr = r.communicate(timeout=600)
    assert r.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["runs"] == 30 and summary["skipped"] == len(before) and summary["ran"] == 30 - len(before)
    t = read_tables(out)
    assert len(t.runs) == 30 and t.runs["run_id"].is_unique and list(t.runs["run"]) == list(range(30))
    # the runs finished before the kill were not run again: their CPU times are the first attempt's
    kept = t.runs.set_index("run_id").loc[list(before)]
    assert list(kept["cpu_time"]) == [before[k]["cpu_time"] for k in before]
    assert not journal_path(out).exists()
    # and a resume of a finished sweep runs nothing
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out), "--resume"]) == 0
    assert list(read_tables(out).runs["cpu_time"]) == list(t.runs["cpu_time"])
    assert same_tables(t, long_reference)


def test_resume_after_a_killed_batched_sweep_redoes_only_the_unfinished_batches(tmp_path, long_reference):
    """Killed (SIGKILL, workers too) while a LocalCluster runs batches of 3: the runs journalled before are kept as
    they were, the batches in flight are run again, and the tables are the in-process ones."""
    spec = long_spec(tmp_path)
    out = tmp_path / "r.parquet"
    p = _cli("sweep", str(spec), "--workers", "2", "--batch", "3", "--out", str(out), start_new_session=True)
    try:
        _wait_for_runs(journal_path(out), 3, p)
        os.killpg(p.pid, signal.SIGKILL)
    finally:
        p.wait(timeout=STOP_TIMEOUT)
    assert p.returncode == -signal.SIGKILL
    before = {r["run"]["run_id"]: r["run"] for r in sweep.table.Journal(journal_path(out)).read()}
    assert 3 <= len(before) < 30 and not out.exists()
    r = _cli("sweep", str(spec), "--workers", "2", "--batch", "3", "--out", str(out), "--resume", "--json")
    stdout, stderr = r.communicate(timeout=600)
    assert r.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["skipped"] == len(before) and summary["ran"] == 30 - len(before)
    t = read_tables(out)
    kept = t.runs.set_index("run_id").loc[list(before)]
    assert list(kept["cpu_time"]) == [before[k]["cpu_time"] for k in before]
    assert same_tables(t, long_reference)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_ctrl_c_stops_and_keeps_what_finished(tmp_path, workers):
    spec = long_spec(tmp_path)
    out = tmp_path / "r.parquet"
    # a session of its own: Ctrl+C in a terminal reaches the whole process group, workers included
    p = _cli("sweep", str(spec), "--workers", workers, "--out", str(out), start_new_session=True)
    try:
        _wait_for_runs(journal_path(out), 2, p)
        os.killpg(p.pid, signal.SIGINT)
        _, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, stderr
    assert "interrupted: kept" in stderr and "--resume" in stderr and "Traceback" not in stderr
    t = read_tables(out)
    assert 2 <= len(t.runs) < 30
    assert len(t.characters) == 10 * len(t.runs)


def test_keep_paths_writes_a_paths_file_per_run(tmp_path):
    spec = small_spec(tmp_path)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out), "--keep-paths"]) == 0
    files = sorted((tmp_path / "r.paths").glob("*.json"))
    assert len(files) == 16
    from core.export import read_paths

    pf = read_paths(files[0])
    t = read_tables(out)
    row = t.characters[t.characters["run"] == 0].iloc[0]
    agent = next(a for a in pf.agents if a.id == row["agent"])
    assert agent.length == pytest.approx(row["length"], rel=1e-9)


def test_sweep_plot_writes_png_and_svg_and_names_a_bad_column(reference, tmp_path, capsys):
    spec, _ = reference
    out = tmp_path / "r.parquet"
    sweep.run(spec, out=out)
    for ext in ("png", "svg"):
        plot = tmp_path / f"p.{ext}"
        assert main(["sweep-plot", str(out), "--x", "pedestrian.sigma", "--y", "mean_weighted_length",
                     "--hue", "method", "--out", str(plot)]) == 0
        head = plot.read_bytes()[:100]
        assert head.startswith(b"\x89PNG") if ext == "png" else b"<svg" in plot.read_bytes()[:2000]
    assert main(["sweep-plot", str(out), "--x", "pedestrian.sigma", "--y", "mean_wieghted_length"]) == 2
    assert main(["sweep-plot", str(out), "--x", "agent", "--y", "length", "--characters", "--out",
                 str(tmp_path / "c.png")]) == 0
    err = capsys.readouterr().err
    assert "--y: no column 'mean_wieghted_length' in the table" in err


def test_plot_series_average_the_seeds(reference):
    from core.sweep.plot import series

    _, t = reference
    lines = series(t.runs, "pedestrian.sigma", "mean_length", "method")
    assert [s.label for s in lines] == ["irm", "miran"]
    for s in lines:
        assert s.x == [20, 60] and list(s.count) == [4, 4]
        sub = t.runs[t.runs["method"] == s.label]
        assert s.mean[0] == pytest.approx(sub[sub["pedestrian.sigma"] == 20]["mean_length"].mean())


def test_the_bench_section_reports_runs_per_second_ratio_and_overhead(capsys):
    import math

    assert main(["bench", "--json", "--quick", "--section", "sweep"]) == 0
    records = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert {"runs per second 1 worker", "runs per second 2 workers", "speed-up 2 workers vs 1",
            "overhead per task 1 worker", "overhead per task in-process", "bare Simulation build + run per run",
            "machine reference: plain process pool speed-up 2 vs 1",
            "speed-up 2 workers vs 1 from CPU time, idle 2-core machine", "speed-up 2 workers vs 1, one run per task",
            "runs per worker CPU-second 1 worker", "runs per worker CPU-second 2 workers",
            "overhead per task CPU, calling process", "calling process CPU per run 2 workers",
            "calling process CPU per run, one run per task",
            "speed-up 2 workers vs 1 over the machine reference"} <= set(records)
    assert all(r["section"] == "sweep" and math.isfinite(r["value"]) for r in records.values())
    one, two = records["runs per second 1 worker"]["value"], records["runs per second 2 workers"]["value"]
    assert one > 0 and two > 0 and records["speed-up 2 workers vs 1"]["value"] == pytest.approx(two / one)
    assert records["speed-up 2 workers vs 1"]["unit"] == "x"
    for name in ("runs per worker CPU-second 1 worker", "runs per worker CPU-second 2 workers"):
        assert 0 < records[name]["value"] and records[name]["unit"] == "runs/s"
    assert records["overhead per task CPU, calling process"]["value"] > 0
    assert records["speed-up 2 workers vs 1 from CPU time, idle 2-core machine"]["value"] > 0


def test_the_idle_machine_speed_up_follows_its_two_core_model():
    """The CPU-time speed-up is a model, not a timing: two workers sharing two cores with the caller (bench doc)."""
    from core.bench.sweep import Sweep, _idle_speedup

    # workers' CPU per run unchanged, caller negligible: the two cores halve the time per run
    assert _idle_speedup(Sweep(9.0, 1.0, 0.0), Sweep(5.0, 1.0, 0.0)) == pytest.approx(2.0)
    # the caller's share of the second core: (1.0 + 0.5) / 2 per run against 1.0
    assert _idle_speedup(Sweep(9.0, 1.0, 0.5), Sweep(5.0, 1.0, 0.5)) == pytest.approx(1.0 / 0.75)
    # a caller that costs more than the workers bounds both: no speed-up at all
    assert _idle_speedup(Sweep(9.0, 0.2, 1.0), Sweep(9.0, 0.2, 1.0)) == pytest.approx(1.0)
    # the wall-clock times play no part
    assert _idle_speedup(Sweep(1.0, 1.0, 0.0), Sweep(100.0, 1.0, 0.0)) == pytest.approx(2.0)


def test_the_example_spec_the_guide_shows_runs(tmp_path):
    import re

    section = (ROOT / "docs" / "guide" / "sweeps.md").read_text()
    shown = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert shown == json.loads((SCENES / "sigma.sweep.json").read_text())
    out = tmp_path / "sigma.parquet"
    assert main(["sweep", str(SCENES / "sigma.sweep.json"), "--workers", "0", "--out", str(out)]) == 0
    t = read_tables(out)
    assert len(t.runs) == 16 and len(t.characters) == 32
    assert t.runs["arrived"].eq(2).all()
    # the adult's sigma changes the adult's walk under MIRAN: a larger window cuts more of its route
    adult = t.characters[t.characters["agent"] == "adult"].merge(t.runs[["run", "adult.sigma", "method"]], on="run")
    miran = adult[adult["method"] == "miran"].groupby("adult.sigma")["length"].mean()
    assert miran.loc[160] < miran.loc[20]


def test_a_run_that_fails_is_named_and_the_finished_runs_are_kept(tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert main(["sweep", str(fail_spec(tmp_path)), "--workers", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "run 1 (mckenna_road, seed=0, agents=1, planner=network): agents: found routes for only 0" in err
    assert "Traceback" not in err
    assert list(read_tables(out).runs["planner"]) == ["cdt"]


def test_the_table_is_rewritten_while_the_sweep_runs(reference, tmp_path):
    spec, ref = reference
    out = tmp_path / "r.parquet"
    seen = []

    def on_result(done: int, total: int) -> None:
        seen.append(len(read_tables(out).runs) if out.exists() else 0)

    got = sweep.run(spec, out=out, flush_seconds=0.0, on_result=on_result)
    # with no delay between rewrites, the table holds every finished run as soon as it finished
    assert seen == list(range(1, 17))
    assert same_tables(ref, got) and same_tables(ref, read_tables(out))


def test_character_rows_carry_the_status_and_a_discs_clearance_once(tmp_path):
    """Each character's status and lost reason come from the simulation, and a disc's min_clearance (disc MIRAN or
    IRM) is its centre's smallest distance to an obstacle minus its radius, measured independently with shapely at
    the positions the simulation walked."""
    import shapely

    from core.scene.io import load_scene
    from core.sim import Simulation

    doc = {"format": "miran-sweep", "version": 1, "name": "discs", "scenes": [str(SCENES / "mckenna_road.json")],
           "grid": {"method": ["disc-miran", "irm"]}, "seeds": [0], "limit": {"steps": 300}}
    path = tmp_path / "discs.sweep.json"
    path.write_text(json.dumps(doc))
    _, chars = sweep.run(sweep.load_spec(path))
    scene = load_scene(SCENES / "mckenna_road.json")
    walls = shapely.union_all([shapely.Polygon(o.polygon).boundary for o in scene.obstacles] +
                              [shapely.box(*scene.bounds).exterior])
    for method, row in zip(["disc-miran", "irm"], chars.itertuples()):
        sim = Simulation(scene, method=method)
        sim.run(max_steps=300)
        p = sim.path(0)[:-1, 1:]
        expect = float(shapely.distance(walls, shapely.points(p)).min()) - scene.profiles[0].radius
        assert row.status == sim.status_of(0)[0] and row.lost_reason == ""
        assert abs(row.min_clearance - expect) < 1e-6, (method, row.min_clearance, expect)
