"""OpenStreetMap offline files (``.osm``, ``.osm.pbf``, ``.osm.bz2``/``.gz``) read with osmium.

Areas (closed ways and multipolygon relations, assembled by osmium) and linear ways are matched against
``OSM_TAGS``: buildings and water become obstacles; highways, footways and landuse become terrain. Linear rules
(highways, walls) are buffered to a width: the way's ``width`` tag in metres when it has one, else the table's.
The table is the default; ``--map KEY=VALUE=ROLE`` or ``--map KEY=ROLE`` overrides any entry (``--map
highway=service=ignore``, ``--map building=ignore``) and can add tags the table lacks (closed ways and relations
become areas, open ways are buffered to ``DEFAULT_LINE_WIDTH``). Coordinates are projected to metres
(``project.to_metres``). Messages name the way or relation id.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon

from core.scene.problems import InputError, Problem

from .budget import Budget
from .clean import ImportOptions
from .curves import chords
from .deps import require
from .features import Feature, Role, Source
from .files import check_path
from .project import to_metres


@dataclass(frozen=True)
class TagRule:
    """What ways tagged ``key=value`` become (value ``*``: any value); ``width`` (m) buffers linear ways, None for
    area rules; ``color`` and ``weight`` (the pedestrian profile's) go to the terrain type."""

    key: str
    value: str
    role: Role
    width: float | None = None
    color: str = ""
    weight: float | None = None

    @property
    def name(self) -> str:
        return self.key if self.value == "*" else f"{self.key}={self.value}"


def _t(kind_type: str) -> Role:
    return Role("obstacle") if kind_type == "obstacle" else Role("terrain", kind_type)


# The tag -> terrain table, most specific first (README.md, "Importing scenes", lists it).
OSM_TAGS: tuple[TagRule, ...] = (
    TagRule("building", "*", _t("obstacle")),
    TagRule("natural", "water", _t("obstacle")),
    TagRule("waterway", "riverbank", _t("obstacle")),
    TagRule("barrier", "wall", _t("obstacle"), width=0.3),
    TagRule("footway", "sidewalk", _t("sidewalk"), width=2.0, color="#d9d9d9", weight=0.5),
    TagRule("highway", "footway", _t("footway"), width=2.0, color="#e8d8b0", weight=0.5),
    TagRule("highway", "pedestrian", _t("footway"), width=4.0, color="#e8d8b0", weight=0.5),
    TagRule("highway", "path", _t("path"), width=1.5, color="#c8b890", weight=0.7),
    TagRule("highway", "steps", _t("steps"), width=2.0, color="#a0a0a0", weight=1.5),
    TagRule("highway", "cycleway", _t("cycleway"), width=2.0, color="#b0c8e8", weight=1.5),
    TagRule("highway", "track", _t("track"), width=3.0, color="#b09060", weight=0.8),
    TagRule("highway", "service", _t("road"), width=4.0, color="#7f7f7f", weight=4.0),
    TagRule("highway", "living_street", _t("road"), width=5.0, color="#7f7f7f", weight=2.0),
    TagRule("highway", "residential", _t("road"), width=6.0, color="#7f7f7f", weight=4.0),
    TagRule("highway", "unclassified", _t("road"), width=6.0, color="#7f7f7f", weight=4.0),
    TagRule("highway", "tertiary", _t("road"), width=7.0, color="#7f7f7f", weight=4.0),
    TagRule("highway", "secondary", _t("road"), width=8.0, color="#7f7f7f", weight=4.0),
    TagRule("highway", "primary", _t("road"), width=10.0, color="#7f7f7f", weight=4.0),
    TagRule("amenity", "parking", _t("parking"), color="#b0b0b0", weight=1.0),
    TagRule("landuse", "grass", _t("grass"), color="#8fbf6a", weight=1.2),
    TagRule("landuse", "meadow", _t("grass"), color="#8fbf6a", weight=1.2),
    TagRule("leisure", "park", _t("grass"), color="#8fbf6a", weight=1.2),
    TagRule("landuse", "forest", _t("forest"), color="#3f7f3f", weight=2.0),
    TagRule("natural", "wood", _t("forest"), color="#3f7f3f", weight=2.0),
    TagRule("natural", "scrub", _t("scrub"), color="#6f8f3f", weight=3.0),
    TagRule("natural", "sand", _t("sand"), color="#e0c872", weight=1.5),
    TagRule("natural", "beach", _t("sand"), color="#e0c872", weight=1.5),
    TagRule("landuse", "farmland", _t("farmland"), color="#c9b36b", weight=2.0),
    TagRule("natural", "wetland", _t("mud"), color="#7a5230", weight=10.0),
)
# Width (m) of open ways matched only through --map.
DEFAULT_LINE_WIDTH = 1.0


def _match(tags: dict[str, str], mapping: dict[str, Role]) -> tuple[tuple[str, ...], TagRule | None]:
    """The --map keys a way's tags offer (``key=value`` then ``key``) and the first table rule that matches."""
    keys = []
    for k, v in tags.items():
        keys += [f"{k}={v}", k]
    rule = next((r for r in OSM_TAGS if r.key in tags and (r.value == "*" or tags[r.key] == r.value)), None)
    # Most specific keys first: the rule's own, then the rest in tag order.
    if rule is not None:
        first = [f"{rule.key}={tags[rule.key]}", rule.key]
        keys = first + [k for k in keys if k not in first]
    return tuple(k for k in keys if k.lower() in mapping or rule is not None), rule


def _width(tags: dict[str, str], default: float) -> float:
    w = tags.get("width", "")
    try:
        f = float(w.replace("m", "").strip())
        return f if math.isfinite(f) and 0 < f < 1000 else default
    except ValueError:
        return default


def _buffer_quads(tol: float, width: float) -> int:
    """Segments per quarter circle that keep a buffer's round joins within ``tol`` of the true arc."""
    return max(2, min(64, chords(width / 2, math.pi / 2, tol)))


def read_osm(path: str | Path, opts: ImportOptions, mapping: dict[str, Role] | None = None,
             budget: Budget | None = None) -> Source:
    """The buildings, ways and landuse of an OSM file as features in metres."""
    osmium = require("osmium", "OpenStreetMap files")
    mapping = mapping or {}
    budget = budget or opts.budget()
    p = check_path(path)
    lonlat: list = []
    meta: list[tuple[tuple[str, ...], str, Role | None, float | None]] = []
    skipped: list[tuple[str, str]] = []
    # Closed ways and multipolygon relations that should become areas, until osmium's assembler yields them.
    expected: dict[str, str] = {}
    unnamed = 0
    try:
        fp = osmium.FileProcessor(str(p)).with_locations().with_areas()
        for o in fp:
            if isinstance(o, osmium.osm.Node) or not len(o.tags):
                continue
            tags = {t.k: t.v for t in o.tags}
            keys, rule = _match(tags, mapping)
            if not keys:
                if not isinstance(o, osmium.osm.Area):
                    unnamed += 1
                continue
            linear = rule.width is not None if rule is not None else None
            if isinstance(o, osmium.osm.Area):
                if linear and tags.get("area") != "yes":
                    continue
                where = f"{'way' if o.from_way() else 'relation'} {o.orig_id()}"
                expected.pop(where, None)
                polys = []
                for outer in o.outer_rings():
                    shell = [(n.lon, n.lat) for n in outer]
                    holes = [[(n.lon, n.lat) for n in inner] for inner in o.inner_rings(outer)]
                    if len(shell) >= 4:
                        polys.append(Polygon(shell, [h for h in holes if len(h) >= 4]))
                budget.add_elements(where)
                budget.add_vertices(where, sum(len(q.exterior.coords) + sum(len(h.coords) for h in q.interiors)
                                               for q in polys), "its rings")
                if polys:
                    lonlat.append(MultiPolygon(polys) if len(polys) > 1 else polys[0])
                    meta.append((keys, where, rule.role if rule else None, None))
                else:
                    skipped.append((where, "an area with no ring of three or more nodes"))
            elif isinstance(o, osmium.osm.Way):
                where = f"way {o.id}"
                if linear is False or (linear is None and o.is_closed()):
                    expected[where] = "its area could not be assembled (a node is missing, or it does not close)"
                    continue
                width: float = _width(tags, rule.width if rule is not None and rule.width is not None
                                      else DEFAULT_LINE_WIDTH)
                n_nodes = len(o.nodes)
                budget.add_elements(where)
                budget.add_vertices(where, n_nodes * (2 + _buffer_quads(opts.tolerance, width)),
                                    f"buffering its {n_nodes:,} nodes to {width:g} m", tolerance=opts.tolerance)
                missing = [n.ref for n in o.nodes if not n.location.valid()]
                if missing:
                    skipped.append((where, f"node {missing[0]} is missing from the file"
                                           + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")))
                    continue
                pts = [(n.lon, n.lat) for n in o.nodes]
                if len(pts) < 2:
                    skipped.append((where, "a way of fewer than two nodes"))
                    continue
                lonlat.append(LineString(pts))
                meta.append((keys, where, rule.role if rule else None, width))
            elif isinstance(o, osmium.osm.Relation) and tags.get("type") in ("multipolygon", "boundary"):
                expected[f"relation {o.id}"] = ("its multipolygon could not be assembled (a member way or node is "
                                                "missing, or its rings do not close)")
    except InputError as e:
        raise InputError(e.problems, str(p)) from None
    except (RuntimeError, ValueError, KeyError) as e:  # osmium's I/O and parse errors
        raise InputError([Problem("", f"not a readable OpenStreetMap file: {e}")], str(p)) from None
    skipped += list(expected.items())
    if not lonlat:
        raise InputError([Problem("", "no building, way or landuse the tag table (or --map) names was found")]
                         + [Problem(w, why) for w, why in skipped[:10]], str(p))
    geoms, note = to_metres(lonlat, "EPSG:4326", opts.projection)
    notes = [note]
    if unnamed:
        notes.append(f"{unnamed} tagged way(s) and relation(s) have tags that neither the tag table nor --map "
                     "names: not imported")
    features = []
    for g, (keys, where, role, w) in zip(geoms, meta):
        if w is not None:
            # Buffered in metres, after projection; flat ends so a way ends where it ends.
            g = shapely.buffer(g, w / 2, quad_segs=_buffer_quads(opts.tolerance, w), cap_style="flat")
        features.append(Feature(g, keys, where, keys[0].split("=")[0], role))
    colors = {r.role.type: r.color for r in OSM_TAGS if r.role.kind == "terrain" and r.color}
    weights = {r.role.type: r.weight for r in OSM_TAGS if r.role.kind == "terrain" and r.weight is not None}
    return Source(features, p.name.split(".")[0], None, notes, colors, weights, skipped=skipped)


__all__ = ["DEFAULT_LINE_WIDTH", "OSM_TAGS", "TagRule", "read_osm"]
