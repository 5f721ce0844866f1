"""Sweeps on hostile specs and files: a spec's name never leads out of the folder, a parameter given twice (an
alias, a wildcard, two TOML spellings, fixed and grid) is refused naming both places, the tables record the values
the runs used (read back from the simulation), every output is checked before any run, --resume refuses foreign
tables instead of raising, FIFOs and silent schedulers are refused without hanging, and sweep-plot refuses what it
cannot draw."""

from __future__ import annotations

import copy
import json
import math
import os
import random
import socket
import threading
from pathlib import Path

import pytest

import core.sweep as sweep
from core.cli.main import main
from core.export.paths import read_paths
from core.scene.problems import InputError
from core.sweep.spec import MAX_RUNS, canonical, load_spec, parse_spec
from core.sweep.table import journal_path, read_tables
from sweep_specs import problems
from sweep_specs import sweep_doc as doc

SCENE = {
    "format": "miran-scene", "version": 1, "name": "tiny", "units": "m", "bounds": [0, 0, 20, 20],
    "terrain_types": [{"id": "default"}, {"id": "mud", "color": "#7a5230"}], "default_terrain": "default",
    "obstacles": [{"id": "o1", "polygon": [[8, 8], [12, 8], [12, 12], [8, 12]]}],
    "terrains": [{"id": "t1", "type": "mud", "polygon": [[0, 14], [20, 14], [20, 16], [0, 16]]}],
    "profiles": [{"id": "p", "weights": {"mud": 4}, "radius": 0.25, "max_speed": 1.4, "sigma": 6, "d": 1},
                 {"id": "q", "weights": {"mud": 2}, "radius": 0.3, "max_speed": 1.2, "sigma": 8, "d": 2}],
    "routes": [{"id": "r1", "points": [[2, 2], [18, 2], [18, 18]]}],
    "agents": [{"id": "a1", "profile": "p", "route": "r1"}, {"id": "a2", "profile": "q", "start": [2, 18],
                                                            "goal": [18, 6]}],
    "simulation": {"method": "miran", "integrator": "euler", "dt": 0.2},
}


@pytest.fixture
def scene(tmp_path) -> Path:
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(SCENE))
    return p


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(folder.rglob("*"))}


# ----- names


@pytest.mark.parametrize("name", ["../escaped", "/tmp/abs/name", "a/b", "a\\b", "..", "c:x", "x\ny", " ", "n" * 200])
def test_a_spec_name_is_a_name_not_a_path(scene, name):
    found = problems(doc(scene, name=name))
    assert any(p.startswith("name:") for p in found), found


def test_a_sweep_without_out_writes_only_in_the_current_folder(tmp_path, scene, monkeypatch, capsys):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in ("../escaped", str(tmp_path / "abs")):
        (work / "s.json").write_text(json.dumps(doc(scene, name=name)))
        before = tree(tmp_path)
        assert main(["sweep", "s.json", "--workers", "0"]) == 2
        assert "is a name, not a path" in capsys.readouterr().err
        assert tree(tmp_path) == before
    (work / "s.json").write_text(json.dumps(doc(scene, name="fine name")))
    assert main(["sweep", "s.json", "--workers", "0"]) == 0
    assert sorted(p.name for p in work.iterdir()) == ["fine name.characters.parquet", "fine name.parquet", "s.json"]


# ----- one parameter, one place


@pytest.mark.parametrize("over, first, second", [
    ({"fixed": {"p.sigma": 20}, "grid": {"*.sigma": [10, 160]}}, "grid['*.sigma']", "fixed['p.sigma']"),
    ({"grid": {"p.weights.mud": [2, 3], "p.weight.mud": [4, 5]}}, "grid['p.weight.mud']", "grid['p.weights.mud']"),
    ({"fixed": {"p.weights.mud": 2}, "grid": {"p.weight.mud": [4, 5]}}, "grid['p.weight.mud']",
     "fixed['p.weights.mud']"),
    ({"grid": {"*.weight.mud": [2, 3]}, "random": {"samples": 2, "parameters": {"q.weight.mud": {"uniform": [1, 2]}}}},
     "random.parameters['q.weight.mud']", "grid['*.weight.mud']"),
    ({"fixed": {"*.d": 2, "q.d": 3}}, "fixed['q.d']", "fixed['*.d']"),
    ({"fixed": {"c_s": 2}, "grid": {"c_s": [3, 4]}}, "grid['c_s']", "fixed['c_s']"),
    ({"agents": 2, "grid": {"agents": [1, 2]}}, "agents", "grid['agents']"),
    ({"grid": {"p": {"sigma": [10, 20]}, "p.sigma": [30]}}, "grid['p.sigma']", "grid['p']['sigma']"),
])
def test_a_parameter_given_twice_is_refused_naming_both(scene, over, first, second):
    found = problems(doc(scene, **over))
    assert any(first in p and second in p for p in found), found


def test_two_toml_spellings_of_one_parameter_are_refused(tmp_path, scene):
    path = str(scene).replace("\\", "/")
    (tmp_path / "s.toml").write_text(f'''format = "miran-sweep"
version = 1
scenes = ["{path}"]
[grid]
"p.sigma" = [10, 20]
p.sigma = [30, 40]
''')
    with pytest.raises(InputError) as e:
        load_spec(tmp_path / "s.toml")
    (msg,) = [str(p) for p in e.value.problems]
    assert "grid['p']['sigma']" in msg and "grid['p.sigma']" in msg


def test_aliases_become_canonical_names(scene):
    assert canonical("p.weights.mud") == "p.weight.mud" and canonical("*.weights.mud") == "*.weight.mud"
    spec = parse_spec(doc(scene, grid={"p.weights.mud": [2, 3]}))
    assert spec.parameter_names == ("agents", "p.weight.mud")
    assert [t.param_dict()["p.weight.mud"] for t in spec.tasks()] == [2, 3]


def test_seeds_are_checked_in_linear_time_and_runs_capped(scene):
    seeds = list(range(300_000)) + [123_456]
    found = problems(doc(scene, seeds=seeds))
    assert found == ["seeds[300000]: seed 123456 is listed twice (first at seeds[123456])"]
    found = problems(doc(scene, seeds=list(range(MAX_RUNS // 2 + 1)), grid={"c_s": [1, 2]}))
    assert len(found) == 1 and f"over the limit of {MAX_RUNS:,} runs" in found[0]
    found = problems(doc(scene, random={"samples": MAX_RUNS, "parameters": {"c_s": {"uniform": [1, 2]}}},
                         seeds=[0, 1]))
    assert len(found) == 1 and "over the limit" in found[0]


# ----- recorded values


def _random_spec(scene: Path, rng: random.Random) -> dict:
    """A spec over a random choice of parameters, each in exactly one of fixed, grid and random."""
    pool = {
        "c_s": lambda: rng.choice([1.5, 2, 4.25, 7]), "dt": lambda: rng.choice([0.1, 0.2, 0.25]),
        "integrator": lambda: rng.choice(["euler", "verlet"]), "interact": lambda: rng.choice([True, False]),
        "method": lambda: rng.choice(["miran", "irm", "disc-miran"]), "agents": lambda: rng.choice([0, 1, 2]),
        "planner": lambda: rng.choice(["cdt", "grid", "portal"]), "f_max": lambda: rng.choice([20, 40.5]),
        "p.sigma": lambda: rng.choice([5, 9.5, 12]), "*.d": lambda: rng.choice([1, 1.5, 3]),
        "q.max_speed": lambda: rng.choice([1.0, 1.3]), "p.weights.mud": lambda: rng.choice([1.5, 3, 9]),
        "*.radius": lambda: rng.choice([0.2, 0.25]),
    }
    names = rng.sample(sorted(pool), rng.randint(2, 6))
    fixed, grid, rnd = {}, {}, {}
    for n in names:
        where = rng.choice(["fixed", "grid", "random"])
        if where == "fixed":
            fixed[n] = pool[n]()
        elif where == "grid":
            vals = list(dict.fromkeys(pool[n]() for _ in range(3)))
            grid[n] = vals
        else:
            rnd[n] = {"choice": list(dict.fromkeys(pool[n]() for _ in range(3)))}
    d = doc(scene, fixed=fixed, grid=grid, seeds=[rng.randint(0, 99)])
    if rnd:
        d["random"] = {"samples": 2, "seed": rng.randint(0, 9), "parameters": rnd}
        # Two samples drawing the same values are refused (one run twice): draw with the next seed, or draw one
        # sample where every choice has a single value.
        for _ in range(50):
            try:
                parse_spec(d)
                break
            except InputError as e:
                if not any(p.path == "random.samples" for p in e.problems):
                    break  # another problem: the test's own parse reports it
                d["random"]["seed"] += 1
        else:
            d["random"]["samples"] = 1
    return d


def _check_row(row: dict, pf, scene_agents: int) -> None:
    """Every parameter column of a run row against what the run's own paths file says it used."""
    params = pf.parameters
    for name, v in row.items():
        parts = name.split(".")
        if name == "method":
            assert v == pf.method
        elif name == "integrator":
            assert v == pf.integrator
        elif name == "dt":
            assert v == pf.dt
        elif name == "agents":
            assert v == len(pf.agents) - scene_agents
        elif name in params and not isinstance(params[name], dict):
            assert v == params[name], name
        elif len(parts) == 2 and parts[1] in ("sigma", "d", "max_speed", "radius"):
            used = [params["profiles"][pid][parts[1]] for pid in (SCENE_PROFILES if parts[0] == "*" else [parts[0]])]
            assert all(u == v for u in used), (name, v, used)
        elif len(parts) == 3 and parts[1] == "weight":
            used = [params["profiles"][pid]["weights"][parts[2]] for pid in
                    (SCENE_PROFILES if parts[0] == "*" else [parts[0]])]
            assert all(u == v for u in used), (name, v, used)


SCENE_PROFILES = [p["id"] for p in SCENE["profiles"]]


@pytest.mark.parametrize("seed", range(6))
def test_the_table_records_the_values_the_runs_used(tmp_path, scene, seed):
    """Generated specs: each parameter column equals the value in the run's own paths file (the simulation's
    parameter table), and the value the spec asked for."""
    d = _random_spec(scene, random.Random(seed))
    spec = parse_spec(d)
    out = tmp_path / "r.parquet"
    t = sweep.run(spec, out=out, keep_paths=True)
    tasks = {task.run_id: task for task in spec.tasks()}
    assert len(t.runs) == len(tasks)
    for row in t.runs.to_dict("records"):
        pf = read_paths(tmp_path / "r.paths" / f"{row['run']:06d}-{row['run_id']}.json")
        param_cols = {k: row[k] for k in spec.parameter_names}
        _check_row(param_cols, pf, len(SCENE["agents"]))
        asked = tasks[row["run_id"]].param_dict()
        for k, v in param_cols.items():
            assert v == asked[k] or (isinstance(v, float) and math.isclose(v, asked[k])), (k, v, asked[k])


# ----- outputs checked before any run


def test_an_out_that_is_a_folder_is_refused_before_any_run(tmp_path, scene, capsys):
    (tmp_path / "s.json").write_text(json.dumps(doc(scene, grid={"c_s": [1, 2, 3]})))
    (tmp_path / "r.csv").mkdir()
    before = tree(tmp_path)
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "0", "--out", str(tmp_path / "r.csv")]) == 2
    assert "--out:" in capsys.readouterr().err and tree(tmp_path) == before
    (tmp_path / "r.csv").rmdir()
    (tmp_path / "r.characters.csv").mkdir()
    before = tree(tmp_path)
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "0", "--out", str(tmp_path / "r.csv")]) == 2
    assert "the character table:" in capsys.readouterr().err and tree(tmp_path) == before


def test_the_tables_never_replace_the_spec_or_a_scene(tmp_path, scene, capsys):
    (tmp_path / "s.json").write_text(json.dumps(doc(scene)))
    os.link(scene, tmp_path / "tiny.characters.csv")
    before = tree(tmp_path)
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "0", "--out", str(tmp_path / "s.json")]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "0", "--out", str(tmp_path / "tiny.csv")]) == 2
    err = capsys.readouterr().err
    assert "the input SPEC" in err and "the input scenes[0]" in err and tree(tmp_path) == before


# ----- resume


def _finished(tmp_path, scene, suffix=".csv") -> tuple[Path, Path]:
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(doc(scene, grid={"c_s": [1, 2]})))
    out = tmp_path / f"r{suffix}"
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out)]) == 0
    return spec, out


def test_resume_refuses_a_foreign_table(tmp_path, scene, capsys):
    spec, out = _finished(tmp_path, scene)
    out.write_text("a,b\n1,2\n")
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "not a sweep's run table: no column 'run'" in err and "Traceback" not in err


def test_resume_refuses_a_corrupt_character_table(tmp_path, scene, capsys):
    spec, out = _finished(tmp_path, scene, ".parquet")
    (tmp_path / "r.characters.parquet").write_bytes(b"PAR1 not really")
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot read the table" in err and "r.characters.parquet" in err and "Traceback" not in err


def test_resume_runs_again_what_a_foreign_journal_line_or_a_missing_character_claims(tmp_path, scene, capsys):
    spec, out = _finished(tmp_path, scene)
    full = read_tables(out)
    chars = full.characters
    chars[chars["run"] != 1].to_csv(tmp_path / "r.characters.csv", index=False)  # run 1 lost its characters
    journal_path(out).write_text('{"run": 5, "characters": []}\n[1, 2]\n{"run": {"run_id": 7}}\n{"x": \n')
    capsys.readouterr()
    assert main(["sweep", str(spec), "--workers", "0", "--out", str(out), "--resume", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["skipped"] == 1 and summary["ran"] == 1
    again = read_tables(out)
    assert sweep.same_tables(again, full)


# ----- files that never end, schedulers that never answer


def _in_thread(fn, seconds=60):
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "hung"
    return box["v"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_spec_or_scene_is_refused_unopened(tmp_path, scene, capsys):
    os.mkfifo(tmp_path / "spec.json")
    assert _in_thread(lambda: main(["sweep", str(tmp_path / "spec.json"), "--workers", "0"])) == 2
    os.mkfifo(tmp_path / "scene.json")
    (tmp_path / "s.json").write_text(json.dumps(doc(tmp_path / "scene.json")))
    assert _in_thread(lambda: main(["sweep", str(tmp_path / "s.json"), "--workers", "0"])) == 2
    err = capsys.readouterr().err
    assert err.count("is not a regular file (a named pipe)") == 2 and "scenes[0]" in err


def _server(answer: bytes | None):
    """A TCP server on localhost that accepts and then says nothing (``None``) or replies with ``answer`` to
    whatever it is sent (an HTTP server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    conns = []

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            conns.append(c)
            if answer is not None:
                try:
                    c.recv(65536)
                    c.sendall(answer)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    return srv, conns


@pytest.mark.parametrize("answer", [None, b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"])
def test_a_scheduler_that_does_not_answer_is_refused(tmp_path, scene, capsys, answer):
    (tmp_path / "s.json").write_text(json.dumps(doc(scene)))
    srv, conns = _server(answer)
    try:
        port = srv.getsockname()[1]
        code = _in_thread(lambda: main(["sweep", str(tmp_path / "s.json"), "--scheduler",
                                        f"tcp://127.0.0.1:{port}", "--out", str(tmp_path / "r.csv")]))
    finally:
        srv.close()
        for c in conns:
            c.close()
    err = capsys.readouterr().err
    assert code == 2 and "--scheduler: cannot reach a Dask scheduler" in err and "sent nothing" in err
    assert "Traceback" not in err and not (tmp_path / "r.csv").exists()


# ----- sweep-plot


def _table(tmp_path, rows: dict) -> Path:
    import pandas as pd

    p = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    return p


def test_sweep_plot_refuses_too_many_lines_at_once(tmp_path, capsys):
    n = 20_000
    t = _table(tmp_path, {"x": [i % 3 for i in range(n)], "y": [float(i) for i in range(n)], "h": range(n)})
    assert main(["sweep-plot", str(t), "--x", "x", "--y", "y", "--hue", "h"]) == 2
    err = capsys.readouterr().err
    assert "--hue: column 'h' has more than 64 distinct values, over the limit of 64" in err
    assert not list(tmp_path.glob("*.png"))


def test_sweep_plot_draws_text_as_text(tmp_path, capsys):
    weird = "$\\frac{$"
    t = _table(tmp_path, {weird: ["$x$", weird, "a", "b"], "a/b": [1.0, 2, 3, 4], "h": [weird, "$", "$$", "x"]})
    assert main(["sweep-plot", str(t), "--x", weird, "--y", "a/b", "--hue", "h"]) == 0
    assert (tmp_path / "t.a_b.png").stat().st_size > 0
    assert main(["sweep-plot", str(t), "--x", "h", "--y", "a/b", "--out", str(tmp_path / "p.svg")]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_sweep_plot_checks_its_output_first(tmp_path, capsys):
    t = _table(tmp_path, {"x": [1, 2], "y": [1.0, 2.0]})
    (tmp_path / "folder.png").mkdir()
    for out, says in ((tmp_path / "missing" / "p.png", "does not exist"), (tmp_path / "folder.png", "is a folder"),
                      (t, "the input RESULTS"), (tmp_path / "p.pdf", "plots are written as .png or .svg")):
        before = tree(tmp_path)
        assert main(["sweep-plot", str(t), "--x", "x", "--y", "y", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err and tree(tmp_path) == before
    # a column whose name is a path makes a file name beside the table, not a path
    t2 = _table(tmp_path, {"x": [1, 2], "../../up": [1.0, 2.0]})
    assert main(["sweep-plot", str(t2), "--x", "x", "--y", "../../up"]) == 0
    assert (tmp_path / "t..._.._up.png").exists()


def test_a_copied_spec_keeps_its_runs(scene):
    """The checks above change no run key: a spec read twice expands to the same runs."""
    d = doc(scene, grid={"p.weights.mud": [2, 3], "method": ["miran", "irm"]})
    assert [t.run_id for t in parse_spec(copy.deepcopy(d)).tasks()] == [t.run_id for t in parse_spec(d).tasks()]
