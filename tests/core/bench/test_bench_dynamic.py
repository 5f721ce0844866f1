"""``miran bench --section dynamic``: the figures of a world that changes while a crowd walks, on the quick crowd."""

from __future__ import annotations

import math

import pytest

import core.bench.dynamic as dynamic


@pytest.mark.perf
@pytest.mark.subprocess
def test_the_quick_section_records_every_figure():
    records = dynamic.run(True)
    names = [r.name for r in records]
    n = dynamic.CROWD[True]
    assert names == [f"insert a building {n} walking", "navigation mesh update, insertion",
                     "navigation mesh update, deletion", "navigation mesh full build", "ECM update, insertion",
                     "ECM update, deletion", "ECM full build", "navigation mesh and ECM update, insertion",
                     "first step after it", f"delete it {n} walking", "full build of the scene with it",
                     f"step {n} characters", "mesh full build over local update", "ECM full build over local update",
                     "mesh and ECM full build over local update", "full build over insertion",
                     "slowest later step while replanning over a plain step",
                     "step at a scheduled closing over the steps around it, prepared ahead",
                     "step at a scheduled closing over the steps around it, computed then",
                     "step with a moving car over without"]
    assert all(r.section == "dynamic" and math.isfinite(r.value) and r.value > 0 for r in records)
    assert {r.unit for r in records} == {"ms", "x"}
    notes = {r.name: r.reference for r in records}
    assert "1.1 ms" in notes["ECM update, insertion"] and "van Toll" in notes["ECM update, insertion"]
    assert "TileCache" in notes["navigation mesh update, insertion"]
