"""``miran sweep-plot RESULTS --x COL --y COL [--hue COL] [--out plot.png|.svg]``: plot a sweep's table.

Draws the mean of ``--y`` over the runs at each ``--x`` (seeds and random samples averaged, standard deviation as
error bars), one line per ``--hue`` value (core.sweep.plot). ``--characters`` plots the character table instead of
the run table.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep-plot", help="plot a sweep's results table (matplotlib, PNG or SVG)",
                       description="Plot the mean of a column against another over a miran sweep table, one line "
                                   "per --hue value, with the standard deviation as error bars.")
    p.add_argument("results", metavar="RESULTS", help="the run table written by miran sweep (.parquet or .csv)")
    p.add_argument("--x", required=True, metavar="COL", help="column on the x axis (e.g. adult.sigma)")
    p.add_argument("--y", required=True, metavar="COL", help="numeric column to average (e.g. mean_weighted_length)")
    p.add_argument("--hue", metavar="COL", help="one line per value of this column (e.g. method)")
    p.add_argument("--characters", action="store_true", help="plot the character table (one row per character)")
    p.add_argument("--out", metavar="FILE", help="the plot, .png or .svg (default: <results stem>.<y>.png)")
    return p


def run(args) -> int:
    import core.sweep as sweep
    from core.sweep.plot import plot_file

    try:
        tables = sweep.read_tables(args.results)
        df = tables.characters if args.characters else tables.runs
        if args.characters and not len(df.columns):
            raise InputError([Problem("--characters", f"no character table beside {args.results}")])
        out = args.out or str(Path(args.results).with_name(f"{Path(args.results).stem}.{args.y}.png"))
        path = plot_file(df, out, args.x, args.y, args.hue, title=Path(args.results).stem)
    except sweep.MissingExtra as e:
        raise InputError([Problem("", str(e))]) from None
    print(f"wrote {path}")
    return 0
