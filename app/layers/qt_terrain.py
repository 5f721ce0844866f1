"""The terrain layer: the bounds filled with the default type, then the terrain polygons in file order, each run
of one type a single path filled with the type's colour. Hidden, it keeps only the default fill."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from .arrays import closed_rings, terrain_runs
from .qt_base import Layer, brush
from .qt_items import PathsItem, cosmetic_pen, rings_path


class TerrainLayer(Layer):
    kind = "terrain"
    fields = frozenset({"terrains", "terrain_types", "default_terrain", "bounds"})

    def __init__(self, doc, view) -> None:
        super().__init__(doc, view)
        self.item = self.add(PathsItem())
        self.hidden = False

    def refresh(self) -> None:
        scene = self.doc.scene
        colours = {t.id: t.color for t in scene.terrain_types}
        x0, y0, x1, y1 = scene.bounds
        box = closed_rings(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float), np.array([4]), np.array([True]))
        default = QtGui.QColor(colours.get(scene.default_terrain, "#cbd5a3"))
        groups = [(rings_path(box), cosmetic_pen(default, 0), QtGui.QBrush(default))]
        if not self.hidden:
            for type_id, rings in terrain_runs(scene):
                c = QtGui.QColor(colours.get(type_id, "#999999"))
                groups.append((rings_path(rings), cosmetic_pen(c.darker(118), 1.0), brush(c)))
        self.item.set_groups(groups)

    def set_visible(self, visible: bool) -> None:
        self.hidden = not visible
        self.refresh()
