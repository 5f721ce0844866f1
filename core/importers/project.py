"""Longitude/latitude to metres: a local transverse Mercator (default) or the UTM zone of the data's centre.

Geographic data (GeoJSON is WGS 84 by definition, OSM always is) is projected with pyproj, then shifted so that
the south-west corner of the data lies at (0, 0); the report states the projection and that origin so that the
scene can be placed back on the map.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from core.scene.problems import InputError, Problem

from .deps import require

PROJECTIONS = ("tmerc", "utm")


def looks_lonlat(coords: np.ndarray) -> bool:
    """Whether (n, 2) coordinates all lie in [-180, 180] x [-90, 90]."""
    return len(coords) > 0 and bool(np.all(np.abs(coords[:, 0]) <= 180) and np.all(np.abs(coords[:, 1]) <= 90))


def projection_for(lon0: float, lat0: float, kind: str = "tmerc") -> str:
    """A PROJ string in metres centred near (lon0, lat0): ``tmerc`` on the centre, or its ``utm`` zone."""
    if kind == "tmerc":
        return f"+proj=tmerc +lat_0={lat0:.8f} +lon_0={lon0:.8f} +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs"
    if kind == "utm":
        zone = int(math.floor((lon0 + 180) / 6)) % 60 + 1
        south = " +south" if lat0 < 0 else ""
        return f"+proj=utm +zone={zone}{south} +ellps=WGS84 +units=m +no_defs"
    raise InputError([Problem("--projection", f"unknown projection {kind!r} (choose one of: "
                                              f"{', '.join(PROJECTIONS)})")])


def to_lonlat(geoms: list[BaseGeometry], crs_from: str) -> list[BaseGeometry]:
    """Geometries in ``crs_from`` as WGS 84 longitude/latitude."""
    pyproj = require("pyproj", "coordinates with a CRS")
    tr = pyproj.Transformer.from_crs(pyproj.CRS.from_user_input(crs_from), "EPSG:4326", always_xy=True)

    def apply(xy: np.ndarray) -> np.ndarray:
        x, y = tr.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    return list(shapely.transform(np.asarray(geoms, dtype=object), apply))


def to_metres(geoms: list[BaseGeometry], crs_from: str = "EPSG:4326", kind: str = "tmerc"
              ) -> tuple[list[BaseGeometry], str]:
    """Project geometries from ``crs_from`` (lon/lat by default) to metres and shift the data's south-west corner
    to (0, 0); returns the geometries and a sentence for the report."""
    pyproj = require("pyproj", "geographic coordinates")
    arr = np.asarray(geoms, dtype=object)
    src = pyproj.CRS.from_user_input(crs_from)
    lonlat = pyproj.Transformer.from_crs(src, "EPSG:4326", always_xy=True)
    allc = shapely.get_coordinates(arr)
    if len(allc) == 0:
        return list(geoms), "nothing to project"
    lon, lat = lonlat.transform(allc[:, 0], allc[:, 1])
    lon0 = 0.5 * (float(np.min(lon)) + float(np.max(lon)))
    lat0 = 0.5 * (float(np.min(lat)) + float(np.max(lat)))
    proj = projection_for(lon0, lat0, kind)
    fwd = pyproj.Transformer.from_crs(src, pyproj.CRS.from_proj4(proj), always_xy=True)

    def apply(xy: np.ndarray) -> np.ndarray:
        x, y = fwd.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    out = shapely.transform(arr, apply)
    xy = shapely.get_coordinates(out)
    if not np.isfinite(xy).all():
        raise InputError([Problem("", f"coordinates cannot be projected from {crs_from} (some are out of range)")])
    x0, y0 = float(xy[:, 0].min()), float(xy[:, 1].min())
    out = shapely.transform(out, lambda c: c - np.array([x0, y0]))
    olon, olat = pyproj.Transformer.from_crs(pyproj.CRS.from_proj4(proj), "EPSG:4326",
                                             always_xy=True).transform(x0, y0)
    note = (f"projected from {crs_from} to metres ({kind} centred at lon {lon0:.6f}, lat {lat0:.6f}); "
            f"the scene's (0, 0) is lon {olon:.7f}, lat {olat:.7f}")
    return list(out), note


__all__ = ["PROJECTIONS", "looks_lonlat", "projection_for", "to_lonlat", "to_metres"]
