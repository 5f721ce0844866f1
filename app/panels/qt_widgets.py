"""Small widgets the panels share: a spin box for scene numbers and a colour swatch button."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .qt_spin import QtDoubleSpin


def number_box(lo: float, hi: float, decimals: int = 3, suffix: str = "",
               step: float = 1.0) -> QtDoubleSpin:
    """A double spin box that reports a value when editing finishes (not on every keystroke)."""
    sb = QtDoubleSpin()
    sb.setRange(lo, hi)
    sb.setDecimals(decimals)
    sb.setSingleStep(step)
    sb.setKeyboardTracking(False)
    sb.setAccelerated(True)
    # The size hint follows the range's widest number; let the panel's width decide instead.
    sb.setMinimumWidth(70)
    sb.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
    if suffix:
        sb.setSuffix(suffix)
    return sb


def quantity(value: float, unit: str) -> str:
    """A measured length or area as a panel shows it: a tenth from 10 on (``63.3 m``, ``1,204.5 m²``), two
    decimals from 1 (``3.25 m``), three significant digits below (``0.125 m``)."""
    v = float(value)
    if abs(v) >= 10:
        return f"{v:,.1f} {unit}"
    if abs(v) >= 1:
        return f"{v:.2f} {unit}"
    return f"{v:.3g} {unit}"


def set_quietly(widget: QtWidgets.QWidget, setter: str, value) -> None:
    """Set a widget's value without emitting its change signals (the panel is showing, not editing)."""
    was = widget.blockSignals(True)
    getattr(widget, setter)(value)
    widget.blockSignals(was)


def swatch_icon(color: str, size: int = 14) -> QtGui.QIcon:
    pm = QtGui.QPixmap(size, size)
    pm.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pm)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    p.setBrush(QtGui.QColor(color))
    p.setPen(QtGui.QPen(QtGui.QColor(0, 0, 0, 90), 1))
    p.drawRoundedRect(QtCore.QRectF(0.5, 0.5, size - 1, size - 1), 3, 3)
    p.end()
    return QtGui.QIcon(pm)


def section_label(text: str) -> QtWidgets.QLabel:
    lab = QtWidgets.QLabel(text)
    f = lab.font()
    f.setBold(True)
    lab.setFont(f)
    return lab
