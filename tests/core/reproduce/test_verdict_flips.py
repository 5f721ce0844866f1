"""Every experiment's verdict follows its inputs: for each one, an input moved one way makes the claim it targets
hold and the other way fail, and the verdict names that claim when it fails. Quick runs (the CI-tier sizes).

MIRAN Figure 1 and IRM Figure 1 have their own tests (test_reproduce.py, test_irm_fig1.py)."""

from __future__ import annotations

import pytest

from core.reproduce import ecm, irm, miran, niederberger
from core.reproduce.crowd_load import CrowdLoad

pytestmark = pytest.mark.experiment


def _check(exp, claim: str):
    hits = [c for c in exp.checks if claim in c.claim]
    assert len(hits) == 1, [c.claim for c in exp.checks]
    return hits[0]


def _flips(make, claim: str, holds, fails) -> None:
    """Run ``make`` with ``holds()`` applied, then with ``fails()``: the claim holds, then fails and the verdict
    names it."""
    holds()
    a = make(True)
    assert _check(a, claim).holds, _check(a, claim)
    fails()
    b = make(True)
    c = _check(b, claim)
    assert not c.holds, c
    assert b.verdict.startswith("differs") and c.claim in b.verdict


def _flips_entry(monkeypatch, module, table: str, key, holding, failing, make, claim: str) -> None:
    """``_flips`` with one entry of the paper's table ``module.<table>`` set to ``holding``, then to ``failing``
    (the table's other entries as they are)."""
    paper = dict(getattr(module, table))
    _flips(make, claim,
           lambda: monkeypatch.setattr(module, table, {**paper, key: holding}),
           lambda: monkeypatch.setattr(module, table, {**paper, key: failing}))


def test_miran_fig7_skips_the_loop_only_with_a_large_sigma(monkeypatch):
    _flips(miran.miran_fig7, "large parts of the route are skipped",
           lambda: monkeypatch.setattr(miran, "FIG7_SIGMAS", (100.0, 300.0, 1250.0)),
           lambda: monkeypatch.setattr(miran, "FIG7_SIGMAS", (100.0, 300.0, 150.0)))


def test_miran_fig8_mud_is_avoided_only_while_it_weighs_much(monkeypatch):
    _flips(miran.miran_fig8, "mud is completely avoided",
           lambda: monkeypatch.setattr(miran, "FIG8_WEIGHTS", {}),
           lambda: monkeypatch.setattr(miran, "FIG8_WEIGHTS", {"mud": 0.01, "sidewalk": 1.0}))


def test_miran_table1_real_time_follows_the_papers_times(monkeypatch):
    rows = list(miran.TABLE_1)
    _flips(miran.miran_table1, "computed in real time",
           lambda: monkeypatch.setattr(miran, "TABLE_1", [r[:4] + (1e6,) for r in rows]),
           lambda: monkeypatch.setattr(miran, "TABLE_1", [r[:4] + (1e-6,) for r in rows]))


def test_irm_fig3_timing_follows_the_papers_time(monkeypatch):
    _flips(irm.irm_fig3, "retracting the route took",
           lambda: monkeypatch.setattr(irm, "IRM_RETRACTION_MS", 1e6),
           lambda: monkeypatch.setattr(irm, "IRM_RETRACTION_MS", 1e-9))


def test_irm_fig3c_is_smooth_only_with_a_bounded_steering_force(monkeypatch):
    _flips(irm.irm_fig3c, "smooth (C1 continuous)",
           lambda: monkeypatch.setattr(irm, "FIG3C_PARAMS", {}),
           lambda: monkeypatch.setattr(irm, "FIG3C_PARAMS", {"c_s": 1000.0}))


def _loads(power: float):
    """IRM and MIRAN loads growing as N ** power, as crowd_loads returns them."""
    def fake(sizes, quick=False):
        out = []
        for m in ("miran", "irm"):
            for n in sizes:
                v = 1.0 * (n / sizes[0]) ** power
                out.append(CrowdLoad(m, n, v, v, [v, v, v], 1.0, 1.0, 160.0, 1.0, 0.0))
        return out
    return fake


def test_irm_fig6_almost_linear_follows_the_loads(monkeypatch):
    from core.reproduce import crowd_load

    _flips(irm.irm_fig6, "scales almost linearly",
           lambda: monkeypatch.setattr(crowd_load, "crowd_loads", _loads(1.05)),
           lambda: monkeypatch.setattr(crowd_load, "crowd_loads", _loads(1.6)))


def test_irm_lanes_form_only_when_the_characters_feel_each_other(monkeypatch):
    monkeypatch.setattr(irm, "LANE_INTERACT", True)
    feeling = _check(irm.irm_lanes(True), "lane formation")
    if not feeling.holds:
        # The experiment's verdict says "differs" here: with interaction on, ours forms no lanes at CI's size.
        pytest.xfail(f"ours differs from the paper: {feeling.ours}")
    _flips(irm.irm_lanes, "lane formation",
           lambda: monkeypatch.setattr(irm, "LANE_INTERACT", True),
           lambda: monkeypatch.setattr(irm, "LANE_INTERACT", False))


def test_ecm_timings_follow_the_papers_times(monkeypatch):
    _flips_entry(monkeypatch, ecm, "ECM_PAPER", "total", 1e6, 1e-9,
                 ecm.ecm_timings, "a query (corridor, shrink, path) takes")


def test_ecm_fig8_timing_follows_the_papers_time(monkeypatch):
    _flips_entry(monkeypatch, ecm, "ECM_FIG8", "ms", 1e6, 1e-9,
                 ecm.ecm_fig8, "the query phase for this example took")


def test_ecm_fig6_is_smooth_only_at_a_small_step(monkeypatch):
    fig6 = dict(ecm.ECM_FIG6)
    _flips(ecm.ecm_fig6, "the first one is a smooth path",
           lambda: monkeypatch.setattr(ecm, "ECM_FIG6", fig6),
           lambda: monkeypatch.setattr(ecm, "ECM_FIG6", {**fig6, "dt": 1.0}))


def test_ecm_cpu_load_follows_the_papers_load(monkeypatch):
    _flips_entry(monkeypatch, ecm, "ECM_LOAD", "percent", 1e6, 1e-12,
                 ecm.ecm_cpu_load, "the CPU-load was 0.002 %")


def test_niederberger_table1_node_counts_follow_the_papers(monkeypatch):
    ours = niederberger.niederberger_table1(True).data[niederberger.MAPS[0][0]]["trapezoids"]["portals"]
    _flips_entry(monkeypatch, niederberger, "NIEDERBERGER_NODES", 100, ours, 100 * ours,
                 niederberger.niederberger_table1, "center nodes (loose")


def test_niederberger_fig9_timing_follows_the_papers_time(monkeypatch):
    _flips_entry(monkeypatch, niederberger, "NIEDERBERGER_MS", 100, 1e6, 1e-9,
                 niederberger.niederberger_fig9, " ms (loose")


def test_niederberger_fig10_climbs_less_only_with_the_slope(monkeypatch):
    _flips(niederberger.niederberger_fig10, "the movement climbs less",
           lambda: monkeypatch.setattr(niederberger, "FIG10_SLOPE", (False, True)),
           lambda: monkeypatch.setattr(niederberger, "FIG10_SLOPE", (False, False)))
