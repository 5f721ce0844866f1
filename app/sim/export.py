"""CSV export of a run's paths: the rows of a ``miran-paths`` document, one per agent and time step.

Columns: ``agent, profile, t, x, y`` (seconds, scene units), agents in simulation order, rows in time order; the
file is written atomically like every other file of the app. The JSON export is core.export.write_paths itself,
the same writer as ``miran simulate --out``.
"""

from __future__ import annotations

import csv
import io
import os

from core.export import PathsFile
from core.scene.jsonio import write_text_atomic

CSV_COLUMNS = ("agent", "profile", "t", "x", "y")


def paths_csv_text(pf: PathsFile) -> str:
    """The CSV text of a paths document (header row first)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for a in pf.agents:
        for t, x, y in a.points.tolist():
            w.writerow((a.id, a.profile, repr(t), repr(x), repr(y)))
    return out.getvalue()


def write_paths_csv(path: str | os.PathLike, pf: PathsFile) -> None:
    """Write the CSV file atomically."""
    write_text_atomic(path, paths_csv_text(pf))
