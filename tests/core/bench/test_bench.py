"""The benchmark framework: records, isolation of failing sections, the ``miran bench`` command."""

import json
import math
import sys
import types

import pytest

from core.bench import SECTIONS, Record, run_sections
from core.cli.main import main


def test_record_to_dict_keeps_integers_and_order():
    d = Record("s", "n", 3, "triangles", "ref").to_dict()
    assert list(d) == ["section", "name", "value", "unit", "reference"]
    assert d["value"] == 3 and isinstance(d["value"], int)
    assert isinstance(Record("s", "n", 2.5, "us").to_dict()["value"], float)


def test_failing_section_does_not_hide_others(monkeypatch):
    good = types.ModuleType("core.bench.zz_good")
    good.run = lambda quick: [Record("zz_good", "x", 1.0, "us", "quick" if quick else "full")]
    bad = types.ModuleType("core.bench.zz_bad")

    def boom(quick):
        raise RuntimeError("broken on purpose")

    bad.run = boom
    monkeypatch.setitem(sys.modules, "core.bench.zz_good", good)
    monkeypatch.setitem(sys.modules, "core.bench.zz_bad", bad)
    seen = []
    records, failed = run_sections(["zz_bad", "zz_good"], quick=True, on_record=seen.append)
    assert [r.name for r in records] == ["x"] and seen == records and records[0].reference == "quick"
    assert len(failed) == 1 and failed[0].section == "zz_bad" and "broken on purpose" in failed[0].error


def test_unknown_section_is_bad_input(capsys):
    assert main(["bench", "--section", "nope"]) == 2
    err = capsys.readouterr().err
    assert "--section: unknown section 'nope'" in err and "navmesh" in err


@pytest.mark.perf
def test_quick_navmesh_section_json(capsys):
    assert "navmesh" in SECTIONS
    assert main(["bench", "--json", "--quick", "--section", "navmesh"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert all(set(r) == {"section", "name", "value", "unit", "reference"} for r in records)
    assert all(r["section"] == "navmesh" and math.isfinite(r["value"]) for r in records)
    names = {r["name"] for r in records}
    from core.bench.navmesh import SCENES_DIR

    for scene in sorted(p.stem for p in SCENES_DIR.glob("*.json")
                        if not p.name.endswith(".sweep.json")):
        assert f"triangles {scene}" in names and f"build {scene}" in names
    for what in ("locate", "segment walk 50 m (visibility)", "terrain lengths 50 m",
                 "visible intervals sigma 40 m window"):
        assert any(n.startswith(what + " (") for n in names), what
        assert f"jit first call {what}" in names
    per_query = [r for r in records if r["unit"] == "us"]
    assert per_query and all(r["value"] > 0 for r in per_query)


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_bench_command_reports_failed_section(monkeypatch, capsys, flag):
    import core.bench

    bad = types.ModuleType("core.bench.zz_bad")
    bad.run = lambda quick: (_ for _ in ()).throw(ValueError("no data"))
    monkeypatch.setitem(sys.modules, "core.bench.zz_bad", bad)
    monkeypatch.setattr(core.bench, "SECTIONS", ["zz_bad"])
    assert main(["bench", "--quick"] + flag) == 1
    captured = capsys.readouterr()
    assert "error: section zz_bad: ValueError: no data" in captured.err
    if flag:
        assert json.loads(captured.out) == []
