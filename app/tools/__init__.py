"""The editor's tools, one state machine per mode (as RecastDemo's SampleTool), with no Qt: the viewport turns
mouse and key events into ToolEvents, the ToolHost forwards them to the active tool, and each tool commits its
edit through the ToolContext and describes what to draw as a Preview."""

from .agent import AgentTool
from .base import Preview, Tool, ToolContext, ToolEvent
from .host import TOOL_CLASSES, ToolHost
from .motion import MotionPathTool
from .network import NetworkTool
from .obstacle import ObstacleTool
from .route import RouteTool
from .select import SelectTool
from .terrain import TerrainTool
from .vertex import VertexTool

__all__ = [
    "AgentTool", "MotionPathTool", "NetworkTool", "ObstacleTool", "Preview", "RouteTool", "SelectTool",
    "TOOL_CLASSES", "TerrainTool", "Tool", "ToolContext", "ToolEvent", "ToolHost", "VertexTool",
]
