"""The app against hostile files: a damaged recovery folder never stops it (the files are set aside and reported
once), a damaged settings file gives the defaults, and the open dialog refuses every bad file of the hostile corpus
with the validator's located messages."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import qt_dialogs as dialogs

CORPUS = Path(__file__).resolve().parents[1] / "core" / "cli" / "hostile_corpus.py"


def _corpus_module():
    spec = importlib.util.spec_from_file_location("hostile_corpus_for_app", CORPUS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up while it is defined
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def reported(monkeypatch):
    """Every show_problems call as (title, lines), instead of a dialog."""
    calls = []
    monkeypatch.setattr(dialogs, "show_problems", lambda parent, title, summary, lines: calls.append((title, lines)))
    return calls


def _damaged_recovery_folder(config: Path) -> Path:
    folder = config / "recovery"
    folder.mkdir(parents=True)
    base = {"format": "miran-studio-recovery", "version": 1, "pid": 999_999_999, "source": None, "saved_at": 0,
            "scene": {"format": "miran-scene", "version": 1, "bounds": [0, 0, 5, 5],
                      "terrain_types": [{"id": "default"}], "default_terrain": "default"}}
    files = {
        "session-11.json": json.dumps({**base, "saved_at": "yesterday"}),
        "session-12.json": json.dumps([base]),
        "session-13.json": json.dumps(base).replace("999999999", "1e20"),
        "session-14.json": json.dumps(base).replace("999999999", "9" * 30),
        "session-15.json": "[" * 100_000 + "]" * 100_000,
        "session-16.json": json.dumps({**base, "source": 7}),
        "session-17.json": json.dumps({**base, "scene": "gone"}),
        "session-18.json": "\x00\xff garbage",
        "session-19.json": json.dumps({**base, "pid": -4}),
    }
    for name, text in files.items():
        (folder / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    os.mkfifo(folder / "session-20.json")
    (folder / "session-21.json").mkdir()
    return folder


def test_the_app_starts_with_a_damaged_recovery_folder(make_studio, isolated_config, reported):
    folder = _damaged_recovery_folder(isolated_config)
    w = make_studio()
    assert w.isVisible()
    assert not list(folder.glob("session-*.json"))  # nothing left to trip the next start
    damaged = sorted(p.name for p in folder.glob("damaged-session-*"))
    assert len(damaged) == 11
    ((title, lines),) = reported
    assert title == "Damaged recovery files" and len(lines) == 11
    assert any("not a regular file" in ln for ln in lines) and any("nested too deeply" in ln for ln in lines)
    assert any("'pid' is not a process id" in ln for ln in lines)
    # Reported once: the next start finds nothing to report.
    make_studio()
    assert len(reported) == 1


def test_a_damaged_settings_file_gives_the_defaults(make_studio, isolated_config):
    isolated_config.mkdir(parents=True, exist_ok=True)
    (isolated_config / "settings.json").write_text("[" * 100_000 + "]" * 100_000)
    w = make_studio()
    assert w.files.recent_files() == []


def test_the_open_dialog_refuses_the_hostile_corpus(make_studio, tmp_path, reported):
    corpus = _corpus_module()
    w = make_studio(new=(50, 50))
    before = w.scene
    files = {}
    for name, (doc, where) in corpus.bad_scenes().items():
        files[name] = (corpus.write_case(tmp_path, name, doc), where)
    special = tmp_path / "special"
    special.mkdir()
    for name, (path, where) in corpus.special_files(special).items():
        files[name] = (path, where)
    assert len(files) > 40
    for name, (path, where) in files.items():
        n = len(reported)
        assert w.files.open_path(path, prompt=False) is False, name
        assert len(reported) == n + 1, name
        title, lines = reported[-1]
        assert title == "Cannot open scene" and any(where in ln for ln in lines), (name, lines)
        assert w.scene is before
    for name, doc in corpus.good_scenes().items():
        assert w.files.open_path(corpus.write_case(tmp_path, name, doc), prompt=False) is True, name


def test_stale_temporaries_are_removed_at_start_and_on_open(make_studio, isolated_config, tmp_path):
    """kill -9 during a save leaves .NAME.miran-PID-RANDOM-TAG.tmp files; the next start (config folder) and the next
    open of that scene remove them once their process is gone."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    isolated_config.mkdir(parents=True, exist_ok=True)
    corpus = _corpus_module()
    scene = corpus.write_case(tmp_path, "scene", corpus.BASE)
    from core.scene.atomic import temp_name

    leftovers = [isolated_config / temp_name("settings.json", int(dead)), tmp_path / temp_name("scene.json", int(dead))]
    old = time.time() - 3600
    for p in leftovers:
        p.write_text("partial")
        os.utime(p, (old, old))
    w = make_studio()
    assert not leftovers[0].exists() and leftovers[1].exists()
    assert w.files.open_path(scene, prompt=False)
    assert not leftovers[1].exists()


def test_profile_fields_keep_the_candidates_within_their_limit(make_studio, qtbot):
    """sigma 1e6 over d 0.01 would be 10^8 candidates per window: the scene could not be opened again."""
    from PySide6 import QtWidgets

    w = make_studio(new=(100, 100))
    pid = w.profiles.add_profile()

    def profile():
        return next(p for p in w.scene.profiles if p.id == pid)

    messages = []
    w.editor.messages.connect(messages.append)
    d = w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.d")
    sigma = w.profiles.findChild(QtWidgets.QDoubleSpinBox, "profiles.sigma")
    d.setValue(0.01)
    assert profile().d == 0.01
    sigma.setValue(1e6)
    assert profile().sigma == 40.0 and "candidates" in messages[-1]
    qtbot.waitUntil(lambda: sigma.value() == 40.0)
    sigma.setValue(900.0)  # 90,000 candidates: allowed
    assert profile().sigma == 900.0
