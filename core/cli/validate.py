"""``miran validate SCENE...``: check scene files and list every problem.

Beyond the file format's rules (``core.scene``), a valid scene is checked as a run would use it
(``core.routes.advice``): warnings for sketched routes that cross an obstacle or pass closer than a follower's
radius (the character walks a detour there), and errors for disc agents (a scene simulated with disc MIRAN or IRM)
that do not fit where they start or end.
"""

from __future__ import annotations

import argparse
import sys

from core.cli.output import print_json
from core.scene.io import load_scene
from core.scene.problems import InputError


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("validate", help="check scene files, list every problem",
                       description="Check scene files and list every problem with its JSON path. Exit 2 if any is bad.")
    p.add_argument("scenes", nargs="+", metavar="SCENE", help="miran-scene JSON files")
    p.add_argument("--json", action="store_true", help="print a JSON report instead of text")
    return p


def run(args) -> int:
    from core.routes import PlannerContext
    from core.routes.advice import disc_fit_errors, route_warnings

    report, bad = [], False
    for path in args.scenes:
        try:
            scene = load_scene(path)
            ctx = PlannerContext(scene)
            warnings = route_warnings(scene, ctx)
            errors = disc_fit_errors(scene, ctx)
            if errors:
                raise InputError(errors, path)
            report.append({"file": path, "valid": True, "problems": [],
                           "warnings": [{"path": p.path, "message": p.message} for p in warnings]})
            if not args.json:
                for w in warnings:
                    print(f"{path}: warning: {w}", file=sys.stderr)
                print(f"{path}: valid" + (f" ({len(warnings)} warning{'s' * (len(warnings) != 1)})"
                                          if warnings else ""))
        except InputError as e:
            bad = True
            report.append({"file": path, "valid": False, "warnings": [],
                           "problems": [{"path": p.path, "message": p.message} for p in e.problems]})
            if not args.json:
                for line in e.lines() if e.source else [f"{path}: {p}" for p in e.problems]:
                    print(line, file=sys.stderr)
    if args.json:
        print_json(report)
    return 2 if bad else 0
