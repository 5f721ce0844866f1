"""The output rule every command and the app follow before any work: an output never names an input, two outputs of
one command never name the same file, a name derived from data never leaves its folder, and each output can be
written (``core.scene.atomic.destination_problem``).

Two paths name the same file when they resolve to the same path (symbolic links followed, ``..`` collapsed, case
folded where the system folds it) or, when both exist, when they are the same file on disk (``os.path.samefile``:
the same device and inode, which catches hard links and a folder reached twice through a bind mount).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, Sequence

from .atomic import destination_problem

# Characters a name derived from data (a table column, a spec's name) keeps in a file name; others become "_".
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")
# The longest file name a derived name gives (most file systems allow 255 bytes).
MAX_DERIVED_NAME = 120


def resolved(path: str | os.PathLike) -> str:
    """The absolute path with links followed as far as they exist and case folded where the system folds it."""
    return os.path.normcase(os.path.realpath(os.fspath(path)))


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or (both existing) the same inode."""
    try:
        if resolved(a) == resolved(b):
            return True
    except (OSError, ValueError):
        pass
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def inside(folder: str | os.PathLike, path: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside ``folder`` once both are resolved (links followed)."""
    f, p = resolved(folder), resolved(path)
    return p != f and os.path.commonpath([f, p]) == f


def safe_name(text: str, fallback: str = "out") -> str:
    """``text`` as one file name that stays in its folder: every character but letters, digits and ``._+-``
    replaced by ``_``, no leading dot, at most MAX_DERIVED_NAME characters."""
    name = _SAFE.sub("_", str(text)).lstrip(".")[:MAX_DERIVED_NAME]
    return name or fallback


def derived_path(folder: str | os.PathLike, name: str) -> Path:
    """``folder / name`` for a name derived from data; ValueError when it would not be a file directly inside
    ``folder`` (a separator, ``..``, an absolute path or a link that leads out)."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name or os.path.isabs(name):
        raise ValueError(f"{name!r} is not a file name")
    p = Path(folder) / name
    if not inside(folder, p) or resolved(p.parent) != resolved(folder):
        raise ValueError(f"{name!r} leads out of {folder}")
    return p


def output_problems(outputs: Sequence[tuple[str, str | os.PathLike | None]],
                    inputs: Iterable[tuple[str, str | os.PathLike | None]] = (),
                    writable: bool = True) -> list[tuple[str, str]]:
    """(label, message) for each output that names an input, names another output or (``writable``) cannot be
    written.

    ``outputs`` and ``inputs`` are (label, path) pairs (the option or field naming the path); None paths are
    left out. Nothing is created (the writability check makes and removes one temporary file)."""
    outs = [(label, p) for label, p in outputs if p is not None and os.fspath(p) != ""]
    ins = [(label, p) for label, p in inputs if p is not None and os.fspath(p) != ""]
    problems: list[tuple[str, str]] = []
    for i, (label, p) in enumerate(outs):
        clash = next((il for il, ip in ins if same_file(p, ip)), None)
        if clash is not None:
            problems.append((label, f"{p} is the input {clash}: an output never replaces an input "
                                    "(write it under another name)"))
            continue
        twin = next((ol for ol, op in outs[:i] if same_file(p, op)), None)
        if twin is not None:
            problems.append((label, f"{p} is also the output of {twin}: two outputs of one command never name "
                                    "the same file"))
            continue
        msg = destination_problem(p) if writable else None
        if msg:
            problems.append((label, msg))
    return problems


__all__ = ["MAX_DERIVED_NAME", "derived_path", "inside", "output_problems", "resolved", "safe_name", "same_file"]
