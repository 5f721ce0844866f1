"""The one colour map for the ECM's clearance (the medial axis coloured by its distance to the nearest obstacle),
shared by ``miran ecm --png`` and the app's GVD/ECM overlay, with the legend both draw.

Clearance is cut into ``len(CLEARANCE_COLOURS)`` equal bins from 0 to ``top`` (the 95th percentile of the axis'
clearance, so a few very wide places do not wash the ramp out); the last bin holds everything from its lower edge
up. Narrow is red, wide is blue: the colour a designer reads as "tight" is the narrow one.
"""

from __future__ import annotations

import numpy as np

# From narrow to wide: red, orange, amber, yellow, lime, green, sky, blue.
CLEARANCE_COLOURS = ("#b91c1c", "#ea580c", "#f59e0b", "#facc15", "#a3e635", "#22c55e", "#0ea5e9", "#2563eb")
CLEARANCE_RGB = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in CLEARANCE_COLOURS], dtype=np.uint8)
TOP_PERCENTILE = 95.0


def clearance_top(clearance: np.ndarray) -> float:
    """The clearance where the ramp ends (its 95th percentile; 1 for an empty axis)."""
    c = np.asarray(clearance, dtype=np.float64)
    c = c[np.isfinite(c)]
    return float(np.percentile(c, TOP_PERCENTILE)) if len(c) else 1.0


def clearance_bins(clearance: np.ndarray, top: float) -> np.ndarray:
    """(n,) int64 bin of each clearance value: ``floor(k * c / top)``, clipped to [0, k - 1]."""
    k = len(CLEARANCE_COLOURS)
    c = np.nan_to_num(np.asarray(clearance, dtype=np.float64), nan=0.0, posinf=top)
    return np.clip((c / max(float(top), 1e-12) * k).astype(np.int64), 0, k - 1)


def clearance_rgb(clearance: np.ndarray, top: float) -> np.ndarray:
    """(n, 3) uint8 colour of each clearance value."""
    return CLEARANCE_RGB[clearance_bins(clearance, top)]


def legend_entries(top: float) -> list[tuple[str, str]]:
    """(colour, text) of each bin, narrow first: ``"< 0.4 m"``, ``"0.4-0.8 m"``, ..., ``">= 2.8 m"``."""
    k = len(CLEARANCE_COLOURS)
    edges = [top * i / k for i in range(k + 1)]
    out = []
    for i, colour in enumerate(CLEARANCE_COLOURS):
        if i == 0:
            text = f"< {edges[1]:.2g} m"
        elif i == k - 1:
            text = f">= {edges[i]:.2g} m"
        else:
            text = f"{edges[i]:.2g}-{edges[i + 1]:.2g} m"
        out.append((colour, text))
    return out
