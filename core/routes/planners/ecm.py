"""``ecm``: the shortest minimum-clearance path of the Explicit Corridor Map (Geraerts 2010)."""

from __future__ import annotations


def ecm_available() -> bool:
    """Whether core.ecm provides the shortest-path query this planner wraps."""
    try:
        import core.ecm as ecm
    except ImportError:
        return False
    return hasattr(ecm, "shortest_path")
