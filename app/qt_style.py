"""The app's look: Fusion with a light, neutral palette and a little styling for docks, toolbars and cards."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

STYLE_SHEET = """
QMainWindow::separator { background: #d1d5db; width: 1px; height: 1px; }
QDockWidget { titlebar-close-icon: none; }
QDockWidget::title { background: #e5e7eb; padding: 5px 8px; border-bottom: 1px solid #d1d5db; }
QToolBar { background: #f3f4f6; border: none; spacing: 3px; padding: 3px; }
QToolBar#toolbar\\.tools { background: #e5e7eb; border-right: 1px solid #d1d5db; padding: 6px 3px; }
QToolButton { border: 1px solid transparent; border-radius: 5px; padding: 3px; }
QToolButton:hover { background: #e0e7ff; border-color: #c7d2fe; }
QToolButton:checked { background: #dbeafe; border-color: #60a5fa; }
QStatusBar { background: #f3f4f6; border-top: 1px solid #d1d5db; }
QStatusBar QLabel { color: #374151; padding: 0 6px; }
QFrame#scene_card { background: #ffffff; border: 1px solid #d1d5db; border-radius: 8px; }
QFrame#scene_card:hover { border-color: #60a5fa; background: #f8fbff; }
QWidget#welcome { background: #f9fafb; }
QTreeView, QTableWidget, QListWidget, QUndoView { background: #ffffff; alternate-background-color: #f9fafb; }
QHeaderView::section { background: #f3f4f6; border: none; border-bottom: 1px solid #e5e7eb; padding: 3px 6px; }
"""


def apply_style(app: QtWidgets.QApplication) -> None:
    pal = app.palette()
    pal.setColor(QtGui.QPalette.ColorRole.Window, QtGui.QColor("#f3f4f6"))
    pal.setColor(QtGui.QPalette.ColorRole.Base, QtGui.QColor("#ffffff"))
    pal.setColor(QtGui.QPalette.ColorRole.AlternateBase, QtGui.QColor("#f9fafb"))
    pal.setColor(QtGui.QPalette.ColorRole.Highlight, QtGui.QColor("#2563eb"))
    pal.setColor(QtGui.QPalette.ColorRole.HighlightedText, QtGui.QColor("#ffffff"))
    pal.setColor(QtGui.QPalette.ColorRole.Button, QtGui.QColor("#f3f4f6"))
    pal.setColor(QtGui.QPalette.ColorRole.Text, QtGui.QColor("#111827"))
    pal.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor("#111827"))
    app.setPalette(pal)
    app.setStyleSheet(STYLE_SHEET)
