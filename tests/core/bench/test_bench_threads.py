"""The steering bench's threads record: two threads against one, measured in fresh processes, the median recorded."""

from __future__ import annotations

import re

import pytest

from core.bench.crowd import thread_record

pytestmark = pytest.mark.perf


@pytest.mark.subprocess  # each timing in a fresh process
def test_threads_record_is_the_median_of_its_processes_with_identical_positions():
    """Two quick processes: the record names its processes and their range, the value lies inside that range, and
    both processes' crowds ended with the same bytes on one thread and on two (no timing is asserted)."""
    rec = thread_record(quick=True, processes=2)
    assert rec.name == "crowd step 200 miran agents, 2 threads vs 1"
    got = re.search(r"median of 2 processes, ([0-9.]+)x to ([0-9.]+)x", rec.reference)
    assert got, rec.reference
    low, high = float(got.group(1)), float(got.group(2))
    assert low - 0.005 <= rec.value <= high + 0.005 and rec.value > 0.0
    assert "positions identical in every process" in rec.reference
