"""Typed field readers for JSON documents: each returns the value or records a Problem at its JSON path."""

from __future__ import annotations

import itertools
import json
import math
import re
import reprlib
from typing import Any

import numpy as np

from .problems import Problem, fmt_point

# Coordinates beyond this magnitude are refused: geometry predicates lose all precision long before float overflow.
MAX_COORD = 1e9
# A list with thousands of bad points gets this many located messages and one summary.
MAX_REPORTED_POINTS = 10

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother = 2, 4, 4, 30, 30


class FieldReader:
    """Collects problems while reading a JSON document; every reader returns None where the value is bad."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        """Record one problem."""
        self.problems.append(Problem(path, message))

    def obj(self, path: str, v: Any, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict | None:
        """A JSON object with exactly these keys allowed; missing and unknown keys are problems."""
        if not isinstance(v, dict):
            self.add(path, f"expected an object, got {type_name(v)}")
            return None
        for k in required:
            if k not in v:
                self.add(join(path, k), "missing required field")
        allowed = set(required) | set(optional)
        for k in v:
            if k not in allowed:
                self.add(join(path, k), f"unknown field (allowed: {', '.join(sorted(allowed))})")
        return v

    def list_(self, path: str, v: Any, min_len: int = 0) -> list | None:
        """A JSON array of at least ``min_len`` items."""
        if not isinstance(v, list):
            self.add(path, f"expected a list, got {type_name(v)}")
            return None
        if len(v) < min_len:
            self.add(path, f"expected at least {min_len} items, got {len(v)}")
            return None
        return v

    def string(self, path: str, v: Any, nonempty: bool = True) -> str | None:
        """A JSON string; blank strings are refused unless ``nonempty`` is False."""
        if not isinstance(v, str):
            self.add(path, f"expected a string, got {type_name(v)}")
            return None
        if nonempty and not v.strip():
            self.add(path, "must not be empty")
            return None
        bad = lone_surrogate(v)
        if bad is not None:
            self.add(path, f"holds a lone surrogate {ascii(v[bad])} at character {bad}, which no text file can "
                           "hold (not valid Unicode)")
            return None
        return v

    def choice(self, path: str, v: Any, options: tuple[str, ...]) -> str | None:
        """A string from a fixed set; the message lists the valid ones."""
        s = self.string(path, v)
        if s is not None and s not in options:
            self.add(path, f"unknown value {short(s)} (valid: {', '.join(options)})")
            return None
        return s

    def number(self, path: str, v: Any, positive: bool = False, nonnegative: bool = False) -> float | None:
        """A finite JSON number as float; ``positive`` / ``nonnegative`` restrict its sign."""
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.add(path, f"expected a number, got {type_name(v)}")
            return None
        f = as_float(v)
        if f is None:
            self.add(path, f"must be a finite number, got {short(v)}")
            return None
        v = f
        if positive and v <= 0:
            self.add(path, f"must be positive, got {v:g}")
            return None
        if nonnegative and v < 0:
            self.add(path, f"must not be negative, got {v:g}")
            return None
        return float(v)

    def integer(self, path: str, v: Any) -> int | None:
        """A JSON integer (``2.0`` counts, as in JSON Schema)."""
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                return int(v)
            self.add(path, f"expected an integer, got {type_name(v)}")
            return None
        return v

    def point(self, path: str, v: Any) -> tuple[float, float] | None:
        """A point ``[x, y]`` of finite coordinates no larger than MAX_COORD in magnitude."""
        if not isinstance(v, list) or len(v) != 2:
            self.add(path, f"expected a point [x, y], got {short(v)}")
            return None
        xy: list[float] = []
        for c in v:
            f = as_float(c) if is_number(c) else None
            if f is None:
                what = "finite numbers" if is_number(c) else "numbers"
                self.add(path, f"point coordinates must be {what}, got {short(c)}")
                return None
            if abs(f) > MAX_COORD:
                self.add(path, f"coordinate {f:g} is beyond the limit of +/-{MAX_COORD:g}")
                return None
            xy.append(f)
        return (xy[0], xy[1])

    def points(self, path: str, v: Any, min_len: int) -> list[tuple[float, float]] | None:
        """A list of at least ``min_len`` points; at most a few bad points are reported per list."""
        lst = self.list_(path, v)
        if lst is None:
            return None
        fast = _all_good_points(lst)
        if fast is not None:
            if len(fast) < min_len:
                self.add(path, f"expected at least {min_len} points, got {len(fast)}")
                return None
            return fast
        pts: list[tuple[float, float]] = []
        bad = 0
        for i, p in enumerate(lst):
            n = len(self.problems)
            q = self.point(f"{path}[{i}]", p)
            if q is None:
                bad += 1
                if bad > MAX_REPORTED_POINTS:
                    del self.problems[n:]
            else:
                pts.append(q)
        if bad > MAX_REPORTED_POINTS:
            self.add(path, f"{bad} bad points in all ({MAX_REPORTED_POINTS} shown)")
        if bad:
            return None
        if len(pts) < min_len:
            self.add(path, f"expected at least {min_len} points, got {len(pts)}")
            return None
        return pts


def _all_good_points(lst: list) -> list[tuple[float, float]] | None:
    """The points of a list when every item is a good ``[x, y]`` (checked in bulk), else None to check one by one."""
    if not all(type(p) is list and len(p) == 2 for p in lst):
        return None
    flat = list(itertools.chain.from_iterable(lst))
    if not set(map(type, flat)) <= {int, float}:
        return None
    try:
        a = np.array(flat, dtype=np.float64)
    except OverflowError:
        return None
    if not np.isfinite(a).all() or (len(a) and np.abs(a).max() > MAX_COORD):
        return None
    return list(zip(a[0::2].tolist(), a[1::2].tolist()))


def lone_surrogate(s: str) -> int | None:
    """Index of the first lone surrogate in ``s`` (JSON's ``"\\ud800"`` escape reads as one), or None."""
    try:
        s.encode("utf-8")
        return None
    except UnicodeEncodeError as e:
        return e.start


def join(path: str, key: str) -> str:
    """The JSON path of a key inside an object: ``a.b``, or ``a["odd key"]`` when the key is not a plain name."""
    if not _PLAIN_KEY.match(key):
        return f'{path}[{json.dumps(key)}]'
    return f"{path}.{key}" if path else key


def is_number(v: Any) -> bool:
    """A JSON number: int or float but not bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def as_float(v: Any) -> float | None:
    """A JSON number as a finite float, or None (NaN, infinities, integers too large for a float)."""
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def type_name(v: Any) -> str:
    """How a message names a value's JSON type: ``a list``, ``the string 'x'``."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {short(v)}"
    if isinstance(v, str):
        return f"the string {short(v)}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def short(v: Any, n: int = 40) -> str:
    """A bounded repr for messages: cheap even for huge or deeply nested values."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return f"an integer of about {int(v.bit_length() * 0.30103)} digits"
    s = _REPR.repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


__all__ = ["FieldReader", "MAX_COORD", "as_float", "fmt_point", "is_number", "join", "short", "type_name"]
