"""Typed field readers for JSON documents: each returns the value or records a Problem at its JSON path."""

from __future__ import annotations

import math
from typing import Any

from .jsonio import is_finite_number
from .problems import Problem, fmt_point

MISSING = object()


class FieldReader:
    """Collects problems while reading a JSON document; every reader returns None where the value is bad."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
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
        if not isinstance(v, list):
            self.add(path, f"expected a list, got {type_name(v)}")
            return None
        if len(v) < min_len:
            self.add(path, f"expected at least {min_len} items, got {len(v)}")
            return None
        return v

    def string(self, path: str, v: Any, nonempty: bool = True) -> str | None:
        if not isinstance(v, str):
            self.add(path, f"expected a string, got {type_name(v)}")
            return None
        if nonempty and not v.strip():
            self.add(path, "must not be empty")
            return None
        return v

    def choice(self, path: str, v: Any, options: tuple[str, ...]) -> str | None:
        s = self.string(path, v)
        if s is not None and s not in options:
            self.add(path, f"unknown value {s!r} (valid: {', '.join(options)})")
            return None
        return s

    def number(self, path: str, v: Any, positive: bool = False, nonnegative: bool = False) -> float | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.add(path, f"expected a number, got {type_name(v)}")
            return None
        if not math.isfinite(v):
            self.add(path, f"must be a finite number, got {v}")
            return None
        if positive and v <= 0:
            self.add(path, f"must be positive, got {v:g}")
            return None
        if nonnegative and v < 0:
            self.add(path, f"must not be negative, got {v:g}")
            return None
        return float(v)

    def integer(self, path: str, v: Any) -> int | None:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                return int(v)
            self.add(path, f"expected an integer, got {type_name(v)}")
            return None
        return v

    def point(self, path: str, v: Any) -> tuple[float, float] | None:
        if not isinstance(v, list) or len(v) != 2:
            self.add(path, f"expected a point [x, y], got {short(v)}")
            return None
        if not all(is_finite_number(c) for c in v):
            bad = [c for c in v if not is_finite_number(c)]
            self.add(path, f"point coordinates must be finite numbers, got {short(bad[0])}")
            return None
        return (float(v[0]), float(v[1]))

    def points(self, path: str, v: Any, min_len: int) -> list[tuple[float, float]] | None:
        lst = self.list_(path, v)
        if lst is None:
            return None
        pts = [self.point(f"{path}[{i}]", p) for i, p in enumerate(lst)]
        if any(p is None for p in pts):
            return None
        if len(pts) < min_len:
            self.add(path, f"expected at least {min_len} points, got {len(pts)}")
            return None
        return pts


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {v}"
    if isinstance(v, str):
        return f"the string {short(v)}"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def short(v: Any, n: int = 40) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


__all__ = ["FieldReader", "join", "fmt_point", "MISSING"]
