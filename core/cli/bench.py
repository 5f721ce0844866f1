"""``miran bench [--json] [--section NAME] [--quick] [--baseline REF [--rounds K]]``: the benchmark suite (docs:
Explanation, how performance is measured), or its figures beside those of an earlier commit timed in the same run
(core.bench.baseline)."""

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
    p.add_argument("--baseline", metavar="REF",
                   help="also run the sections of git commit REF of this checkout, alternating with this tree's, "
                        "and print this tree's figures over REF's (the first run of each compiles its kernels)")
    p.add_argument("--rounds", type=int, default=3, metavar="K",
                   help="timed rounds of each tree with --baseline, 1 to 20 (default 3; best of K kept)")
    return p


def run(args) -> int:
    from core.bench import SECTIONS, SectionFailed, run_sections

    names = args.section or list(SECTIONS)
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        raise InputError([Problem("--section", f"unknown section {n!r} (valid: {', '.join(SECTIONS)})")
                          for n in unknown])
    if args.baseline is None and args.rounds != 3:
        raise InputError([Problem("--rounds", "only counts with --baseline")])
    if args.baseline is not None:
        if not 1 <= args.rounds <= 20:
            raise InputError([Problem("--rounds", f"must be 1 to 20, got {args.rounds}")])
        from core.bench.baseline import run_against

        try:
            records = run_against(args.baseline, names, args.quick, args.rounds)
        except RuntimeError as e:  # a tree's bench run died: say which, as a failed section is said
            print(f"error: {e}", file=sys.stderr)
            return 1
        failed: list[SectionFailed] = []
        if args.json:
            json.dump([r.to_dict() for r in records], sys.stdout, indent=1, allow_nan=False)
            sys.stdout.write("\n")
        else:
            for r in records:
                print(f"{r.value:8.3f}x  {r.name}  ({r.reference})")
    elif args.json:
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
