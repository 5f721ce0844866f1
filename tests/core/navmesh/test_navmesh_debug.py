"""The triangulation overlay's arrays: every free-triangle edge exactly once, against a brute-force edge set."""

import numpy as np
import shapely

from core.navmesh import build_navmesh
from core.navmesh.debug import triangle_edges

from scenegen import random_scene


def test_edges_once_and_constraints_on_the_boundary():
    for seed in (1, 2):
        scene = random_scene(seed)
        m = build_navmesh(scene)
        seg, constrained = triangle_edges(m)
        assert seg.shape == (len(constrained), 4)
        # Brute force: the set of undirected vertex pairs of the free triangles.
        pairs = {frozenset((int(t[k]), int(t[(k + 1) % 3]))) for t in m.triangles for k in range(3)}
        index = {tuple(v): i for i, v in enumerate(m.vertices.tolist())}
        got = [frozenset((index[tuple(s[:2])], index[tuple(s[2:])])) for s in seg.tolist()]
        assert len(got) == len(set(got)) == len(pairs)
        assert set(got) == pairs
        # Edges on the free-space boundary (one triangle only) are constraints.
        count = {}
        for t in m.triangles:
            for k in range(3):
                key = frozenset((int(t[k]), int(t[(k + 1) % 3])))
                count[key] = count.get(key, 0) + 1
        for key, c in zip(got, constrained):
            if count[key] == 1:
                assert c
        # The boundary edges' total length is the free space's perimeter (shapely).
        boundary = np.array([count[key] == 1 for key in got])
        free = shapely.union_all([shapely.Polygon(m.vertices[t]) for t in m.triangles])
        length = np.hypot(seg[boundary, 2] - seg[boundary, 0], seg[boundary, 3] - seg[boundary, 1]).sum()
        assert np.isclose(length, free.boundary.length, rtol=1e-9)
