"""The batch query (``query_batch``): every answer is the one a single query gives, to the bit, on random and shipped
scenes, for pairs in the free space, in obstacles, outside the bounds and without a corridor; blocks on threads
change nothing."""

from pathlib import Path

import numpy as np
import pytest
import shapely

from core.ecm import GOAL_BLOCKED, NO_CORRIDOR, OK, START_BLOCKED, build_ecm, query_batch, shortest_path_status
from core.scene import build_geometry
from core.scene.io import load_scene

from conftest import case

SCENES = Path(__file__).resolve().parents[3] / "scenes"


def _pairs(scene, n, seed):
    """Random pairs over the bounds grown by 5 %: some in obstacles, some outside."""
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = scene.bounds
    m = 0.05 * max(x1 - x0, y1 - y0)
    lo, hi = [x0 - m, y0 - m], [x1 + m, y1 + m]
    return rng.uniform(lo, hi, size=(n, 2)), rng.uniform(lo, hi, size=(n, 2))


def _same_as_single(ecm, S, G, clearance, search, threads=1):
    b = query_batch(ecm, S, G, clearance, search, threads)
    c = np.broadcast_to(np.asarray(clearance, dtype=np.float64), (len(S),))
    assert b.offsets[0] == 0 and len(b.offsets) == len(S) + 1 and b.offsets[-1] == len(b.points)
    for q in range(len(S)):
        pts, length, status = shortest_path_status(ecm, S[q], G[q], c[q], search)
        assert b.status[q] == status, q
        assert b.path(q).tobytes() == pts.tobytes(), q
        assert b.lengths[q].tobytes() == np.float64(length).tobytes(), q
    return b


@pytest.mark.parametrize("seed", [200, 203])
@pytest.mark.parametrize("search", ["funnel", "medial"])
def test_batch_answers_equal_single_queries_on_random_scenes(seed, search):
    scene, g, ecm = case(seed)
    S, G = _pairs(scene, 120, seed)
    clearance = np.random.default_rng(seed).choice([0.0, 0.3, 1.5, 40.0], size=len(S))
    b = _same_as_single(ecm, S, G, clearance, search)
    # Between wide Voronoi vertices at 0.9 times their clearance: ends that keep it, corridors that often do not.
    rng = np.random.default_rng(seed)
    wide = np.flatnonzero(ecm.vert_R >= np.quantile(ecm.vert_R, 0.6))
    i, j = rng.choice(wide, 60), rng.choice(wide, 60)
    far = _same_as_single(ecm, ecm.vert_xy[i] + 1e-3, ecm.vert_xy[j] - 1e-3,
                          0.9 * np.minimum(ecm.vert_R[i], ecm.vert_R[j]), search)
    status = np.concatenate([b.status, far.status])
    for code in (OK, START_BLOCKED, GOAL_BLOCKED, NO_CORRIDOR):
        assert (status == code).sum() >= 10, code
    for r in (b, far):
        assert np.all(r.lengths[r.status != OK] == 0) and np.all(np.diff(r.offsets)[r.status != OK] == 0)
        assert np.all(r.lengths[r.status == OK] > 0)


@pytest.mark.heavy
def test_batch_answers_equal_single_queries_on_the_city():
    scene = load_scene(SCENES / "city.json")
    ecm = build_ecm(scene, geometry=build_geometry(scene))
    S, G = _pairs(scene, 300, 1)
    for search in ("funnel", "medial"):
        b = _same_as_single(ecm, S, G, 1.0, search)
        assert (b.status == OK).sum() > 50


def test_threads_split_the_batch_without_changing_it():
    scene, g, ecm = case(201)
    S, G = _pairs(scene, 57, 4)
    one = query_batch(ecm, S, G, 0.5)
    for threads in (2, 3, 100):
        many = query_batch(ecm, S, G, 0.5, threads=threads)
        for a, b in ((one.points, many.points), (one.offsets, many.offsets), (one.lengths, many.lengths),
                     (one.status, many.status)):
            assert a.tobytes() == b.tobytes()


def test_empty_batch_and_bad_input():
    scene, g, ecm = case(200)
    b = query_batch(ecm, np.zeros((0, 2)), np.zeros((0, 2)))
    assert b.points.shape == (0, 2) and b.offsets.tolist() == [0] and len(b.lengths) == 0
    with pytest.raises(ValueError, match="starts and goals differ"):
        query_batch(ecm, np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"goals must have shape \(n, 2\)"):
        query_batch(ecm, np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="starts must be finite"):
        query_batch(ecm, np.full((1, 2), np.nan), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="clearance"):
        query_batch(ecm, np.zeros((2, 2)), np.zeros((2, 2)), -1.0)
    with pytest.raises(ValueError, match="threads"):
        query_batch(ecm, np.zeros((2, 2)), np.zeros((2, 2)), threads=0)


def test_route_cli_batches_ecm_queries_with_the_answers_of_single_plans(tmp_path, capsys):
    """``miran route --queries --planner ecm`` answers through one batch call; its routes are those that
    ``plan_route`` gives one query at a time with a fresh context (which queries the map alone)."""
    import json

    from core.cli.main import main
    from core.routes import PlannerContext, plan_route
    from core.routes.io import routes_document

    path = SCENES / "mckenna.json"
    scene = load_scene(path)
    g = build_geometry(scene)
    rng = np.random.default_rng(3)
    x0, y0, x1, y1 = scene.bounds
    queries: list[list[float]] = []
    while len(queries) < 12:
        p = rng.uniform([x0, y0, x0, y0], [x1, y1, x1, y1]).round(3)
        if g.free.buffer(-0.5).contains(shapely.points(p[:2])) and g.free.buffer(-0.5).contains(shapely.points(p[2:])):
            queries.append(p.tolist())
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps(queries))
    assert main(["route", str(path), "--queries", str(qfile), "--planner", "ecm", "--clearance", "0.25",
                 "--json"]) == 0
    batched = json.loads(capsys.readouterr().out)
    ctx = PlannerContext(scene)
    single = [plan_route(scene, q[:2], q[2:], "ecm", None, 0.25, ctx) for q in queries]
    expected = json.loads(json.dumps(routes_document(single, scene.name, "ecm", single[0].profile, 0.25)))
    assert batched == expected
    # The prefetched answers are the ones plan_route uses: all of them are taken.
    ctx2 = PlannerContext(scene)
    planner = ctx2.planner("ecm")
    q = np.array(queries)
    planner.prefetch(q[:, :2], q[:, 2:], 0.25)
    assert len(planner._answers) == len(queries)
    again = [plan_route(scene, a[:2], a[2:], "ecm", None, 0.25, ctx2) for a in queries]
    assert not planner._answers
    for a, b in zip(single, again):
        assert a.route.points.tobytes() == b.route.points.tobytes() and a.cost == b.cost
