"""The app's settings: a typed, versioned schema stored as JSON in the config folder (never QSettings, so a test
or a second installation can point the app at another folder)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from core.scene.jsonio import parse_json_text, read_text_bounded, write_json_atomic
from core.scene.problems import InputError

SETTINGS_VERSION = 1
MAX_RECENT = 10
# A settings file larger than this is not ours: it is ignored (the defaults apply).
MAX_SETTINGS_BYTES = 1 << 20
FILE_NAME = "settings.json"


@dataclass
class StudioSettings:
    """What the app remembers between runs."""

    version: int = SETTINGS_VERSION
    recent_files: list[str] = field(default_factory=list)
    snap_grid: bool = True
    snap_vertices: bool = True
    show_grid: bool = True
    window_geometry: str = ""  # QMainWindow.saveGeometry() as hex
    window_state: str = ""  # QMainWindow.saveState() as hex

    def add_recent(self, path: str | Path) -> None:
        """Put a file first in the recent list (once), keeping at most MAX_RECENT."""
        p = str(Path(path).resolve())
        self.recent_files = [p, *[r for r in self.recent_files if r != p]][:MAX_RECENT]


def load_settings(folder: Path) -> StudioSettings:
    """Read the settings; a missing, unreadable or foreign file gives the defaults (settings never stop the app)."""
    path = folder / FILE_NAME
    if not path.exists():
        return StudioSettings()
    try:
        data = parse_json_text(read_text_bounded(path, MAX_SETTINGS_BYTES), str(path))
    except InputError:
        return StudioSettings()
    if not isinstance(data, dict) or data.get("version") != SETTINGS_VERSION:
        return StudioSettings()
    s = StudioSettings()
    for f in dataclasses.fields(StudioSettings):
        v = data.get(f.name)
        default = getattr(s, f.name)
        if isinstance(v, type(default)) and not (isinstance(default, list) and not all(isinstance(x, str) for x in v)):
            setattr(s, f.name, v)
    return s


def save_settings(folder: Path, settings: StudioSettings) -> None:
    """Write the settings atomically."""
    write_json_atomic(folder / FILE_NAME, dataclasses.asdict(settings))
