"""A generated corpus of hostile files for ``miran import``: every class of input that multiplies work, breaks a
format's rules or hides elements, and the neighbouring ones.

``build_corpus(folder)`` writes the files and returns the cases, ``Case(name, argv, code, mentions)``: the
arguments after ``miran import FILE --out OUT``, the exit status the import must give (0 for a valid scene, 2 for
a refusal; None when either is right, as long as it is clean) and the text the error output must contain (the
element or limit a refusal names). The classes: block bombs and MINSERT arrays, <use> bombs and cycles, curves at a
nanometre, huge element counts, deep nesting, zero and denormal document sizes, truncated and malformed files,
entity expansions (billion laughs, XXE), Tiled type confusion and zip bombs, 3D GeoJSON, missing OSM nodes.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

SVG_HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" ' \
           'height="100" viewBox="0 0 100 100">'
SVG_TAIL = "</svg>"


@dataclass(frozen=True)
class Case:
    """One file and options, the exit status ``miran import`` must give (None: 0 or 2) and what a refusal names."""

    name: str
    file: str
    args: tuple[str, ...]
    code: int | None
    mentions: str = ""


def _svg(body: str) -> str:
    return SVG_HEAD + body + SVG_TAIL


def svg_cases() -> dict[str, tuple[str, tuple[str, ...], int | None, str]]:
    """Name -> (document, options, exit status, phrase)."""
    circles = "".join(f'<circle id="c{i}" cx="{i % 20 * 5 + 2}" cy="{i // 20 * 5 + 2}" r="2"/>' for i in range(300))
    rects = "".join(f'<rect x="{i % 300}" y="{i // 300}" width="0.5" height="0.5"/>' for i in range(100_000))
    bomb = '<defs><rect id="u0" width="1" height="1"/>' + "".join(
        f'<g id="u{d}">' + "".join(f'<use href="#u{d - 1}" x="{k}"/>' for k in range(10)) + "</g>"
        for d in range(1, 8)) + '</defs><use id="boom" href="#u7"/>'
    empty_bomb = '<defs><g id="e0"/>' + "".join(
        f'<g id="e{d}">' + "".join(f'<use href="#e{d - 1}"/>' for _ in range(10)) + "</g>"
        for d in range(1, 8)) + '</defs><use id="hollow" href="#e7"/><rect width="5" height="5"/>'
    deep = "<g>" * 3000 + '<rect id="deep" width="5" height="5"/>' + "</g>" * 3000
    long_use = '<rect id="v0" width="1" height="1"/>' + "".join(
        f'<use id="v{k}" href="#v{k - 1}"/>' for k in range(1, 2000))
    laughs = ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
              + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
              + ']>' + _svg('<text id="t">&i;</text><rect width="5" height="5"/>'))
    xxe = ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           + _svg('<text>&x;</text><rect width="5" height="5"/>'))
    return {
        "svg_300_circles_nanometre": (_svg(circles), ("--tolerance", "1e-9"), 2, "--max-vertices"),
        "svg_1e5_rects": (_svg(rects), (), 2, "--max-elements"),
        "svg_use_bomb": (_svg(bomb), (), 2, "use 'boom'"),
        "svg_use_bomb_of_empty_groups": (_svg(empty_bomb), (), 2, "use 'hollow'"),
        "svg_use_cycle": (_svg('<g id="a"><use id="loop" href="#a"/><rect width="2" height="2"/></g>'), (), 2,
                          "use 'loop'"),
        "svg_use_mutual_cycle": (_svg('<g id="a"><use href="#b"/></g><g id="b"><use id="back" href="#a"/></g>'
                                      '<rect width="2" height="2"/>'), (), 2, "use 'back'"),
        "svg_use_missing_target": (_svg('<use id="lost" href="#nowhere"/><rect width="3" height="3"/>'), (), 0, ""),
        "svg_use_other_document": (_svg('<use id="far" href="other.svg#x"/><rect width="3" height="3"/>'), (), 0,
                                   ""),
        "svg_deep_groups": (_svg(deep), (), 2, "nest deeper"),
        "svg_long_use_chain": (_svg(long_use), (), 2, "use 'v"),
        "svg_zero_size": ('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"><rect width="5" '
                          'height="5"/></svg>', (), 2, "<svg>"),
        "svg_denormal_size": ('<svg xmlns="http://www.w3.org/2000/svg" width="1e-300mm" height="1e-300mm" '
                              'viewBox="0 0 10 10"><rect width="5" height="5"/></svg>', (), None, ""),
        "svg_huge_size": ('<svg xmlns="http://www.w3.org/2000/svg" width="1e300mm" height="1e300mm" '
                          'viewBox="0 0 10 10"><rect width="5" height="5"/></svg>', (), 2, ""),
        "svg_zero_radius_arc": (_svg('<path id="sq" d="M 10 10 L 20 10 A 0 0 0 0 1 20 20 L 10 20 Z"/>'), (), 0, ""),
        "svg_nan_transform": (_svg('<rect id="n" width="5" height="5" transform="scale(nan)"/>'
                                   '<rect width="2" height="2"/>'), (), None, ""),
        "svg_huge_coordinate": (_svg('<rect id="far" x="1e305" width="5" height="5"/>'), (), 2, ""),
        "svg_billion_laughs": (laughs, (), 2, "not a readable SVG"),
        "svg_xxe": (xxe, (), 2, "not a readable SVG"),
        "svg_not_svg": ('<html><body/></html>', (), 2, "not an SVG document"),
        "svg_truncated": (_svg('<rect width="5" height="5"/>')[:60], (), 2, "not a readable SVG"),
        "svg_only_defs": (_svg('<defs><rect id="r" width="5" height="5"/></defs>'), (), 2, "nothing"),
        "svg_many_subpaths": (_svg('<path id="holes" d="M 0 0 L 100 0 L 100 100 L 0 100 Z '
                                   + " ".join(f"M {1 + i % 49 * 2} {1 + i // 49 * 2} l 1 0 l 0 1 l -1 0 z"
                                              for i in range(2000)) + '"/>'), (), None, ""),
        "svg_text_and_image": (_svg('<text id="label">hello</text><image id="pic" href="x.png" width="5" '
                                    'height="5"/><rect width="5" height="5"/>'), (), 0, ""),
    }


def dxf_files(folder: Path) -> dict[str, tuple[str, tuple[str, ...], int | None, str]]:
    """Name -> (path, options, exit status, phrase) of DXF files written with ezdxf."""
    import ezdxf

    out: dict[str, tuple[str, tuple[str, ...], int | None, str]] = {}

    def save(doc, name: str) -> str:
        p = folder / f"{name}.dxf"
        doc.saveas(p)
        return str(p)

    doc = ezdxf.new()
    b = doc.blocks.new("B0")
    b.add_line((0, 0), (1, 1))
    for d in range(1, 7):
        blk = doc.blocks.new(f"B{d}")
        for i in range(10):
            blk.add_blockref(f"B{d - 1}", (i * 2, 0))
    doc.modelspace().add_blockref("B6", (0, 0))
    out["dxf_block_bomb"] = (save(doc, "dxf_block_bomb"), (), 2, "--max-elements")

    doc = ezdxf.new()
    blk = doc.blocks.new("SQ")
    blk.add_lwpolyline([(0, 0), (1, 0), (1, 1), (0, 1)], close=True)
    ins = doc.modelspace().add_blockref("SQ", (0, 0), dxfattribs={"layer": "walls"})
    ins.dxf.row_count, ins.dxf.column_count, ins.dxf.row_spacing, ins.dxf.column_spacing = 200, 200, 2, 2
    out["dxf_minsert_huge"] = (save(doc, "dxf_minsert_huge"), (), 2, "MINSERT")

    doc = ezdxf.new()
    a, b2 = doc.blocks.new("A"), doc.blocks.new("B")
    a.add_blockref("B", (1, 0))
    b2.add_blockref("A", (0, 1))
    doc.modelspace().add_blockref("A", (0, 0))
    out["dxf_block_cycle"] = (save(doc, "dxf_block_cycle"), (), 2, "inserts itself")

    doc = ezdxf.new()
    doc.modelspace().add_blockref("NOWHERE", (0, 0))
    doc.modelspace().add_lwpolyline([(0, 0), (4, 0), (4, 4)], close=True)
    out["dxf_missing_block"] = (save(doc, "dxf_missing_block"), (), None, "")

    doc = ezdxf.new()
    for i in range(300):
        doc.modelspace().add_circle((i % 20 * 5, i // 20 * 5), 2)
    out["dxf_circles_nanometre"] = (save(doc, "dxf_circles_nanometre"), ("--tolerance", "1e-9"), 2,
                                    "--max-vertices")

    doc = ezdxf.new()
    doc.modelspace().add_spline([(0, 0), (10, 30), (20, -30), (30, 0), (40, 20)])
    out["dxf_spline_nanometre"] = (save(doc, "dxf_spline_nanometre"), ("--tolerance", "1e-9"), None, "")

    doc = ezdxf.new()
    doc.modelspace().add_lwpolyline([(0, 0, 0, 0, 1e-12), (10, 0, 0, 0, 1e12), (10, 10, 0, 0, -0.5)],
                                    format="xyseb", close=True)
    out["dxf_extreme_bulges"] = (save(doc, "dxf_extreme_bulges"), (), None, "")

    doc = ezdxf.new()
    doc.modelspace().add_circle((0, 0), 1e15)
    out["dxf_huge_circle"] = (save(doc, "dxf_huge_circle"), (), 2, "")

    doc = ezdxf.new(units=6)
    doc.modelspace().add_lwpolyline([(0, 0), (4, 0), (4, 4), (0, 4)], close=True, dxfattribs={"layer": "walls"})
    text = (folder / "dxf_missing_block.dxf").read_text()
    for cut in (0.3, 0.6, 0.9):
        p = folder / f"dxf_truncated_{int(cut * 100)}.dxf"
        p.write_text(text[:int(len(text) * cut)])
        out[p.stem] = (str(p), (), 2, "not a readable DXF")
    p = folder / "dxf_garbage.dxf"
    p.write_bytes(b"0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nnot-a-number\n" * 3)
    out["dxf_garbage"] = (str(p), (), 2, "")
    return out


def tiled_cases() -> dict[str, tuple[object, str, tuple[str, ...], int | None, str]]:
    """Name -> (document, file suffix, options, exit status, phrase); a str document is written as is."""
    base = {"type": "map", "orientation": "orthogonal", "width": 10, "height": 10, "tilewidth": 32,
            "tileheight": 32, "infinite": False, "layers": []}
    rect = {"id": 1, "x": 32, "y": 32, "width": 64, "height": 64}

    def layer(*objs, name="Walls"):
        return {"type": "objectgroup", "name": name, "objects": list(objs)}

    def deep_json(depth: int) -> str:
        head = dict(base, layers=[])
        text = json.dumps(head)[:-len("[]}")]
        return text + '[{"type": "group", "name": "g", "layers": ' * depth + "[" + json.dumps(layer(rect)) + "]" \
            + "}]" * depth + "}"

    tmx_deep = ('<map orientation="orthogonal" width="10" height="10" tilewidth="32" tileheight="32">'
                + "<group>" * 3000 + '<objectgroup name="Walls"><object id="1" x="32" y="32" width="64" '
                'height="64"/></objectgroup>' + "</group>" * 3000 + "</map>")
    zipbomb = base64.b64encode(zlib.compress(b"\x01\x00\x00\x00" * 4_000_000)).decode()
    cells = [1 if (i + j) % 3 == 0 else 0 for j in range(16) for i in range(16)]
    return {
        "tiled_400_groups_json": (deep_json(400), ".tmj", (), 0, ""),
        "tiled_3000_groups_json": (deep_json(3000), ".tmj", (), None, ""),
        "tiled_3000_groups_tmx": (tmx_deep, ".tmx", (), 0, ""),
        "tiled_properties_5": (dict(base, layers=[layer(dict(rect, properties=5))]), ".tmj", (), 2, "properties"),
        "tiled_objects_7": (dict(base, layers=[{"type": "objectgroup", "name": "W", "objects": 7}]), ".tmj", (), 2,
                            "objects"),
        "tiled_layers_string": (dict(base, layers="walls"), ".tmj", (), 2, "layers"),
        "tiled_ellipse_1e15": (dict(base, layers=[layer(dict(rect, width=1e15, height=1e15, ellipse=True))]),
                               ".tmj", (), 2, "object 1"),
        "tiled_ellipse_nanometre": ('<map orientation="orthogonal" width="99" height="99" tilewidth="1" '
                                    'tileheight="1"><objectgroup><object id="1" x="1" y="1" width="50" '
                                    'height="50"><ellipse/></object></objectgroup></map>', ".tmx",
                                    ("--tolerance", "1e-9"), 2,
                                    "--max-vertices"),
        "tiled_polygon_bool_points": (dict(base, layers=[layer(dict(rect, polygon=[{"x": True, "y": 0}] * 3))]),
                                      ".tmj", (), 2, "object 1"),
        "tiled_polygon_not_list": (dict(base, layers=[layer(dict(rect, polygon=5))]), ".tmj", (), 2, "polygon"),
        "tiled_zlib_bomb": (dict(base, width=1, height=1, layers=[{"type": "tilelayer", "name": "T", "width": 1,
                                                                   "height": 1, "encoding": "base64",
                                                                   "compression": "zlib", "data": zipbomb},
                                                                  layer(rect)]), ".tmj", (), 2, "tile layer 'T'"),
        "tiled_huge_tile_layer": (dict(base, layers=[{"type": "tilelayer", "name": "T", "width": 100000,
                                                      "height": 100000, "data": []}]), ".tmj", (), 2,
                                  "tile cells"),
        "tiled_infinite_chunks": (dict(base, infinite=True, layers=[
            {"type": "tilelayer", "name": "Walls", "chunks": [{"x": -16, "y": 0, "width": 16, "height": 16,
                                                               "data": cells},
                                                              {"x": 0, "y": 0, "width": 16, "height": 16,
                                                               "data": cells}]}]), ".tmj", (), 0, ""),
        "tiled_chunk_wrong_size": (dict(base, infinite=True, layers=[
            {"type": "tilelayer", "name": "Walls", "chunks": [{"x": 0, "y": 0, "width": 16, "height": 16,
                                                               "data": [1, 2, 3]}]}]), ".tmj", (), 2, "chunk 0"),
        "tiled_zstd": (dict(base, layers=[{"type": "tilelayer", "name": "T", "width": 10, "height": 10,
                                           "encoding": "base64", "compression": "zstd", "data": "AAAA"}]), ".tmj",
                       (), 2, "zstd"),
        "tiled_nan_offset": ('{"type": "map", "orientation": "orthogonal", "width": 10, "height": 10, '
                             '"tilewidth": 32, "tileheight": 32, "layers": [{"type": "objectgroup", "name": "W", '
                             '"offsetx": NaN, "objects": []}]}', ".tmj", (), 2, ""),
        "tiled_template": (dict(base, layers=[layer({"id": 3, "template": "t.tx", "x": 1, "y": 1})]), ".tmj", (),
                           2, "object 3"),
    }


def geojson_cases() -> dict[str, tuple[object, tuple[str, ...], int | None, str]]:
    def fc(*features, **extra):
        return {"type": "FeatureCollection", "features": list(features), **extra}

    def poly(coords, **props):
        return {"type": "Feature", "properties": props, "geometry": {"type": "Polygon", "coordinates": [coords]}}

    sq3 = [[10, 10, 5], [30, 10, 5], [30, 20, 5], [10, 20, 5], [10, 10, 5]]
    big = [[i * 1e-4, (i % 2) * 1e-4] for i in range(300_000)]
    return {
        "geojson_3d_local_metres": (fc(poly(sq3, layer="walls"), miran={"units": "m", "crs": "local"}), (), 0, ""),
        "geojson_3d_lonlat": (fc(poly([[7, 50, 1], [7.001, 50, 1], [7.001, 50.001, 1], [7, 50, 1]],
                                      layer="walls")), (), 0, ""),
        "geojson_metres_declared": (fc(poly([[10, 10], [30, 10], [30, 20], [10, 20], [10, 10]], layer="walls")),
                                    ("--crs", "metres"), 0, ""),
        "geojson_bad_crs": (fc(poly([[10, 10], [30, 10], [30, 20], [10, 10]], layer="walls")),
                            ("--crs", "EPSG:999999"), 2, "--crs"),
        "geojson_huge_line": (fc({"type": "Feature", "properties": {"layer": "walk"},
                                  "geometry": {"type": "LineString", "coordinates": big}}), (), 2,
                              "--max-vertices"),
        "geojson_4d_positions": (fc(poly([[0, 0, 1, 2], [1, 0, 1, 2], [1, 1, 1, 2], [0, 0, 1, 2]])), (), None, ""),
        "geojson_short_position": (fc(poly([[0], [1, 0], [1, 1], [0]])), (), 2, "features[0]"),
        "geojson_string_coordinates": (fc(poly([["a", "b"], [1, 0], [1, 1], ["a", "b"]])), (), 2, "features[0]"),
        "geojson_agent_bad_goal": (fc(poly([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], role="obstacle"),
                                      {"type": "Feature", "geometry": None,
                                       "properties": {"role": "agent", "id": "a", "profile": "pedestrian",
                                                      "start": [6, 6], "goal": "x"}},
                                      miran={"units": "m"}, bbox=[0, 0, 10, 10]), (), 2, "agents[0]"),
    }


def osm_cases() -> dict[str, tuple[str, tuple[str, ...], int | None, str]]:
    nodes = "".join(f'<node id="{i + 1}" lat="{50 + (i % 2) * 1e-5}" lon="{7 + i * 1e-6}"/>' for i in range(100_000))
    footway = ('<way id="900">' + "".join(f'<nd ref="{i + 1}"/>' for i in range(100_000))
               + '<tag k="highway" v="footway"/></way>')
    small = ('<node id="1" lat="50.0" lon="7.0"/><node id="2" lat="50.0" lon="7.001"/>'
             '<node id="3" lat="50.001" lon="7.001"/><node id="4" lat="50.001" lon="7.0"/>')
    building = '<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/>' \
               '<tag k="building" v="yes"/></way>'

    def osm(body: str) -> str:
        return f"<?xml version='1.0' encoding='UTF-8'?><osm version='0.6'>{body}</osm>"

    return {
        "osm_footway_100k_nodes": (osm(nodes + footway), (), 2, "way 900"),
        "osm_missing_node": (osm(small + building + '<way id="11"><nd ref="1"/><nd ref="77"/><nd ref="3"/>'
                                 '<tag k="highway" v="footway"/></way>'), (), 0, ""),
        "osm_broken_multipolygon": (osm(small + building + '<relation id="20"><member type="way" ref="404" '
                                        'role="outer"/><tag k="type" v="multipolygon"/><tag k="landuse" '
                                        'v="grass"/></relation>'), (), 0, ""),
        "osm_nothing_tagged": (osm(small), (), 2, "no building"),
        "osm_truncated": (osm(small + building)[:150], (), 2, ""),
    }


DXF_NAMES = ("dxf_block_bomb", "dxf_minsert_huge", "dxf_block_cycle", "dxf_missing_block", "dxf_circles_nanometre",
             "dxf_spline_nanometre", "dxf_extreme_bulges", "dxf_huge_circle", "dxf_truncated_30", "dxf_truncated_60",
             "dxf_truncated_90", "dxf_garbage")


def case_names() -> list[str]:
    """The cases' names, without writing their files."""
    return [*svg_cases(), *DXF_NAMES, *tiled_cases(), *geojson_cases(), *osm_cases()]


def build_corpus(folder: Path) -> list[Case]:
    """Write the corpus's files into ``folder`` and return its cases."""
    folder.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    for name, (text, args, code, mentions) in svg_cases().items():
        p = folder / f"{name}.svg"
        p.write_text(text)
        cases.append(Case(name, str(p), args, code, mentions))
    for name, (path, args, code, mentions) in dxf_files(folder).items():
        cases.append(Case(name, path, args, code, mentions))
    for name, (doc, suffix, args, code, mentions) in tiled_cases().items():
        p = folder / f"{name}{suffix}"
        p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
        cases.append(Case(name, str(p), args, code, mentions))
    for name, (doc, args, code, mentions) in geojson_cases().items():
        p = folder / f"{name}.geojson"
        p.write_text(json.dumps(doc))
        cases.append(Case(name, str(p), args, code, mentions))
    for name, (text, args, code, mentions) in osm_cases().items():
        p = folder / f"{name}.osm"
        p.write_text(text)
        cases.append(Case(name, str(p), args, code, mentions))
    return cases


__all__ = ["Case", "DXF_NAMES", "build_corpus", "case_names", "dxf_files", "geojson_cases", "osm_cases", "svg_cases",
           "tiled_cases"]
