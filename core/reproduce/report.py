"""Run the experiments and write ``OUTDIR/<name>.png`` for each and ``OUTDIR/report.md`` with every section."""

from __future__ import annotations

import json
import platform
import time
import traceback
from pathlib import Path
from typing import Callable, Sequence

from core.scene.jsonio import write_text_atomic

from .experiments import EXPERIMENTS, Experiment


def _machine() -> str:
    return f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, {platform.system()}"


def reproduce(outdir: str | Path, quick: bool = False, only: Sequence[str] | None = None,
              progress: Callable[[str], None] | None = None) -> tuple[dict[str, Path], list[str]]:
    """Run the experiments (all, or ``only``), write their PNGs, ``report.md`` and ``results.json`` into
    ``outdir``; returns ({experiment name: PNG path}, [failed experiment names]). An experiment that fails is
    reported in the report with its error, the others still run."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    names = list(only) if only else list(EXPERIMENTS)
    written: dict[str, Path] = {}
    failed: list[str] = []
    sections, results = [], {}
    for name in names:
        if progress:
            progress(name)
        t0 = time.perf_counter()
        try:
            exp: Experiment = EXPERIMENTS[name](quick)
        except Exception as e:  # one broken experiment must not hide the others
            last = traceback.extract_tb(e.__traceback__)[-1]
            sections.append(f"## {name}\n\nFAILED: {type(e).__name__}: {e} ({last.filename}:{last.lineno})\n")
            results[name] = {"error": f"{type(e).__name__}: {e}"}
            failed.append(name)
            continue
        secs = time.perf_counter() - t0
        body = exp.markdown
        if exp.canvas is not None:
            png = out / f"{exp.name}.png"
            exp.canvas.save(png)
            written[name] = png
            body = f"![{exp.title}]({png.name})\n\n" + body
        sections.append(f"## {exp.title}\n\n{body}\n_{secs:.1f} s to run._\n")
        results[name] = exp.data
    head = (f"# The papers' experiments, reproduced\n\n{'Quick run (smaller sizes). ' if quick else ''}"
            f"Machine: {_machine()}. Written by `miran reproduce`; each figure is a PNG beside this file and "
            f"`results.json` holds the numbers.\n\n")
    write_text_atomic(out / "report.md", head + "\n".join(sections))
    write_text_atomic(out / "results.json", json.dumps(results, indent=1, default=_plain) + "\n")
    return written, failed


def _plain(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)
