"""Atomic writes: the umask's modes, an existing file's mode kept, stale temporaries removed, the folder fsynced,
destinations checked before a run and results kept when the final write fails."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from core.scene import atomic
from core.scene.atomic import (destination_problem, is_own_temp, is_stale_temp, keep_elsewhere, remove_stale_temps,
                               temp_name, write_text_atomic)
from core.scene.io import load_scene, save_scene

from scenedata import SCENES, SHIPPED


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_new_files_get_the_umask_mode(tmp_path, umask022):
    p = tmp_path / "a.json"
    write_text_atomic(p, "{}\n")
    assert _mode(p) == 0o644
    os.umask(0o077)
    q = tmp_path / "b.json"
    write_text_atomic(q, "{}\n")
    assert _mode(q) == 0o600


def test_saving_over_a_file_keeps_its_mode(tmp_path, umask022):
    p = tmp_path / "scene.json"
    save_scene(load_scene(SCENES / SHIPPED[0]), p)
    os.chmod(p, 0o640)
    save_scene(load_scene(SCENES / SHIPPED[0]), p)
    assert _mode(p) == 0o640
    os.chmod(p, 0o664)
    save_scene(load_scene(SCENES / SHIPPED[0]), p)
    assert _mode(p) == 0o664


def test_the_folder_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", spy)
    write_text_atomic(tmp_path / "x.json", "1\n")
    assert synced == [False, True]  # the file's data, then the folder's entry


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)


def _age(p, seconds):
    t = time.time() - seconds
    os.utime(p, (t, t))


def test_stale_temporaries_are_removed_and_live_ones_kept(tmp_path):
    dead_pid = _dead_pid()
    dead = tmp_path / temp_name("scene.json", dead_pid)
    live = tmp_path / temp_name("scene.json", os.getpid())
    fresh = tmp_path / temp_name("scene.json", dead_pid)
    other = tmp_path / temp_name("other.json", dead_pid)
    unrelated = tmp_path / ".notes.tmp"
    for p in (dead, live, fresh, other, unrelated):
        p.write_text("partial")
    for p in (dead, live, other, unrelated):
        _age(p, 3600)
    assert is_stale_temp(dead) and not is_stale_temp(live) and not is_stale_temp(fresh)
    # Writing scene.json sweeps only scene.json's stale temporaries.
    write_text_atomic(tmp_path / "scene.json", "{}\n")
    assert not dead.exists()
    assert live.exists() and fresh.exists() and other.exists() and unrelated.exists()
    assert remove_stale_temps(tmp_path) == [other]
    _age(live, 2 * atomic.STALE_SECONDS)
    assert remove_stale_temps(tmp_path) == [live]  # a day old: stale even if its pid was reused
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, unrelated.name, "scene.json"])


def _lookalikes(name: str, pid: int) -> list[str]:
    """File names a person or another program may give, alike to our temporaries of ``name``."""
    real = temp_name(name, pid)
    body = real[:-len(".tmp")]
    flipped = body[:-1] + ("0" if body[-1] != "0" else "1") + ".tmp"
    return [f".{name}.backup01.tmp", f".{name}.k2j4h5g6.tmp", f".{name}.{pid}-abcd1234.tmp",
            f".{name}.{pid}-a1b2c3d4e5f6.tmp", f".{name}.miran-{pid}-0123456789ab-00000000.tmp", flipped,
            f".{name}.miran-{pid}-0123456789ab.tmp", real + ".tmp", real[:-4] + ".bak.tmp", f".{name}.tmp"]


@pytest.mark.parametrize("name", ["p.json", "scene.json", "a b.json", "x.miran-1.json"])
def test_files_alike_to_temporaries_are_never_removed(tmp_path, name):
    """Only the writer's own temporaries (their tag checks out) are removed, however old their look-alikes are."""
    pid = _dead_pid()
    names = _lookalikes(name, pid)
    for n in names:
        (tmp_path / n).write_text("a user's file")
        _age(tmp_path / n, 10 * atomic.STALE_SECONDS)
        assert not is_own_temp(n), n
    write_text_atomic(tmp_path / name, "{}\n")
    assert remove_stale_temps(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names + [name])
    assert all((tmp_path / n).read_text() == "a user's file" for n in names)


def test_temporary_names_are_unique_and_tagged():
    names = {temp_name("p.json") for _ in range(2000)}
    assert len(names) == 2000 and all(is_own_temp(n) for n in names)
    assert all(n.startswith(".p.json.miran-") and n.endswith(".tmp") for n in names)


def test_a_killed_save_leaves_a_temporary_the_next_save_removes(tmp_path):
    """kill -9 between the write and the rename: the scene is intact and the next save cleans up."""
    target = tmp_path / "scene.json"
    target.write_text("old\n")
    code = ("import os, sys\n"
            "from core.scene import atomic\n"
            "atomic.os.replace = lambda a, b: os.kill(os.getpid(), 9)\n"
            f"atomic.write_text_atomic({str(target)!r}, 'new\\n')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=os.getcwd(), capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == -9, proc.stderr
    (left,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert target.read_text() == "old\n" and left.read_text() == "new\n"
    _age(left, 120)
    write_text_atomic(target, "newer\n")
    assert [p.name for p in tmp_path.iterdir()] == ["scene.json"] and target.read_text() == "newer\n"


def test_destination_problems_are_named(tmp_path):
    assert destination_problem(tmp_path / "out.json") is None
    assert "does not exist" in destination_problem(tmp_path / "missing" / "out.json")
    assert "is a folder" in destination_problem(tmp_path)
    assert "not a regular file" in destination_problem("/dev/null")
    (tmp_path / "file").write_text("")
    assert "not a folder" in destination_problem(tmp_path / "file" / "out.json")
    assert list(p.name for p in tmp_path.iterdir()) == ["file"]  # the probe left nothing behind


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True,
                    reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    try:
        assert "cannot write in" in destination_problem(ro / "out.json")
    finally:
        os.chmod(ro, 0o755)


def test_keep_elsewhere_names_a_new_file(tmp_path, monkeypatch, umask022):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    kept = keep_elsewhere("/nowhere/paths ü.json", b"result")
    assert kept.parent == tmp_path and kept.name.startswith("miran-paths__-") and kept.suffix == ".json"
    assert kept.read_bytes() == b"result" and _mode(kept) == 0o644


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_device_or_pipe_is_never_replaced(tmp_path):
    """Renaming over a non-regular file would replace it (as root, an export to /dev/full replaced the device)."""
    pipe = tmp_path / "out.pipe"
    os.mkfifo(pipe)
    folder = tmp_path / "a folder"
    folder.mkdir()
    for target in (pipe, folder):
        with pytest.raises(OSError, match="not a regular file"):
            atomic.write_bytes_atomic(target, b"data")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and folder.is_dir() and list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a folder", "out.pipe"]
