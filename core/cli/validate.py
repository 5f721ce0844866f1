"""``miran validate SCENE...``: check scene files and list every problem."""

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
    report, bad = [], False
    for path in args.scenes:
        try:
            load_scene(path)
            report.append({"file": path, "valid": True, "problems": []})
            if not args.json:
                print(f"{path}: valid")
        except InputError as e:
            bad = True
            report.append({"file": path, "valid": False,
                           "problems": [{"path": p.path, "message": p.message} for p in e.problems]})
            if not args.json:
                for line in e.lines() if e.source else [f"{path}: {p}" for p in e.problems]:
                    print(line, file=sys.stderr)
    if args.json:
        print_json(report)
    return 2 if bad else 0
