"""The sweep spec: checked before any run with every problem named by its field, expanded deterministically."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli.main import main
from core.scene.problems import InputError
from core.sweep.spec import load_spec, parse_spec
from sweep_specs import problems, sweep_doc

ROOT = Path(__file__).resolve().parents[3]
SCENES = ROOT / "scenes"


def spec_doc(**over) -> dict:
    """McKenna + Road over a 2 x 2 grid and two seeds, 50 steps a run; ``over`` replaces or adds fields."""
    grid = {"pedestrian.sigma": [20, 40], "method": ["miran", "irm"]}
    return sweep_doc(SCENES / "mckenna_road.json", **{"grid": grid, "seeds": [0, 1], "limit": {"steps": 50}, **over})


def test_expansion_is_grid_times_samples_times_seeds_in_a_fixed_order():
    doc = spec_doc(random={"samples": 3, "seed": 5, "parameters": {"pedestrian.d": {"uniform": [5, 15]},
                                                                   "c_s": {"log_uniform": [1, 8]},
                                                                   "integrator": {"choice": ["euler", "verlet"]}}})
    spec = parse_spec(doc)
    tasks = spec.tasks()
    assert spec.n_runs == len(tasks) == 2 * 2 * 3 * 2
    assert [t.index for t in tasks] == list(range(len(tasks)))
    # the grid's last key varies fastest, then the samples, then the seeds
    first = [(t.param_dict()["pedestrian.sigma"], t.param_dict()["method"], t.seed) for t in tasks[:4]]
    assert first[:2] == [(20, "miran", 0), (20, "miran", 1)]
    assert len({t.run_id for t in tasks}) == len(tasks)
    ds = [t.param_dict()["pedestrian.d"] for t in tasks[::2]][:3]
    assert all(5 <= d <= 15 for d in ds) and len(set(ds)) == 3
    again = parse_spec(doc).tasks()
    assert [t.run_id for t in again] == [t.run_id for t in tasks]
    assert [t.params for t in again] == [t.params for t in tasks]


def test_the_run_key_follows_what_shapes_the_run():
    a = parse_spec(spec_doc()).tasks()
    b = parse_spec(spec_doc(limit={"steps": 51})).tasks()
    c = parse_spec(spec_doc(name="other name")).tasks()
    assert not {t.run_id for t in a} & {t.run_id for t in b}
    assert [t.run_id for t in a] == [t.run_id for t in c]


def test_toml_and_json_give_the_same_runs(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(spec_doc()))
    scene = str(SCENES / "mckenna_road.json").replace("\\", "/")
    (tmp_path / "s.toml").write_text(f'''format = "miran-sweep"
version = 1
name = "t"
scenes = ["{scene}"]
seeds = [0, 1]
[grid]
"pedestrian.sigma" = [20, 40]
method = ["miran", "irm"]
[limit]
steps = 50
''')
    assert [t.run_id for t in load_spec(tmp_path / "s.json").tasks()] == \
        [t.run_id for t in load_spec(tmp_path / "s.toml").tasks()]
    # TOML's unquoted dotted keys nest tables; they name the same parameters
    (tmp_path / "dotted.toml").write_text(f'''format = "miran-sweep"
version = 1
scenes = ["{scene}"]
seeds = [0, 1]
limit.steps = 50
grid.pedestrian.sigma = [20, 40]
grid.method = ["miran", "irm"]
random.samples = 2
random.parameters.pedestrian.weight.mud = {{ uniform = [1, 50] }}
''')
    spec = load_spec(tmp_path / "dotted.toml")
    assert spec.n_runs == 16 and "pedestrian.weight.mud" in spec.tasks()[0].param_dict()


@pytest.mark.parametrize("over, expected", [
    ({"grid": {"pedestrian.sigmaa": [1]}}, "grid['pedestrian.sigmaa']: unknown parameter"),
    ({"grid": {"pedestrian.sigma": [20, -3]}}, "grid['pedestrian.sigma'][1]: must be positive"),
    ({"grid": {"walker.sigma": [20]}}, "grid['walker.sigma']: unknown profile 'walker'"),
    ({"grid": {"pedestrian.weight.swamp": [2]}}, "grid['pedestrian.weight.swamp']: unknown terrain type"),
    ({"grid": {"method": ["miran", "rvo"]}}, "grid['method'][1]: unknown value 'rvo'"),
    ({"grid": {"c_s": [1, 1.0]}}, "grid['c_s'][1]: 1.0 is listed twice"),
    ({"grid": {"dt": []}}, "grid['dt']: must be a non-empty list"),
    ({"fixed": {"interact": 1}}, "fixed['interact']: interact is a switch"),
    ({"seeds": [0, -1]}, "seeds[1]: must be a whole number >= 0"),
    ({"limit": {"steps": 0}}, "limit.steps: must be a whole number >= 1"),
    ({"limit": {"minutes": 3}}, "limit.minutes: unknown field"),
    ({"metrics": ["length", "speed"]}, "metrics[1]: unknown metric 'speed'"),
    ({"random": {"samples": 2, "parameters": {"c_s": {"normal": [1, 2]}}}}, "random.parameters['c_s']: must be one"),
    ({"random": {"samples": 2, "parameters": {"c_s": {"uniform": [3, 1]}}}}, "random.parameters['c_s'].uniform"),
    ({"random": {"samples": 2, "parameters": {"method": {"choice": ["irm"]}}}},
     "random.parameters['method']: sets what grid['method'] already sets"),
    ({"scenes": ["no-such-scene.json"]}, "scenes[0]: cannot read"),
    ({"format": "miran-scene"}, "format: must be 'miran-sweep'"),
    ({"colour": 1}, "colour: unknown field"),
])
def test_a_bad_spec_names_the_field(over, expected):
    found = problems(spec_doc(**over))
    assert any(expected in p for p in found), found


@pytest.mark.parametrize("dist", [{"uniform": [1, 1]}, {"log_uniform": [2, 2]}, {"integers": [1, 2]},
                                  {"choice": ["euler", "verlet"]}])
def test_random_samples_that_repeat_are_refused_not_run_twice(dist):
    """A range of one value, or fewer values than samples: two samples draw the same values, which would be one run
    listed twice under one id (a hypothesis draw found the first). Enough room for distinct draws is accepted."""
    name = "integrator" if "choice" in dist else "pedestrian.d"
    found = problems(spec_doc(random={"samples": 6, "seed": 3, "parameters": {name: dist}}))
    assert any(p.startswith("random.samples: samples ") and "draw the same values" in p for p in found), found
    spec = parse_spec(spec_doc(random={"samples": 6, "seed": 3, "parameters": {"pedestrian.d": {"uniform": [1, 9]}}}))
    assert len({t.run_id for t in spec.tasks()}) == spec.n_runs


def test_every_problem_is_reported_at_once():
    found = problems(spec_doc(seeds=[-1], metrics=["x"], grid={"c_s": [0]}))
    assert {p.split(":")[0] for p in found} >= {"seeds[0]", "metrics[0]", "grid['c_s'][0]"}


def test_a_scene_without_agents_needs_random_ones(tmp_path):
    empty = {"format": "miran-scene", "version": 1, "bounds": [0, 0, 10, 10],
             "terrain_types": [{"id": "g"}], "default_terrain": "g", "profiles": [{"id": "p"}]}
    (tmp_path / "empty.json").write_text(json.dumps(empty))
    found = problems(spec_doc(scenes=[str(tmp_path / "empty.json")], grid={}))
    assert any("scenes[0]: no agents to simulate" in p for p in found), found
    assert parse_spec(spec_doc(scenes=[str(tmp_path / "empty.json")], grid={}, agents=2)).n_runs == 2


def test_the_cli_refuses_a_bad_spec_before_any_run(tmp_path, capsys):
    doc = spec_doc(grid={"pedestrian.sigma": [20, "wide"]})
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(tmp_path / "bad.json"), "--workers", "0", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "grid['pedestrian.sigma'][1]: expected a finite number, got 'wide'" in err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("r.csv*"))


def test_the_cli_refuses_bad_options(tmp_path, capsys):
    (tmp_path / "s.json").write_text(json.dumps(spec_doc()))
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "-2"]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--out", str(tmp_path / "r.xlsx")]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--scheduler", "localhost"]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--batch", "0"]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--batch", "3.5"]) == 2
    assert main(["sweep", str(tmp_path / "s.json"), "--workers", "0", "--batch", "4"]) == 2
    err = capsys.readouterr().err
    assert "--batch: expected a whole number of runs per task from 1 to 10000, got '0'" in err
    assert "--batch: expected a whole number of runs per task from 1 to 10000, got '3.5'" in err
    assert "--batch: batches are Dask tasks: --workers 0 runs in this process without Dask" in err
    assert "--scheduler: expected an address such as tcp://host:8786, got 'localhost'" in err
    assert "--workers: expected a whole number" in err
    assert "--out: r.xlsx: the table is written as .parquet or .csv" in err
    assert "--scheduler: give --scheduler or --workers, not both" in err


def test_the_shipped_example_spec_is_valid():
    spec = load_spec(SCENES / "sigma.sweep.json")
    assert spec.n_runs == len(spec.tasks()) > 1


BLOCK = ("import sys\nfor m in ('dask', 'distributed', 'pandas', 'pyarrow', 'tqdm', 'matplotlib'):\n"
         "    sys.modules[m] = None\n")


@pytest.mark.subprocess
def test_without_the_sweep_extra_the_engine_works_and_the_sweep_names_the_extra(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(spec_doc()))
    code = BLOCK + f"""
import core.sim, core.export, core.sweep
from core.sweep.spec import load_spec
from core.sweep.task import run_task
spec = load_spec({str(tmp_path / 's.json')!r})
t = spec.tasks()[0]
assert run_task(t, spec.scene_texts()[t.scene_sha])["run"]["n_agents"] == 1
from core.cli.main import main
sys.exit(main(["sweep", {str(tmp_path / 's.json')!r}, "--workers", "0", "--out", {str(tmp_path / 'r.csv')!r}]))
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 2, p.stderr
    assert "pip install 'miran-studio[sweep]'" in p.stderr and "'pandas'" in p.stderr
    assert "Traceback" not in p.stderr


def test_the_json_schema_accepts_the_example_and_refuses_what_the_reader_refuses():
    import jsonschema

    schema = json.loads((ROOT / "resources" / "schemas" / "miran-sweep.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors(json.loads((SCENES / "sigma.sweep.json").read_text())))
    assert not list(validator.iter_errors(spec_doc(random={"samples": 2, "parameters": {
        "*.weight.mud": {"log_uniform": [1, 50]}, "integrator": {"choice": ["euler", "verlet"]}}})))
    for over in ({"grid": {"pedestrian.sigmaa": [1]}}, {"limit": {"minutes": 3}}, {"metrics": ["speed"]},
                 {"seeds": [-1]}, {"random": {"samples": 2, "parameters": {"c_s": {"normal": [1, 2]}}}}):
        assert list(validator.iter_errors(spec_doc(**over))), over
        with pytest.raises(InputError):
            parse_spec(spec_doc(**over))


def test_without_workers_a_sweep_uses_one_per_cpu_at_most_one_per_run_and_none_for_one(tmp_path, monkeypatch,
                                                                                         capsys):
    """--workers not given: a LocalCluster of min(CPUs, runs to do) processes; when that is one (one run, one CPU,
    or one run left to resume) the sweep runs in this process, where a cluster could only add its start."""
    import contextlib

    import core.sweep as sweep

    asked: list[int] = []

    @contextlib.contextmanager
    def fake_cluster(n):                # records the size asked for and runs the tasks in this process
        asked.append(n)
        yield None

    monkeypatch.setattr(sweep, "local_client", fake_cluster)
    monkeypatch.setattr(sweep, "default_workers", lambda: 8)
    one, three = tmp_path / "one.json", tmp_path / "three.json"
    one.write_text(json.dumps(spec_doc(grid={}, seeds=[0], limit={"steps": 5})))
    three.write_text(json.dumps(spec_doc(grid={"pedestrian.sigma": [20, 30, 40]}, seeds=[0], limit={"steps": 5})))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(one), "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] == "this process" and asked == []
    assert main(["sweep", str(three), "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] == "a LocalCluster of 3 workers" and asked == [3]
    assert main(["sweep", str(three), "--out", str(out), "--workers", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] == "a LocalCluster of 1 worker" and asked == [3, 1]
    monkeypatch.setattr(sweep, "default_workers", lambda: 1)
    assert main(["sweep", str(three), "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] == "this process" and asked == [3, 1]
    monkeypatch.setattr(sweep, "default_workers", lambda: 8)
    assert main(["sweep", str(three), "--out", str(out), "--batch", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] == "a LocalCluster of 3 workers" and asked == [3, 1, 3]
