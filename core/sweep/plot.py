"""Plotting a sweep's table: one line per ``hue`` value of the mean of ``y`` over the runs at each ``x`` (seeds and
random samples averaged), with the standard deviation as error bars.

``series`` computes the lines (pandas only; the app draws them with pyqtgraph); ``plot_file`` draws them with
matplotlib into a PNG or SVG file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.scene.atomic import write_file_atomic
from core.scene.problems import InputError, Problem

from .deps import require

PLOT_FORMATS = (".png", ".svg")
# The most lines (--hue values) and x categories one plot draws: past them a legend or an axis is unreadable and
# the drawing takes minutes, so a table with more is refused before anything is drawn.
MAX_HUE_VALUES = 64
MAX_X_CATEGORIES = 2000


@dataclass(frozen=True)
class Series:
    """One line: its ``label`` (the hue value, or the y column), x values, mean and standard deviation of y, and
    how many runs each point averages."""

    label: str
    x: list[Any]
    mean: np.ndarray
    std: np.ndarray
    count: np.ndarray


def check_columns(df, x: str, y: str, hue: str | None) -> None:
    """InputError naming the option whose column is missing (listing the table's columns) or whose y is not
    numeric."""
    cols = list(df.columns)
    problems = []
    for opt, c in (("--x", x), ("--y", y), ("--hue", hue)):
        if c is not None and c not in cols:
            problems.append(Problem(opt, f"no column {c!r} in the table (columns: {', '.join(map(str, cols))})"))
    if not problems and not _numeric(df[y]):
        problems.append(Problem("--y", f"column {y!r} is not numeric"))
    if not problems and hue is not None:
        n = df[hue].nunique(dropna=False)
        if n > MAX_HUE_VALUES:
            problems.append(Problem("--hue", f"column {hue!r} has {n} distinct values, over the limit of "
                                             f"{MAX_HUE_VALUES} lines a plot draws (choose a column with fewer)"))
    if not problems and not _numeric(df[x]):
        n = df[x].nunique(dropna=False)
        if n > MAX_X_CATEGORIES:
            problems.append(Problem("--x", f"column {x!r} has {n} distinct non-numeric values, over the limit of "
                                           f"{MAX_X_CATEGORIES} categories an axis shows"))
    if problems:
        raise InputError(problems)


def check_hue_file(path: str | os.PathLike, hue: str | None) -> None:
    """For a CSV table, refuse a ``hue`` column of more than MAX_HUE_VALUES distinct values by reading it with the
    csv module, before pandas is loaded and the table parsed (a second or two); ``check_columns`` checks it again
    on the table (and is what checks Parquet tables)."""
    import csv

    from core.export.csvsafe import unescape_cell

    if hue is None or Path(path).suffix.lower() != ".csv":
        return
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            rows = csv.reader(f)
            header = [unescape_cell(c) for c in next(rows, [])]
            if hue not in header:
                return
            k, seen = header.index(hue), set()
            for row in rows:
                seen.add(row[k] if k < len(row) else "")
                if len(seen) > MAX_HUE_VALUES:
                    raise InputError([Problem("--hue", f"column {hue!r} has more than {MAX_HUE_VALUES} distinct "
                                                       f"values, over the limit of {MAX_HUE_VALUES} lines a plot "
                                                       "draws (choose a column with fewer)")])
    except (OSError, csv.Error):
        return  # the table reader names it


def _numeric(col) -> bool:
    return col.dtype.kind in "biuf"


def series(df, x: str, y: str, hue: str | None = None) -> list[Series]:
    """The lines to draw: per hue value (sorted), the mean and standard deviation of y over the rows at each x."""
    check_columns(df, x, y, hue)
    data = df[[c for c in dict.fromkeys([x, y, hue]) if c is not None]].copy()
    data[y] = data[y].astype(float)
    groups = [(str(h), g) for h, g in data.groupby(hue, sort=True)] if hue is not None else [(y, data)]
    out = []
    for label, g in groups:
        agg = g.groupby(x, sort=True)[y].agg(["mean", "std", "count"])
        out.append(Series(label, list(agg.index), agg["mean"].to_numpy(float),
                          np.nan_to_num(agg["std"].to_numpy(float)), agg["count"].to_numpy(int)))
    return out


def plot_file(df, path: str | os.PathLike, x: str, y: str, hue: str | None = None, title: str = "") -> Path:
    """Draw ``series(df, x, y, hue)`` with matplotlib into ``path`` (.png or .svg); returns the path."""
    p = Path(path)
    if p.suffix.lower() not in PLOT_FORMATS:
        raise InputError([Problem("--out", f"{p.name}: plots are written as .png or .svg, by the extension")])
    lines = series(df, x, y, hue)
    matplotlib = require("matplotlib", "plotting a sweep")
    # Column names and values are data, not TeX: "$\\frac{$" would stop mathtext with a parse error.
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        fig = _figure(lines, x, y, hue, title)
        write_file_atomic(p, lambda tmp: fig.savefig(tmp, format=p.suffix[1:].lower()))
    return p


def _figure(lines: list[Series], x: str, y: str, hue: str | None, title: str):
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    categorical = not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                          for s in lines for v in s.x)
    cats = sorted({str(v) for s in lines for v in s.x}) if categorical else []
    for s in lines:
        xs = [cats.index(str(v)) for v in s.x] if categorical else s.x
        ax.errorbar(xs, s.mean, yerr=s.std, marker="o", capsize=3, label=s.label if hue else None)
    if categorical:
        ax.set_xticks(range(len(cats)), cats)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if title:
        ax.set_title(title)
    if hue is not None:
        ax.legend(title=hue)
    ax.grid(True, alpha=0.3)
    return fig
