"""docs/scripts/bench_table.py: miran bench --json records become the performance page's table, between its markers,
with the machine and the commit stated, and the rest of the page kept."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECORDS = [
    {"section": "steering", "name": "cpu_load miran 5000 agents", "value": 0.21, "unit": "fraction",
     "reference": "IRM 2009: 3500 agents at 0.30"},
    {"section": "steering", "name": "crowd step 5000 miran agents, 2 threads vs 1", "value": 1.91, "unit": "x",
     "reference": "target >= 1.7x | median of 3 processes"},
    {"section": "ecm", "name": "ecm batch query", "value": 0.0851, "unit": "ms", "reference": ""},
    {"section": "ecm", "name": "ecm quads drawn", "value": 1555, "unit": "quads", "reference": "of 47214"},
]


def script():
    spec = importlib.util.spec_from_file_location("bench_table", REPO / "docs" / "scripts" / "bench_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_records_become_the_page_table(tmp_path, capsys):
    bt = script()
    records = tmp_path / "bench.json"
    records.write_text(json.dumps(RECORDS))
    page = tmp_path / "performance.md"
    page.write_text(f"# Performance\n\nbefore\n\n{bt.START}\nold table\n{bt.END}\n\nafter\n")
    assert bt.main([str(records), "--machine", "a test machine", "--commit", "abc123", "--date", "2026-11-28",
                    "--write", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("# Performance\n\nbefore\n\n") and text.endswith(f"{bt.END}\n\nafter\n")
    assert "old table" not in text
    assert "Measured 2026-11-28 on a test machine, commit `abc123`, with `miran bench --json`." in text
    assert "### Steering and crowds" in text and "### Explicit Corridor Map" in text
    assert "| cpu_load miran 5000 agents | 21 % | % | IRM 2009: 3500 agents at 0.30 |" in text
    assert "| target >= 1.7x \\| median of 3 processes |" in text            # a bar in a cell is escaped
    assert "| ecm quads drawn | 1,555 | quads |" in text
    assert text.index("cpu_load") < text.index("crowd step") < text.index("ecm batch")   # the bench's order


def test_bad_input_is_named(tmp_path):
    bt = script()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"section": "x", "name": "y"}]))
    with pytest.raises(SystemExit, match=r"record \[0\] lacks"):
        bt.main([str(bad)])
    page = tmp_path / "page.md"
    page.write_text("no markers\n")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(RECORDS))
    with pytest.raises(SystemExit, match="markers"):
        bt.main([str(good), "--write", str(page)])


def test_the_performance_page_has_the_markers():
    bt = script()
    text = (REPO / "docs" / "performance.md").read_text()
    assert text.count(bt.START) == 1 and text.count(bt.END) == 1
    assert "python docs/scripts/bench_table.py --run --write docs/performance.md" in text
