"""The input file itself: a regular file (or, for OGR formats, a folder such as a FileGDB), read within a limit.

Devices, FIFOs and sockets are refused before they are opened: reading one may never end. The text formats read
into memory (SVG; JSON through ``core.scene.jsonio``) are refused past ``MAX_FILE_BYTES``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from core.scene.jsonio import MAX_FILE_BYTES
from core.scene.problems import InputError, Problem


def check_path(path: str | Path, folder_ok: bool = False) -> Path:
    """``path`` when it is a regular file (or, with ``folder_ok``, a folder); InputError naming it otherwise."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {p}")]) from None
    except OSError as e:
        raise InputError([Problem("", f"cannot read {p}: {e.strerror or e}")]) from None
    if stat.S_ISDIR(st.st_mode):
        if folder_ok:
            return p
        raise InputError([Problem("", f"{p} is a directory, not a file")])
    if not stat.S_ISREG(st.st_mode):
        raise InputError([Problem("", f"{p} is not a regular file (a device, pipe or socket)")])
    return p


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; InputError naming the file otherwise."""
    p = check_path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError([Problem("", f"{p} is not a regular file")])
            data = f.read(limit + 1)
    except OSError as e:
        raise InputError([Problem("", f"cannot read {p}: {e.strerror or e}")]) from None
    if len(data) > limit:
        raise InputError([Problem("", f"the file is over the limit of {limit / 2**20:.0f} MiB")], str(p))
    return data


__all__ = ["check_path", "read_bytes"]
