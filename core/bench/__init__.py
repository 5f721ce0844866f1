"""The benchmark suite behind ``miran bench [--json] [--section NAME] [--quick]``.

A section is a module ``core.bench.<name>`` with ``run(quick: bool) -> list[Record]``, registered by adding its name to
``SECTIONS``. Records are ``{"section", "name", "value", "unit", "reference"}`` (docs: Explanation, how performance is
measured): speed is reported as measured figures, ratios or CPU-load, never asserted. ``quick`` must finish in seconds
(CI).
"""

from .record import Record
from .runner import SectionFailed, run_section, run_sections

# Section name -> module core.bench.<name>; others append theirs (one-line edit).
SECTIONS = ["navmesh", "routes", "steering", "ecm", "sweep", "fidelity", "jupedsim", "dynamic"]

__all__ = ["Record", "SECTIONS", "SectionFailed", "run_section", "run_sections"]
