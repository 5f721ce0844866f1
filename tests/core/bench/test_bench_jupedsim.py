"""``miran bench --section jupedsim``: exact, fast and JuPedSim on the same errands; without JuPedSim the section
says that no comparison ran. JuPedSim is optional (not in the test extra: its own dependencies would replace the
pinned PySide6), so the comparison's own tests run where it is installed."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import core.bench.jupedsim as peer


def test_without_jupedsim_the_section_says_no_comparison_ran(monkeypatch):
    monkeypatch.setattr(peer, "available", lambda: False)
    records = peer.run(True)
    assert [(r.name, r.value) for r in records] == [("jupedsim comparison", 0)]
    assert "pip install --no-deps jupedsim" in records[0].reference


def test_jupedsims_characters_walk_to_their_exits():
    pytest.importorskip("jupedsim")
    room = shapely.box(0, 0, 20, 10).difference(shapely.box(9, 0, 11, 7))     # a wall with a way round its end
    starts = np.array([[2.0, 2.0], [3.0, 5.0], [18.0, 2.0]])
    goals = np.array([[18.0, 3.0], [17.0, 5.0], [2.0, 3.0]])
    sim, refused = peer.jupedsim_crowd(room, starts, goals, 1.4, 0.25, 0.1)
    assert refused == 0 and sim.agent_count() == 3
    for _ in range(600):
        sim.iterate()
        if sim.agent_count() == 0:
            break
    assert sim.agent_count() == 0                                             # every one reached its exit


def test_a_start_jupedsim_refuses_is_counted_not_raised():
    pytest.importorskip("jupedsim")
    room = shapely.box(0, 0, 10, 10)
    starts = np.array([[2.0, 2.0], [2.1, 2.0]])                             # closer than two radii
    sim, refused = peer.jupedsim_crowd(room, starts, np.array([[8.0, 8.0], [8.0, 2.0]]), 1.4, 0.25, 0.1)
    assert refused == 1 and sim.agent_count() == 1


def test_the_side_by_side_figures_on_the_quick_crowd():
    pytest.importorskip("jupedsim")
    out = peer.side_by_side(True)
    assert out["n"] == peer.CROWD[True] and out["dt"] == 0.1
    assert out["exact"] > 0.0 and out["fast"] > 0.0 and out["jupedsim"] > 0.0
    assert out["refused"] < out["n"] // 10
