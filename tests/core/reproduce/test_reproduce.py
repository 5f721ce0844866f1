"""``miran reproduce``: verdicts come from the checks' criteria (and flip when the numbers do), MIRAN Figure 1
holds on the forest, the Hertel-Mehlhorn merging behaves as section 6.1's argument says, and a quick run writes a
PNG and an SVG per experiment and a report that lists the verdicts first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import numpy as np
import shapely
from shapely.geometry import box

from core.cli.main import main
from core.reproduce import EXPERIMENTS, miran, niederberger
from core.reproduce.verdict import REPRODUCED, check, verdict
from core.kernels.geometry import orient_points
from core.routes.convex import hertel_mehlhorn, trapezoidate, triangulate_free

pytestmark = pytest.mark.experiment


def test_checks_that_hold_by_construction_do_not_count():
    """A construction check is shown but never decides the verdict, failed or held; without a counted check there
    is no verdict."""
    from core.reproduce.verdict import checks_table, construction

    ok = check("a", "x <= 1", "1", "0.5", True)
    built = construction("all arrive", "all arrived", "yes", "no", False, "the progress guarantee")
    assert verdict([ok, built]) == REPRODUCED
    assert verdict([built]).startswith("differs: no criterion")
    assert "by construction, not counted (the progress guarantee)" in checks_table([ok, built])


def test_verdict_is_reproduced_only_when_every_check_holds():
    ok = check("a", "x <= 1", "1", "0.5", 0.5 <= 1)
    bad = check("the adult keeps to the path", "forest <= 1 %", "0 %", "51 %", 51 <= 1, "stand-in scene")
    assert verdict([ok]) == REPRODUCED
    v = verdict([ok, bad])
    assert v.startswith("differs: ") and "the adult keeps to the path" in v and "51 %" in v and "stand-in" in v
    assert verdict([]).startswith("differs")
    assert check("a", "b", "c", "d", np.bool_(True)).holds is True


def _forest_lengths(exp):
    return exp.data["adult"]["terrain_lengths"], exp.data["child"]["terrain_lengths"], exp.data["adult"]["length"]


def test_miran_fig1_holds_on_the_forest():
    """MIRAN Figure 1: the adult keeps to the path (forest <= 1 % of its path) and reaches the view, avoiding the
    puddles and fallen trees; the child walks through the puddles and over the fallen tree; the verdict says so."""
    exp = EXPERIMENTS["miran_fig1"](True)
    adult, child, length = _forest_lengths(exp)
    assert exp.data["adult"]["arrived"] and exp.data["child"]["arrived"]
    assert adult["forest"] <= 0.01 * length
    assert adult["view"] > 0 and adult["puddles"] == 0 and adult["trees"] == 0
    assert child["puddles"] > 0 and child["trees"] > 0 and child["view"] == 0
    assert exp.verdict == REPRODUCED
    assert exp.recovery.walkers and exp.recovery.agent_steps > 0


def test_miran_fig1_verdict_follows_the_numbers(monkeypatch):
    """Routes from the default fine grid run along the track's edge: the adult then walks some forest and the
    computed verdict must turn to differs, naming that claim."""
    monkeypatch.setattr(miran, "FOREST_GRID_CELL", 0.75)   # the grid planner's default cell on the forest
    exp = EXPERIMENTS["miran_fig1"](True)
    adult, _, length = _forest_lengths(exp)
    assert adult["forest"] > 0.01 * length
    keeps = next(c for c in exp.checks if c.claim == "the adult keeps to the path")
    assert not keeps.holds
    assert exp.verdict.startswith("differs") and "the adult keeps to the path" in exp.verdict


def _free(obstacles, size=100.0):
    return box(0, 0, size, size).difference(shapely.union_all([shapely.Polygon(o) for o in obstacles]))


def test_the_sharpest_turn_is_found_where_it_is_and_its_cause_names_the_obstacle_beside_it():
    from core.reproduce.ecm import sharpest_turn_cause
    from core.reproduce.irm import largest_turn_at

    # East along y = 0 with a repeated point (a step of zero length), a 90 degree turn north at (3, 0), then on.
    path = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [3.0, 0.5], [3.0, 1.5]])
    turn, at = largest_turn_at(path)
    assert turn == pytest.approx(90.0) and at.tolist() == [3.0, 0.0]
    # A gray obstacle of radius 0.5 centred 0.92 m east of the turn: a walker of radius 0.4 is 0.02 m from it.
    near = np.array([[3.92, 0.0, 0.5]])
    assert "90 deg turn is 0.020 m from a gray obstacle" in sharpest_turn_cause(path, near, 0.4)
    assert sharpest_turn_cause(path, near + [5.0, 0.0, 0.0], 0.4) == ""


def test_hertel_mehlhorn_merges_trapezoids_of_a_convex_region():
    """A convex free space (a hexagon) cut at every vertex merges back into one cell."""
    a = np.linspace(0, 2 * np.pi, 7)[:-1] + 0.1
    hexagon = shapely.Polygon(np.column_stack([50 + 40 * np.cos(a), 50 + 30 * np.sin(a)]))
    v, cells = trapezoidate(hexagon)
    assert len(cells) >= 3
    assert len(hertel_mehlhorn(v, cells)) == 1


def test_trapezoid_cuts_among_convex_obstacles_are_essential():
    """Niederberger section 6.1 reports ~50 % of the trapezoids merged away; among disjoint convex obstacles every
    shared edge of the trapezoidal map has an end point where the merged cell would be reflex, so Hertel-Mehlhorn
    can remove (almost) none, while merging a triangulation removes over half of it."""
    scene = niederberger.random_map(7, 30, size=300.0)
    free = _free([o.polygon for o in scene.obstacles], 300.0)
    v, cells = trapezoidate(free)
    owner = {}
    for i, c in enumerate(cells):
        for k in range(len(c)):
            owner[(c[k], c[(k + 1) % len(c)])] = i
    essential = 0
    shared = [(u, w) for (u, w) in owner if (w, u) in owner and u < w]
    for u, w in shared:
        A, B = cells[owner[(u, w)]], cells[owner[(w, u)]]
        ia, ib = A.index(u), B.index(w)
        reflex_u = orient_points(v[A[ia - 1]], v[u], v[B[(ib + 2) % len(B)]]) < 0
        reflex_w = orient_points(v[B[ib - 1]], v[w], v[A[(ia + 2) % len(A)]]) < 0
        essential += reflex_u or reflex_w
    assert essential >= len(shared) - 4          # the bounds' four corners are the only convex vertices
    assert len(hertel_mehlhorn(v, cells)) >= len(cells) - 4
    tv, tris = triangulate_free(free)
    assert len(hertel_mehlhorn(tv, tris)) <= 0.5 * len(tris)


def test_width_baselines_split_portals_and_route_inside_the_free_space():
    """Niederberger section 8's static graphs (core.routes.planners.portal.width_graph): a portal of length L gets
    ceil(L / w) nodes, the unlimited one is the Center graph, and every baseline route runs from start to goal
    inside the free space."""
    from core.routes import PlannerContext
    from core.routes.planners.portal import centre_graph, centre_route, width_graph
    from core.sim.population import random_free_points

    scene = niederberger.random_map(11, 25, size=300.0)
    ctx = PlannerContext(scene)
    dec = ctx.planner("portal").decomposition()
    lengths = np.hypot(*(dec.vertices[dec.portals[:, 1]] - dec.vertices[dec.portals[:, 0]]).T)
    for w in (np.inf, 100.0, 30.0):
        _, node_portal = width_graph(dec, w)
        expect = np.ones(len(lengths), int) if np.isinf(w) else np.maximum(1, np.ceil(lengths / w)).astype(int)
        assert np.array_equal(np.bincount(node_portal, minlength=len(lengths)), expect)
    assert np.allclose(centre_graph(dec).xy, 0.5 * (dec.vertices[dec.portals[:, 0]] + dec.vertices[dec.portals[:, 1]]))
    free = ctx.free(0.0).free
    pts = random_free_points(ctx.mesh, np.random.default_rng(3), 40)
    loc = dec.locate(pts)
    for w in (np.inf, 30.0):
        graph, node_portal = width_graph(dec, w)
        for k in range(20):
            s, g, ps, pg = pts[2 * k], pts[2 * k + 1], int(loc[2 * k]), int(loc[2 * k + 1])
            route = centre_route(dec, graph, s, g, ps, pg, node_portal)
            assert route is not None and np.allclose(route[0], s) and np.allclose(route[-1], g)
            assert shapely.LineString(route).difference(free.buffer(1e-6)).length < 1e-6


def test_quick_reproduce_writes_every_figure_and_the_verdicts(tmp_path):
    assert main(["reproduce", str(tmp_path), "--quick"]) == 0
    report = (tmp_path / "report.md").read_text()
    results = json.loads((tmp_path / "results.json").read_text())
    for name in EXPERIMENTS:
        png, svg = tmp_path / f"{name}.png", tmp_path / f"{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and svg.read_text().lstrip().startswith("<?xml")
        assert f"({name}.png)" in report
        r = results[name]
        counted = [c for c in r["checks"] if c["counts"]]
        assert counted and (r["verdict"] == REPRODUCED) == all(c["holds"] for c in counted)
        assert r["verdict"] == REPRODUCED or r["verdict"].startswith("differs: ")
        # Every experiment reports the recovery share of its walkers, or that it has none.
        rec = r["recovery"]
        assert (0.0 <= rec["share"] <= 1.0 and rec["agent_steps"] > 0) if rec["walkers"] else rec["note"]
    # The verdicts come first, before any experiment's section.
    assert report.index("## Verdicts") < report.index("## MIRAN Figure 7")
    assert "failed" not in report.split("## Verdicts")[1].split("\n## ")[0]
    assert "7.13" in report and "6.15" in report and "1,439" in report and "0.21" in report
    assert "| recovery share |" in report and report.count("**Recovery:**") == len(EXPERIMENTS)
    # MIRAN's own experiments walk on their forces alone: Figure 7 and Table 1 without a recovered step.
    for name in ("miran_fig7", "miran_table1"):
        assert results[name]["recovery"]["recovered_steps"] == 0, results[name]["recovery"]


def test_unknown_experiment_is_refused(tmp_path, capsys):
    assert main(["reproduce", str(tmp_path), "--only", "figure99"]) == 2
    assert "unknown experiment 'figure99'" in capsys.readouterr().err


def test_without_matplotlib_the_command_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    from core.reproduce import plot

    def missing():
        raise plot.MissingMatplotlib("miran reproduce draws its figures with matplotlib: install the 'reproduce' "
                                     "extra")

    monkeypatch.setattr(plot, "_mpl", missing)
    assert main(["reproduce", str(tmp_path), "--only", "niederberger_table1", "--quick"]) == 2
    assert "'reproduce' extra" in capsys.readouterr().err


@pytest.mark.subprocess
def test_the_engine_and_the_app_import_without_matplotlib():
    """matplotlib is the optional 'reproduce' extra: the command line, core.reproduce itself and the app import
    (and `miran reproduce --help` runs) with it forbidden."""
    script = textwrap.dedent("""
        import importlib.abc, sys

        class Forbid(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "matplotlib":
                    raise ImportError("matplotlib is optional")
                return None

        sys.meta_path.insert(0, Forbid())
        import core.reproduce, core.cli.main, app.main
        try:
            core.cli.main.main(["reproduce", "--help"])
        except SystemExit as e:
            assert e.code == 0, e.code
        assert not any(m.split(".")[0] == "matplotlib" for m in sys.modules)
        print("ok")
    """)
    repo = Path(__file__).resolve().parents[3]
    r = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_the_ecm_papers_experiments_render_the_gvd_as_the_paper_does():
    from core.ecm import glcontext
    from core.ecm.glcontext import GLUnavailableError
    from core.reproduce import ecm

    try:
        glcontext.get_context()
        want = "gpu"
    except GLUnavailableError:
        want = "exact"
    assert ecm.paper_backend() == want
    assert ecm.city_ecm(256).stats["backend"] == want
