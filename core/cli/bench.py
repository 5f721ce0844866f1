"""``miran bench [--json] [--section NAME] [--quick]``: the benchmark suite (DESIGN.md, Performance)."""

from __future__ import annotations

import argparse
import json
import sys

from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("bench", help="run the benchmark suite",
                       description="Run the benchmark sections and print their figures (time per query, build "
                                   "times, CPU-load), or one JSON list of records with --json. First-call JIT "
                                   "compilation is reported apart from the steady-state figures.")
    p.add_argument("--json", action="store_true", help="print one JSON list of records")
    p.add_argument("--section", action="append", metavar="NAME",
                   help="run only this section (repeatable); default: all")
    p.add_argument("--quick", action="store_true", help="a smaller version that finishes in seconds (CI)")
    return p


def run(args) -> int:
    from core.bench import SECTIONS, run_sections

    names = args.section or list(SECTIONS)
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        raise InputError([Problem("--section", f"unknown section {n!r} (valid: {', '.join(SECTIONS)})")
                          for n in unknown])
    if args.json:
        records, failed = run_sections(names, args.quick)
        json.dump([r.to_dict() for r in records], sys.stdout, indent=1, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(f"{'section':<10} {'name':<58} {'value':>12} {'unit':<10} reference")

        def show(r) -> None:
            v = f"{r.value:12d}" if isinstance(r.value, int) else f"{r.value:12.4g}"
            print(f"{r.section:<10} {r.name:<58} {v} {r.unit:<10} {r.reference}", flush=True)

        records, failed = run_sections(names, args.quick, on_record=show)
    for f in failed:
        print(f"error: section {f.section}: {f.error}", file=sys.stderr)
    return 1 if failed else 0
