"""Icons of the actions and tools, from ``resources/icons/<name>.svg``."""

from __future__ import annotations

from functools import lru_cache

from PySide6 import QtGui, QtWidgets

from .paths import resources_dir


@lru_cache(maxsize=None)
def _icon(name: str) -> QtGui.QIcon:
    return QtGui.QIcon(str(resources_dir() / "icons" / f"{name}.svg"))


def action_icon(widget: QtWidgets.QWidget, name: str) -> QtGui.QIcon:
    """The icon named ``name`` (an empty icon when the file is missing, so the action keeps its text)."""
    path = resources_dir() / "icons" / f"{name}.svg"
    return _icon(name) if path.is_file() else QtGui.QIcon()
