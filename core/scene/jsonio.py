"""Reading JSON with located errors and writing files atomically (temporary file + rename)."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from .problems import InputError, Problem


def _reject_constant(name: str) -> float:
    # JSON has no NaN or Infinity; Python's parser accepts them, so they are turned into a marker the
    # validators report with their JSON path.
    return float("nan") if name == "NaN" else (float("inf") if name == "Infinity" else float("-inf"))


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file; malformed JSON raises InputError naming line and column."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {p}")]) from None
    except IsADirectoryError:
        raise InputError([Problem("", f"{p} is a directory, not a file")]) from None
    except UnicodeDecodeError as e:
        raise InputError([Problem("", f"not UTF-8 text (byte {e.start})")], str(p)) from None
    except OSError as e:
        raise InputError([Problem("", f"cannot read {p}: {e.strerror}")]) from None
    return parse_json_text(text, str(p))


def parse_json_text(text: str, source: str = "") -> Any:
    """Parse JSON text; malformed JSON raises InputError naming line and column."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise InputError([Problem("", f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}")], source) from None
    except RecursionError:
        raise InputError([Problem("", "malformed JSON: nested too deeply")], source) from None


def write_json_atomic(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Write JSON to a temporary file beside ``path``, then rename it over ``path``: never a half-written file."""
    p = Path(path)
    text = json.dumps(data, indent=indent, allow_nan=False)
    write_text_atomic(p, text + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write text atomically: a temporary file in the same folder, flushed and fsynced, renamed over ``path``."""
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def is_finite_number(v: Any) -> bool:
    """A JSON number (not a bool) that is finite."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
