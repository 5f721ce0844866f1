"""The viewport: a pyqtgraph view of the scene with a metric grid and scale bar, forwarding input to the tools."""

from .qt_viewport import QtViewport

__all__ = ["QtViewport"]
