"""Sample files for the importer tests of the command line (tests/core/importers) and of the window (tests/app)."""

from __future__ import annotations

import json
from pathlib import Path


def write_local_metres_geojson(path: Path) -> Path:
    """A GeoJSON drawn in local metres, with no CRS: a 20 x 10 square on layer "blocks" and a 40 m line on layer
    "walk". Read as the standard's degrees it spans thousands of kilometres; as metres, (0, 5) to (40, 20)."""
    square = [[10, 10], [30, 10], [30, 20], [10, 20], [10, 10]]
    doc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"layer": "blocks"}, "geometry": {"type": "Polygon",
                                                                             "coordinates": [square]}},
        {"type": "Feature", "properties": {"layer": "walk"}, "geometry": {"type": "LineString",
                                                                           "coordinates": [[0, 5], [40, 5]]}}]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
