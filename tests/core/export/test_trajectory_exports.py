"""Trajectory exports read by PedPy itself (text and JuPedSim SQLite), noise-free CSV, GeoJSON, and ``miran export``.

A run of the shipped McKenna + Road scene (simulated here, 60 steps, its agent and 8 random ones) and a small
hand-made run whose densities are known: PedPy loads both formats, computes the classic density in a measurement
area, and that density equals the number of our agents inside the area divided by its area, frame by frame.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from core.export import paths_from_simulation, write_paths
from core.export.geojson import to_geojson
from core.export.paths import AgentPath, PathsFile
from core.export.trajectories import paths_csv_text, pedpy_text, to_frames, write_jupedsim, write_pedpy
from core.scene.io import load_scene
from core.scene.problems import InputError

import pedpy
ROOT = Path(__file__).resolve().parents[3]
DT = 0.1


def agent(aid: str, t0: int, xy: np.ndarray) -> AgentPath:
    """An agent whose times accumulate dt (so they carry float noise like a simulation's)."""
    t = np.cumsum(np.r_[t0 * DT, np.full(len(xy) - 1, DT)])
    return AgentPath(aid, "pedestrian", False, float(t[-1]), 1.0, 1.0, {"default": 1.0}, 0.5,
                     np.column_stack([t, xy]))


@pytest.fixture(scope="module")
def small_run() -> PathsFile:
    n = 30
    xs = np.linspace(1.0, 9.0, n)
    a = agent("alice", 0, np.column_stack([xs, np.full(n, 5.0)]))
    b = agent("bob", 0, np.column_stack([xs[::-1], np.full(n, 5.5)]))
    c = agent("carol", 5, np.column_stack([np.full(n - 5, 2.0), np.linspace(1.0, 9.0, n - 5)]))
    return PathsFile("square", "miran", "euler", DT, [a, b, c])


@pytest.fixture(scope="module")
def road_run():
    scene = load_scene(ROOT / "scenes" / "mckenna_road.json")
    from core.sim import Simulation

    sim = Simulation(scene)
    sim.add_random_agents(8, seed=3)
    sim.run(max_steps=60)
    return scene, paths_from_simulation(sim)


def expected_density(pf: PathsFile, area: Polygon) -> dict[int, float]:
    """Agents inside ``area`` per frame divided by its area, counted on our own points."""
    fr = to_frames(pf)
    inside = shapely.contains_xy(area, fr.xy[:, 0], fr.xy[:, 1])
    out: dict[int, float] = {}
    for f in np.unique(fr.frames).tolist():
        out[f] = float(inside[fr.frames == f].sum()) / area.area
    return out


def check_pedpy_density(traj, pf: PathsFile, area: Polygon) -> float:
    ma = pedpy.MeasurementArea(area)
    d = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma)
    want = expected_density(pf, area)
    got = dict(zip(d["frame"].tolist(), d["density"].tolist()))
    assert set(got) == set(want)
    assert max(abs(got[f] - want[f]) for f in want) < 1e-12
    return max(want.values())


def test_pedpy_reads_the_text_file(small_run, tmp_path):
    path = tmp_path / "run.txt"
    write_pedpy(path, small_run)
    traj = pedpy.load_trajectory(trajectory_file=path)
    assert traj.frame_rate == pytest.approx(10.0)
    data = traj.data
    assert sorted(set(data["id"].tolist())) == [1, 2, 3]
    assert data[data["id"] == 3]["frame"].min() == 5
    assert len(data) == sum(len(a.points) for a in small_run.agents)
    peak = check_pedpy_density(traj, small_run, shapely.box(0, 4, 5, 6))
    assert peak == pytest.approx(2 / 10)                     # carol crosses while alice or bob is inside


def test_pedpy_reads_the_sqlite_file_and_its_walkable_area(small_run, tmp_path):
    from core.scene.model import Obstacle, Scene, TerrainType

    scene = Scene((0.0, 0.0, 10.0, 10.0), [TerrainType("default")], "default",
                  obstacles=[Obstacle("o", [(4.0, 7.0), (6.0, 7.0), (6.0, 8.0), (4.0, 8.0)])])
    path = tmp_path / "run.sqlite"
    write_jupedsim(path, small_run, scene)
    traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
    assert traj.frame_rate == pytest.approx(10.0)
    check_pedpy_density(traj, small_run, shapely.box(0, 4, 5, 6))
    wa = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path)
    assert wa.polygon.area == pytest.approx(100.0 - 2.0)
    with sqlite3.connect(path) as con:
        meta = dict(con.execute("SELECT key, value FROM metadata").fetchall())
        names = con.execute("SELECT id, name FROM agents ORDER BY id").fetchall()
        hashes = {h for (h,) in con.execute("SELECT DISTINCT geometry_hash FROM frame_data")}
        geom = {h for (h,) in con.execute("SELECT hash FROM geometry")}
        ori = np.array(con.execute("SELECT ori_x, ori_y FROM trajectory_data WHERE id = 2").fetchall())
    assert meta["version"] == "2" and float(meta["fps"]) == 10.0
    assert names == [(1, "alice"), (2, "bob"), (3, "carol")]
    assert hashes == geom
    assert np.allclose(ori, [-1.0, 0.0])                     # bob walks west


def test_a_simulated_run_loads_in_pedpy_from_both_formats(road_run, tmp_path):
    scene, pf = road_run
    assert len(pf.agents) >= 1
    txt, db = tmp_path / "road.txt", tmp_path / "road.sqlite"
    write_pedpy(txt, pf)
    write_jupedsim(db, pf, scene)
    area = shapely.box(*scene.bounds)
    for traj in (pedpy.load_trajectory(trajectory_file=txt),
                 pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=db)):
        assert traj.frame_rate == pytest.approx(1.0 / pf.dt)
        assert len(traj.data) == sum(len(a.points) for a in pf.agents)
        check_pedpy_density(traj, pf, area)
    wa = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=db)
    free = shapely.box(*scene.bounds).difference(shapely.union_all([Polygon(o.polygon) for o in scene.obstacles]))
    assert wa.polygon.area == pytest.approx(max(shapely.get_parts(free), key=lambda p: p.area).area, rel=1e-6)


def test_csv_has_no_float_noise(small_run):
    rows = list(csv.reader(paths_csv_text(small_run).splitlines()))
    assert rows[0] == ["agent", "profile", "t", "x", "y"]
    ts = [r[2] for r in rows[1:]]
    assert "0.3" in ts and not any(len(t.split(".")[1]) > 1 for t in ts)
    assert all(len(r[3].split(".")[1]) == 3 and len(r[4].split(".")[1]) == 3 for r in rows[1:])
    assert repr(float(small_run.agents[0].points[3, 0])) == "0.30000000000000004"   # the noise removed


def test_times_off_the_frames_are_refused(small_run):
    bad = agent("dave", 0, np.zeros((3, 2)))
    bad.points[2, 0] = 0.25
    with pytest.raises(InputError) as e:
        pedpy_text(PathsFile("s", "miran", "euler", DT, [small_run.agents[0], bad]))
    assert "agents[1].points[2]" in str(e.value) and "'dave'" in str(e.value)


def test_geojson_carries_paths_and_scene(small_run):
    scene = load_scene(ROOT / "scenes" / "mckenna_road.json")
    doc = to_geojson(scene, small_run)
    roles = [f["properties"]["role"] for f in doc["features"]]
    assert roles.count("obstacle") == len(scene.obstacles) and roles.count("path") == 3
    path = [f for f in doc["features"] if f["properties"]["role"] == "path"][0]
    assert path["geometry"]["coordinates"][0] == [1, 5] and path["properties"]["times"][3] == 0.3
    assert doc["miran"]["units"] == "m" and doc["bbox"] == [0, 0, 200, 200]
    for f in doc["features"]:                                 # RFC 7946: exteriors counter-clockwise
        if f["geometry"]["type"] == "Polygon":
            rings = [Polygon(r) for r in f["geometry"]["coordinates"]]
            assert rings[0].exterior.is_ccw and not any(h.exterior.is_ccw for h in rings[1:])


def test_geojson_carries_the_schedule_and_motion_of_obstacles(small_run):
    scene = load_scene(ROOT / "scenes" / "city_traffic.json")
    props = {f["properties"]["id"]: f["properties"] for f in to_geojson(scene, small_run)["features"]
             if f["properties"]["role"] == "obstacle"}
    car = next(o for o in scene.obstacles if o.id == "car")
    assert props["roadworks"]["appears"] == 60.0 and props["roadworks"]["vanishes"] is None
    assert props["car"]["path"] == [list(p) for p in car.path] and props["car"]["speed"] == 8.0
    assert props["car"]["loop"] and props["car"]["turns"]
    assert "path" not in props["building-1"] and "appears" not in props["building-1"]


def _miran(*args: str) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("miran")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "core.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.subprocess
def test_miran_export_writes_every_format_and_refuses_bad_input(small_run, tmp_path):
    paths = tmp_path / "run.json"
    write_paths(paths, small_run)
    for fmt, name in (("pedpy", "a.txt"), ("jupedsim", "a.sqlite"), ("geojson", "a.geojson"), ("csv", "a.csv")):
        r = _miran("export", str(paths), "--format", fmt, "--out", str(tmp_path / name))
        assert r.returncode == 0, r.stderr
        assert (tmp_path / name).stat().st_size > 0
    assert "trajectories' extent" in _miran("export", str(paths), "--format", "jupedsim", "--out",
                                            str(tmp_path / "b.sqlite")).stdout
    r = _miran("export", "scenes/city.json", "--format", "geojson", "--out", str(tmp_path / "city.geojson"))
    assert r.returncode == 0 and json.loads((tmp_path / "city.geojson").read_text())["bbox"]
    for args, words in ((["--format", "xls"], "unknown format 'xls'"), (["--format", "csv", "--decimals", "x"],
                                                                         "--decimals"),
                        (["--format", "pedpy", "--scene", str(tmp_path / "none.json")], "no such file")):
        r = _miran("export", str(paths), "--out", str(tmp_path / "c.txt"), *args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr
    r = _miran("export", "scenes/city.json", "--format", "pedpy", "--out", str(tmp_path / "c.txt"))
    assert r.returncode == 2 and "needs a miran-paths file" in r.stderr
    assert not (tmp_path / "c.txt").exists()
