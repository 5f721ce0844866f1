"""Scene edits: pure, reversible by restoring the returned fields, and keep references consistent."""

import copy

import pytest

from core.scene import Agent, InputError, Network, Obstacle, Profile, Route, Scene, TerrainPolygon, TerrainType
from core.scene import check_scene, scene_to_dict
from core.scene.edits import (
    add_item, apply, copy_items, delete_vertex, fresh_id, insert_vertex, item_rings, move_vertex, network_with_edge,
    network_with_node, paste_items, remove_items, remove_profile, remove_terrain_type, rename, translate_items,
)


def _scene():
    s = Scene.empty(100, 100)
    s.terrain_types.append(TerrainType("road", "Road", "#7f7f7f"))
    s.profiles[0].weights = {"default": 1.0, "road": 4.0}
    s.profiles.append(Profile("child", {"road": 9.0}))
    s.obstacles = [Obstacle("b1", [(10, 10), (30, 10), (30, 30), (10, 30)])]
    s.terrains = [TerrainPolygon("t1", "road", [(0, 40), (100, 40), (100, 50), (0, 50)])]
    s.routes = [Route("r1", [(5, 5), (50, 60), (95, 5)])]
    s.networks = [Network("n1", [(60, 60), (70, 70), (80, 60)], [(0, 1), (1, 2)])]
    s.agents = [Agent("a1", "pedestrian", route="r1"),
                Agent("a2", "child", start=(80, 80), goal=(90, 20), planner="cdt")]
    return s


def _valid(s):
    _, problems = check_scene(scene_to_dict(s))
    assert problems == []


def test_edits_never_mutate_the_scene():
    s = _scene()
    before = copy.deepcopy(s)
    for changes in (
        add_item(s, "obstacle", Obstacle("o1", [(40, 70), (50, 70), (50, 80)])),
        remove_items(s, [("route", "r1")])[0],
        translate_items(s, [("obstacle", "b1"), ("agent", "a2")], 1, 2),
        rename(s, "terrain_type", "road", "asphalt"),
        remove_terrain_type(s, "road", None),
        remove_profile(s, "child", "pedestrian"),
    ):
        apply(s, changes)
        assert s == before


def test_remove_route_takes_its_agents():
    s = _scene()
    changes, extra = remove_items(s, [("route", "r1")])
    assert extra == [("agent", "a1")]
    after = apply(s, changes)
    assert [a.id for a in after.agents] == ["a2"] and after.routes == []
    _valid(after)


def test_translate_moves_geometry_and_free_agents_only():
    s = _scene()
    after = apply(s, translate_items(s, [("obstacle", "b1"), ("agent", "a1"), ("agent", "a2")], 1.5, -2))
    assert after.obstacles[0].polygon[0] == (11.5, 8.0)
    assert after.agents[0] == s.agents[0]
    assert after.agents[1].start == (81.5, 78.0) and after.agents[1].goal == (91.5, 18.0)


def test_rename_updates_references():
    s = _scene()
    after = apply(s, rename(s, "terrain_type", "road", "asphalt"))
    assert after.terrains[0].type == "asphalt" and after.profiles[0].weights["asphalt"] == 4.0
    _valid(after)
    after = apply(s, rename(s, "route", "r1", "main"))
    assert after.agents[0].route == "main"
    _valid(after)
    after = apply(s, rename(s, "terrain_type", "default", "grass"))
    assert after.default_terrain == "grass"
    _valid(after)
    with pytest.raises(ValueError, match="already used"):
        rename(s, "profile", "child", "pedestrian")
    with pytest.raises(ValueError, match="empty"):
        rename(s, "obstacle", "b1", "  ")


def test_remove_terrain_type_reassigns_or_deletes():
    s = _scene()
    after = apply(s, remove_terrain_type(s, "road", "default"))
    assert after.terrains[0].type == "default" and "road" not in after.profiles[0].weights
    _valid(after)
    after = apply(s, remove_terrain_type(s, "road", None))
    assert after.terrains == []
    _valid(after)
    with pytest.raises(ValueError, match="default terrain type"):
        remove_terrain_type(s, "default", None)
    after = apply(s, remove_terrain_type(s, "default", "road"))
    assert after.default_terrain == "road"
    _valid(after)


def test_remove_profile_reassigns_or_deletes_agents():
    s = _scene()
    assert apply(s, remove_profile(s, "child", "pedestrian")).agents[1].profile == "pedestrian"
    assert [a.id for a in apply(s, remove_profile(s, "child", None)).agents] == ["a1"]


def test_vertex_edits():
    s = _scene()
    o = s.obstacles[0]
    o2, k = insert_vertex("obstacle", o, 0, 0, (20, 8))
    assert k == 1 and item_rings("obstacle", o2)[0][1] == (20.0, 8.0) and len(o2.polygon) == 5
    assert move_vertex("obstacle", o2, 0, 1, (20, 5)).polygon[1] == (20.0, 5.0)
    assert len(delete_vertex("obstacle", o2, 0, 1).polygon) == 4
    tri = Obstacle("x", [(0, 0), (1, 0), (0, 1)])
    assert delete_vertex("obstacle", tri, 0, 0) is None
    net = s.networks[0]
    split, k = insert_vertex("network", net, 0, 0, (65, 65))
    assert split.nodes[k] == (65.0, 65.0) and sorted(split.edges) == [(0, 3), (1, 2), (3, 1)]
    net2 = delete_vertex("network", net, 0, 1)
    assert net2.nodes == [(60, 60), (80, 60)] and net2.edges == []
    net3, n = network_with_node(net, (90, 90))
    assert network_with_edge(network_with_edge(net3, 2, n), n, 2).edges == [(0, 1), (1, 2), (2, 3)]


def test_copy_paste_round_trip_within_and_across_scenes():
    s = _scene()
    doc = copy_items(s, [("obstacle", "b1"), ("agent", "a1"), ("terrain", "t1")])
    changes, added = paste_items(s, doc, 40, 50)
    after = apply(s, changes)
    assert added == [("obstacle", "o1"), ("terrain", "t2"), ("agent", "a3")]
    assert after.obstacles[1].polygon[0] == (50.0, 60.0)
    # The agent's route exists here, so the pasted agent follows it.
    assert after.agents[-1].route == "r1"
    _valid(after)
    # Into an empty scene: terrain type, profile and route come along, ids kept.
    empty = Scene.empty(200, 200)
    changes, added = paste_items(empty, doc, 0, 0)
    after = apply(empty, changes)
    assert {t.id for t in after.terrain_types} == {"default", "road"}
    assert after.agents[0].route == "r1" and after.routes[0].points == s.routes[0].points
    _valid(after)
    with pytest.raises(InputError):
        paste_items(s, {"format": "something"}, 0, 0)
    bad = copy.deepcopy(doc)
    bad["scene"]["obstacles"][0]["polygon"] = [[0, 0], [1, 1]]
    with pytest.raises(InputError, match="obstacles"):
        paste_items(s, bad, 0, 0)


def test_fresh_id():
    assert fresh_id({"o1", "o2", "o4"}, "o") == "o3"
    assert fresh_id(set(), "r") == "r1"
