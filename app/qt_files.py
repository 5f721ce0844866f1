"""File handling: new, open, save, save as (atomic), recent files, the unsaved-changes prompt, autosave to a
recovery file and the recovery offer after a crash."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from core.scene import InputError, Scene, load_scene, save_scene
from core.scene.atomic import remove_stale_temps

from . import qt_dialogs as dialogs
from .model import Document
from .paths import autosave_interval_ms, scenes_dir
from .recovery import RecoveryStore
from .settings import StudioSettings, save_settings

DEBOUNCE_MS = 3000  # autosave this long after the last edit, besides the periodic autosave


class QtFileController(QtCore.QObject):
    """Loads and saves the document; ``loaded`` fires after a scene was opened or created, ``recent_changed``
    when the recent-files list changed."""

    loaded = QtCore.Signal()
    recent_changed = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget, doc: Document, stack: QtGui.QUndoStack,
                 settings: StudioSettings, config: Path) -> None:
        super().__init__(parent)
        self.window = parent
        self.doc = doc
        self.stack = stack
        self.settings = settings
        self.config = config
        # Temporary files of writes killed in an earlier session (settings; the recovery store sweeps its own).
        remove_stale_temps(config)
        self.recovery = RecoveryStore(config)
        self._autosaved_index: int | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(autosave_interval_ms())
        self.timer.timeout.connect(self.autosave)
        self.timer.start()
        self.debounce = QtCore.QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(min(DEBOUNCE_MS, autosave_interval_ms()))
        self.debounce.timeout.connect(self.autosave)
        stack.indexChanged.connect(self._edited)
        stack.cleanChanged.connect(self._clean_changed)

    # -- state -------------------------------------------------------------------------------------------------

    def is_dirty(self) -> bool:
        return not self.stack.isClean()

    def display_name(self) -> str:
        return self.doc.path.name if self.doc.path is not None else self.doc.scene.name or "Untitled"

    def maybe_save(self) -> bool:
        """Before the scene is closed: True when it may go (saved, unchanged, or the user discards changes)."""
        if not self.is_dirty():
            return True
        answer = dialogs.ask_unsaved(self.window, self.display_name())
        if answer == "save":
            return self.save()
        return answer == "discard"

    # -- new / open --------------------------------------------------------------------------------------------

    def new_scene(self, name: str = "Untitled", width: float = 200.0, height: float = 200.0,
                  prompt: bool = True) -> bool:
        """Start an empty scene (after the unsaved-changes prompt)."""
        if prompt and not self.maybe_save():
            return False
        self._load(Scene.empty(width, height, name), None)
        return True

    def new_dialog(self) -> bool:
        if not self.maybe_save():
            return False
        params = dialogs.ask_new_scene(self.window)
        if params is None:
            return False
        return self.new_scene(*params, prompt=False)

    def open_dialog(self) -> bool:
        if not self.maybe_save():
            return False
        folder = str(self.doc.path.parent) if self.doc.path is not None else str(scenes_dir())
        path = dialogs.ask_open_path(self.window, folder)
        if path is None:
            return False
        return self.open_path(path, prompt=False)

    def open_path(self, path: str | Path, prompt: bool = True) -> bool:
        """Open a scene file; a bad file shows every problem the validator found and changes nothing."""
        if prompt and not self.maybe_save():
            return False
        remove_stale_temps(Path(path).parent, Path(path).name)  # left by a save of this file that was killed
        try:
            scene = load_scene(path)
        except InputError as e:
            n = len(e.problems)
            dialogs.show_problems(self.window, "Cannot open scene",
                                  f"{Path(path).name} is not a valid MIRAN scene: {n} problem{'s' if n != 1 else ''}.",
                                  [str(p) for p in e.problems])
            return False
        self._load(scene, Path(path))
        self.settings.add_recent(path)
        self._save_settings()
        self.recent_changed.emit()
        return True

    def _load(self, scene: Scene, path: Path | None, dirty: bool = False) -> None:
        self.doc.set_scene(scene, path)
        self.stack.clear()
        self.stack.setClean()
        if dirty:
            self.stack.resetClean()
        self._autosaved_index = None
        if not dirty:
            self._clear_recovery()
        self.loaded.emit()

    # -- save --------------------------------------------------------------------------------------------------

    def save(self) -> bool:
        """Save to the open file; a new scene, or one shipped with the app, asks where (Save As)."""
        if self.doc.path is None or _inside(self.doc.path.parent, scenes_dir()):
            return self.save_as()
        return self._write(self.doc.path)

    def suggested_path(self) -> Path:
        """Where Save As proposes to write: beside the open file, except that a scene shipped with the app (its
        scenes folder) is never proposed for overwriting: then the last folder the user saved to or opened from
        outside it, else the documents folder, else the home folder."""
        name = self.doc.path.name if self.doc.path is not None else \
            f"{(self.doc.scene.name or 'scene').lower().replace(' ', '_')}.json"
        folder = self.doc.path.parent if self.doc.path is not None else None
        if folder is None or _inside(folder, scenes_dir()):
            folder = self._user_folder()
        return folder / name

    def _user_folder(self) -> Path:
        for p in self.settings.recent_files:
            parent = Path(p).parent
            if parent.is_dir() and not _inside(parent, scenes_dir()):
                return parent
        docs = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(docs) if docs and Path(docs).is_dir() else Path.home()

    def save_as(self) -> bool:
        path = dialogs.ask_save_path(self.window, str(self.suggested_path()))
        if path is None:
            return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        try:
            save_scene(self.doc.scene, path)
        except (OSError, ValueError) as e:
            dialogs.show_problems(self.window, "Cannot save scene", f"Saving to {path} failed; nothing was written.",
                                  [str(e)])
            return False
        self.doc.set_path(path)
        self.stack.setClean()
        self._clear_recovery()
        self.settings.add_recent(path)
        self._save_settings()
        self.recent_changed.emit()
        return True

    # -- recent files ------------------------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        return list(self.settings.recent_files)

    def clear_recent(self) -> None:
        self.settings.recent_files = []
        self._save_settings()
        self.recent_changed.emit()

    def _save_settings(self) -> None:
        try:
            save_settings(self.config, self.settings)
        except OSError:
            pass  # settings are a convenience: failing to store them never interrupts editing

    # -- autosave and recovery ---------------------------------------------------------------------------------

    def autosave(self) -> bool:
        """Write the unsaved scene to this session's recovery file (in a thread: the scene is an immutable
        snapshot); True when a write was started."""
        if not self.is_dirty() or self._autosaved_index == self.stack.index():
            return False
        self._autosaved_index = self.stack.index()
        scene, source = self.doc.scene, (str(self.doc.path) if self.doc.path else None)
        self.wait_autosave()
        self._thread = threading.Thread(target=self._write_recovery, args=(scene, source), daemon=True)
        self._thread.start()
        return True

    def _write_recovery(self, scene: Scene, source: str | None) -> None:
        with self._lock:
            try:
                self.recovery.write(scene, source)
            except (OSError, ValueError):
                pass  # a failed autosave is retried at the next interval

    def wait_autosave(self) -> None:
        """Wait for an autosave in progress to finish."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _clear_recovery(self) -> None:
        self.wait_autosave()
        with self._lock:
            self.recovery.clear()

    def _edited(self, index: int) -> None:
        self.debounce.start()

    def _clean_changed(self, clean: bool) -> None:
        if clean:
            self._autosaved_index = None
            self._clear_recovery()

    def offer_recovery(self) -> bool:
        """Offer the work of sessions that ended without closing; True when one was recovered. Damaged recovery
        files are set aside and listed once in a non-modal dialog."""
        orphans = self.recovery.orphans()
        if self.recovery.set_aside:
            dialogs.show_problems(self.window, "Damaged recovery files",
                                  "These recovery files could not be read and were renamed (set aside):",
                                  [f"{p}: {why}" for p, why in self.recovery.set_aside])
            self.recovery.set_aside.clear()
        for rf in orphans:
            if not dialogs.ask_recover(self.window, rf):
                RecoveryStore.discard(rf)
                continue
            try:
                scene = RecoveryStore.load(rf)
            except InputError as e:
                dialogs.show_problems(self.window, "Cannot recover", "The recovery file is damaged.",
                                      [str(p) for p in e.problems])
                RecoveryStore.discard(rf)
                continue
            self._load(scene, Path(rf.source) if rf.source else None, dirty=True)
            self.autosave()
            self.wait_autosave()
            RecoveryStore.discard(rf)
            return True
        return False

    def shutdown(self) -> None:
        """The window closes for good: stop autosaving and remove this session's recovery file."""
        self.timer.stop()
        self.debounce.stop()
        self._clear_recovery()


def _inside(folder: Path, root: Path) -> bool:
    """Whether ``folder`` is ``root`` or lies under it (both resolved)."""
    try:
        folder.resolve().relative_to(root.resolve())
        return True
    except (OSError, ValueError):
        return False
