"""Changes to numba's compiler that make a cold compile cheaper and leave what it compiles the same.

numba's front end spends much of a cold start in bookkeeping around typing, not in typing itself. Three such costs
are removed here; none changes what numba compiles, so no kernel's IR changes:

- ``compare_flags_faster``: numba keeps each overload's implementation (``np.empty``, ``min``, ...) in a cache keyed
  by the compile's flags, and a flags object hashed and compared itself by building a dict of its 40 options each
  time, a few hundred thousand times on a cold start. Its hash was always that of its options' names (the sorted
  keys of that dict), so it is computed once per flags class; two flags compare option by option, without
  building the dicts.
- ``markup_without_console``: typing a call tries several templates, and each failed try builds its error message.
  Each highlighted fragment of that message initialised and released colorama's console wrappers of
  ``sys.stdout`` and ``sys.stderr``, which do not change the fragment's text.
- ``collect_less_while_compiling``: a compile makes millions of Python objects, and Python's collector walked every
  object the process holds (the full collection) about every 70,000 of them, a sizeable share of a cold start
  (docs: Decisions). While numba compiles, the full collection waits; the young generations are collected as usual,
  and so is everything once the compile ends.

The first two are for the numba that pyproject pins, and each checks that the code it replaces is the one it was
written against before replacing it; the third listens to numba's own "numba:compile" event.
"""

from __future__ import annotations

import gc
from typing import Any

from numba.core import errors, event, targetconfig

_TargetConfig: Any = targetconfig.TargetConfig
_flag_hashes: dict[type, int] = {}
# numba's own functions that were replaced, by role, for the tests that compare the replacements with them.
_numba_own: dict[str, Any] = {}


def _values(self: Any) -> dict[str, Any]:
    get = self._values.get
    return {name: get(name, option.default) for name, option in self.options.items()}


def _hash(self: Any) -> int:
    cls = type(self)
    h = _flag_hashes.get(cls)
    if h is None:
        h = _flag_hashes[cls] = hash(tuple(sorted(self.options)))
    return h


def _eq(self: Any, other: Any) -> bool:
    if self is other:
        return True
    if not isinstance(other, _TargetConfig):
        return NotImplemented
    options = self.options
    if options is not other.options:
        return _values(self) == _values(other)
    mine, theirs = self._values, other._values
    if mine == theirs:
        return True
    for name, option in options.items():
        a, b = mine.get(name, option.default), theirs.get(name, option.default)
        if not (a is b or a == b):  # as a dict comparison compares its values
            return False
    return True


def compare_flags_faster() -> None:
    """Give numba's flags (``TargetConfig``) the hash and comparison above; idempotent."""
    cls: Any = targetconfig.TargetConfig
    if cls.__eq__ is _eq:
        return
    source = (cls.__hash__.__code__.co_names, cls.__eq__.__code__.co_names)
    if source != (("hash", "tuple", "sorted", "values"), ("isinstance", "TargetConfig", "values", "NotImplemented")):
        return  # not the numba these were written against: keep its own
    _numba_own.update(values=cls.values, hash=cls.__hash__, eq=cls.__eq__)
    cls.values = _values
    cls.__hash__ = _hash
    cls.__eq__ = _eq


def markup_without_console() -> None:
    """Make numba's highlighted error fragments without colorama's console set-up (module docstring); idempotent.
    Nothing to do where numba highlights nothing (colorama missing, or highlighting switched off)."""
    scheme: Any = getattr(errors, "HighlightColorScheme", None)
    if scheme is None or getattr(scheme._markup, "without_console", False):
        return
    if scheme._markup.__code__.co_names != ("ColorShell", "reset_terminal", "encode", "decode"):
        return  # not the numba this was written against: keep its own
    codes: Any = errors.Style  # type: ignore[attr-defined]  # colorama's, as numba imported it

    def _markup(self: Any, msg: str, color: str | None = None, style: str | None = codes.BRIGHT) -> str:
        # What numba's returns: the colour and style codes, the text, and the code that resets them.
        return f"{color or ''}{style or ''}{msg}{codes.RESET_ALL}"

    _markup.without_console = True  # type: ignore[attr-defined]
    _numba_own["markup"] = scheme._markup
    scheme._markup = _markup


#: While numba compiles, a full collection waits for this many collections of the middle generation (Python's own
#: threshold is 10).
FULL_COLLECTION_WAITS = 10_000


class _FullCollectionWaits(event.Listener):
    """Raises the collector's third threshold from the start of an outermost compile to its end (numba broadcasts
    "numba:compile" for a kernel and, nested, for each callee it compiles; under numba's compiler lock, so one
    thread at a time)."""

    def __init__(self) -> None:
        self.depth = 0
        self.saved: tuple[int, int, int] | None = None

    def on_start(self, ev: Any) -> None:
        self.depth += 1
        if self.depth == 1:
            self.saved = gc.get_threshold()
            gc.set_threshold(self.saved[0], self.saved[1], FULL_COLLECTION_WAITS)

    def on_end(self, ev: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None


_listener: list[_FullCollectionWaits] = []


def collect_less_while_compiling() -> None:
    """Hold the full collection back while numba compiles (module docstring); idempotent."""
    if not _listener:
        _listener.append(_FullCollectionWaits())
        event.register("numba:compile", _listener[0])
