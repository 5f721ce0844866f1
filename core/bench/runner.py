"""Run benchmark sections by name, each in isolation: a failing section is reported, the others still run."""

from __future__ import annotations

import importlib
import traceback
from dataclasses import dataclass

from .record import Record


@dataclass(frozen=True)
class SectionFailed:
    """A section that raised: its name and the error, one line."""

    section: str
    error: str


def run_section(name: str, quick: bool) -> list[Record]:
    """Import ``core.bench.<name>`` and run it."""
    module = importlib.import_module(f"core.bench.{name}")
    records = list(module.run(quick))
    for r in records:
        if not isinstance(r, Record):
            raise TypeError(f"section {name!r} returned {type(r).__name__}, not Record")
    return records


def run_sections(names: list[str], quick: bool, on_record=None) -> tuple[list[Record], list[SectionFailed]]:
    """Run the named sections in order; ``on_record(record)`` is called as each section finishes (for streaming
    output). Returns every record and the sections that failed."""
    records: list[Record] = []
    failed: list[SectionFailed] = []
    for name in names:
        try:
            recs = run_section(name, quick)
        except Exception as e:  # a broken section must not hide the others' figures
            last = traceback.extract_tb(e.__traceback__)[-1]
            failed.append(SectionFailed(name, f"{type(e).__name__}: {e} ({last.filename}:{last.lineno})"))
            continue
        records.extend(recs)
        if on_record is not None:
            for r in recs:
                on_record(r)
    return records, failed
