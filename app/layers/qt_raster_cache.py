"""One picture for many layers: items that rarely change are drawn once into a viewport-sized image, and every
repaint in between is a single image copy.

The viewport is repainted up to 60 times a second while agents walk, but the scene's terrain, obstacles, routes,
networks, grid and scene agents change only on an edit, a pan or a zoom. Painting them every frame cost most of a
frame (13 ms on the city) and held the GIL the whole time, starving the simulation thread. ``RasterCache`` adopts
such items: Qt no longer paints them one by one (they are flagged ``ItemHasNoContents``); the cache paints them in
z order into its image when something changed, and otherwise draws the image. Qt's own per-item cache
(``DeviceCoordinateCache``) keeps one image per item, which for a dozen viewport-sized layers costs as much as
drawing them.

What invalidates the image: a change of the view (zoom, resize, device pixel ratio; a pan by whole pixels only
moves the image and draws the strips it uncovers), a member shown or hidden
(checked at every paint), and ``invalidate()``, which whoever changes a member's data must call (the layer set on
every document change, the viewport when the bounds change, the simulation overlays when they get new arrays).
An edit of a few items invalidates only the rectangles they covered and cover now (``invalidate(rects)``): the
members are drawn again clipped to each, over the image, a fraction of a full drawing (a building dragged while
the characters walk no longer costs the window a frame for it).
Members are drawn in z order among themselves and all at the cache's own z among the other items.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

NO_CONTENTS = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
# Device-independent pixels a damaged rectangle is widened by: the widest pen and the largest marker's half (the
# agents' goal stars are 14 px) drawn at an item's edge.
REPAIR_PAD_PX = 16


class RasterCache(pg.GraphicsObject):
    """Paints its member items (siblings in the same view) from one device-resolution image.

    ``background``: an opaque colour to fill the image with (the cache is then the bottom layer and the image is
    copied without blending); None keeps it transparent. ``renders`` counts how often the members were drawn in
    full, ``scrolls`` how often a pan moved the image and drew only the uncovered strips.
    """

    def __init__(self, background: QtGui.QColor | str | None = None) -> None:
        super().__init__()
        self.members: list[QtWidgets.QGraphicsItem] = []
        self.background = QtGui.QColor(background) if background is not None else None
        self.renders = 0
        self.scrolls = 0
        self.repairs = 0
        self._damage: list[QtCore.QRectF] = []
        self._image: QtGui.QImage | None = None
        self._at = QtCore.QPointF()
        self._origin = (0.0, 0.0)
        self._key: tuple | None = None
        self._version = 0
        self._rect: QtCore.QRectF | None = None

    # ----- membership ------------------------------------------------------------------------------------------

    def adopt(self, *items: QtWidgets.QGraphicsItem) -> None:
        """Draw these items through the cache from now on (they stay in the scene, with their own visibility)."""
        for item in items:
            if item not in self.members:
                item.setFlag(NO_CONTENTS, True)
                item.raster_cache = self
                self.members.append(item)
        self.invalidate()

    def release(self, *items: QtWidgets.QGraphicsItem) -> None:
        """Let Qt paint these items itself again."""
        for item in items:
            if item in self.members:
                self.members.remove(item)
                item.raster_cache = None
                item.setFlag(NO_CONTENTS, False)
                item.update()
        self.invalidate()

    def invalidate(self, rects: list[tuple[float, float, float, float]] | None = None) -> None:
        """A member's drawing changed: draw the members again at the next paint. ``rects``: (x0, y0, x1, y1) in
        this item's coordinates (the view's) outside which nothing changed; only those are drawn again then."""
        if rects is None or self._image is None or self._image.isNull() or self.background is None:
            self._version += 1
            self._damage = []
        else:
            self._damage += [QtCore.QRectF(QtCore.QPointF(x0, y0), QtCore.QPointF(x1, y1)).normalized()
                             for x0, y0, x1, y1 in rects]
        self.update()

    # ----- geometry --------------------------------------------------------------------------------------------

    def viewTransformChanged(self) -> None:
        # The item covers exactly the visible part of the view, so Qt paints it wherever the viewport repaints.
        super().viewTransformChanged()
        self.prepareGeometryChange()
        self._rect = None

    def boundingRect(self) -> QtCore.QRectF:
        if self._rect is None:
            vr = self.viewRect()
            self._rect = QtCore.QRectF(vr) if vr is not None else QtCore.QRectF()
        return self._rect

    # ----- painting --------------------------------------------------------------------------------------------

    def _visible(self) -> list[QtWidgets.QGraphicsItem]:
        return sorted((m for m in self.members if m.isVisible()), key=lambda m: m.zValue())

    def paint(self, p: QtGui.QPainter, option, widget=None) -> None:
        members = self._visible()
        base = p.worldTransform()
        if widget is None:  # rendered elsewhere (an exporter's image): draw the members directly
            self._draw_members(p, base, members, None)
            return
        dpr = widget.devicePixelRatioF()
        size = widget.size()
        key = (base.m11(), base.m12(), base.m21(), base.m22(), base.dx(), base.dy(), size.width(), size.height(),
               dpr, self._version, tuple(id(m) for m in members))
        if key != self._key or self._image is None:
            shift = self._shift(key, dpr) if not self._damage else None
            if shift is None:
                self._image, self._at = self._render(base, members, size, dpr, p.renderHints(), widget)
                self._origin = (base.dx(), base.dy())
            elif shift != (0, 0):
                self._scroll(shift, base, members, dpr, p.renderHints(), widget)
            self._key = key
            self._damage = []
        elif self._damage:
            self._repair(base, members, dpr, p.renderHints(), widget)
        if self._image.isNull():
            return
        p.save()
        p.resetTransform()
        p.drawImage(self._at, self._image)
        p.restore()

    def _shift(self, key: tuple, dpr: float) -> tuple[int, int] | None:
        """Device pixels (x, y) the view moved since the image was drawn, when that is all that changed (a pan
        of a viewport-sized image by whole pixels); else None. Measured from the translation the image's
        content was drawn for, so the float noise of many pans never adds up."""
        old = self._key
        if old is None or self._image is None or self.background is None or key[:4] != old[:4] or \
                key[6:] != old[6:]:
            return None
        sx, sy = (key[4] - self._origin[0]) * dpr, (key[5] - self._origin[1]) * dpr
        rx, ry = round(sx), round(sy)
        if abs(sx - rx) > 1e-3 or abs(sy - ry) > 1e-3 or abs(rx) >= self._image.width() or \
                abs(ry) >= self._image.height():
            return None
        return rx, ry

    def _scroll(self, shift: tuple[int, int], base: QtGui.QTransform, members: list, dpr: float, hints,
                widget: QtWidgets.QWidget) -> None:
        """Move the image by ``shift`` device pixels and draw the members only into the strips it uncovered:
        a pan costs a fraction of a full drawing (5,000 routes on the city: 0.5 s a frame drawn in full)."""
        old = self._image
        img = QtGui.QImage(old.size(), old.format())
        img.setDevicePixelRatio(dpr)
        img.fill(self.background)
        q = QtGui.QPainter(img)
        q.drawImage(QtCore.QPointF(shift[0] / dpr, shift[1] / dpr), old)
        w, h = old.width() / dpr, old.height() / dpr
        dx, dy = shift[0] / dpr, shift[1] / dpr
        # The uncovered strips, one clip rectangle each: Qt culls lines and fills outside a clip rectangle early,
        # but rasterizes everything against the bounding box of an L-shaped clip region.
        strips = [QtCore.QRectF(0 if dx > 0 else w + dx, 0, abs(dx), h),
                  QtCore.QRectF(max(dx, 0), 0 if dy > 0 else h + dy, w - abs(dx), abs(dy))]  # not the corner twice
        q.setRenderHints(hints)
        for strip in strips:
            if not strip.isEmpty():
                self._draw_within(q, strip, base, members, widget)
        q.end()
        self._image = img
        self._origin = (self._origin[0] + shift[0] / dpr, self._origin[1] + shift[1] / dpr)
        self.scrolls += 1

    def _repair(self, base: QtGui.QTransform, members: list, dpr: float, hints, widget: QtWidgets.QWidget) -> None:
        """Draw the members again inside the damaged rectangles only (each widened by ``REPAIR_PAD_PX`` for pens
        and markers, and aligned to device pixels, so that every pixel inside is drawn as a full drawing draws
        it)."""
        damage, self._damage = self._damage, []
        img = self._image
        whole = QtCore.QRectF(0, 0, img.width(), img.height())
        q = QtGui.QPainter(img)
        q.setRenderHints(hints)
        for r in damage:
            dev = base.mapRect(r)
            dev = QtCore.QRectF(dev.x() * dpr, dev.y() * dpr, dev.width() * dpr, dev.height() * dpr)
            dev = dev.adjusted(-REPAIR_PAD_PX * dpr, -REPAIR_PAD_PX * dpr, REPAIR_PAD_PX * dpr, REPAIR_PAD_PX * dpr)
            dev = QtCore.QRectF(dev.toAlignedRect()).intersected(whole)
            if dev.isEmpty():
                continue
            clip = QtCore.QRectF(dev.x() / dpr, dev.y() / dpr, dev.width() / dpr, dev.height() / dpr)
            self._draw_within(q, clip, base, members, widget)
        q.end()
        self.repairs += 1

    def _draw_within(self, q: QtGui.QPainter, clip: QtCore.QRectF, base: QtGui.QTransform, members: list,
                     widget: QtWidgets.QWidget) -> None:
        """Fill ``clip`` (device-independent pixels of the image) with the background and draw the members in it
        only (a pan's uncovered strip, an edit's damaged rectangle)."""
        q.setClipRect(clip)
        q.fillRect(clip, self.background)
        self._draw_members(q, base, members, widget)

    def _area(self, base: QtGui.QTransform, members: list, size: QtCore.QSize) -> QtCore.QRect:
        """The viewport pixels the members can touch: all of them for an opaque cache, else the union of the
        members' bounds (a small overlay makes a small image, cheap to copy every frame)."""
        full = QtCore.QRect(0, 0, size.width(), size.height())
        if self.background is not None:
            return full
        area = QtCore.QRectF()
        for m in members:
            rect = m.boundingRect()
            rel, ok = m.itemTransform(self)
            if ok and not rect.isEmpty():
                area = area.united((rel * base).mapRect(rect))
        return area.toAlignedRect().adjusted(-2, -2, 2, 2).intersected(full)

    def _render(self, base: QtGui.QTransform, members: list, size: QtCore.QSize, dpr: float, hints,
                widget: QtWidgets.QWidget) -> tuple[QtGui.QImage, QtCore.QPointF]:
        """The members drawn into an image of the viewport area they cover, and where that image goes."""
        self.renders += 1
        area = self._area(base, members, size)
        if area.isEmpty():
            return QtGui.QImage(), QtCore.QPointF()
        opaque = self.background is not None and self.background.alpha() == 255
        fmt = QtGui.QImage.Format.Format_RGB32 if opaque else QtGui.QImage.Format.Format_ARGB32_Premultiplied
        img = QtGui.QImage(max(1, round(area.width() * dpr)), max(1, round(area.height() * dpr)), fmt)
        img.setDevicePixelRatio(dpr)
        img.fill(self.background if self.background is not None else QtCore.Qt.GlobalColor.transparent)
        q = QtGui.QPainter(img)
        q.setRenderHints(hints)
        self._draw_members(q, base * QtGui.QTransform.fromTranslate(-area.x(), -area.y()), members, widget)
        q.end()
        return img, QtCore.QPointF(area.topLeft())

    def _draw_members(self, q: QtGui.QPainter, base: QtGui.QTransform, members: list, widget) -> None:
        """Paint each member as Qt would: its own transform relative to this item, its opacity, z order."""
        opt = QtWidgets.QStyleOptionGraphicsItem()
        for m in members:
            rect = m.boundingRect()
            if rect.isEmpty():
                continue
            rel, ok = m.itemTransform(self)
            if not ok:
                continue
            q.save()
            q.setWorldTransform(rel * base)
            q.setOpacity(m.effectiveOpacity())
            opt.exposedRect = rect
            m.paint(q, opt, widget)
            q.restore()
