"""GeoJSON (read with shapely) and any OGR format through pyogrio (Shapefile, GeoPackage, GML, KML ...).

Coordinates in longitude/latitude (GeoJSON's WGS 84, or an OGR layer with a geographic CRS) are projected to
metres (``project.to_metres``: a local transverse Mercator by default, or the UTM zone). A GeoJSON file that says
it is already in local metres (the ``"miran"`` member this project's export writes) or names a projected CRS in
metres is taken as is; projected OGR layers are converted from their CRS's unit to metres.
Roles: a feature whose properties have ``role`` (obstacle, terrain, route, ignore) and, for terrain, ``type``
takes that role (what the export writes); otherwise its keys for ``--map`` are the values of its
``layer``, ``class``, ``type`` and ``kind`` properties (or of ``--layer-property``), then the OGR layer name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from core.scene.jsonio import is_finite_number, read_json
from core.scene.model import Profile, TerrainType
from core.scene.problems import InputError, Problem

from .budget import Budget
from .clean import ImportOptions
from .deps import require
from .features import Feature, Role, Source, parse_role
from .files import check_path
from .project import looks_lonlat, to_lonlat, to_metres

LAYER_PROPERTIES = ("layer", "class", "type", "kind")
GEOJSON_TYPES = ("FeatureCollection", "Feature", "Polygon", "MultiPolygon", "LineString", "MultiLineString",
                 "GeometryCollection", "Point", "MultiPoint")
# The foreign member marking a GeoJSON written in the scene's own metres (see core.export.geojson).
LOCAL_MEMBER = "miran"
# Scene items a scene export writes as features with these roles, and the properties that are the item.
SCENE_ITEMS = {"network": "networks", "agent": "agents"}
ITEM_FIELDS = {"network": ("id", "nodes", "edges"), "agent": ("id", "profile", "route", "start", "goal", "planner")}
# The properties a scene export writes for an obstacle that comes and goes or moves (core.export.geojson).
MOTION_FIELDS = ("appears", "vanishes", "path", "speed", "loop", "turns")
# --crs values meaning "the coordinates are metres already".
METRES = ("metres", "meters", "m", "local")


def is_geojson(data: Any) -> bool:
    """Whether parsed JSON is a GeoJSON object."""
    return isinstance(data, dict) and data.get("type") in GEOJSON_TYPES


def _keys(props: dict, opts: ImportOptions, layer: str = "") -> tuple[str, ...]:
    names = (opts.layer_property,) if opts.layer_property else LAYER_PROPERTIES
    keys = [str(props[n]) for n in names if props.get(n) not in (None, "")]
    if layer:
        keys.append(layer)
    return tuple(keys)


def _stated_role(props: dict, where: str) -> Role | None:
    role = props.get("role")
    if not isinstance(role, str) or role.lower() not in ("obstacle", "terrain", "route", "ignore", "path"):
        return None
    if role.lower() == "path":
        return parse_role("ignore", where)
    if role.lower() == "terrain":
        if props.get("type") in (None, ""):
            raise InputError([Problem(where, "role 'terrain' needs a 'type' property naming the terrain type")])
        return parse_role("terrain:" + str(props["type"]), where)
    return parse_role(role, where)


def _geojson_crs(data: dict) -> str | None:
    """The CRS an (old-style) GeoJSON names, or None for the standard WGS 84."""
    crs = data.get("crs")
    if isinstance(crs, dict) and isinstance(crs.get("properties"), dict):
        name = str(crs["properties"].get("name", ""))
        if name and "CRS84" not in name.upper() and not name.upper().endswith(("EPSG::4326", "EPSG:4326")):
            return name
    return None


def read_geojson(path: str | Path, opts: ImportOptions, data: Any = None, budget: Budget | None = None) -> Source:
    """The polygons and lines of a GeoJSON file as features in metres."""
    p = Path(path)
    budget = budget or opts.budget()
    if data is None:
        data = read_json(p)
    if not is_geojson(data):
        raise InputError([Problem("", "not a GeoJSON object (no FeatureCollection, Feature or geometry type)")],
                         str(p))
    if data["type"] == "FeatureCollection":
        feats = data.get("features")
        if not isinstance(feats, list):
            raise InputError([Problem("features", "expected a list of features")], str(p))
    elif data["type"] == "Feature":
        feats = [data]
    else:
        feats = [{"type": "Feature", "geometry": data, "properties": {}}]
    local = isinstance(data.get(LOCAL_MEMBER), dict) and data[LOCAL_MEMBER].get("units") == "m"
    geoms, meta, problems, skipped, flat = [], [], [], [], []
    extra: dict[str, list] = {"networks": [], "agents": []}
    budget.add_elements("features", len(feats), f"{len(feats):,} features")
    for i, f in enumerate(feats):
        loc = f"features[{i}]"
        if not isinstance(f, dict) or f.get("type") != "Feature":
            problems.append(Problem(loc, "expected a GeoJSON Feature"))
            continue
        props = f.get("properties") or {}
        if not isinstance(props, dict):
            problems.append(Problem(f"{loc}.properties", "expected an object"))
            continue
        fid = f.get("id", props.get("id"))
        where = f"feature {str(fid)[:60]!r} ({loc})" if fid is not None else loc
        if local and props.get("role") in SCENE_ITEMS:
            role = props["role"]
            extra[SCENE_ITEMS[role]].append({k: props[k] for k in ITEM_FIELDS[role] if k in props})
            continue
        if f.get("geometry") is None:
            skipped.append((where, "no geometry"))
            continue
        budget.add_vertices(where, _positions(f["geometry"]), "its geometry")
        try:
            g = shape(f["geometry"])
        except Exception as e:  # shapely raises GEOSException, ValueError, TypeError, KeyError on bad geometry
            problems.append(Problem(f"{loc}.geometry", f"not a valid GeoJSON geometry: {str(e)[:200]}"))
            continue
        if shapely.has_z(g):
            g = shapely.force_2d(g)
            flat.append(where)
        c = shapely.get_coordinates(g)
        if not np.isfinite(c).all():
            problems.append(Problem(f"{loc}.geometry", "coordinates are not finite numbers"))
            continue
        try:
            role = _stated_role(props, where)
        except InputError as e:
            problems.extend(e.problems)
            continue
        ident = str(fid) if local and isinstance(fid, str) and fid else ""
        motion = {k: props[k] for k in MOTION_FIELDS if props.get(k) is not None} if local else {}
        geoms.append(g)
        meta.append((_keys(props, opts), where, str(props.get("layer", "")), role, ident, motion))
    if problems:
        raise InputError(problems, str(p))
    notes: list[str] = []
    if flat:
        notes.append(f"dropped the z coordinate of {len(flat)} feature(s) (a scene is a plan): "
                     f"{'; '.join(flat[:5])}" + (f" and {len(flat) - 5} more" if len(flat) > 5 else ""))
    crs = _geojson_crs(data)
    allc = shapely.get_coordinates(np.asarray(geoms, dtype=object)) if geoms else np.zeros((0, 2))
    if opts.crs is not None:
        geoms, note = _given_crs(geoms, opts)
        notes.append(note)
        moving = [m[1] for m in meta if m[5]]
        if moving:
            meta = [m[:5] + ({},) for m in meta]
            notes.append(f"the schedule and motion of {len(moving)} obstacle(s) left out: --crs changes their "
                         f"coordinates but not their paths ({'; '.join(moving[:3])})")
    elif local:
        notes.append("coordinates are the scene's metres (written by miran export)")
    elif crs is not None:
        geoms, note = _from_crs(geoms, crs, opts)
        notes.append(note)
    elif looks_lonlat(allc):
        geoms, note = to_metres(geoms, "EPSG:4326", opts.projection)
        notes.append(note + "; if these are not longitude/latitude, say what they are with --crs (e.g. --crs "
                            "metres)")
    elif len(allc):
        notes.append("coordinates are not longitude/latitude and the file names no CRS: taken as metres")
    if opts.scale is not None:
        geoms = [shapely.transform(g, lambda xy: xy * opts.scale) for g in geoms]
        meta = [m[:5] + (_scaled_motion(m[5], opts.scale),) for m in meta]
        notes.append(f"scaled by {opts.scale:g} (--scale)")
    features = [Feature(g, k, w, layer, role, ident=ident, motion=motion)
                for g, (k, w, layer, role, ident, motion) in zip(geoms, meta)]
    page, types, profiles, name = None, [], [], p.stem
    src_extra: dict[str, Any] = {}
    if local:
        page, types, profiles, name = _local_extras(data, opts, name)
        src_extra = {k: v for k, v in extra.items() if v}
        member = data[LOCAL_MEMBER]
        src_extra.update({k: member[k] for k in ("simulation", "measurement", "heightfield") if k in member})
        if opts.scale is not None and any(k in src_extra for k in ("networks", "agents", "measurement",
                                                                     "heightfield")):
            notes.append("--scale does not apply to the export's networks, agents, measurement and height field")
    return Source(features, name, page, notes, types=types, profiles=profiles, skipped=skipped, extra=src_extra)


def _scaled_motion(motion: dict, k: float) -> dict:
    """An obstacle's motion with its path and speed scaled by k (what is malformed is left for the validator)."""
    out = dict(motion)
    path = out.get("path")
    if isinstance(path, list) and all(isinstance(p, list) and len(p) == 2 and all(is_finite_number(v) for v in p)
                                      for p in path):
        out["path"] = [[float(x) * k, float(y) * k] for x, y in path]
    if is_finite_number(out.get("speed")):
        out["speed"] = float(out["speed"]) * k
    return out


def _positions(geometry: Any) -> int:
    """How many positions a GeoJSON geometry lists (counted on the parsed lists, before any geometry is built;
    what is malformed counts as nothing here and is refused when the geometry is built)."""
    if not isinstance(geometry, dict):
        return 0
    if isinstance(geometry.get("geometries"), list):
        return sum(_positions(g) for g in geometry["geometries"])
    n = 0
    stack = [geometry.get("coordinates")]
    while stack:
        c = stack.pop()
        if isinstance(c, list) and c and isinstance(c[0], list):
            if c[0] and not isinstance(c[0][0], list):
                n += len(c)
            else:
                stack.extend(c)
        elif isinstance(c, list) and c:
            n += 1
    return n


def _local_extras(data: dict, opts: ImportOptions, name: str) -> tuple:
    """From a GeoJSON this project wrote: the scene's bounds (``bbox``), its terrain types (the default first),
    its profiles and its name."""
    member = data[LOCAL_MEMBER]
    page = None
    bbox = data.get("bbox")
    if isinstance(bbox, list) and len(bbox) == 4 and all(is_finite_number(v) for v in bbox):
        k = opts.scale or 1.0
        page = tuple(float(v) * k for v in bbox)
    listed = member.get("terrain_types")
    listed = listed if isinstance(listed, list) else []
    raw = [t for t in listed if isinstance(t, dict) and isinstance(t.get("id"), str) and t["id"]
           and isinstance(t.get("color"), str) and _is_color(t["color"])]
    types = [TerrainType(t["id"], str(t.get("name", t["id"])), t["color"]) for t in raw]
    default = member.get("default_terrain")
    types.sort(key=lambda t: t.id != default)             # the default first, the rest in file order
    if len({t.id for t in types}) != len(types):
        types = []
    scene_name = member.get("scene")
    return page, types, _profiles(member.get("profiles")), scene_name if isinstance(scene_name, str) and scene_name \
        else name


def _profiles(raw: Any) -> list[Profile]:
    """The profiles a scene export lists, read as the scene format reads them; none when any is malformed."""
    if not isinstance(raw, list):
        return []
    out: list[Profile] = []
    for p in raw:
        if not isinstance(p, dict) or not isinstance(p.get("id"), str) or not p["id"]:
            return []
        w = p.get("weights", {})
        if not isinstance(w, dict) or not all(is_finite_number(v) and v > 0 for v in w.values()):
            return []
        nums = {k: p.get(k, getattr(Profile(""), k)) for k in ("radius", "max_speed", "sigma", "d")}
        if not all(is_finite_number(v) and v > 0 for v in nums.values()):
            return []
        out.append(Profile(p["id"], {str(k): float(v) for k, v in w.items()},
                           **{k: float(v) for k, v in nums.items()}))
    return out if len({p.id for p in out}) == len(out) else []


def _is_color(s: str) -> bool:
    return len(s) in (7, 9) and s[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in s[1:])


def _from_crs(geoms: list, crs: str, opts: ImportOptions, where: str = "crs") -> tuple[list, str]:
    """Geometries in a named CRS to metres: projected ones by their axis unit, geographic ones projected."""
    pyproj = require("pyproj", "coordinates with a CRS")
    try:
        c = pyproj.CRS.from_user_input(crs)
    except pyproj.exceptions.CRSError as e:
        raise InputError([Problem(where, f"unknown coordinate reference system {str(crs)[:80]!r}: {e}")]) from None
    if c.is_geographic:
        return to_metres(geoms, c.to_string(), opts.projection)
    factor = c.axis_info[0].unit_conversion_factor if c.axis_info else 1.0
    if factor != 1.0:
        geoms = [shapely.transform(g, lambda xy: xy * factor) for g in geoms]
    return geoms, f"coordinates in {c.name} ({factor:g} m per unit)"


def _given_crs(geoms: list, opts: ImportOptions) -> tuple[list, str]:
    """Geometries in the CRS ``--crs`` names: metres as they are, or through pyproj."""
    assert opts.crs is not None
    if opts.crs.strip().lower() in METRES:
        return geoms, "coordinates are metres (--crs metres): taken as they are"
    geoms, note = _from_crs(geoms, opts.crs, opts, "--crs")
    return geoms, f"{note} (--crs)"


def read_ogr(path: str | Path, opts: ImportOptions, budget: Budget | None = None) -> Source:
    """Every layer of an OGR-readable file (Shapefile, GeoPackage ...) as features in metres."""
    pyogrio = require("pyogrio", "this GIS format")
    p = check_path(path, folder_ok=True)
    budget = budget or opts.budget()
    try:
        layers = pyogrio.list_layers(str(p))
    except Exception as e:  # pyogrio.errors.DataSourceError and GDAL errors
        raise InputError([Problem("", f"not a readable GIS file: {e}")], str(p)) from None
    notes: list[str] = []
    problems: list[Problem] = []
    skipped: list[tuple[str, str]] = []
    flat: list[str] = []
    layers_read: list[tuple[str, str | None, list, list]] = []
    for name, _ in layers:
        try:
            count = int(pyogrio.read_info(str(p), layer=str(name)).get("features", 0) or 0)
            budget.add_elements(f"layer {name!r}", max(count, 0), f"{count:,} features")
            meta, fids, wkb, fields = pyogrio.raw.read(str(p), layer=str(name))
        except InputError as e:
            raise InputError(e.problems, str(p)) from None
        except Exception as e:
            problems.append(Problem(f"layer {name!r}", f"cannot read: {e}"))
            continue
        cols = list(meta.get("fields", []))
        geoms, metas = [], []
        for k in range(len(wkb)):
            fid = int(fids[k]) if fids is not None else k
            where = f"layer {name!r}, feature {fid}"
            if wkb[k] is None:
                skipped.append((where, "no geometry"))
                continue
            try:
                g = shapely.from_wkb(wkb[k])
            except Exception as e:
                problems.append(Problem(where, f"bad geometry: {e}"))
                continue
            try:
                budget.add_vertices(where, int(shapely.get_num_coordinates(g)), "its geometry")
            except InputError as e:
                raise InputError(e.problems, str(p)) from None
            props = {c: fields[j][k] for j, c in enumerate(cols)}
            try:
                role = _stated_role(props, where)
            except InputError as e:
                problems.extend(e.problems)
                continue
            if shapely.has_z(g):
                flat.append(where)
            geoms.append(shapely.force_2d(g))
            metas.append((_keys(props, opts, str(name)), where, str(name), role))
        if geoms:
            crs = meta.get("crs")
            if opts.crs is not None:
                crs = None if opts.crs.strip().lower() in METRES else opts.crs
            layers_read.append((str(name), crs, geoms, metas))
    if problems:
        raise InputError(problems, str(p))
    if flat:
        notes.append(f"dropped the z coordinate of {len(flat)} feature(s) (a scene is a plan): "
                     f"{'; '.join(flat[:5])}" + (f" and {len(flat) - 5} more" if len(flat) > 5 else ""))
    if opts.crs is not None and opts.crs.strip().lower() in METRES:
        notes.append("coordinates are metres (--crs metres): taken as they are")
        features = [Feature(shapely.transform(g, lambda xy: xy * opts.scale) if opts.scale else g, k, w, layer,
                            role) for _, _, gs, ms in layers_read for g, (k, w, layer, role) in zip(gs, ms)]
    else:
        features = _ogr_features(layers_read, opts, notes)
    return Source(features, p.stem, None, notes, skipped=skipped)


def _ogr_features(layers: list[tuple[str, str | None, list, list]], opts: ImportOptions,
                  notes: list[str]) -> list[Feature]:
    """Every layer's geometries in metres; when any layer is geographic, all layers are brought to lon/lat and
    projected together, so that they stay aligned."""
    pyproj = require("pyproj", "coordinates with a CRS") if any(crs for _, crs, _, _ in layers) else None

    def geographic(crs: str | None, geoms: list) -> bool:
        if crs and pyproj is not None:  # pyproj is loaded whenever a layer states a CRS
            return bool(pyproj.CRS.from_user_input(crs).is_geographic)
        return looks_lonlat(shapely.get_coordinates(np.asarray(geoms, dtype=object)))

    if any(geographic(crs, g) for _, crs, g, _ in layers):
        alll, sizes = [], []
        for name, crs, geoms, _ in layers:
            alll += to_lonlat(geoms, crs) if crs else geoms
            sizes.append(len(geoms))
            if not crs:
                notes.append(f"layer {name!r}: no CRS, longitude/latitude assumed")
        projected, note = to_metres(alll, "EPSG:4326", opts.projection)
        notes.append(note)
        out, k = [], 0
        for (_, _, _, metas), n in zip(layers, sizes):
            out.append((projected[k:k + n], metas))
            k += n
    else:
        out = []
        for name, crs, geoms, metas in layers:
            if crs:
                geoms, note = _from_crs(geoms, crs, opts)
                notes.append(f"layer {name!r}: {note}")
            out.append((geoms, metas))
    features = []
    for geoms, metas in out:
        if opts.scale is not None:
            geoms = [shapely.transform(g, lambda xy: xy * opts.scale) for g in geoms]
        features += [Feature(g, k, w, layer, role) for g, (k, w, layer, role) in zip(geoms, metas)]
    return features


__all__ = ["LOCAL_MEMBER", "is_geojson", "read_geojson", "read_ogr"]
