"""``miran reproduce OUTDIR [--quick] [--only NAME]``: the papers' experiments as PNG figures and a Markdown report."""

from __future__ import annotations

import argparse
import sys

from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    from core.reproduce import EXPERIMENTS

    p = sub.add_parser("reproduce", help="rerun the papers' experiments: figures, verdicts and a Markdown report",
                       description="Rerun MIRAN Figures 7, 8, 1 and Table 1, IRM Figures 1 (CMM against IRM), "
                                   "3 and 6, the ECM section VI timings (smoothing included) and Figure 8, "
                                   "Niederberger Table 1 and Figures 9 and 10; write a PNG and an SVG each, "
                                   "report.md with a computed verdict per experiment (reproduced, or differs "
                                   "and why) and the papers' numbers beside ours, and results.json. Needs "
                                   "matplotlib (the 'reproduce' extra).")
    p.add_argument("outdir", metavar="OUTDIR")
    p.add_argument("--quick", action="store_true", help="smaller crowds and fewer queries (a minute or two)")
    p.add_argument("--only", action="append", metavar="NAME",
                   help=f"run only this experiment (repeatable; each runs once): {', '.join(EXPERIMENTS)}")
    return p


def run(args) -> int:
    from core.reproduce import EXPERIMENTS, reproduce
    from core.reproduce.plot import MissingMatplotlib

    # each experiment once, in the order first given (--only X --only X runs X once)
    only = list(dict.fromkeys(args.only)) if args.only else None
    unknown = [n for n in only or [] if n not in EXPERIMENTS]
    if unknown:
        raise InputError([Problem("--only", f"unknown experiment {n!r} (valid: {', '.join(EXPERIMENTS)})")
                          for n in unknown])
    try:
        written, failed = reproduce(args.outdir, quick=args.quick, only=only,
                            progress=lambda name: print(f"running {name} ...", file=sys.stderr, flush=True))
    except MissingMatplotlib as e:
        raise InputError([Problem("reproduce", str(e))]) from None
    except OSError as e:
        raise InputError([Problem("OUTDIR", f"cannot write to {args.outdir}: {e.strerror or e}")]) from None
    for name, files in written.items():
        for f in files:
            print(f"wrote {f}")
    print(f"wrote {args.outdir}/report.md")
    for name in failed:
        print(f"error: experiment {name} failed (see report.md)", file=sys.stderr)
    return 1 if failed else 0
