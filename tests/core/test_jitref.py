"""core.jitref: a tuple of arrays passed by reference reads back as the same arrays, writes reach the caller's
arrays, and no reference count moves, whether the reading kernel counts references or not, and from a parallel
loop's body."""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
from numba import prange

from core.jitcache import jit
from core.jitref import by_ref, deref

Pair = namedtuple("Pair", ["a", "b"])


@jit(noalloc=True)
def _bump_noalloc(ref, i):
    a, b = deref(ref)
    a[i] += b.b[i]
    return a.shape[0] + b.a.shape[0]


@jit
def _bump_counted(ref, i):
    a, b = deref(ref)
    a[i] += b.b[i]
    return a.sum()


@jit(noalloc=True)
def _through_noalloc(t, n):
    ref = by_ref(t)
    s = 0
    for i in range(n):
        s += _bump_noalloc(ref, i % t[0].shape[0])
    return s


@jit
def _through_counted(t, n):
    ref = by_ref(t)
    s = 0.0
    for i in range(n):
        s = _bump_counted(ref, i % t[0].shape[0])
    return s


@jit(parallel=True)
def _through_parallel(t, out):
    ref = by_ref(t)
    for j in prange(out.shape[0]):
        out[j] = _bump_noalloc(ref, j)


def _inputs():
    a = np.zeros(4)
    pair = Pair(np.arange(3.0), np.array([1.0, 2.0, 3.0, 4.0]))
    return a, pair, (a, pair)


def test_a_kernel_reads_and_writes_the_callers_arrays_through_a_reference():
    a, pair, t = _inputs()
    assert _through_noalloc(t, 8) == 8 * (4 + 3)
    np.testing.assert_array_equal(a, 2 * pair.b)


def test_no_reference_count_moves_with_or_without_counting():
    a, pair, t = _inputs()
    before = [sys.getrefcount(x) for x in (a, pair.a, pair.b)]
    for _ in range(200):
        _through_counted(t, 4)
        _through_noalloc(t, 4)
    assert [sys.getrefcount(x) for x in (a, pair.a, pair.b)] == before
    np.testing.assert_array_equal(a, 400 * pair.b)
    assert _through_counted(t, 4) == (401 * pair.b).sum()


def test_a_parallel_loops_body_reads_through_a_reference():
    a, pair, t = _inputs()
    out = np.zeros(4, dtype=np.int64)
    _through_parallel(t, out)
    np.testing.assert_array_equal(out, 7)
    np.testing.assert_array_equal(a, pair.b)

