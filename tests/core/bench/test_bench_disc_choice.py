"""The steering bench's disc MIRAN choice records: the pruned and the unpruned choice on a crowd's own queries."""

from __future__ import annotations

import numpy as np

from core.bench.steering import SCENES_DIR, _crowd, disc_choice_batch, disc_choice_records
from core.navmesh import build_navmesh
from core.scene.io import load_scene
from core.steering.disc_miran import choice_batch


def test_disc_choice_records_compare_the_same_choices():
    """Both records come from the same queries; the pruned choice picks what every candidate's cost picks and
    computes fewer exact omegas (no timing is asserted)."""
    city = load_scene(SCENES_DIR / "city.json")
    mesh = build_navmesh(city)
    sim = _crowd(city, mesh, "disc-miran", 40)
    sim.step(5)
    batch = disc_choice_batch(sim, mesh)
    assert len(batch.x) >= 30
    M = mesh.arrays
    pruned, full = np.empty((len(batch.x), 3)), np.empty((len(batch.x), 3))
    choice_batch(M, batch, False, pruned)
    choice_batch(M, batch, True, full)
    np.testing.assert_array_equal(pruned[:, :2], full[:, :2])
    assert (pruned[:, 0] >= 0).sum() >= 20
    assert pruned[:, 2].sum() < full[:, 2].sum()
    recs = disc_choice_records(sim, mesh, 1)
    assert [r.name for r in recs] == ["disc MIRAN candidate choice, pruned",
                                      "disc MIRAN candidate choice, every candidate (baseline)"]
    assert all(r.value > 0 for r in recs) and "DIFFER" not in recs[0].reference
