"""Sweep specs for the sweep tests: a small valid spec document to vary field by field, and the problems that
parsing one reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.scene.problems import InputError
from core.sweep.spec import parse_spec


def sweep_doc(scene: Path | str, **over) -> dict:
    """A spec over ``scene`` with one seed and runs of three steps; ``over`` replaces or adds fields."""
    d = {"format": "miran-sweep", "version": 1, "name": "t", "scenes": [str(scene)], "seeds": [0],
         "limit": {"steps": 3}}
    d.update(over)
    return d


def problems(d: dict) -> list[str]:
    """What parsing the spec ``d`` refuses, one line a problem (it must refuse something)."""
    with pytest.raises(InputError) as e:
        parse_spec(d)
    return [str(p) for p in e.value.problems]
