"""Turn ``miran bench --json`` records into the table of docs/performance.md, stating the machine and the commit.

    python docs/scripts/bench_table.py --run [--quick] [--section NAME ...] --write docs/performance.md
    python docs/scripts/bench_table.py bench.json --commit SHA --machine "..." --write docs/performance.md

``--run`` runs ``miran bench --json`` (every section unless ``--section`` names some) in a fresh interpreter of this
checkout and takes the machine (CPU model, cores, memory, GPU when ``nvidia-smi`` names one), the commit (``git
describe --always --dirty``) and the date from where it runs. Given a JSON file instead, say where it was measured
with ``--machine`` and ``--commit`` (defaults: this machine and this checkout's commit). Without ``--write`` the
Markdown is printed; with it, the part of the page between the ``bench-table`` markers is replaced and the rest of
the page kept. Every figure of the table comes from the one run, so each is compared with peers measured beside it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
START, END = "<!-- bench-table:start -->", "<!-- bench-table:end -->"
TITLES = {"navmesh": "Navigation mesh", "routes": "Route planning", "steering": "Steering and crowds",
          "ecm": "Explicit Corridor Map", "sweep": "Sweeps"}


def machine() -> str:
    """This machine in a line: CPU model, logical cores, memory and the GPU if nvidia-smi names one."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [cpu, f"{os.cpu_count()} logical cores"]
    try:
        kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
        parts.append(f"{kb / 2 ** 20:.0f} GiB")
    except (OSError, StopIteration, ValueError):
        pass
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()
        parts.append(f"GPU {gpu[0]}" if gpu else "no GPU (OpenGL: Mesa's llvmpipe)")
    except (OSError, subprocess.SubprocessError):
        parts.append("no GPU (OpenGL: Mesa's llvmpipe)")
    parts.append(f"{platform.system()} {platform.release()}, Python {platform.python_version()}")
    return ", ".join(parts)


def commit() -> str:
    """This checkout's commit as ``git describe --always --dirty`` says it."""
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=REPO,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run_bench(quick: bool, sections: list[str]) -> list[dict]:
    """``miran bench --json`` in a fresh interpreter of this checkout; its records."""
    cmd = [sys.executable, "-m", "core.cli", "bench", "--json"] + (["--quick"] if quick else [])
    for s in sections:
        cmd += ["--section", s]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench_table: miran bench failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def check_records(records) -> list[dict]:
    """The records, checked to be what ``miran bench --json`` prints."""
    if not isinstance(records, list):
        raise SystemExit("bench_table: expected a JSON list of records (miran bench --json)")
    for i, r in enumerate(records):
        if not isinstance(r, dict) or not {"section", "name", "value", "unit", "reference"} <= set(r):
            raise SystemExit(f"bench_table: record [{i}] lacks section, name, value, unit or reference")
    return records


def fmt(value, unit: str) -> str:
    """A value with about four significant digits; percentages for a fraction."""
    if isinstance(value, int):
        return f"{value:,}"
    if unit == "fraction":
        return f"{100 * value:.3g} %"
    return f"{value:.4g}"


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(records: list[dict], machine_text: str, commit_text: str, when: str, command: str) -> str:
    """The Markdown: what was run where, then one table per section in the bench's order."""
    out = [f"Measured {when} on {machine_text}, commit `{commit_text}`, with `{command}`.", ""]
    sections: dict[str, list[dict]] = {}
    for r in records:
        sections.setdefault(r["section"], []).append(r)
    for name, rows in sections.items():
        out += [f"### {TITLES.get(name, name)}", "", "| figure | value | unit | compared with |",
                "|---|---:|---|---|"]
        for r in rows:
            unit = "%" if r["unit"] == "fraction" else r["unit"]
            out.append(f"| {cell(r['name'])} | {fmt(r['value'], r['unit'])} | {cell(unit)} | "
                       f"{cell(r['reference'])} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def write_into(page: Path, text: str) -> None:
    """Replace what lies between the markers of ``page`` with ``text``."""
    body = page.read_text()
    if START not in body or END not in body:
        raise SystemExit(f"bench_table: {page} has no {START} ... {END} markers")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    page.write_text(pattern.sub(lambda _: f"{START}\n{text}{END}", body, count=1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="?", type=Path, help="a file of miran bench --json output")
    ap.add_argument("--run", action="store_true", help="run miran bench --json now and use its records")
    ap.add_argument("--quick", action="store_true", help="with --run: the bench's quick version")
    ap.add_argument("--section", action="append", default=[], help="with --run: only this section (repeatable)")
    ap.add_argument("--machine", help="where the records were measured (default: this machine)")
    ap.add_argument("--commit", help="the commit measured (default: this checkout's)")
    ap.add_argument("--date", help="when (default: now, or the records file's time)")
    ap.add_argument("--write", type=Path, help="the page whose bench-table part is replaced")
    args = ap.parse_args(argv)
    if args.run == (args.records is not None):
        ap.error("give a records file or --run, not both")
    if args.run:
        records = run_bench(args.quick, args.section)
        command = "miran bench --json" + (" --quick" if args.quick else "") + \
            "".join(f" --section {s}" for s in args.section)
        when = args.date or dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    else:
        records = json.loads(args.records.read_text())
        command = "miran bench --json"
        when = args.date or dt.datetime.fromtimestamp(args.records.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    text = table(check_records(records), args.machine or machine(), args.commit or commit(), when, command)
    if args.write:
        write_into(args.write, text)
        print(f"wrote {len(records)} figures into {args.write}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
