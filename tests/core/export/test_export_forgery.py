"""Exports that data cannot forge: ids with line breaks, separators, quotes and spreadsheet formula prefixes are
written so that every reader (PedPy, Python's csv module, SQLite, a JSON parser) gets back exactly the rows and the
ids that were exported; frames and frame rates out of range are refused naming the agent and the point; a kill
during the JuPedSim export leaves no journal; the GeoJSON export keeps agents and networks."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import pedpy
from core.export.csvsafe import FORMULA_PREFIXES, csv_cell, escape_cell, unescape_cell
from core.export.geojson import to_geojson
from core.export.paths import AgentPath, PathsFile, write_paths
from core.export.trajectories import MAX_FRAME, paths_csv_text, pedpy_text, write_jupedsim, write_pedpy
from core.scene.parse import parse_scene
from core.scene.problems import InputError

ROOT = Path(__file__).resolve().parents[3]
HOSTILE_IDS = ["a\nb", "1 0 0.0 0.0 0", "x\r\n2 3 4 5 0", "=1+1", "+SUM(A1)", "-2", "@cmd", "\tx", "\rx", "a,b",
               'q"uote', "'=already", "a;=b", "é\u2028ü", "\x00nul", "  ", "# framerate: 1"]


def agent(aid: str, n: int = 4, dt: float = 0.1, y: float = 1.0, profile: str = "p") -> AgentPath:
    t = np.arange(n) * dt
    return AgentPath(aid, profile, False, float(t[-1]), 1.0, 1.0, {"default": 1.0}, 0.5,
                     np.column_stack([t, np.linspace(0, 3, n), np.full(n, y)]))


def run(ids, profiles=None) -> PathsFile:
    profiles = profiles or ["p"] * len(ids)
    return PathsFile("scene\nwith # framerate: 99", "miran", "euler", 0.1,
                     [agent(a, y=float(k), profile=pr) for k, (a, pr) in enumerate(zip(ids, profiles))])


def test_pedpy_reads_exactly_the_rows_written_whatever_the_ids(tmp_path):
    pf = run(HOSTILE_IDS)
    text = pedpy_text(pf)
    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert len(body) == 4 * len(HOSTILE_IDS)
    assert text.splitlines()[0] == "# framerate: 10"
    head = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert len(head) == 5 and all(ln.isascii() for ln in head)
    ids_line = next(ln for ln in head if ln.startswith("# ids"))
    # each id is a JSON string: parse them back exactly
    decoder = json.JSONDecoder()
    rest, names = ids_line.split(": ", 1)[1], []
    while rest:
        k, rest = rest.split("=", 1)
        name, end = decoder.raw_decode(rest)
        names.append((int(k), name))
        rest = rest[end:].removeprefix(", ")
    assert names == [(k + 1, a) for k, a in enumerate(HOSTILE_IDS)]
    write_pedpy(tmp_path / "t.txt", pf)
    traj = pedpy.load_trajectory_from_txt(trajectory_file=tmp_path / "t.txt")
    assert len(traj.data) == 4 * len(HOSTILE_IDS) and traj.frame_rate == 10
    assert sorted(set(traj.data["id"])) == list(range(1, len(HOSTILE_IDS) + 1))


def test_csv_cells_are_escaped_and_read_back(tmp_path):
    pf = run(HOSTILE_IDS, profiles=list(reversed(HOSTILE_IDS)))
    text = paths_csv_text(pf)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["agent", "profile", "t", "x", "y"] and len(rows) == 1 + 4 * len(HOSTILE_IDS)
    for row in rows[1:]:
        for cell in row[:2]:
            assert not cell.startswith(FORMULA_PREFIXES), row
    got = [(unescape_cell(r[0]), unescape_cell(r[1])) for r in rows[1::4]]
    assert got == list(zip(HOSTILE_IDS, reversed(HOSTILE_IDS)))
    # every escaped cell, and every cell holding a separator or a quote, is enclosed in double quotes
    for line in text.splitlines()[1:]:
        for cell in line.split('","'):
            assert not cell.lstrip('"').startswith(FORMULA_PREFIXES), line


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_the_csv_escape_is_reversible_and_never_leaves_a_formula(text):
    assert unescape_cell(escape_cell(text)) == text
    cell = csv_cell(text)
    back, end = next(csv.reader([cell + ",end"]))
    assert end == "end"
    assert unescape_cell(back) == text and not back.startswith(FORMULA_PREFIXES)


def test_jupedsim_and_geojson_keep_the_ids(tmp_path):
    pf = run(HOSTILE_IDS)
    write_jupedsim(tmp_path / "t.sqlite", pf)
    con = sqlite3.connect(tmp_path / "t.sqlite")
    assert [r[0] for r in con.execute("SELECT name FROM agents ORDER BY id")] == HOSTILE_IDS
    assert con.execute("SELECT count(*) FROM trajectory_data").fetchone()[0] == 4 * len(HOSTILE_IDS)
    con.close()
    doc = json.loads(json.dumps(to_geojson(None, pf)))
    assert [f["properties"]["id"] for f in doc["features"]] == HOSTILE_IDS


@pytest.mark.parametrize("times, says", [
    ([0, 0.1, 1e19], "points[2]"), ([0, 0.1, 2**31 * 0.1], "points[2]"), ([-0.1, 0, 0.1], "points[0]"),
])
def test_frames_out_of_range_are_refused_naming_the_point(times, says):
    a = agent("x")
    bad = AgentPath("far", "p", False, 1.0, 1.0, 1.0, {"default": 1.0}, 0.5,
                    np.column_stack([times, [0, 1, 2], [0, 0, 0]]).astype(float))
    pf = PathsFile("s", "miran", "euler", 0.1, [a, bad])
    for fn in (pedpy_text, paths_csv_text):
        with pytest.raises(InputError) as e:
            fn(pf)
        (p,) = e.value.problems
        assert p.path == f"agents[1].{says}" and "'far'" in p.message and str(MAX_FRAME) in p.message


@pytest.mark.parametrize("dt", [5e-324, 1e-300, 1e-7, 1e7, 1e300])
def test_time_steps_without_a_usable_frame_rate_are_refused(dt):
    a = AgentPath("x", "p", False, 0.0, 0.0, 0.0, {"default": 0.0}, 0.5, np.array([[0.0, 1.0, 1.0]]))
    pf = PathsFile("s", "miran", "euler", dt, [a])
    with pytest.raises(InputError) as e:
        pedpy_text(pf)
    assert e.value.problems[0].path == "dt" and "frame rate" in e.value.problems[0].message


def test_the_command_refuses_a_forged_paths_file(tmp_path, capsys):
    from core.cli.main import main

    a = AgentPath("far", "p", False, 1.0, 1.0, 1.0, {"default": 1.0}, 0.5,
                  np.array([[0.0, 0, 0], [1e19, 1, 1]]))
    write_paths(tmp_path / "p.json", PathsFile("s", "miran", "euler", 0.1, [a]))
    for fmt in ("pedpy", "csv", "jupedsim"):
        assert main(["export", str(tmp_path / "p.json"), "--format", fmt, "--out", str(tmp_path / f"o.{fmt}")]) == 2
        err = capsys.readouterr().err
        assert "agents[0].points[1]" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]


def test_a_kill_during_the_jupedsim_export_leaves_no_journal(tmp_path):
    """SIGKILL while SQLite writes the trajectory table: the output is absent (or the old one), and nothing but our
    own temporary is left beside it, which the next export removes."""
    pf = PathsFile("s", "miran", "euler", 0.1, [agent(f"a{k}", n=2000, y=k * 0.01) for k in range(50)])
    write_paths(tmp_path / "p.json", pf)
    out = tmp_path / "t.sqlite"
    code = ("import os, signal, sqlite3\n"
            "from core.export.paths import read_paths\n"
            "from core.export import trajectories\n"
            "real = sqlite3.connect\n"
            "class Killer:\n"
            "    def __init__(self, con): self.con = con\n"
            "    def cursor(self): return Cur(self.con.cursor())\n"
            "    def __getattr__(self, k): return getattr(self.con, k)\n"
            "class Cur:\n"
            "    def __init__(self, c): self.c = c\n"
            "    def executemany(self, sql, rows):\n"
            "        if 'trajectory_data' in sql:\n"
            "            rows = iter(rows)\n"
            "            self.c.executemany(sql, (r for _, r in zip(range(30000), rows)))\n"
            "            os.kill(os.getpid(), signal.SIGKILL)\n"
            "        return self.c.executemany(sql, rows)\n"
            "    def __getattr__(self, k): return getattr(self.c, k)\n"
            "trajectories.sqlite3.connect = lambda p: Killer(real(p))\n"
            f"trajectories.write_jupedsim({str(out)!r}, read_paths({str(tmp_path / 'p.json')!r}))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == -signal.SIGKILL, p.stderr
    left = sorted(x.name for x in tmp_path.iterdir())
    assert not out.exists() and not [n for n in left if "journal" in n or n.endswith("-wal")], left
    (tmp,) = [n for n in left if n != "p.json"]
    from core.scene.atomic import is_own_temp
    assert is_own_temp(tmp)
    os.utime(tmp_path / tmp, (0, 0))
    write_jupedsim(out, pf)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.json", "t.sqlite"]
    traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=out)
    assert len(traj.data) == 50 * 2000


SCENE = {
    "format": "miran-scene", "version": 1, "name": "net", "units": "m", "bounds": [0, 0, 20, 20],
    "terrain_types": [{"id": "default"}], "default_terrain": "default",
    "profiles": [{"id": "p"}, {"id": "q", "radius": 0.3}],
    "routes": [{"id": "r1", "points": [[2, 2], [18, 2]]}],
    "networks": [{"id": "n1", "nodes": [[2, 4], [18, 4], [2, 18], [2.0001, 18], [10, 10]],
                  "edges": [[0, 1], [2, 3]]}],
    "agents": [{"id": "on route", "profile": "p", "route": "r1"},
               {"id": "planned", "profile": "q", "start": [3, 3], "goal": [17, 17], "planner": "grid"},
               {"id": "default planner", "profile": "p", "start": [3, 5], "goal": [17, 15]}],
    "simulation": {"method": "irm", "integrator": "verlet", "dt": 0.05},
}


def test_the_geojson_export_keeps_agents_networks_and_settings():
    scene = parse_scene(SCENE)
    doc = json.loads(json.dumps(to_geojson(scene, None, decimals=6)))
    by_role: dict[str, list] = {}
    for f in doc["features"]:
        by_role.setdefault(f["properties"]["role"], []).append(f)
    (net,) = by_role["network"]
    assert net["properties"]["nodes"] == SCENE["networks"][0]["nodes"]
    assert net["properties"]["edges"] == SCENE["networks"][0]["edges"]
    assert net["geometry"] == {"type": "MultiLineString", "coordinates": [[[2, 4], [18, 4]], [[2, 18], [2.0001, 18]]]}
    agents = {f["properties"]["id"]: f for f in by_role["agent"]}
    assert agents["on route"]["geometry"] == {"type": "Point", "coordinates": [2, 2]}
    assert agents["on route"]["properties"]["route"] == "r1"
    assert agents["planned"]["properties"] == {"role": "agent", "id": "planned", "profile": "q", "start": [3, 3],
                                               "goal": [17, 17], "planner": "grid"}
    assert "planner" not in agents["default planner"]["properties"]
    assert doc["miran"]["simulation"] == {"method": "irm", "integrator": "verlet", "dt": 0.05}
    assert doc["miran"]["units"] == "m" and doc["bbox"] == [0, 0, 20, 20]
