"""Spin boxes that read what a user types: scientific notation (``1e9``, ``2.5E-3``) as well as plain numbers, and
that say so when a typed value lies outside their range instead of silently taking the nearest end.

Qt's own spin boxes refuse the ``e`` keystroke (so ``1e9`` became ``19``) and clamp an out-of-range value without
a word (a time step of 100 became 1.000 s). ``QtDoubleSpin`` and ``QtIntSpin`` accept any number Python's
``float`` reads; when editing ends with one outside the range they clamp it as before, but emit
``clamped(message)``, show the message as a tool tip under the box and in the window's status bar, and keep it in
``last_clamp``.
"""

from __future__ import annotations

import math
import re

from PySide6 import QtCore, QtGui, QtWidgets

# What may still become a number while it is typed: a sign, digits, a point, an exponent with its sign.
_PARTIAL = re.compile(r"^[+-]?(\d[\d,]*)?(\.\d*)?([eE][+-]?\d*)?$")


def parse_number(text: str) -> float | None:
    """The number in ``text`` (thousands separators and surrounding blanks allowed), None when there is none."""
    t = text.strip().replace(",", "")
    if not t:
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def clamp_message(typed: float, lo: float, hi: float, used: str) -> str | None:
    """What to tell the user when ``typed`` was outside [lo, hi] and ``used`` (formatted) was taken instead."""
    if typed > hi:
        return f"{typed:g} is above the largest allowed value: set to {used}"
    if typed < lo:
        return f"{typed:g} is below the smallest allowed value: set to {used}"
    return None


class _Reading:
    """What both spin boxes share: reading and checking the text (``validate``; ``fixup`` leaves it as typed), and
    reporting a clamp when editing ends. It comes first in their bases, so its Qt overrides are the ones called."""

    clamped: QtCore.SignalInstance

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)  # type: ignore[call-arg]
        self._typed: float | None = None
        self.last_clamp: str | None = None
        # What the user typed (a programmatic change, or Qt rewriting the text to the clamped value, is no edit).
        self.lineEdit().textEdited.connect(self._edited)  # type: ignore[attr-defined]
        self.editingFinished.connect(self._finished)  # type: ignore[attr-defined]

    def validate(self, text: str, pos: int):
        """Qt's check of the text while it is typed: any number ``float`` reads, or the start of one."""
        return self._check(text), text, pos

    def fixup(self, text: str) -> str:
        """The text as typed: the clamp happens, and is reported, when editing ends."""
        return text

    def _edited(self, text: str) -> None:
        self._typed = parse_number(self._strip(text))

    def _strip(self, text: str) -> str:
        box: QtWidgets.QAbstractSpinBox = self  # type: ignore[assignment]
        t = text
        prefix, suffix = box.prefix(), box.suffix()  # type: ignore[attr-defined]
        if prefix and t.startswith(prefix):
            t = t[len(prefix):]
        if suffix and t.endswith(suffix):
            t = t[:-len(suffix)]
        elif suffix.strip() and t.rstrip().endswith(suffix.strip()):
            t = t.rstrip()[:-len(suffix.strip())]
        return t.strip()

    def _check(self, text: str) -> QtGui.QValidator.State:
        box: QtWidgets.QAbstractSpinBox = self  # type: ignore[assignment]
        t = self._strip(text)
        special = box.specialValueText()
        if special and text == special:
            return QtGui.QValidator.State.Acceptable
        if parse_number(t) is not None:
            return QtGui.QValidator.State.Acceptable
        if _PARTIAL.match(t.replace(" ", "")):
            return QtGui.QValidator.State.Intermediate
        return QtGui.QValidator.State.Invalid

    def _finished(self) -> None:
        typed, self._typed = self._typed, None
        if typed is None:
            return
        box = self
        lo, hi = box.minimum(), box.maximum()  # type: ignore[attr-defined]
        msg = clamp_message(typed, lo, hi, box.text())  # type: ignore[attr-defined]
        if msg is None:
            return
        self.last_clamp = msg
        self.clamped.emit(msg)
        widget: QtWidgets.QWidget = self  # type: ignore[assignment]
        QtWidgets.QToolTip.showText(widget.mapToGlobal(QtCore.QPoint(0, widget.height())), msg, widget)
        window = widget.window()
        if isinstance(window, QtWidgets.QMainWindow):
            window.statusBar().showMessage(msg, 8000)


class QtDoubleSpin(_Reading, QtWidgets.QDoubleSpinBox):
    """A QDoubleSpinBox that reads scientific notation and reports a clamped value (``clamped(message)``)."""

    clamped = QtCore.Signal(str)

    def valueFromText(self, text: str) -> float:
        v = parse_number(self._strip(text))
        return self.value() if v is None else min(max(v, self.minimum()), self.maximum())


class QtIntSpin(_Reading, QtWidgets.QSpinBox):
    """A QSpinBox that reads scientific notation (``2e4``; rounded to a whole number) and reports a clamped value
    (``clamped(message)``)."""

    clamped = QtCore.Signal(str)

    def valueFromText(self, text: str) -> int:
        v = parse_number(self._strip(text))
        if v is None:
            return self.value()
        return int(min(max(round(v), self.minimum()), self.maximum()))
