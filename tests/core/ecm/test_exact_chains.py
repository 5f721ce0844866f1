"""The exact backend's chain walk (``exact._chains``): the diagram's free edges split into chains between vertices of
degree != 2, checked on random multigraphs (self-loops, closed loops, parallel edges) against the walk's definition
and against a plain Python walk over adjacency lists."""

import numpy as np
import pytest

from core.ecm.exact import _chains


def _reference(n_vert, start, end):
    """The walk written out over Python lists: every vertex of degree 1 or >= 3 in turn, its edges in the order of k
    (forward before backward), then the closed loops from their lowest edge."""
    deg = np.bincount(np.concatenate([start, end]), minlength=n_vert)
    out = [[] for _ in range(n_vert)]
    for k, (a, b) in enumerate(zip(start.tolist(), end.tolist())):
        out[a].append(k)
        out[b].append(~k)
    done = [False] * len(start)

    def walk(step):
        steps = [step]
        while True:
            k = step if step >= 0 else ~step
            done[k] = True
            v = end[k] if step >= 0 else start[k]
            if deg[v] != 2:
                return steps
            nxt = [s for s in out[v] if not done[s if s >= 0 else ~s]]
            if not nxt:
                return steps
            step = nxt[0]
            steps.append(step)

    chains = []
    for v in range(n_vert):
        if deg[v] not in (0, 2):
            for step in out[v]:
                if not done[step if step >= 0 else ~step]:
                    chains.append(walk(step))
    for k in range(len(start)):
        if not done[k]:
            chains.append(walk(k))
    return chains


@pytest.mark.parametrize("seed", range(40))
def test_chains_on_random_multigraphs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    m = int(rng.integers(1, 60))
    start = rng.integers(0, n, m)
    end = rng.integers(0, n, m)
    if seed % 4 == 0:
        # A closed loop of degree-2 vertices beside the rest.
        ring = np.arange(n, n + 5)
        start = np.concatenate([start, ring])
        end = np.concatenate([end, np.roll(ring, -1)])
        n += 5
    steps, lengths, deg = _chains(n, start, end)
    assert np.array_equal(deg, np.bincount(np.concatenate([start, end]), minlength=n))
    assert lengths.sum() == len(steps) == len(start)
    k = np.where(steps >= 0, steps, ~steps)
    assert np.array_equal(np.sort(k), np.arange(len(start)))  # every edge exactly once
    head = np.where(steps >= 0, start[k], end[k])
    tail = np.where(steps >= 0, end[k], start[k])
    at = 0
    for c in lengths.tolist():
        h, t = head[at:at + c], tail[at:at + c]
        assert np.array_equal(t[:-1], h[1:])  # consecutive steps join
        assert np.all(deg[t[:-1]] == 2)  # only degree-2 vertices inside a chain
        closed_loop = deg[h[0]] == 2
        assert closed_loop == (deg[t[-1]] == 2)
        if closed_loop:
            assert t[-1] == h[0]
        at += c
    ref = _reference(n, start, end)
    assert [s for ch in ref for s in ch] == steps.tolist()
    assert [len(ch) for ch in ref] == lengths.tolist()
