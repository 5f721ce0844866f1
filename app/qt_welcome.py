"""The welcome page: the shipped scenes as cards with a thumbnail, a new empty scene, opening a file, and the
recent files. Shown when the app starts without a scene."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from .paths import resources_dir, scenes_dir

THUMB = 200


def scene_summary(path: Path) -> tuple[str, str, dict | None]:
    """A scene file's name, a one-line description and its raw document (None when unreadable), without the
    full validation (the welcome page must appear at once)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        x0, y0, x1, y1 = (float(v) for v in data["bounds"])
        counts = [f"{len(data[k])} {k if len(data[k]) != 1 else k[:-1]}"
                  for k in ("obstacles", "terrains", "routes", "agents") if data.get(k)]
        return str(data.get("name") or path.stem), f"{x1 - x0:g} × {y1 - y0:g} m · " + ", ".join(counts), data
    except (OSError, ValueError, KeyError, TypeError):
        return path.stem, "cannot be read", None


def thumbnail(data: dict, size: int = THUMB) -> QtGui.QPixmap:
    """A small picture of a raw scene document: terrain, obstacles and routes (drawing only what is readable)."""
    pm = QtGui.QPixmap(size, size)
    pm.fill(QtGui.QColor("#eef1f5"))
    try:
        x0, y0, x1, y1 = (float(v) for v in data["bounds"])
        s = (size - 12) / max(x1 - x0, y1 - y0)
        ox = (size - (x1 - x0) * s) / 2
        oy = (size - (y1 - y0) * s) / 2
        colours = {t.get("id"): t.get("color", "#cbd5a3") for t in data.get("terrain_types", [])}

        def poly(pts) -> QtGui.QPolygonF:
            return QtGui.QPolygonF([QtCore.QPointF(ox + (x - x0) * s, size - oy - (y - y0) * s) for x, y in pts])

        p = QtGui.QPainter(pm)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(QtGui.QColor(colours.get(data.get("default_terrain"), "#cbd5a3")))
        p.drawPolygon(poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))
        for t in data.get("terrains", []):
            p.setBrush(QtGui.QColor(colours.get(t.get("type"), "#999999")))
            p.drawPolygon(poly(t["polygon"]))
        p.setBrush(QtGui.QColor("#465061"))
        for o in data.get("obstacles", []):
            p.drawPolygon(poly(o["polygon"]))
        pen = QtGui.QPen(QtGui.QColor("#2563eb"), 1.6)
        p.setPen(pen)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        for r in data.get("routes", []):
            p.drawPolyline(poly(r["points"]))
        p.end()
    except (KeyError, TypeError, ValueError):
        pass
    return pm


class SceneCard(QtWidgets.QFrame):
    """One shipped scene: thumbnail, name, description; clicking opens it."""

    clicked = QtCore.Signal(str)

    def __init__(self, path: Path, parent=None) -> None:
        super().__init__(parent)
        self.path = path
        self.setObjectName("scene_card")
        self.setCursor(QtGui.QCursor(QtCore.Qt.CursorShape.PointingHandCursor))
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        name, desc, self._data = scene_summary(path)
        self.image = QtWidgets.QLabel()
        self.image.setFixedSize(THUMB, THUMB)
        self.image.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        title = QtWidgets.QLabel(f"<b>{name}</b>")
        sub = QtWidgets.QLabel(f"<span style='color:#6b7280'>{path.name}<br>{desc}</span>")
        sub.setWordWrap(True)
        sub.setFixedWidth(THUMB)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.image)
        lay.addWidget(title)
        lay.addWidget(sub)
        lay.addStretch(1)
        self.setToolTip(f"Open {path}")

    def draw_thumbnail(self) -> None:
        if self._data is not None:
            self.image.setPixmap(thumbnail(self._data))
            self._data = None

    def mouseReleaseEvent(self, ev: QtGui.QMouseEvent) -> None:
        if ev.button() == QtCore.Qt.MouseButton.LeftButton:
            self.clicked.emit(str(self.path))


class QtWelcome(QtWidgets.QWidget):
    """Signals: ``open_requested(path)``, ``new_requested()``, ``open_file_requested()``."""

    open_requested = QtCore.Signal(str)
    new_requested = QtCore.Signal()
    open_file_requested = QtCore.Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(48, 36, 48, 36)
        head = QtWidgets.QHBoxLayout()
        logo = QtWidgets.QLabel()
        logo.setPixmap(QtGui.QIcon(str(resources_dir() / "icons" / "app.svg")).pixmap(56, 56))
        head.addWidget(logo)
        title = QtWidgets.QLabel("<span style='font-size:20pt; font-weight:600'>MIRAN Studio</span><br>"
                                 "<span style='color:#6b7280'>Draw terrain, obstacles and indicative routes; "
                                 "place characters; save the scene.</span>")
        title.setWordWrap(True)
        title.setMinimumWidth(160)
        head.addWidget(title, 1)
        new = QtWidgets.QPushButton("New empty scene")
        new.setObjectName("welcome.new")
        opn = QtWidgets.QPushButton("Open file…")
        opn.setObjectName("welcome.open")
        for b in (new, opn):
            b.setMinimumHeight(34)
            head.addWidget(b)
        new.clicked.connect(self.new_requested)
        opn.clicked.connect(self.open_file_requested)
        outer.addLayout(head)
        outer.addSpacing(18)
        outer.addWidget(QtWidgets.QLabel("<b>Shipped scenes</b>"))
        self.cards = QtWidgets.QHBoxLayout()
        self.cards.setSpacing(16)
        box = QtWidgets.QWidget()
        box.setLayout(self.cards)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(box)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setMinimumHeight(THUMB + 110)
        outer.addWidget(scroll)
        outer.addSpacing(12)
        outer.addWidget(QtWidgets.QLabel("<b>Recent files</b>"))
        self.recent = QtWidgets.QListWidget()
        self.recent.setObjectName("welcome.recent")
        self.recent.itemActivated.connect(self._recent_activated)
        outer.addWidget(self.recent, 1)
        self._cards: list[SceneCard] = []
        self.fill_scenes()

    def fill_scenes(self) -> None:
        folder = scenes_dir()
        # sweep specs (*.sweep.json) ship beside the scenes but are not scenes
        files = [p for p in sorted(folder.glob("*.json")) if not p.name.endswith(".sweep.json")] \
            if folder.is_dir() else []
        for path in files:
            card = SceneCard(path)
            card.clicked.connect(self.open_requested)
            self.cards.addWidget(card)
            self._cards.append(card)
        if not files:
            self.cards.addWidget(QtWidgets.QLabel(f"No scenes found in {folder}."))
        self.cards.addStretch(1)
        for card in self._cards:
            QtCore.QTimer.singleShot(0, card.draw_thumbnail)

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for p in paths:
            it = QtWidgets.QListWidgetItem(f"{Path(p).name}    —    {Path(p).parent}")
            it.setData(QtCore.Qt.ItemDataRole.UserRole, p)
            self.recent.addItem(it)
        if not paths:
            self.recent.addItem("No recent files yet.")

    def _recent_activated(self, it: QtWidgets.QListWidgetItem) -> None:
        path = it.data(QtCore.Qt.ItemDataRole.UserRole)
        if path:
            self.open_requested.emit(path)

    def scene_paths(self) -> list[str]:
        return [str(c.path) for c in self._cards]
