"""Scene importers: SVG, DXF, Tiled (JSON/TMX), GeoJSON and OGR formats, OpenStreetMap -> a valid ``miran-scene``.

One module per format reads the file into features in scene metres (``features.Feature``); the cleaning step
(``clean.build_scene``) turns them into a Scene that the scene validator accepts and reports what it changed.
The format libraries (svgelements, ezdxf, pyogrio, pyproj, osmium) are the optional ``import`` extra, imported
only when a file of their format is read.

```python
from core.importers import import_file, ImportOptions
result = import_file("level.svg", ["Mud=mud", "Doors=ignore"], ImportOptions(tolerance=0.01))
save_scene(result.scene, "level.json"); print("\\n".join(result.report.lines()))
```
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import shapely

from core.scene.fields import MAX_COORD
from core.scene.jsonio import read_json
from core.scene.problems import InputError, Problem

from .clean import DEFAULT_TYPE, ImportOptions, ImportReport, ImportResult, build_scene, layer_roles
from .features import KINDS, NO_LAYER, Feature, Role, Source, layer_key, parse_role, parse_role_map

# File name endings -> format (compound endings first).
FORMATS = {
    ".osm.pbf": "osm", ".osm.bz2": "osm", ".osm.gz": "osm", ".osm": "osm", ".pbf": "osm",
    ".svg": "svg", ".dxf": "dxf", ".tmx": "tiled", ".tmj": "tiled", ".geojson": "geojson", ".json": "json",
    ".shp": "ogr", ".gpkg": "ogr", ".gml": "ogr", ".kml": "ogr", ".fgb": "ogr", ".gdb": "ogr", ".sqlite": "ogr",
}


def detect_format(path: str | Path) -> str:
    """The format of a file from its name: svg, dxf, tiled, geojson, json (Tiled or GeoJSON), ogr or osm."""
    name = Path(path).name.lower()
    for ending, fmt in FORMATS.items():
        if name.endswith(ending):
            return fmt
    known = ", ".join(sorted({e for e in FORMATS}))
    raise InputError([Problem("", f"unknown file type {Path(path).suffix or name!r} (known: {known})")], str(path))


def read_source(path: str | Path, mapping: dict[str, Role], opts: ImportOptions) -> Source:
    """Read a file of any supported format into features in scene metres; InputError names the file."""
    try:
        source = _read(path, mapping, opts)
        check_coordinates(source)
        return source
    except InputError as e:
        if e.source:
            raise
        raise InputError(e.problems, str(path)) from None


def _read(path: str | Path, mapping: dict[str, Role], opts: ImportOptions) -> Source:
    fmt = detect_format(path)
    if opts.crs is not None and fmt in ("svg", "dxf", "osm", "tiled"):
        raise InputError([Problem("--crs", f"applies to GeoJSON and OGR formats, not to {fmt.upper()} files (see "
                                           "--scale for their units)")])
    if fmt == "svg":
        from .svg import read_svg
        return read_svg(path, opts)
    if fmt == "dxf":
        from .dxf import read_dxf
        return read_dxf(path, opts)
    if fmt == "osm":
        from .osm import read_osm
        return read_osm(path, opts, mapping)
    if fmt == "ogr":
        from .geo import read_ogr
        return read_ogr(path, opts)
    from .geo import is_geojson, read_geojson
    from .tiled import is_tiled_json, read_tiled
    if fmt == "tiled" and Path(path).suffix.lower() == ".tmx":
        return read_tiled(path, opts)
    data = read_json(path)
    if is_tiled_json(data):
        return read_tiled(path, opts, data)
    if is_geojson(data):
        return read_geojson(path, opts, data)
    if opts.crs is not None:
        raise InputError([Problem("--crs", "applies to GeoJSON and OGR formats, not to Tiled maps")])
    raise InputError([Problem("", "this JSON file is neither a Tiled map nor GeoJSON")], str(path))


def import_file(path: str | Path, roles: list[str] | dict[str, Role] | None = None,
                opts: ImportOptions | None = None) -> ImportResult:
    """Import a file into a cleaned, valid Scene; ``roles`` are ``LAYER=ROLE`` strings (or a parsed map).

    Raises InputError with located problems for unreadable files, bad --map entries, and results the scene
    validator would refuse.
    """
    opts = opts or ImportOptions()
    check_options(opts)
    mapping = roles if isinstance(roles, dict) else parse_role_map(roles)
    source = read_source(path, mapping, opts)
    return build_scene(source, mapping, opts, str(path))


class ImportSession:
    """One file imported interactively (the app's preview): read once, cleaned again whenever a layer's role
    changes. OpenStreetMap files are read again, since the roles decide which ways are read."""

    def __init__(self, path: str | Path, opts: ImportOptions | None = None) -> None:
        self.path = Path(path)
        self.opts = opts or ImportOptions()
        check_options(self.opts)
        self.format = detect_format(self.path)
        self.mapping: dict[str, Role] = {}
        self.source = read_source(self.path, self.mapping, self.opts)

    def layers(self) -> dict[str, dict[str, int]]:
        """Per layer, the number of features taking each role (``{"Walls": {"obstacle": 3}}``)."""
        return layer_roles(self.source, self.mapping)

    def set_role(self, layer: str, role: str | Role) -> None:
        """Give a layer a role (``obstacle``, ``route``, ``ignore``, ``terrain:TYPE`` or a type id); ``""`` (or
        ``NO_LAYER``) is the features that have no layer."""
        self.mapping[layer_key(layer)] = role if isinstance(role, Role) else parse_role(role, layer or NO_LAYER)
        if self.format == "osm":
            self.source = read_source(self.path, self.mapping, self.opts)

    def accepts_crs(self) -> bool:
        """Whether the file's coordinates can be declared (``set_crs``): GeoJSON and OGR formats."""
        return self.format in ("geojson", "ogr") or (self.format == "json" and not self._is_tiled())

    def _is_tiled(self) -> bool:
        from .tiled import is_tiled_json
        return is_tiled_json(read_json(self.path))

    def set_crs(self, crs: str | None) -> None:
        """Read the file again with its coordinates declared (``metres``, an EPSG code ...; None: as the file
        says); the roles chosen so far stay. InputError leaves the session as it was."""
        opts = dataclasses.replace(self.opts, crs=crs)
        check_options(opts)
        source = read_source(self.path, self.mapping, opts)
        self.opts, self.source = opts, source

    def build(self) -> ImportResult:
        """The cleaned scene for the current roles; InputError naming the source elements when it cannot be."""
        return build_scene(self.source, self.mapping, self.opts, str(self.path))


# The options' ranges: a grid or tolerance below a nanometre makes GEOS's snapping degenerate (1e-320 raised
# "endpoints are equal"); nothing larger than the scene's coordinate limit means anything.
OPTION_RANGES = {"tolerance": (1e-9, MAX_COORD), "grid": (1e-9, MAX_COORD), "min_area": (0.0, MAX_COORD ** 2),
                 "snap": (0.0, MAX_COORD), "scale": (1e-9, 1e9), "max_elements": (1, 10**9),
                 "max_vertices": (1, 10**10)}


def check_options(opts: ImportOptions) -> None:
    """InputError naming each option that is not a number in its range (``OPTION_RANGES``)."""
    for name, (lo, hi) in OPTION_RANGES.items():
        v = getattr(opts, name)
        if v is None and name == "scale":
            continue
        if not (isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi):
            raise InputError([Problem(f"--{name.replace('_', '-')}", f"must be a number from {lo:g} to {hi:g}, "
                                                                     f"got {v!r}")])


def check_coordinates(source: Source) -> None:
    """InputError naming the first elements whose coordinates (in scene metres) are not finite or lie beyond the
    scene's limit of +/-MAX_COORD (a GeoJSON polygon at 1e308 made GEOS fail on NaN/Inf)."""
    if not source.features:
        return
    problems = []
    for f in source.features:
        xy = shapely.get_coordinates(f.geometry)
        bad = ~np.isfinite(xy).all(axis=1) | (np.abs(xy) > MAX_COORD).any(axis=1)
        if bad.any():
            x, y = xy[int(np.flatnonzero(bad)[0])]
            problems.append(Problem("", f"{f.where}: coordinate ({x:g}, {y:g}) m is beyond the scene's limit of "
                                        f"+/-{MAX_COORD:g} m (see --scale)"))
            if len(problems) == 10:
                break
    if problems:
        raise InputError(problems)


__all__ = ["DEFAULT_TYPE", "FORMATS", "KINDS", "NO_LAYER", "OPTION_RANGES", "Feature", "ImportOptions", "ImportReport",
           "ImportResult", "ImportSession", "Role", "Source", "build_scene", "check_coordinates", "check_options",
           "detect_format", "import_file", "layer_roles", "parse_role", "parse_role_map", "read_source"]
