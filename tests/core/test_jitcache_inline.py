"""core.jitcache's change to numba's IR inliner (``share_inline_copies``): one copy of a callee's scope per
inlining, for compile time; what the inlined code computes is unchanged (the golden paths files check the engine's
kernels byte for byte)."""

from __future__ import annotations

import numba
import numpy as np
from numba.core import inline_closurecall

from core.jitcache import jit, share_inline_copies


@jit(inline=True)
def _clipped_sum(a, lo, hi):
    """Several blocks (a loop, branches), so that its inlining copies blocks that share a scope."""
    s = 0.0
    for x in a:
        if x < lo:
            s += lo
        elif x > hi:
            s += hi
        else:
            s += x
    return s


def _twice(a, lo, hi):
    return _clipped_sum(a, lo, hi) + _clipped_sum(a[::-1], lo, hi)


def test_the_inliner_shares_one_copy_and_computes_the_same():
    share_inline_copies()                          # idempotent: installed once, at import
    assert inline_closurecall.InlineWorker.inline_ir.shares_copies
    seen = []
    scopes = inline_closurecall._get_all_scopes

    def spy(blocks):
        found = scopes(blocks)
        seen.append(len({id(b.scope) for b in blocks.values()}))
        return found

    inline_closurecall._get_all_scopes = spy
    try:
        a = np.random.default_rng(3).normal(size=200)
        compiled = numba.njit(cache=False)(_twice)           # compiled here, never loaded from a cache
        got = _twice(a, -0.5, 0.5), compiled(a, -0.5, 0.5)
    finally:
        inline_closurecall._get_all_scopes = scopes
    assert np.isclose(got[0], got[1])
    assert len(seen) == 2 and all(k == 1 for k in seen)  # each inlined copy's blocks: one scope object
