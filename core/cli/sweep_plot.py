"""``miran sweep-plot RESULTS --x COL --y COL [--hue COL] [--out plot.png|.svg]``: plot a sweep's table.

Draws the mean of ``--y`` over the runs at each ``--x`` (seeds and random samples averaged, standard deviation as
error bars), one line per ``--hue`` value (core.sweep.plot). ``--characters`` plots the character table instead of
the run table.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.output import check_outputs
from core.scene.outputs import MAX_DERIVED_NAME, derived_path, safe_name
from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep-plot", help="plot a sweep's results table (matplotlib, PNG or SVG)",
                       description="Plot the mean of a column against another over a miran sweep table, one line "
                                   "per --hue value, with the standard deviation as error bars.")
    p.add_argument("results", metavar="RESULTS", help="the run table written by miran sweep (.parquet or .csv)")
    p.add_argument("--x", required=True, metavar="COL", help="column on the x axis (e.g. adult.sigma)")
    p.add_argument("--y", required=True, metavar="COL", help="numeric column to average (e.g. mean_weighted_length)")
    p.add_argument("--hue", metavar="COL", help="one line per value of this column (e.g. method; at most "
                                                "64 values)")
    p.add_argument("--characters", action="store_true", help="plot the character table (one row per character)")
    p.add_argument("--out", metavar="FILE", help="the plot, .png or .svg (default: <results stem>.<y>.png)")
    return p


def default_out(results: str, y: str) -> str:
    """``<results stem>.<y>.png`` beside the table, the column name made a file name (``a/b`` -> ``a_b``)."""
    r = Path(results)
    return str(derived_path(r.parent, safe_name(f"{r.stem}.{y}", "plot")[:MAX_DERIVED_NAME - 4] + ".png"))


def run(args) -> int:
    import core.sweep as sweep
    from core.sweep.plot import PLOT_FORMATS, plot_file

    out = args.out if args.out is not None else default_out(args.results, args.y)
    if Path(out).suffix.lower() not in PLOT_FORMATS:
        raise InputError([Problem("--out", f"{Path(out).name}: plots are written as .png or .svg, by the "
                                           "extension")])
    check_outputs([("--out", out)], [("RESULTS", args.results),
                                     ("the character table", str(sweep.characters_path(args.results)))])
    from core.sweep.plot import check_hue_file

    if not args.characters:
        check_hue_file(args.results, args.hue)
    try:
        tables = sweep.read_tables(args.results)
        df = tables.characters if args.characters else tables.runs
        if args.characters and not len(df.columns):
            raise InputError([Problem("--characters", f"no character table beside {args.results}")])
        path = plot_file(df, out, args.x, args.y, args.hue, title=Path(args.results).stem)
    except sweep.MissingExtra as e:
        raise InputError([Problem("", str(e))]) from None
    except OSError as e:
        raise InputError([Problem("--out", f"cannot write {out}: {e.strerror or e}")]) from None
    print(f"wrote {path}")
    return 0
