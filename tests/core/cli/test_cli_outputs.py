"""Outputs of ``simulate``, ``route`` and ``ecm``: checked before the run, kept in a named temporary file when the
final write fails (a full disk), written with the umask's mode."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest

from core.cli import output
from core.scene.io import load_scene
from core.sim import Simulation

from hostile_corpus import BASE, run_cli


@pytest.fixture
def scene(tmp_path):
    p = tmp_path / "scene.json"
    p.write_text(json.dumps(BASE))
    return str(p)


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """The final write fails as on a full disk; kept results go to tmp_path/kept."""
    kept = tmp_path / "kept"
    kept.mkdir()
    monkeypatch.setenv("TMPDIR", str(kept))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)

    def no_space(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(output, "write_bytes_atomic", no_space)
    return kept


@pytest.mark.parametrize("argv", [
    ["simulate", "{scene}", "--steps", "50", "--out", "{out}"],
    ["route", "{scene}", "--from", "2,2", "--to", "18,6", "--out", "{out}"],
])
def test_a_failed_final_write_keeps_the_result_and_says_where(argv, scene, tmp_path, full_disk):
    out = tmp_path / "result.json"
    code, _, err, _ = run_cli([a.format(scene=scene, out=out) for a in argv])
    assert code == 2 and "--out" in err and "No space left on device" in err
    (kept,) = full_disk.iterdir()
    assert str(kept) in err and not out.exists()
    doc = json.loads(kept.read_text())
    assert doc["format"] in ("miran-paths", "miran-route")


def test_an_unwritable_destination_is_refused_before_the_run(scene, tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(Simulation, "run", lambda self, *a, **k: ran.append(1))
    for out in (tmp_path / "missing" / "p.json", tmp_path, "/dev/null"):
        code, _, err, _ = run_cli(["simulate", scene, "--out", str(out)])
        assert code == 2 and err.startswith("error: --out:")
    assert ran == []


def test_outputs_get_the_umask_mode(scene, tmp_path):
    old = os.umask(0o022)
    try:
        for cmd in (["simulate", scene, "--steps", "20"], ["route", scene, "--from", "2,2", "--to", "18,6"]):
            out = tmp_path / f"{cmd[0]}.json"
            code, _, err, _ = run_cli([*cmd, "--out", str(out)])
            assert code == 0, err
            assert stat.S_IMODE(os.stat(out).st_mode) == 0o644
    finally:
        os.umask(old)


def test_record_every_writes_the_thinned_paths(scene, tmp_path):
    full, thin = tmp_path / "full.json", tmp_path / "thin.json"
    assert run_cli(["simulate", scene, "--out", str(full)])[0] == 0
    code, out, err, _ = run_cli(["simulate", scene, "--record", "every", "10", "--out", str(thin), "--json"])
    assert code == 0, err
    assert json.loads(out)["record_every"] == 10
    a, b = (json.loads(p.read_text())["agents"][0] for p in (full, thin))
    assert b["points"][-1] == a["points"][-1] and len(b["points"]) <= len(a["points"]) // 10 + 3
    assert b["length"] == pytest.approx(a["length"], rel=1e-9)
    assert load_scene(scene).name == "Hostile base"


def test_every_command_output_gets_the_umask_mode(scene, tmp_path):
    """Paths, routes, exports in every format, imported scenes and the ECM's map and picture: 0644 under umask
    022, 0600 under 077 (a new file gets 0666 minus the umask)."""
    svg = tmp_path / "plan.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect x="5" y="5" width="4" '
                   'height="4" id="wall"/></svg>')
    for umask, want in ((0o022, 0o644), (0o077, 0o600)):
        old = os.umask(umask)
        try:
            d = tmp_path / f"u{umask:o}"
            d.mkdir()
            paths = d / "paths.json"
            runs = [["simulate", scene, "--steps", "20", "--out", str(paths)],
                    ["route", scene, "--from", "2,2", "--to", "18,6", "--out", str(d / "route.json")],
                    ["import", str(svg), "--out", str(d / "imported.json")],
                    ["ecm", scene, "--resolution", "64", "--out", str(d / "ecm.json"), "--png", str(d / "ecm.png")]]
            for fmt, name in (("pedpy", "t.txt"), ("csv", "t.csv"), ("geojson", "t.geojson"),
                              ("jupedsim", "t.sqlite")):
                runs.append(["export", str(paths), "--format", fmt, "--scene", scene, "--out", str(d / name)])
            for argv in runs:
                code, _, err, _ = run_cli(argv)
                if argv[0] == "ecm" and code == 2 and "OpenGL" in err:
                    continue
                assert code == 0, (argv, err)
            files = sorted(p for p in d.iterdir())
            assert len(files) >= 8
            assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == \
                {p.name: oct(want) for p in files}
        finally:
            os.umask(old)
