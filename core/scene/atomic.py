"""Writing files so that nothing is ever lost: atomic replacement, the umask's modes, stale temporaries.

``write_bytes_atomic`` writes a temporary file beside the target, fsyncs it, gives it the mode the target would
get from ``open()`` (the umask's, or the mode of the file it replaces), renames it over the target and fsyncs the
folder so that the rename itself survives a power cut. Temporary files are named
``.NAME.miran-PID-RANDOM-TAG.tmp``: RANDOM is 12 random hex digits and TAG 8 hex digits of a sha256 over the name,
the process id and RANDOM, so that no file a person or another program names, however alike, passes for one of
ours. One whose writer is gone (killed during a save) is stale and removed by the next write of the same name or by
``remove_stale_temps`` on a folder; nothing else is ever removed.

``check_destination`` is what a command calls before a long run: it proves the destination can be written (by
creating and removing a temporary file there), so that a missing or read-only folder is reported at once and not
after the run. ``keep_elsewhere`` saves a finished result that could not be written where asked into a named
file in the system's temporary folder, so the caller can say where it is.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import stat
import tempfile
import time
from pathlib import Path
from typing import Callable

# A temporary file older than this is stale even when its writer's process id is alive (ids are reused).
STALE_SECONDS = 24 * 3600
# A temporary file younger than this is never touched: its writer may be another machine sharing the folder.
FRESH_SECONDS = 60
_TEMP = re.compile(r"^\.(?P<name>.+)\.miran-(?P<pid>\d{1,10})-(?P<rand>[0-9a-f]{12})-(?P<tag>[0-9a-f]{8})\.tmp$")


def _tag(name: str, pid: str, rand: str) -> str:
    return hashlib.sha256(f"miran-temporary\0{name}\0{pid}\0{rand}".encode("utf-8", "surrogatepass")
                          ).hexdigest()[:8]


def temp_name(name: str, pid: int | None = None) -> str:
    """A new temporary file name for a write of the file ``name`` by process ``pid`` (this one by default)."""
    pid_s = str(os.getpid() if pid is None else pid)
    rand = secrets.token_hex(6)
    return f".{name}.miran-{pid_s}-{rand}-{_tag(name, pid_s, rand)}.tmp"


def is_own_temp(name: str) -> bool:
    """Whether a file name is one ``temp_name`` gave (its tag checks out), whatever its age."""
    m = _TEMP.match(name)
    return m is not None and m.group("tag") == _tag(m.group("name"), m.group("pid"), m.group("rand"))


def make_temp(directory: str | os.PathLike, name: str) -> str:
    """Create an empty temporary file for a write of ``name`` in ``directory`` (exclusively, mode 0600) and return
    its path."""
    for _ in range(100):
        tmp = os.path.join(os.fspath(directory), temp_name(name))
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", os.fspath(directory))


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode(path: Path) -> int:
    """The mode a write to ``path`` should leave: the existing file's, or 0666 minus the umask for a new one."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return 0o666 & ~current_umask()


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: either the old file or the whole new one, never a half-written one."""
    write_file_atomic(path, lambda tmp: Path(tmp).write_bytes(data))


def write_file_atomic(path: str | os.PathLike, fill: Callable[[str], object]) -> None:
    """Replace ``path`` atomically with what ``fill(tmp)`` writes to the temporary path it is given (for writers that
    open their own file, as SQLite does); the file then gets its mode, is fsynced, renamed over ``path``, and the
    folder is fsynced."""
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    # Never rename over a device, a pipe or a folder (as root, exporting to /dev/full replaced the device).
    if p.exists() and not p.is_file():
        raise OSError(errno.EEXIST, "exists and is not a regular file", str(p))
    remove_stale_temps(directory, p.name)
    mode = new_file_mode(p)
    tmp = make_temp(directory, p.name)
    try:
        fill(tmp)
        fd = os.open(tmp, os.O_RDWR)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_folder(directory)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 text atomically (see write_bytes_atomic)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def fsync_folder(directory: Path) -> None:
    """Flush a folder's entries (a rename) to disk; a no-op where folders cannot be opened (Windows)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def pid_alive(pid: int) -> bool:
    """Is a process of this id running (or can it not be told: then it counts as running)?"""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError, ValueError):
        return True
    return True


def is_stale_temp(entry: os.DirEntry | Path, now: float | None = None) -> bool:
    """Whether a file is one of our temporaries (``is_own_temp``) left by a writer that is gone."""
    m = _TEMP.match(entry.name)
    if m is None or not is_own_temp(entry.name):
        return False
    try:
        st = os.stat(entry, follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    age = (time.time() if now is None else now) - st.st_mtime
    if age < FRESH_SECONDS:
        return False
    if age > STALE_SECONDS:
        return True
    return not pid_alive(int(m.group("pid")))


def remove_stale_temps(directory: str | os.PathLike, name: str | None = None) -> list[Path]:
    """Remove the stale temporary files in a folder (only those of ``name`` when given); the paths removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(os.fspath(directory)))
    except OSError:
        return removed
    prefix = f".{name}." if name is not None else "."
    for e in entries:
        if e.name.startswith(prefix) and e.name.endswith(".tmp") and is_stale_temp(e):
            if name is not None:
                m = _TEMP.match(e.name)
                if m is None or m.group("name") != name:
                    continue
            try:
                os.unlink(e.path)
                removed.append(Path(e.path))
            except OSError:
                pass
    return removed


def destination_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be written (missing folder, a folder in its place, no permission, read-only or full
    file system), found by creating and removing a temporary file beside it; None when it can."""
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    if p.name in ("", ".", ".."):
        return f"{p} names a folder, not a file"
    try:
        if p.is_dir():
            return f"{p} is a folder, not a file"
        if p.exists() and not p.is_file():
            return f"{p} exists and is not a regular file"
        if not directory.exists():
            return f"the folder {directory} does not exist"
        if not directory.is_dir():
            return f"{directory} is not a folder"
    except OSError as e:
        return f"cannot reach {p}: {e.strerror or e}"
    try:
        tmp = make_temp(directory, p.name)
    except OSError as e:
        return f"cannot write in {directory}: {e.strerror or e}"
    try:
        os.unlink(tmp)
    except OSError:
        pass
    return None


def keep_elsewhere(path: str | os.PathLike, data: bytes) -> Path | None:
    """Save a result that could not be written to ``path`` into a new file in the temporary folder, named after
    it (``miran-NAME-<random>.SUFFIX``); its path, or None when even that fails."""
    p = Path(path)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", p.stem)[:60] or "result"
    try:
        fd, kept = tempfile.mkstemp(prefix=f"miran-{stem}-", suffix=p.suffix if p.suffix.isascii() else "")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(kept, 0o666 & ~current_umask())
    except OSError:
        return None
    return Path(kept)


__all__ = ["current_umask", "destination_problem", "fsync_folder", "is_own_temp", "is_stale_temp", "keep_elsewhere",
           "make_temp", "new_file_mode", "remove_stale_temps", "temp_name", "write_bytes_atomic", "write_file_atomic",
           "write_text_atomic"]
