"""Hypothesis fuzzing of each importer's parser, in-process: any input gives a scene or an InputError, nothing else.

Inputs are built from each format's grammar with hostile values mixed in (wrong types, NaN, huge numbers, empty
and deep structures), so most reach the geometry rather than stopping at the first byte. The examples per parser
are few by default (CI stays short); ``MIRAN_FUZZ_EXAMPLES=2000`` (any number) runs the full size.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ci_size import size
from core.importers import ImportOptions, import_file
from core.scene.problems import InputError

EXAMPLES = size(25, 500, "MIRAN_FUZZ_EXAMPLES")
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="MIRAN_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
# Small limits keep each example's work small; the refusals they cause are InputErrors like any other.
OPTS = ImportOptions(max_elements=500, max_vertices=20_000)

pytestmark = pytest.mark.fuzz

numbers = st.one_of(st.floats(-1e3, 1e3, allow_nan=False), st.integers(-50, 500),
                    st.sampled_from([0, -0.0, 1e-300, 1e300, float("nan"), float("inf")]))
junk = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=8), st.lists(st.integers(), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def attempt(path, opts: ImportOptions = OPTS) -> None:
    """Import ``path``: a scene or an InputError are the only outcomes allowed."""
    try:
        import_file(path, None, opts)
    except InputError as e:
        assert e.problems and all(str(p) for p in e.problems)


def num_text(v) -> str:
    return repr(v) if not isinstance(v, float) else f"{v!r}"


# -- SVG ------------------------------------------------------------------------------------------------------------
svg_shape = st.one_of(
    st.builds(lambda x, y, w, h: f'<rect x="{x}" y="{y}" width="{w}" height="{h}"/>', numbers, numbers, numbers,
              numbers),
    st.builds(lambda x, y, r: f'<circle cx="{x}" cy="{y}" r="{r}"/>', numbers, numbers, numbers),
    st.builds(lambda pts: '<polygon points="' + " ".join(f"{a},{b}" for a, b in pts) + '"/>',
              st.lists(st.tuples(numbers, numbers), max_size=6)),
    st.builds(lambda cmds: f'<path d="{" ".join(cmds)}"/>', st.lists(st.one_of(
        st.builds(lambda a, b: f"M {a} {b}", numbers, numbers), st.builds(lambda a, b: f"L {a} {b}", numbers, numbers),
        st.builds(lambda r1, r2, a, b: f"A {r1} {r2} 0 0 1 {a} {b}", numbers, numbers, numbers, numbers),
        st.builds(lambda *c: "C " + " ".join(map(str, c)), numbers, numbers, numbers, numbers, numbers, numbers),
        st.just("Z"), st.text(alphabet="MLZHVCAQ0123456789.,- e", max_size=12)), max_size=8)),
    st.builds(lambda ref, x: f'<use href="#{ref}" x="{x}"/>', st.sampled_from(["a", "b", "g", "missing", ""]),
              numbers),
)
svg_node = st.recursive(svg_shape, lambda inner: st.builds(
    lambda kids, t, gid, tag: f'<{tag} id="{gid}" transform="{t}">' + "".join(kids) + f"</{tag}>",
    st.lists(inner, max_size=4), st.sampled_from(["", "scale(2)", "rotate(30)", "matrix(1 0 0 1 5 5)", "scale(0)",
                                                  "translate(nan)", "skewX(89.99)"]),
    st.sampled_from(["a", "b", "g", "h"]), st.sampled_from(["g", "symbol", "defs", "a", "clipPath"])), max_leaves=12)


@FUZZ
@given(nodes=st.lists(svg_node, max_size=5), width=st.sampled_from(["100", "0", "10mm", "-3", "1e-300mm", "", "abc"]),
       viewbox=st.sampled_from(["", ' viewBox="0 0 100 100"', ' viewBox="0 0 0 0"', ' viewBox="1 2 x"']))
def test_svg_parser(nodes, width, viewbox, tmp_path_factory):
    path = tmp_path_factory.mktemp("svg") / "f.svg"
    path.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{width}"{viewbox}>'
                    + "".join(nodes) + "</svg>")
    attempt(path)


@FUZZ
@given(data=st.binary(max_size=400))
def test_svg_bytes(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("svgb") / "f.svg"
    path.write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">' + data)
    attempt(path)


# -- Tiled ----------------------------------------------------------------------------------------------------------
tiled_object = st.fixed_dictionaries({"id": st.integers(0, 9)}, optional={
    "x": st.one_of(numbers, junk), "y": numbers, "width": st.one_of(numbers, junk), "height": numbers,
    "rotation": st.one_of(numbers, junk), "ellipse": st.booleans(), "point": st.booleans(), "gid": st.integers(),
    "visible": st.one_of(st.booleans(), junk), "properties": st.one_of(junk, st.lists(st.fixed_dictionaries(
        {"name": st.sampled_from(["role", "terrain", "x"]), "value": st.one_of(junk, st.sampled_from(
            ["obstacle", "route", "terrain:", "mud"]))}), max_size=2)),
    "polygon": st.one_of(junk, st.lists(st.fixed_dictionaries({"x": st.one_of(numbers, junk), "y": numbers}),
                                        max_size=5)),
    "class": st.one_of(junk, st.sampled_from(["wall", "route", ""]))})
tile_layer = st.fixed_dictionaries({"type": st.just("tilelayer"), "name": st.text(max_size=4)}, optional={
    "width": st.integers(-1, 6), "height": st.integers(-1, 6), "encoding": st.sampled_from(["csv", "base64", "x"]),
    "compression": st.sampled_from(["", "zlib", "gzip", "zstd"]),
    "data": st.one_of(junk, st.lists(st.integers(-1, 2**32), max_size=40), st.text(max_size=20)),
    "chunks": st.one_of(junk, st.lists(st.fixed_dictionaries({"x": st.integers(-5, 5), "y": numbers,
                                                               "width": st.integers(0, 4),
                                                               "height": st.integers(0, 4),
                                                               "data": st.lists(st.integers(0, 3), max_size=16)}),
                                       max_size=2))})
tiled_layer = st.recursive(
    st.one_of(st.fixed_dictionaries({"type": st.just("objectgroup"), "name": st.text(max_size=4),
                                     "objects": st.one_of(junk, st.lists(tiled_object, max_size=5))},
                                    optional={"offsetx": st.one_of(numbers, junk), "visible": junk}),
              tile_layer, junk),
    lambda inner: st.fixed_dictionaries({"type": st.just("group"), "name": st.text(max_size=3),
                                         "layers": st.one_of(junk, st.lists(inner, max_size=3))}),
    max_leaves=8)


@FUZZ
@given(layers=st.one_of(junk, st.lists(tiled_layer, max_size=4)), tw=st.one_of(st.integers(-1, 64), junk),
       infinite=st.booleans(), tmx=st.booleans())
def test_tiled_parser(layers, tw, infinite, tmx, tmp_path_factory):
    doc = {"type": "map", "orientation": "orthogonal", "width": 10, "height": 10, "tilewidth": tw,
           "tileheight": 16, "infinite": infinite, "layers": layers,
           "tilesets": [{"firstgid": 1, "tiles": [{"id": 0, "class": "wall"}]}]}
    path = tmp_path_factory.mktemp("tiled") / "f.tmj"
    path.write_text(json.dumps(doc))
    attempt(path)


@FUZZ
@given(body=st.lists(st.sampled_from([
    '<objectgroup name="W">', "</objectgroup>", '<object id="1" x="1" y="2" width="30" height="9">', "</object>",
    "<ellipse/>", '<polygon points="0,0 9,0 5,x"/>', '<polyline points="0,0 9,9"/>', "<group>", "</group>",
    '<layer name="T" width="2" height="2"><data encoding="csv">1,0,0,1</data></layer>',
    '<layer name="T" width="2" height="2"><data encoding="base64" compression="zlib">eJzz</data></layer>',
    '<properties><property name="role" value="route"/></properties>', '<object id="2" x="nan"/>']), max_size=14))
def test_tmx_parser(body, tmp_path_factory):
    path = tmp_path_factory.mktemp("tmx") / "f.tmx"
    path.write_text('<map orientation="orthogonal" width="10" height="10" tilewidth="16" tileheight="16">'
                    + "".join(body) + "</map>")
    attempt(path)


# -- GeoJSON --------------------------------------------------------------------------------------------------------
position = st.one_of(st.lists(numbers, min_size=2, max_size=3), st.lists(junk, max_size=4))
geometry = st.one_of(
    junk,
    st.fixed_dictionaries({"type": st.sampled_from(["Polygon", "MultiPolygon", "LineString", "Point", "Nope"]),
                           "coordinates": st.one_of(junk, position, st.lists(position, max_size=6),
                                                    st.lists(st.lists(position, max_size=6), max_size=2))}))
feature = st.fixed_dictionaries({"type": st.sampled_from(["Feature", "Feature", "Thing"]), "geometry": geometry},
                                optional={"properties": st.one_of(junk, st.fixed_dictionaries({}, optional={
                                    "layer": junk, "role": st.sampled_from(["obstacle", "terrain", "route", "agent",
                                                                            "network", "path", "x"]),
                                    "type": junk, "nodes": junk, "edges": junk, "goal": junk, "start": junk,
                                    "profile": junk})), "id": junk})


@FUZZ
@given(features=st.one_of(junk, st.lists(feature, max_size=6)), local=st.booleans(),
       crs=st.sampled_from([None, "metres", "EPSG:32632", "EPSG:4326", "nonsense"]),
       member=st.fixed_dictionaries({}, optional={"simulation": junk, "measurement": junk, "heightfield": junk,
                                                  "terrain_types": junk, "profiles": junk, "default_terrain": junk}))
def test_geojson_parser(features, local, crs, member, tmp_path_factory):
    doc = {"type": "FeatureCollection", "features": features}
    if local:
        doc["miran"] = {"units": "m", **member}
        doc["bbox"] = [0, 0, 100, 100]
    path = tmp_path_factory.mktemp("geo") / "f.geojson"
    path.write_text(json.dumps(doc))
    attempt(path, ImportOptions(max_elements=500, max_vertices=20_000, crs=crs))


# -- DXF and OSM ----------------------------------------------------------------------------------------------------
@FUZZ
@given(pairs=st.lists(st.tuples(st.sampled_from([0, 2, 5, 8, 10, 20, 11, 21, 40, 42, 70, 90, 999]),
                                st.one_of(st.sampled_from(["LINE", "LWPOLYLINE", "CIRCLE", "INSERT", "ENDSEC",
                                                           "BLOCK", "HATCH", "0"]), numbers.map(str))),
                      max_size=40))
def test_dxf_parser(pairs, tmp_path_factory):
    body = "".join(f"{c}\n{v}\n" for c, v in pairs)
    path = tmp_path_factory.mktemp("dxf") / "f.dxf"
    path.write_text(f"0\nSECTION\n2\nENTITIES\n{body}0\nENDSEC\n0\nEOF\n")
    attempt(path)


@FUZZ
@given(ways=st.lists(st.tuples(st.lists(st.integers(1, 8), max_size=6),
                               st.sampled_from(["building=yes", "highway=footway", "landuse=grass", "barrier=wall",
                                                "x=y"])), max_size=5),
       lat=st.sampled_from([50.0, 89.9999, -90.0, 0.0]))
def test_osm_parser(ways, lat, tmp_path_factory):
    nodes = "".join(f'<node id="{i}" lat="{lat + i * 1e-5}" lon="{7 + (i % 3) * 1e-5}"/>' for i in range(1, 7))
    body = "".join(f'<way id="{100 + k}">' + "".join(f'<nd ref="{n}"/>' for n in refs)
                   + '<tag k="{}" v="{}"/>'.format(*tag.split("=")) + "</way>" for k, (refs, tag) in enumerate(ways))
    path = tmp_path_factory.mktemp("osm") / "f.osm"
    path.write_text(f"<?xml version='1.0'?><osm version='0.6'>{nodes}{body}</osm>")
    attempt(path)
