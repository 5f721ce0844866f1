"""``miran validate`` and ``miran info`` as a user runs them: exit codes, messages on stderr, JSON counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli.main import COMMANDS, main

from scenedata import BAD, BAD_CORPUS, REPO, SCENES, SHIPPED

pytestmark = pytest.mark.subprocess


def _miran(*args: str) -> subprocess.CompletedProcess:
    """Run the installed ``miran`` console script (the module when the script is not beside this Python)."""
    script = Path(sys.executable).with_name("miran")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "core.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=REPO, timeout=300)


def test_validate_shipped_scenes():
    r = _miran("validate", *[f"scenes/{n}" for n in SHIPPED])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"scenes/{n}: valid" for n in SHIPPED]
    assert r.stderr == ""


def test_validate_the_bad_corpus():
    files = sorted(BAD_CORPUS)
    r = _miran("validate", *[str(BAD / n) for n in files])
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == sum(len(BAD_CORPUS[n]["problems"]) for n in files)   # one line per problem
    for n in files:
        for path, part in BAD_CORPUS[n]["problems"]:
            head = f"{BAD / n}: {path}: " if path else f"{BAD / n}: "
            assert any(line.startswith(head) and part in line for line in lines), (n, path, part)


def test_validate_json_report_and_mixed_files(capsys):
    code = main(["validate", "--json", str(SCENES / "mckenna.json"), str(BAD / "self_intersecting.json")])
    assert code == 2
    report = json.loads(capsys.readouterr().out)
    assert [r["valid"] for r in report] == [True, False]
    assert report[1]["problems"] == [{"path": "obstacles[0].polygon", "message": "self-intersecting at (50, 50)"}]


def test_validate_writes_nothing(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text((BAD / "misplaced_points.json").read_text())
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["validate", str(bad)]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_info_json_counts_for_the_city():
    r = _miran("info", "scenes/city.json", "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["obstacles"] == 181 and info["convex_obstacles"] == 138
    assert info["terrain_types"] == 4 and info["agents"] == 7 and info["routes"] == 2 and info["networks"] == 1
    assert info["components"] == 1
    assert set(info["terrain_areas"]) == {"ground", "sidewalk", "road", "park"}
    assert abs(sum(info["terrain_areas"].values()) - info["free_area"]) < 1e-6
    assert abs(info["free_area"] + info["obstacle_area"] - 250000.0) < 1e-6


@pytest.mark.parametrize("name, counts", [
    ("mckenna.json", {"obstacles": 23, "obstacle_vertices": 96, "convex_obstacles": 23, "terrain_polygons": 0}),
    ("mckenna_road.json", {"obstacles": 23, "obstacle_vertices": 96, "terrain_polygons": 10, "terrain_vertices": 39}),
    ("forest.json", {"obstacles": 90, "terrain_types": 5, "profiles": 2, "agents": 2}),
])
def test_info_json_counts(name, counts, capsys):
    assert main(["info", "--json", str(SCENES / name)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert {k: info[k] for k in counts} == counts


def test_info_text_summary(capsys):
    assert main(["info", str(SCENES / "mckenna_road.json")]) == 0
    out = capsys.readouterr().out
    assert "obstacles        23  (96 vertices, 23 convex)" in out
    assert "terrain polygons 10  (39 vertices)" in out
    assert "mud" in out and "sidewalk" in out


def test_info_on_a_bad_scene_exits_2(capsys):
    assert main(["info", str(BAD / "zero_area.json")]) == 2
    err = capsys.readouterr().err
    assert "terrains[0].polygon: polygon has zero area" in err


def test_every_command_has_help(capsys):
    for name in ["validate", "info"] + [c for c in COMMANDS if c not in ("validate", "info")]:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0, name
        assert "usage: miran " + name in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and "validate" in out and "info" in out


def test_usage_errors_exit_2(capsys):
    for argv in ([], ["validate"], ["no-such-command"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "usage: miran" in capsys.readouterr().err
    r = _miran("info", "scenes/does-not-exist.json")
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
