"""A kernel called from another kernel with constant arguments is compiled once, for the arguments' plain types
(core.jitcache): numba would compile one specialisation per distinct constant (``Literal[int](2)``, ...)."""

from __future__ import annotations

from numba.core import types

from core.jitcache import jit


@jit
def _scaled(x, k, flag):
    return x * k if flag else -x


@jit
def _two_constants(x):
    return _scaled(x, 2, True) + _scaled(x, 3, False) + _scaled(x, k=4, flag=True)


def test_constant_arguments_compile_one_specialisation():
    # What a calling kernel's typing asks of its callee, whether the caller is compiled or loaded from the cache.
    for k, flag in ((2, True), (3, False)):
        _scaled.get_call_template((types.float64, types.literal(k), types.literal(flag)), {})
    _scaled.get_call_template((types.float64,), {"k": types.literal(4), "flag": types.literal(True)})
    assert [str(s) for s in _scaled.signatures] == ["(float64, int64, bool)"]
    assert _two_constants(1.5) == 3.0 - 1.5 + 6.0


@jit
def _picked(a, i):
    return a[i]


@jit
def _from_int32_index(a, idx):
    return _picked(a, idx[0]) + _picked(a, idx[1])


def test_a_narrow_integer_argument_compiles_the_int64_specialisation():
    import numpy as np

    # An index read from an int32 array (the triangles') reaches the callee as int64, the type a call from Python
    # gives: one specialisation, and the same value.
    _picked.get_call_template((types.float64[::1], types.int32), {})
    _picked.get_call_template((types.float64[::1], types.int16), {})
    a = np.array([1.5, 2.5, 4.0])
    assert _from_int32_index(a, np.array([2, 0], dtype=np.int32)) == 5.5
    assert _picked(a, 1) == 2.5
    assert [str(s) for s in _picked.signatures] == ["(Array(float64, 1, 'C', False, aligned=True), int64)"]
