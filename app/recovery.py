"""Crash recovery: each running editor autosaves its unsaved scene to its own recovery file, deletes it when the
work is saved or the window closes, and a later start offers to recover files whose process is gone.

A recovery file that cannot be read (not JSON, not an object, a pid or time that is not a number, nested too
deeply, not a regular file, too large) never stops the app: it is set aside, renamed ``damaged-<name>-<time>.json``
in the same folder where a person can still look at it, and listed once in ``RecoveryStore.set_aside``.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.scene import InputError, Problem, Scene, parse_scene, scene_to_dict
from core.scene.atomic import pid_alive, remove_stale_temps
from core.scene.jsonio import parse_json_text, read_text_bounded, write_json_atomic

FORMAT = "miran-studio-recovery"
VERSION = 1


@dataclass(frozen=True)
class RecoveryFile:
    """A recovery file left by an editor that did not close: its path, the scene's own file (if it had one),
    the scene's name and when it was written (seconds since the epoch)."""

    path: Path
    source: str | None
    name: str
    saved_at: float


# Process ids are positive and, on every system the app runs on, below 2**31.
MAX_PID = 2**31 - 1


def _header(data: Any) -> tuple[int, float, str | None, str]:
    """(pid, saved_at, source, scene name) of a parsed recovery file; ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError("not a MIRAN Studio recovery file")
    pid = data.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid <= MAX_PID:
        raise ValueError("'pid' is not a process id")
    saved = data.get("saved_at")
    if isinstance(saved, bool) or not isinstance(saved, (int, float)) or not math.isfinite(float(saved)):
        raise ValueError("'saved_at' is not a time")
    source = data.get("source")
    if source is not None and not isinstance(source, str):
        raise ValueError("'source' is not a file name")
    scene = data.get("scene")
    if not isinstance(scene, dict):
        raise ValueError("'scene' is not a scene")
    name = scene.get("name", "Untitled")
    return pid, float(saved), source, name if isinstance(name, str) else "Untitled"


class RecoveryStore:
    """The recovery files of one config folder; this process writes ``session-<pid>.json``."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder) / "recovery"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.own = self.folder / f"session-{os.getpid()}.json"
        self.set_aside: list[tuple[Path, str]] = []

    def write(self, scene: Scene, source: str | None) -> None:
        """Save the scene being edited (atomically: a crash while writing leaves the previous file)."""
        write_json_atomic(self.own, {
            "format": FORMAT, "version": VERSION, "pid": os.getpid(), "source": source,
            "saved_at": time.time(), "scene": scene_to_dict(scene),
        })

    def clear(self) -> None:
        """Remove this session's file (the work is saved, or deliberately discarded)."""
        self.own.unlink(missing_ok=True)

    def orphans(self) -> list[RecoveryFile]:
        """Recovery files of sessions whose process has ended, newest first; unreadable ones are set aside."""
        out = []
        remove_stale_temps(self.folder)
        for p in sorted(self.folder.glob("session-*.json")):
            try:
                pid, saved, source, name = _header(parse_json_text(read_text_bounded(p), str(p)))
            except (InputError, ValueError) as e:
                self._set_aside(p, e.problems[0].message if isinstance(e, InputError) else str(e))
                continue
            if p == self.own or pid_alive(pid):
                continue
            out.append(RecoveryFile(p, source, name, saved))
        return sorted(out, key=lambda r: -r.saved_at)

    def _set_aside(self, p: Path, reason: str) -> None:
        """Rename a damaged recovery file out of the way (``damaged-...``) and note it for one report."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = p.with_name(f"damaged-{p.stem}-{stamp}.json")
        k = 1
        while target.exists():
            target = p.with_name(f"damaged-{p.stem}-{stamp}-{k}.json")
            k += 1
        try:
            p.rename(target)
        except OSError as e:
            target = p
            reason = f"{reason} (and it could not be renamed: {e.strerror or e})"
        self.set_aside.append((target, reason))

    @staticmethod
    def load(rf: RecoveryFile) -> Scene:
        """The scene of a recovery file; InputError when it is damaged."""
        data = parse_json_text(read_text_bounded(rf.path), str(rf.path))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError([Problem("format", "not a MIRAN Studio recovery file")], str(rf.path))
        return parse_scene(data.get("scene"), str(rf.path))

    @staticmethod
    def discard(rf: RecoveryFile) -> None:
        rf.path.unlink(missing_ok=True)
