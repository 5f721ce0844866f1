"""Where an edit changed the scene's picture (app.layers.damage), on generated edits of the city."""

import dataclasses

import numpy as np
import pytest
import shapely

from app.layers.damage import MAX_ITEMS, changed_rects
from core.scene.io import load_scene

from sim_harness import SCENES

CITY = load_scene(SCENES / "city.json")


def covers(rects, points) -> bool:
    box = shapely.union_all([shapely.box(*r) for r in rects])
    return bool(shapely.covers(box, shapely.multipoints(np.asarray(points, dtype=np.float64))))


def test_a_moved_obstacle_damages_where_it_was_and_where_it_is():
    rng = np.random.default_rng(5)
    for _ in range(50):
        k = int(rng.integers(len(CITY.obstacles)))
        o = CITY.obstacles[k]
        d = rng.uniform(-20, 20, 2)
        new_o = dataclasses.replace(o, polygon=[(x + d[0], y + d[1]) for x, y in o.polygon])
        new = dataclasses.replace(CITY, obstacles=[*CITY.obstacles[:k], new_o, *CITY.obstacles[k + 1:]])
        rects = changed_rects(CITY, new, {"obstacles"})
        assert rects is not None and len(rects) == 1
        assert covers(rects, [*o.polygon, *new_o.polygon])
        others = shapely.union_all([shapely.Polygon(p.polygon) for i, p in enumerate(CITY.obstacles) if i != k])
        # the rectangle is the item's: far smaller than the city
        assert shapely.box(*rects[0]).area < 0.05 * shapely.box(*CITY.bounds).area
        assert not others.is_empty


def test_a_route_s_edit_covers_the_markers_of_the_agents_that_follow_it():
    r = CITY.routes[0]
    pts = [(x + 5.0, y - 5.0) for x, y in r.points]
    new = dataclasses.replace(CITY, routes=[dataclasses.replace(r, points=pts), *CITY.routes[1:]])
    rects = changed_rects(CITY, new, {"routes", "agents"})
    followers = [a for a in CITY.agents if a.route == r.id]
    assert followers
    assert covers(rects, [*r.points, *pts])


def test_added_and_removed_items_damage_their_own_bounds():
    gone = CITY.obstacles[3]
    new = dataclasses.replace(CITY, obstacles=[o for o in CITY.obstacles if o is not gone])
    assert covers(changed_rects(CITY, new, {"obstacles"}), gone.polygon)
    assert covers(changed_rects(new, CITY, {"obstacles"}), gone.polygon)


@pytest.mark.parametrize("case", ["reordered", "many", "profiles", "bounds", "repeated ids"])
def test_what_is_not_local_draws_the_whole_picture(case):
    obs = CITY.obstacles
    if case == "reordered":
        new, fields = dataclasses.replace(CITY, terrains=CITY.terrains[::-1]), {"terrains"}
    elif case == "many":
        moved = [dataclasses.replace(o, polygon=[(x + 1, y) for x, y in o.polygon]) for o in obs[: MAX_ITEMS + 1]]
        new, fields = dataclasses.replace(CITY, obstacles=[*moved, *obs[MAX_ITEMS + 1:]]), {"obstacles"}
    elif case == "profiles":
        new, fields = CITY, {"profiles"}
    elif case == "bounds":
        new, fields = CITY, {"obstacles", "bounds"}
    else:
        new, fields = dataclasses.replace(CITY, obstacles=[*obs, obs[0]]), {"obstacles"}
    assert changed_rects(CITY, new, fields) is None


def test_an_unchanged_list_damages_nothing():
    assert changed_rects(CITY, CITY, {"obstacles", "routes"}) == []
