"""Where the app keeps its settings and recovery files, and where the shipped scenes and icons are.

The config folder is, in order: the ``--config-dir`` argument, the ``MIRAN_STUDIO_CONFIG_DIR`` environment
variable, else the platform's per-user config folder. Tests set the variable so they never touch a user's files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CONFIG_ENV = "MIRAN_STUDIO_CONFIG_DIR"
AUTOSAVE_ENV = "MIRAN_STUDIO_AUTOSAVE_MS"
AUTOSAVE_MS = 30_000

_ROOT = Path(__file__).resolve().parent.parent


def config_dir(override: str | os.PathLike | None = None) -> Path:
    """The folder for settings and recovery files (created when missing)."""
    if override is not None:
        d = Path(override)
    elif os.environ.get(CONFIG_ENV):
        d = Path(os.environ[CONFIG_ENV])
    elif sys.platform == "win32":
        d = Path(os.environ.get("APPDATA", Path.home())) / "MIRAN Studio"
    elif sys.platform == "darwin":
        d = Path.home() / "Library" / "Application Support" / "MIRAN Studio"
    else:
        d = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "miran-studio"
    d.mkdir(parents=True, exist_ok=True)
    return d


def autosave_interval_ms() -> int:
    """Autosave period: ``MIRAN_STUDIO_AUTOSAVE_MS`` when set (tests use a short one), else 30 s."""
    v = os.environ.get(AUTOSAVE_ENV, "")
    return int(v) if v.isdigit() and int(v) > 0 else AUTOSAVE_MS


def _first_existing(*candidates: Path) -> Path:
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[0]


def scenes_dir() -> Path:
    """The shipped scenes: ``scenes/`` beside the packages, or an installed copy under ``share/miran-studio``."""
    return _first_existing(_ROOT / "scenes", Path(sys.prefix) / "share" / "miran-studio" / "scenes")


def resources_dir() -> Path:
    """Icons, colour maps and schemas: ``resources/`` beside the packages, or an installed copy."""
    return _first_existing(_ROOT / "resources", Path(sys.prefix) / "share" / "miran-studio" / "resources")
