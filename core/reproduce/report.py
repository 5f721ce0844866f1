"""Run the experiments and write ``OUTDIR/<name>.png`` and ``.svg`` for each, ``OUTDIR/report.md`` (the verdicts
first, then one section per experiment) and ``OUTDIR/results.json`` (verdicts, checks and numbers)."""

from __future__ import annotations

import json
import os
import platform
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

from core.interrupts import is_interrupt
from core.scene.jsonio import write_text_atomic

from . import plot
from .experiment import Experiment
from .experiments import EXPERIMENTS
from .verdict import checks_table


def machine() -> str:
    """The CPU model, its logical cores, Python and the OS, in one line."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, Python {platform.python_version()}, {platform.system()}"


def reproduce(outdir: str | Path, quick: bool = False, only: Sequence[str] | None = None,
              progress: Callable[[str], None] | None = None) -> tuple[dict[str, list[Path]], list[str]]:
    """Run the experiments (all, or ``only``), write their figures, ``report.md`` and ``results.json`` into
    ``outdir``; returns ({experiment name: [PNG path, SVG path]}, [failed experiment names]). An experiment that
    fails is reported with its error (verdict ``failed``), the others still run."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(only)) if only else list(EXPERIMENTS)  # each once, in the order given
    written: dict[str, list[Path]] = {}
    failed: list[str] = []
    sections: list[str] = []
    results: dict[str, dict[str, Any]] = {}
    summary: list[tuple[str, str, str, str]] = []
    host = machine()
    for name in names:
        if progress:
            progress(name)
        t0 = time.perf_counter()
        try:
            exp: Experiment = EXPERIMENTS[name](quick)
        except plot.MissingMatplotlib:
            raise
        except Exception as e:  # one broken experiment must not hide the others
            if is_interrupt(e):
                raise  # Ctrl+C inside a kernel call (numba's SystemError): stop, as the command was asked to
            last = traceback.extract_tb(e.__traceback__)[-1]
            err = f"{type(e).__name__}: {e} ({Path(last.filename).name}:{last.lineno})"
            sections.append(f"## {name}\n\n**Verdict: failed** ({err})\n")
            results[name] = {"verdict": f"failed: {err}", "checks": [], "error": err}
            summary.append((name, name, f"failed: {err}", "-"))
            failed.append(name)
            continue
        secs = time.perf_counter() - t0
        body = exp.markdown
        if exp.figure is not None:
            written[name] = plot.save(exp.figure, out / exp.name)
            body = f"![{exp.title}]({exp.name}.png) ([SVG]({exp.name}.svg))\n\n" + body
        v = exp.verdict
        rec = exp.recovery.text()
        sections.append(f"## {exp.title}\n\n**Verdict: {v}**\n\n**Recovery:** {rec}\n\n"
                        f"{checks_table(exp.checks)}\n{body}\n_{secs:.1f} s to run._\n")
        results[name] = {"title": exp.title, "verdict": v, "checks": [c.as_dict() for c in exp.checks],
                         "recovery": exp.recovery.as_dict(), "machine": host, "quick": quick, "seconds": secs,
                         "data": exp.data}
        summary.append((name, exp.title, v, _share(exp)))
    table = "| experiment | verdict | recovery share |\n|---|---|---:|\n" + "".join(
        f"| [{title}](#{_anchor(title)}) | {v} | {share} |\n" for _, title, v, share in summary)
    head = (f"# The papers' experiments, reproduced\n\n{'Quick run (smaller sizes). ' if quick else ''}"
            f"Machine: {host}. Written by `miran reproduce`; each figure is a PNG and an SVG beside this file and "
            f"`results.json` holds the verdicts, the checks and the numbers. A verdict is `reproduced` when every "
            f"counted check of the paper's claims holds, else `differs` with the checks that failed and their "
            f"measured cause; a check that holds by construction is shown, labelled so, and not counted. The "
            f"recovery share is the part of the walkers' agent-steps that the progress guarantee walked instead of "
            f"the method's forces.\n\n## Verdicts\n\n{table}\n")
    write_text_atomic(out / "report.md", head + "\n".join(sections))
    write_text_atomic(out / "results.json", json.dumps(results, indent=1, default=_plain) + "\n")
    return written, failed


def _share(exp: Experiment) -> str:
    """The verdict table's recovery column: the share, or why there is none."""
    r = exp.recovery
    return f"{100 * r.share:.2f} %" if r.walkers else "no walkers"


def _anchor(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes."""
    keep = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return keep.replace(" ", "-")


def _plain(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)
