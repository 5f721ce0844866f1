"""One benchmark figure: ``{"section", "name", "value", "unit", "reference"}`` (docs: Explanation, how performance
is measured)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass


@dataclass(frozen=True)
class Record:
    """A measured value with its unit and what to compare it with (a paper's figure, a target, a cache state)."""

    section: str
    name: str
    value: float
    unit: str
    reference: str = ""

    def to_dict(self) -> dict:
        """JSON-ready form, keys in the documented order."""
        v = self.value
        value = int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else float(v)
        return {"section": self.section, "name": self.name, "value": value, "unit": self.unit,
                "reference": self.reference}
