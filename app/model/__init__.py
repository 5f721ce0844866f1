"""Qt-free models of the editor: the document being edited, the tools' shared state, and a small signal type."""

from .document import LAYER_KINDS, Document, LayerState
from .events import Signal
from .tool_state import ToolState

__all__ = ["Document", "LAYER_KINDS", "LayerState", "Signal", "ToolState"]
