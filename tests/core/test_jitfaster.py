"""core.jitfaster: numba's flags hash and compare, and its error fragments read, exactly as numba's own code has
them, on flags and messages generated at random; the replacements are in place on the pinned numba; and the full
collection waits while a kernel and its callees compile, and only then."""

from __future__ import annotations

import gc
import itertools
import random

import numba
import pytest
from numba.core import errors, event, targetconfig
from numba.core.compiler import Flags

from core import jitcache, jitfaster  # noqa: F401  (jitcache installs jitfaster's changes)


def _random_flags(rng: random.Random) -> Flags:
    f = Flags()
    for name, option in Flags.options.items():
        if option.type is bool and rng.random() < 0.15:
            setattr(f, name, rng.random() < 0.5)
    if rng.random() < 0.3:
        f.nrt = True  # set to its default: equal to unset, though stored
    return f


def test_the_replacements_are_installed():
    assert targetconfig.TargetConfig.__eq__ is jitfaster._eq
    assert targetconfig.TargetConfig.__hash__ is jitfaster._hash
    assert getattr(errors.HighlightColorScheme._markup, "without_console", False)


def test_flags_hash_and_compare_as_numba_does():
    own = jitfaster._numba_own
    rng = random.Random(20261130)
    flags = [_random_flags(rng) for _ in range(60)] + [Flags(), Flags()]
    flags += [Flags(copy_from=f) for f in flags[:10]]
    for f in flags:
        assert jitfaster._values(f) == own["values"](f) == {k: getattr(f, k) for k in Flags.options}
        assert hash(f) == own["hash"](f)
    equal = 0
    for a, b in itertools.product(flags, repeat=2):
        assert (a == b) == own["eq"](a, b)
        equal += a == b
    assert equal > len(flags)  # the pairs include equal flags that are not the same object
    assert (flags[0] == 3) is False and (flags[0] != "x") is True


def test_error_fragments_read_as_numba_makes_them():
    own = jitfaster._numba_own["markup"]
    scheme = errors.HighlightColorScheme(errors.themes["dark_bg"])
    plain = errors.HighlightColorScheme(errors.themes["no_color"])
    for s in (scheme, plain):
        for msg in ("", "No implementation of function np.empty", "a\\nb é {0} %s"):
            for color in (None, "", errors.Fore.RED):
                assert s._markup(msg, color) == own(s, msg, color)
                assert s._markup(msg, color, style=None) == own(s, msg, color, style=None)
            assert s.errmsg(msg) == own(s, msg, s._errmsg)


class _Thresholds(event.Listener):
    """Records the collector's thresholds at the start of every compile, outermost and nested."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[int, int, int]]] = []

    def on_start(self, ev) -> None:
        self.seen.append((ev.data["dispatcher"].py_func.__name__, gc.get_threshold()))

    def on_end(self, ev) -> None:
        pass


def test_the_full_collection_waits_while_a_kernel_and_its_callees_compile():
    before = gc.get_threshold()
    rng = random.Random()
    k = rng.randrange(1, 10**9)  # a new constant: nothing of it is in any cache

    @numba.njit
    def inner(x):
        return x * k

    @numba.njit
    def outer(x):
        return inner(x) + 1

    @numba.njit
    def broken(x):
        return x.no_such_attribute

    seen = _Thresholds()
    with event.install_listener("numba:compile", seen):
        assert outer(2) == 2 * k + 1
        with pytest.raises(numba.TypingError):
            broken(1)
    assert [name for name, _ in seen.seen] == ["outer", "inner", "broken"]
    for _, t in seen.seen:
        assert t == (before[0], before[1], jitfaster.FULL_COLLECTION_WAITS)
    assert gc.get_threshold() == before  # restored after each compile, also one that failed
