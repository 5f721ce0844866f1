"""core.jitfaster: numba's flags hash and compare, and its error fragments read, exactly as numba's own code has
them, on flags and messages generated at random; and the replacements are in place on the pinned numba."""

from __future__ import annotations

import itertools
import random

from numba.core import errors, targetconfig
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
