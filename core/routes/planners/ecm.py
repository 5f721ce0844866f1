"""``ecm``: the shortest minimum-clearance path of the Explicit Corridor Map (Geraerts 2010, sections III-IV).

The Explicit Corridor Map and its shortest-path query belong to ``core.ecm``; this planner wraps that query. Where
``core.ecm`` does not provide it, asking for the planner is an InputError that says so (exit 2 on the command line)
instead of a crash.
"""

from __future__ import annotations

from core.scene.problems import InputError, Problem


def ecm_available() -> bool:
    """Whether core.ecm provides the shortest-path query this planner wraps."""
    try:
        import core.ecm as ecm
    except ImportError:
        return False
    return hasattr(ecm, "shortest_path")


class EcmPlanner:
    """The ECM's shortest minimum-clearance path (it keeps the clearance itself, where the corridor allows)."""

    name = "ecm"
    native_clearance = True
    unreachable_hint = "the Explicit Corridor Map has no corridor between them"

    def __init__(self, ctx):
        if not ecm_available():
            raise InputError([Problem("planner", "the ecm planner needs the Explicit Corridor Map's shortest-path "
                                                 "query (core.ecm.shortest_path), which this installation lacks; "
                                                 "use cdt, portal, grid or network")])
        self.ctx = ctx
