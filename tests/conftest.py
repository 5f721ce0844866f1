"""Test tiers (docs: Development, tests): each test is marked by where it lives and what it does, so the markers
stay in one place instead of on hundreds of functions.

- ``gui``: everything under tests/app (a Qt application, offscreen).
- ``perf``: tests that time the engine or the event loop (benchmarks, frame gaps, thread priorities).
- ``slow``: tests that took tens of seconds or more in a full run (``pytest --durations``): fresh interpreters,
  Dask clusters, the papers' experiments, crowds of thousands, hypothesis searches over whole scenes.

CI runs them all; the everyday tier is ``-m "not slow and not gui and not perf"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tiers import HERE, PERF, SLOW


def _keys(item: pytest.Item) -> tuple[str, str]:
    """(file, file::test) of an item, relative to tests/, without the parametrisation."""
    rel = Path(str(item.path)).resolve().relative_to(HERE).as_posix()
    return rel, f"{rel}::{item.originalname if isinstance(item, pytest.Function) else item.name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        rel, test = _keys(item)
        if rel.startswith("app/"):
            item.add_marker(pytest.mark.gui)
        if rel in PERF or test in PERF:
            item.add_marker(pytest.mark.perf)
        if rel in SLOW or test in SLOW:
            item.add_marker(pytest.mark.slow)

