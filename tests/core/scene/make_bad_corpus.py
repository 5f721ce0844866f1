"""Write the bad-scene corpus: ``python tests/core/scene/make_bad_corpus.py``.

One file per validation rule under ``bad/``, each a small valid base scene with one kind of mistake, and
``bad_corpus.json``: for each file the problems the validator must report (JSON path, part of the message; exactly
these, no more) and how the JSON Schema relates to it: ``rejects`` (a structural mistake the schema sees too),
``json`` (the text is not a JSON document the schema could be applied to) or ``validator-only: why``.
"""

import copy
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "bad"
BASE = {  # a small valid scene using every section
 "format": "miran-scene", "version": 1, "name": "Corpus base", "units": "m",
 "bounds": [0, 0, 100, 100],
 "terrain_types": [{"id": "default", "name": "Open ground", "color": "#cbd5a3"}, {"id": "mud", "color": "#7a5230"}],
 "default_terrain": "default",
 "obstacles": [{"id": "o1", "polygon": [[40, 40], [60, 40], [60, 60], [40, 60]]}],
 "terrains": [{"id": "t1", "type": "mud", "polygon": [[0, 0], [30, 0], [30, 30], [0, 30]], "holes": []}],
 "profiles": [{"id": "walker", "weights": {"default": 1, "mud": 40}, "radius": 0.25, "max_speed": 1.4, "sigma": 40, "d": 10}],
 "routes": [{"id": "r1", "points": [[5, 50], [30, 80], [95, 50]]}],
 "networks": [{"id": "n1", "nodes": [[10, 10], [90, 10], [90, 90]], "edges": [[0, 1], [1, 2]]}],
 "agents": [{"id": "a1", "profile": "walker", "route": "r1"},
            {"id": "a2", "profile": "walker", "start": [5, 95], "goal": [95, 5], "planner": "cdt"}],
 "simulation": {"method": "miran", "integrator": "euler", "dt": 0.1}
}
cases = {}


def case(name, schema, expected, text=None):
    """Register a corpus file: the decorated function mutates a copy of BASE, or returns the whole text."""
    def deco(fn):
        d = copy.deepcopy(BASE)
        r = fn(d)
        cases[name] = (schema, expected, text if text is not None else (r if isinstance(r, str) else json.dumps(d, indent=1)))
        return fn
    return deco

@case("malformed_json", "json", [["", "malformed JSON at line 4, column 1"]])
def _(d): return '{\n "format": "miran-scene",\n "version": 1\n'
@case("duplicate_key", "json", [["", "the key \"obstacles\" appears twice"]])
def _(d): return json.dumps(d, indent=1)[:-2] + ',\n "obstacles": []\n}'
@case("not_an_object", "rejects", [["", "expected an object, got a list"]])
def _(d): return "[1, 2, 3]\n"
@case("missing_fields", "rejects", [["bounds", "missing required field"], ["terrain_types", "missing required field"], ["default_terrain", "missing required field"]])
def _(d): del d["bounds"], d["terrain_types"], d["default_terrain"]
@case("unknown_fields", "rejects", [["colour", "unknown field"], ["obstacles[0].height", "unknown field"], ["profiles[0].speed", "unknown field"]])
def _(d): d["colour"] = "#ffffff"; d["obstacles"][0]["height"] = 12; d["profiles"][0]["speed"] = 1.2
@case("wrong_types", "rejects", [["bounds", "expected a list, got the string 'big'"], ["obstacles[0].polygon", "expected a list, got the string 'square'"], ["profiles[0].radius", "expected a number, got the string '0.3'"], ["agents[0].profile", "expected a string, got the number 7"], ["name", "expected a string, got null"]])
def _(d): d["bounds"] = "big"; d["obstacles"][0]["polygon"] = "square"; d["profiles"][0]["radius"] = "0.3"; d["agents"][0]["profile"] = 7; d["name"] = None
@case("wrong_format_version", "rejects", [["format", "expected 'miran-scene', got 'miran-scenes'"], ["version", "unsupported version 2"]])
def _(d): d["format"] = "miran-scenes"; d["version"] = 2
@case("non_finite_numbers", "rejects",
      [["obstacles[0].polygon[1]", "point coordinates must be finite numbers, got nan"], ["simulation.dt", "must be a finite number, got inf"], ["profiles[0].sigma", "must be a finite number, got nan"]])
def _(d): return json.dumps(d, indent=1).replace('[\n     60,\n     40\n    ]', '[NaN, 40]', 1).replace('"dt": 0.1', '"dt": Infinity').replace('"sigma": 40', '"sigma": NaN')
@case("too_few_vertices", "rejects", [["obstacles[0].polygon", "expected at least 3 points, got 2"]])
def _(d): d["obstacles"][0]["polygon"] = [[40, 40], [60, 60]]
@case("bad_points", "rejects", [["routes[0].points[1]", "expected a point [x, y], got [30, 80, 2]"], ["agents[1].goal", "point coordinates must be numbers, got 'x'"]])
def _(d): d["routes"][0]["points"][1] = [30, 80, 2]; d["agents"][1]["goal"] = ["x", 5]
@case("coordinate_too_large", "rejects", [["obstacles[0].polygon[2]", "coordinate 1e+12 is beyond the limit"]])
def _(d): d["obstacles"][0]["polygon"][2] = [1e12, 60]
@case("non_positive_values", "rejects", [["profiles[0].weights.mud", "must be positive, got 0"], ["profiles[0].radius", "must be positive, got 0"], ["profiles[0].max_speed", "must be positive, got -2"], ["profiles[0].sigma", "must be positive, got -1"], ["profiles[0].d", "must be positive, got 0"], ["simulation.dt", "must be positive, got 0"]])
def _(d): d["profiles"][0].update(weights={"default": 1, "mud": 0}, radius=0, max_speed=-2, sigma=-1, d=0); d["simulation"]["dt"] = 0
@case("bad_choices", "rejects", [["simulation.method", "unknown value 'rvo' (valid: miran, disc-miran, irm)"], ["simulation.integrator", "unknown value 'rk4'"], ["agents[1].planner", "unknown value 'astar' (valid: grid, cdt, ecm, portal, network)"]])
def _(d): d["simulation"].update(method="rvo", integrator="rk4"); d["agents"][1]["planner"] = "astar"
@case("bad_color_and_blank_id", "rejects", [["terrain_types[1].color", "expected a colour like '#7f7f7f', got 'brown'"], ["obstacles[0].id", "must not be empty"]])
def _(d): d["terrain_types"][1]["color"] = "brown"; d["obstacles"][0]["id"] = "  "
@case("agent_route_rules", "rejects", [["agents[0]", "either a route or is planned from a start to a goal, not both"], ["agents[1]", "an agent needs a route, or a start and a goal"], ["agents[2].goal", "an agent with a start also needs a goal"], ["agents[3].planner", "a planner applies only to agents with a start and a goal"]])
def _(d):
    d["agents"] = [{"id": "a1", "profile": "walker", "route": "r1", "start": [5, 50]},
                   {"id": "a2", "profile": "walker"},
                   {"id": "a3", "profile": "walker", "start": [5, 95]},
                   {"id": "a4", "profile": "walker", "route": "r1", "planner": "grid"}]
@case("empty_terrain_types", "rejects", [["terrain_types", "at least one terrain type is needed"], ["default_terrain", "unknown terrain type 'default'"]])
def _(d): d["terrain_types"] = []; d["default_terrain"] = "default"; d["terrains"] = []; d["profiles"][0]["weights"] = {}
@case("bounds_order", "validator-only: the schema cannot compare xmax with xmin", [["bounds", "xmax and ymax must exceed xmin and ymin, got [100, 0, 0, 100]"]])
def _(d): d["bounds"] = [100, 0, 0, 100]; d["obstacles"] = []; d["routes"] = []; d["networks"] = []; d["agents"] = []
@case("distinct_vertices", "validator-only: geometry", [["obstacles[0].polygon", "a polygon needs at least 3 distinct vertices, got 2"]])
def _(d): d["obstacles"][0]["polygon"] = [[40, 40], [60, 60], [40, 40], [60, 60]]
@case("zero_area", "validator-only: geometry", [["terrains[0].polygon", "zero area"]])
def _(d): d["terrains"][0]["polygon"] = [[0, 0], [10, 10], [20, 20], [5, 5]]
@case("self_intersecting", "validator-only: geometry", [["obstacles[0].polygon", "self-intersecting at (50, 50)"]])
def _(d): d["obstacles"][0]["polygon"] = [[40, 40], [60, 60], [60, 40], [40, 60]]
@case("bad_holes", "validator-only: geometry", [["terrains[0].holes[0]", "self-intersecting at (15, 15)"], ["terrains[1].holes[0]", "lies outside its polygon"]])
def _(d):
    d["terrains"][0]["holes"] = [[[10, 10], [20, 20], [20, 10], [10, 20]]]
    d["terrains"].append({"id": "t2", "type": "mud", "polygon": [[70, 0], [100, 0], [100, 30], [70, 30]], "holes": [[[10, 70], [20, 70], [20, 80]]]})
@case("unknown_references", "validator-only: references between ids", [["default_terrain", "unknown terrain type 'void'"], ["terrains[0].type", "unknown terrain type 'lava'"], ["profiles[0].weights.ice", "unknown terrain type 'ice'"], ["agents[0].profile", "unknown profile 'ghost'"], ["agents[0].route", "unknown route 'nowhere'"]])
def _(d): d["default_terrain"] = "void"; d["terrains"][0]["type"] = "lava"; d["profiles"][0]["weights"]["ice"] = 2; d["agents"][0].update(profile="ghost", route="nowhere")
@case("duplicate_ids", "validator-only: unique ids", [["terrain_types[2].id", "duplicate id 'mud' (also terrain_types[1])"], ["obstacles[1].id", "duplicate id 'o1' (also obstacles[0])"], ["agents[1].id", "duplicate id 'a1' (also agents[0])"]])
def _(d): d["terrain_types"].append({"id": "mud"}); d["obstacles"].append({"id": "o1", "polygon": [[70, 70], [80, 70], [80, 80]]}); d["agents"][1]["id"] = "a1"
@case("misplaced_points", "validator-only: placement in free space", [["routes[0].points[1]", "(50, 50) is inside obstacle 'o1'"], ["routes[0].points[2]", "(120, 50) is outside the bounds [0, 0, 100, 100]"], ["networks[0].nodes[2]", "(45, 45) is inside obstacle 'o1'"], ["agents[1].start", "(-5, 95) is outside the bounds"], ["agents[1].goal", "(55, 42) is inside obstacle 'o1'"]])
def _(d): d["routes"][0]["points"][1:] = [[50, 50], [120, 50]]; d["networks"][0]["nodes"][2] = [45, 45]; d["agents"][1].update(start=[-5, 95], goal=[55, 42])
@case("network_edges", "validator-only: node indices", [["networks[0].edges[1][1]", "node index 7 out of range (the network has 3 nodes)"], ["networks[0].edges[2]", "an edge joins node 2 to itself"], ["networks[0].edges[3]", "duplicate edge between nodes 0 and 1 (also edges[0])"]])
def _(d): d["networks"][0]["edges"] = [[0, 1], [1, 7], [2, 2], [1, 0]]
@case("network_planner_without_network", "validator-only: references", [["agents[1].planner", "planner 'network' needs an indicative network"]])
def _(d): d["networks"] = []; d["agents"][1]["planner"] = "network"
@case("route_without_length", "validator-only: distinct points", [["routes[0].points", "a route needs at least 2 distinct points"]])
def _(d): d["routes"][0]["points"] = [[5, 50], [5, 50]]
@case("obstacle_placement", "validator-only: placement", [["obstacles[1].polygon", "lies entirely outside the bounds"], ["terrains[0].polygon", "lies entirely outside the bounds"]])
def _(d): d["obstacles"].append({"id": "far", "polygon": [[200, 200], [210, 200], [210, 210]]}); d["terrains"][0]["polygon"] = [[-50, -50], [-10, -50], [-10, -10]]
@case("no_free_space", "validator-only: placement", [["obstacles", "the obstacles cover the whole bounds"]])
def _(d): d["obstacles"] = [{"id": "all", "polygon": [[-1, -1], [101, -1], [101, 101], [-1, 101]]}]; d["routes"] = []; d["networks"] = []; d["agents"] = []
@case("heightfield_structure", "rejects", [["heightfield.cell", "must be positive, got 0"], ["heightfield.heights[1]", "expected a row (list) of heights, got 3"], ["heightfield.heights[2][1]", "expected a number, got the string 'high'"], ["heightfield.origin", "expected a point [x, y], got [0]"]])
def _(d): d["heightfield"] = {"origin": [0], "cell": 0, "heights": [[0, 1, 2], 3, [0, "high", 2]]}
@case("heightfield_rows", "validator-only: rows of equal length and placement", [["heightfield.heights[2]", "expected 3 heights like row 0, got 2"]])
def _(d): d["heightfield"] = {"origin": [0, 0], "cell": 10, "heights": [[0, 1, 2], [0, 1, 2], [0, 1]]}
@case("heightfield_outside", "validator-only: placement", [["heightfield", "the raster [200, 0, 220, 10] lies outside the bounds"]])
def _(d): d["heightfield"] = {"origin": [200, 0], "cell": 10, "heights": [[0, 1, 2], [0, 1, 2]]}



def main() -> None:
    OUT.mkdir(exist_ok=True)
    manifest = {}
    for name, (schema, expected, text) in cases.items():
        (OUT / f"{name}.json").write_text(text if text.endswith("\n") else text + "\n")
        manifest[name + ".json"] = {"schema": schema, "problems": expected}
    (HERE / "bad_corpus.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {len(cases)} files to {OUT}")


if __name__ == "__main__":
    main()
