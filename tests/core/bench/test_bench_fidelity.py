"""``miran bench --section fidelity``: fast mode's error budget against exact mode per shipped scene, and the
section fails, naming the scene, when a figure is over its budget."""

from __future__ import annotations

import pytest

import core.bench.fidelity as fidelity


def test_the_budget_holds_on_the_quick_scenes_and_fails_when_tightened(monkeypatch):
    records = fidelity.budget_records(["mckenna_road"])
    assert len(records) == 2 * len(fidelity.BUDGET)
    worst = {r.name: r.value for r in records}
    for name, value in worst.items():
        bound = next(b for what, b in fidelity.BUDGET.items() if name.endswith(f"worst {what}"))
        assert 0.0 <= value <= bound, name
    # A budget below the measured difference turns the section's verdict.
    largest = max(worst["mckenna_road miran worst length"], 1e-12)
    monkeypatch.setitem(fidelity.BUDGET, "length", largest / 2)
    with pytest.raises(fidelity.BudgetExceeded, match="mckenna_road miran length"):
        fidelity.budget_records(["mckenna_road"])
