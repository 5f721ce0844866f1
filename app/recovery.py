"""Crash recovery: each running editor autosaves its unsaved scene to its own recovery file, deletes it when the
work is saved or the window closes, and a later start offers to recover files whose process is gone."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from core.scene import InputError, Problem, Scene, parse_scene, scene_to_dict
from core.scene.jsonio import write_json_atomic

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


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


class RecoveryStore:
    """The recovery files of one config folder; this process writes ``session-<pid>.json``."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder) / "recovery"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.own = self.folder / f"session-{os.getpid()}.json"

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
        """Recovery files of sessions whose process has ended, newest first."""
        out = []
        for p in self.folder.glob("session-*.json"):
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
                pid = int(data["pid"])
            except (OSError, ValueError, KeyError, TypeError):
                out.append(RecoveryFile(p, None, p.stem, p.stat().st_mtime if p.exists() else 0.0))
                continue
            if _alive(pid):
                continue
            scene = data.get("scene") if isinstance(data.get("scene"), dict) else {}
            source = data.get("source") if isinstance(data.get("source"), str) else None
            out.append(RecoveryFile(p, source, str(scene.get("name", "Untitled")), float(data.get("saved_at", 0))))
        return sorted(out, key=lambda r: -r.saved_at)

    @staticmethod
    def load(rf: RecoveryFile) -> Scene:
        """The scene of a recovery file; InputError when it is damaged."""
        try:
            data = json.loads(rf.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise InputError([Problem("", f"cannot read the recovery file: {e}")], str(rf.path)) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError([Problem("format", "not a MIRAN Studio recovery file")], str(rf.path))
        return parse_scene(data.get("scene"), str(rf.path))

    @staticmethod
    def discard(rf: RecoveryFile) -> None:
        rf.path.unlink(missing_ok=True)
