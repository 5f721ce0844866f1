"""Reading JSON with located errors and writing files atomically (temporary file + rename)."""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from .atomic import write_text_atomic
from .problems import InputError, Problem


def _reject_constant(name: str) -> float:
    # JSON has no NaN or Infinity; Python's parser accepts them, so they are turned into a marker the
    # validators report with their JSON path.
    return float("nan") if name == "NaN" else (float("inf") if name == "Infinity" else float("-inf"))


# Files larger than this are refused before reading: the largest valid scene (a height field at its 4 million
# nodes) is about 40 MB, and parsing 64 MB of small JSON lists already takes about 1 GB of memory.
MAX_FILE_BYTES = 64 * 1024 * 1024


class _DuplicateKey(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    # A key given twice would silently drop the first value; refuse it instead.
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file; malformed JSON raises InputError naming line and column."""
    return parse_json_text(read_text_bounded(path), str(path))


def read_text_bounded(path: str | os.PathLike, limit: int | None = None) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (default MAX_FILE_BYTES); InputError naming the
    file otherwise (see ``read_bytes_bounded``)."""
    p = Path(path)
    data = read_bytes_bounded(p, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError([Problem("", f"not UTF-8 text (byte {e.start})")], str(p)) from None


def read_bytes_bounded(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (default MAX_FILE_BYTES); InputError naming the
    file otherwise.

    Devices (``/dev/zero``), FIFOs and sockets are refused before they are opened: their size says nothing and
    reading them may never end. The read itself stops one byte past the limit, so a file that grows while it is
    read cannot exhaust the memory either."""
    p = Path(path)
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        st = os.stat(p)
        if stat.S_ISDIR(st.st_mode):
            raise InputError([Problem("", f"{p} is a directory, not a file")])
        if not stat.S_ISREG(st.st_mode):
            raise InputError([Problem("", f"{p} is not a regular file ({_file_kind(st.st_mode)})")])
        if st.st_size > limit:
            raise InputError([Problem("", f"the file is {_size(st.st_size)}, over the limit of {_size(limit)}")],
                             str(p))
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError([Problem("", f"{p} is not a regular file")])
            data = f.read(limit + 1)
        if len(data) > limit:
            raise InputError([Problem("", f"the file grew past the limit of {_size(limit)} while it was read")],
                             str(p))
        return data
    except FileNotFoundError:
        raise InputError([Problem("", f"no such file: {p}")]) from None
    except IsADirectoryError:
        raise InputError([Problem("", f"{p} is a directory, not a file")]) from None
    except OSError as e:
        raise InputError([Problem("", f"cannot read {p}: {e.strerror or e}")]) from None


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n} bytes"


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def parse_json_text(text: str, source: str = "") -> Any:
    """Parse JSON text; malformed JSON raises InputError naming line and column."""
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno}, column {e.colno}"
        raise InputError([Problem("", f"malformed JSON at {where}: {e.msg}")], source) from None
    except RecursionError:
        raise InputError([Problem("", "malformed JSON: nested too deeply")], source) from None
    except _DuplicateKey as e:
        raise InputError([Problem("", f"malformed JSON: the key {json.dumps(str(e.args[0]))} appears twice in "
                                      "one object")], source) from None
    except ValueError as e:
        # Python refuses integers of more than 4300 digits (sys.int_info.str_digits_check_threshold).
        raise InputError([Problem("", f"malformed JSON: {e}")], source) from None


def write_json_atomic(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Write JSON to a temporary file beside ``path``, then rename it over ``path``: never a half-written file."""
    write_text_atomic(Path(path), dumps_readable(data, indent) + "\n")


# An array holding only numbers, laid out one number per line by json.dumps(indent=...). A JSON string cannot
# hold a raw newline, so a match always starts at a structural bracket.
_NUMBER_ARRAY = re.compile(r"\[\n\s*([-+0-9.eE,\s]+?)\n\s*\]")


def dumps_readable(data: Any, indent: int | None = 1) -> str:
    """JSON text with objects indented but arrays of numbers (points, bounds) kept on one line."""
    text = json.dumps(data, indent=indent, allow_nan=False)
    if indent is None:
        return text
    return _NUMBER_ARRAY.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def is_finite_number(v: Any) -> bool:
    """A JSON number (not a bool) that is finite as a float."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False
