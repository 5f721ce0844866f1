"""core.jitref: a tuple of arrays passed by reference reads back as the same arrays, writes reach the caller's
arrays, and no reference count moves, whether the reading kernel counts references or not, and from a parallel
loop's body."""

from __future__ import annotations

import io
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



@jit
def _read_after_allocating(ref):
    a, b = deref(ref)
    junk = np.full(a.shape[0], -1.0)  # allocations that would reuse the tuple's memory had it been freed
    junk2 = np.full(b.shape[0], -2.0)
    return a.sum() + b.sum() + 0.0 * (junk.sum() + junk2.sum())


@jit
def _fresh_tuple_by_ref(n):
    t = (np.ones(n), np.full(n, 2.0))
    return _read_after_allocating(by_ref(t))


def test_a_tuple_made_in_the_kernel_lives_until_the_call_that_reads_it():
    # The tuple's last use is by_ref: numba would free its arrays there, before the call, unless the kernel keeps
    # its variables to the end of their block (core.jitcache does so for every kernel that calls by_ref).
    for n in (8, 1000, 100_000):
        assert _fresh_tuple_by_ref(n) == 3.0 * n
    out = io.StringIO()
    _fresh_tuple_by_ref.inspect_types(file=out)
    lines = [line.strip() for line in out.getvalue().splitlines()]
    callee = next(line.split()[1] for line in lines if "= global(_read_after_allocating" in line)
    read = next(i for i, line in enumerate(lines) if f"= call {callee}(" in line)
    freed = lines.index("#   del t")
    assert freed > read, "the tuple is freed after the call that reads it"
