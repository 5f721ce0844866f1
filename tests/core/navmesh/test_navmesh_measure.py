"""``measure_polyline`` and ``miran measure`` against shapely, with located errors for bad input."""

import json

import numpy as np
import pytest
import shapely

from core.cli.main import main
from core.navmesh import disc_traversal_cost
from core.navmesh.measure import measure_polyline
from core.scene import save_scene

from scenegen import case


def _random_polyline(rng, scene, k):
    x0, y0, x1, y1 = scene.bounds
    start = rng.uniform([x0, y0], [x1, y1])
    pts = start + np.cumsum(rng.normal(0, 0.05 * (x1 - x0), (k, 2)), axis=0)
    return np.clip(pts, [x0, y0], [x1, y1])


@pytest.mark.parametrize("name", ["random:1", "mckenna_road.json"])
def test_measure_polyline_against_shapely(name):
    scene, g, m = case(name)
    w = scene.weight_matrix()[0]
    rng = np.random.default_rng(51)
    outline = g.free.boundary
    for _ in range(30):
        pts = _random_polyline(rng, scene, int(rng.integers(2, 8)))
        line = shapely.linestrings(pts)
        # Per segment: a walked path that doubles back counts the overlap twice (shapely would dissolve it).
        segs = shapely.linestrings(np.stack([pts[:-1], pts[1:]], axis=1))
        for radius in (0.0, 0.3):
            res = measure_polyline(m, pts, w, radius)
            ref = np.array([shapely.length(shapely.intersection(segs, r)).sum() for r in g.regions])
            assert res.length == pytest.approx(line.length, rel=1e-12)
            np.testing.assert_allclose(res.terrain_lengths, ref, atol=1e-9 * line.length)
            assert res.weighted_length == pytest.approx(ref @ w, rel=1e-9, abs=1e-9)
            assert res.blocked_length == pytest.approx(
                shapely.length(shapely.intersection(segs, g.obstacles)).sum(), abs=1e-9)
            inside = bool(shapely.covers(g.free, line))
            dist = outline.distance(line) if inside else 0.0
            assert res.collision_free == (inside and dist >= radius)
            assert res.min_clearance == pytest.approx(dist - radius, abs=1e-9)
            if radius == 0:
                assert res.disc_weighted_length is None
            else:
                costs = disc_traversal_cost(m, pts[:-1], pts[1:], radius, w)
                assert res.disc_weighted_length == pytest.approx(costs.sum(), rel=1e-12)


def test_measure_command_on_polyline_list_and_paths_file(tmp_path, capsys):
    scene, g, m = case("random:2")
    scene_file = tmp_path / "scene.json"
    save_scene(scene, scene_file)
    rng = np.random.default_rng(52)
    lines = [_random_polyline(rng, scene, 5) for _ in range(4)]
    (tmp_path / "lines.json").write_text(json.dumps([p.tolist() for p in lines]))
    assert main(["measure", str(scene_file), str(tmp_path / "lines.json"), "--json", "--profile", "child",
                 "--radius", "0.25"]) == 0
    out = json.loads(capsys.readouterr().out)
    w = scene.weight_matrix()[1]
    assert [p["id"] for p in out["paths"]] == ["0", "1", "2", "3"]
    for p, pts in zip(out["paths"], lines):
        ref = measure_polyline(m, pts, w, 0.25)
        assert p["profile"] == "child"
        assert p["length"] == pytest.approx(ref.length)
        assert list(p["terrain_lengths"].values()) == pytest.approx(ref.terrain_lengths.tolist())
        assert p["weighted_length"] == pytest.approx(ref.weighted_length)
        assert p["disc_weighted_length"] == pytest.approx(ref.disc_weighted_length)
        assert p["collision_free"] == ref.collision_free
    # A miran-paths file: each agent measured with its own profile.
    doc = {"format": "miran-paths", "version": 1, "scene": scene.name, "method": "miran", "integrator": "euler",
           "dt": 0.1, "agents": [{"id": f"a{i}", "profile": ["pedestrian", "child"][i % 2],
                                  "points": [[0.1 * k, x, y] for k, (x, y) in enumerate(pts)]}
                                 for i, pts in enumerate(lines)]}
    (tmp_path / "paths.json").write_text(json.dumps(doc))
    assert main(["measure", str(scene_file), str(tmp_path / "paths.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["profile"] for p in out["paths"]] == ["pedestrian", "child", "pedestrian", "child"]
    assert out["paths"][1]["weighted_length"] == pytest.approx(measure_polyline(m, lines[1], w).weighted_length)
    assert main(["measure", str(scene_file), str(tmp_path / "paths.json")]) == 0
    assert "a3" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    ([[[1, 1], [2, "x"]]], "[0][1]: expected a point"),
    ([[[1, 1]], []], "[1]: expected a non-empty list"),
    ({"format": "miran-scene"}, "format: expected a JSON list of polylines or a miran-paths file"),
    ({"format": "miran-paths", "agents": [{"id": "a", "points": [[0, 1, 2], [0.1, 1]]}]},
     "agents[0].points[1]: expected a row [t, x, y]"),
    (5, "expected a JSON list of polylines"),
])
def test_measure_command_rejects_bad_paths(tmp_path, capsys, content, message):
    scene, g, m = case("random:2")
    save_scene(scene, tmp_path / "scene.json")
    (tmp_path / "bad.json").write_text(json.dumps(content))
    assert main(["measure", str(tmp_path / "scene.json"), str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_measure_command_rejects_bad_options(tmp_path, capsys):
    scene, g, m = case("random:2")
    save_scene(scene, tmp_path / "scene.json")
    (tmp_path / "ok.json").write_text("[[[1, 1], [2, 2]]]")
    assert main(["measure", str(tmp_path / "scene.json"), str(tmp_path / "ok.json"), "--profile", "nobody"]) == 2
    assert "--profile: unknown profile 'nobody' (valid: pedestrian, child)" in capsys.readouterr().err
    assert main(["measure", str(tmp_path / "scene.json"), str(tmp_path / "ok.json"), "--radius", "abc"]) == 2
    assert "--radius" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("[[[1, 1]")
    assert main(["measure", str(tmp_path / "scene.json"), str(tmp_path / "broken.json")]) == 2
    assert "malformed JSON" in capsys.readouterr().err
