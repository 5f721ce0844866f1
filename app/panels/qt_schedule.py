"""The Schedule panel: the obstacles that come and go or move, as bars over the run's time, edited by dragging.

Each such obstacle is a row: a bar from when it appears to when it vanishes (open to the right when it never
does), striped when the obstacle moves. Clicking a bar selects the obstacle, so the Inspector shows its fields;
dragging the bar's left end sets when it appears, its right end when it vanishes, its middle moves both, in steps
of SNAP_S; each drag is one undoable edit. A line marks the simulated time the window shows (the live run or the
replay).
"""

from __future__ import annotations

import dataclasses

from PySide6 import QtCore, QtGui, QtWidgets

from core.scene.edits import replace_item
from core.scene.picking import nice_step

SNAP_S = 0.5          # schedule times move in steps of this many seconds
LABEL_W = 110         # pixels of the ids' column
ROW_H = 22
AXIS_H = 22
END_GRIP = 6          # pixels either side of a bar's end that grab the end rather than the bar
MIN_SPAN_S = 30.0     # the axis shows at least this many seconds


def tick_step(span: float, pixels: float) -> float:
    """A tick step of 1, 2 or 5 times a power of ten, about every 70 pixels."""
    return nice_step(span * 70.0 / max(pixels, 1.0))


def describe(o) -> str:
    """What a bar of the schedule says of its obstacle ``o``."""
    gone = f"vanishes at {o.vanishes:g} s" if o.vanishes is not None else "stays to the end"
    moves = f"; moves along its path at {o.speed:g} m/s" if o.moving else ""
    return (f"{o.id}: appears at {o.appears:g} s, {gone}{moves}. Drag an end of the bar to change when, its middle "
            f"to move both.")


class QtSchedule(QtWidgets.QWidget):
    """The Schedule panel of the editor ``editor`` (see the module docstring)."""

    def __init__(self, editor) -> None:
        super().__init__()
        self.setObjectName("schedule")
        self.editor = editor
        self.doc = editor.doc
        self.time: float | None = None
        self._drag: dict | None = None
        self.setMouseTracking(True)
        self.setMinimumHeight(AXIS_H + 2 * ROW_H)
        self.doc.changed.connect(lambda fields: "obstacles" in fields and self._changed())
        self.doc.reset.connect(self._changed)
        self.doc.selection_changed.connect(self.update)

    # ----- what is shown ----------------------------------------------------------------------------------------

    def rows(self) -> list:
        """The scene's obstacles that come and go or move, in file order."""
        return [o for o in self.doc.scene.obstacles if o.scheduled or o.moving]

    def span(self) -> float:
        """The seconds the axis shows: past the last appearance or vanishing and the time shown, by a quarter."""
        ends = [v for o in self.rows() for v in (o.appears, o.vanishes) if v is not None]
        return max(MIN_SPAN_S, 1.25 * max(ends + [self.time or 0.0, 0.0]))

    def x_of(self, t: float) -> float:
        return LABEL_W + t / self._span * (self.width() - LABEL_W - 8)

    def t_of(self, x: float) -> float:
        return (x - LABEL_W) / max(self.width() - LABEL_W - 8, 1) * self._span

    def set_time(self, t: float | None) -> None:
        """Mark the simulated time ``t`` (None: no mark)."""
        if t != self.time:
            self.time = t
            self.update()

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(360, AXIS_H + ROW_H * max(2, len(self.rows())) + 6)

    def _changed(self) -> None:
        self._drag = None
        self.updateGeometry()
        self.update()

    # ----- painting ---------------------------------------------------------------------------------------------

    @property
    def _span(self) -> float:
        return self._drag["span"] if self._drag else self.span()

    def paintEvent(self, _event) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QtGui.QPalette.ColorRole.WindowText)
        rows = self.rows()
        if not rows:
            p.setPen(text)
            p.drawText(self.rect().adjusted(8, 4, -8, -4), QtCore.Qt.TextFlag.TextWordWrap,
                       "No obstacle comes, goes or moves. Select one and set Appears or Vanishes in the Inspector, "
                       "or draw its path with the Obstacle Path tool (P).")
            return
        span, w = self._span, self.width()
        step = tick_step(span, w - LABEL_W)
        p.setPen(QtGui.QPen(pal.color(QtGui.QPalette.ColorRole.Mid), 1))
        k = 0
        while k * step <= span + 1e-9:
            x = self.x_of(k * step)
            p.drawLine(QtCore.QPointF(x, AXIS_H - 4), QtCore.QPointF(x, self.height()))
            p.drawText(QtCore.QPointF(x + 2, AXIS_H - 7), f"{k * step:g} s")
            k += 1
        selected = {ref[1] for ref in self.doc.selection if ref[0] == "obstacle"}
        for i, o in enumerate(rows):
            appears, vanishes = self._times(o)
            top = AXIS_H + i * ROW_H
            p.setPen(text)
            p.drawText(QtCore.QRectF(4, top, LABEL_W - 8, ROW_H),
                       QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignLeft,
                       p.fontMetrics().elidedText(o.id, QtCore.Qt.TextElideMode.ElideRight, LABEL_W - 8))
            x0 = self.x_of(appears)
            x1 = self.x_of(vanishes) if vanishes is not None else w - 8
            bar = QtCore.QRectF(x0, top + 4, max(x1 - x0, 2.0), ROW_H - 8)
            colour = QtGui.QColor("#b45309" if o.id in selected else "#64748b")
            pattern = QtCore.Qt.BrushStyle.BDiagPattern if o.moving else QtCore.Qt.BrushStyle.SolidPattern
            p.setPen(QtGui.QPen(colour.darker(130), 1))
            p.setBrush(QtGui.QBrush(colour.lighter(150)))
            p.drawRect(bar)
            p.setBrush(QtGui.QBrush(colour, pattern))
            p.drawRect(bar)
            if vanishes is None:
                p.drawText(QtCore.QPointF(w - 18, top + ROW_H - 7), "→")
        if self.time is not None and 0.0 <= self.time <= span:
            x = self.x_of(self.time)
            p.setPen(QtGui.QPen(QtGui.QColor("#dc2626"), 1.5))
            p.drawLine(QtCore.QPointF(x, AXIS_H - 6), QtCore.QPointF(x, self.height()))

    def _times(self, o) -> tuple[float, float | None]:
        """When ``o`` appears and vanishes, as the drag in progress would set them."""
        d = self._drag
        if d is not None and d["id"] == o.id and d.get("appears") is not None:
            return d["appears"], d["vanishes"]
        return o.appears, o.vanishes

    # ----- mouse ------------------------------------------------------------------------------------------------

    def _hit(self, pos: QtCore.QPointF) -> tuple | None:
        """(obstacle, part) under ``pos``: part "start", "end" or "body" on its bar, "row" beside it."""
        rows = self.rows()
        i = int((pos.y() - AXIS_H) // ROW_H)
        if pos.y() < AXIS_H or not 0 <= i < len(rows):
            return None
        o = rows[i]
        x0 = self.x_of(o.appears)
        x1 = self.x_of(o.vanishes) if o.vanishes is not None else None
        if abs(pos.x() - x0) <= END_GRIP:
            return o, "start"
        if x1 is not None and abs(pos.x() - x1) <= END_GRIP:
            return o, "end"
        if x0 <= pos.x() <= (x1 if x1 is not None else self.width()):
            return o, "body"
        return o, "row"

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.position())
        if hit is None:
            return
        o, part = hit
        self.doc.select([("obstacle", o.id)])
        if part != "row":
            self._drag = {"id": o.id, "part": part, "x": event.position().x(), "span": self.span(),
                          "appears": None, "vanishes": None}

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        d = self._drag
        if d is None:
            hit = self._hit(event.position())
            grip = hit is not None and hit[1] in ("start", "end")
            self.setCursor(QtCore.Qt.CursorShape.SizeHorCursor if grip else QtCore.Qt.CursorShape.ArrowCursor)
            self.setToolTip(describe(hit[0]) if hit is not None else "")
            return
        o = next((o for o in self.rows() if o.id == d["id"]), None)
        if o is None:
            self._drag = None
            return
        dt = self.t_of(event.position().x()) - self.t_of(d["x"])
        d["appears"], d["vanishes"] = self._dragged(o, d["part"], dt)
        self.update()

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        d, self._drag = self._drag, None
        if d is None or d["appears"] is None:
            self.update()
            return
        o = next((o for o in self.rows() if o.id == d["id"]), None)
        if o is not None and (d["appears"], d["vanishes"]) != (o.appears, o.vanishes):
            new = dataclasses.replace(o, appears=d["appears"], vanishes=d["vanishes"])
            refs = [("obstacle", o.id)]
            self.editor.commit(replace_item(self.doc.scene, "obstacle", o.id, new), "Change obstacle schedule",
                               refs=refs, select=refs)
        self.update()

    @staticmethod
    def _dragged(o, part: str, dt: float) -> tuple[float, float | None]:
        """(appears, vanishes) of ``o`` with ``part`` moved by dt seconds, snapped to SNAP_S, never below 0 and
        vanishing at least SNAP_S after appearing."""
        def snap(t: float) -> float:
            return max(0.0, round(t / SNAP_S) * SNAP_S)

        a, v = o.appears, o.vanishes
        if part == "start":
            a = snap(a + dt)
            if v is not None:
                a = max(0.0, min(a, v - SNAP_S))
                if a >= v:
                    return o.appears, v
        elif part == "end" and v is not None:
            v = max(snap(v + dt), a + SNAP_S)
        elif part == "body":
            shift = max(snap(a + dt), 0.0) - a
            a, v = a + shift, (v + shift if v is not None else None)
        return a, v
