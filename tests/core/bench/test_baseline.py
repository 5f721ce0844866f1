"""``miran bench --baseline REF``: export of the base commit, alternating rounds, best-of and ratio records."""

from __future__ import annotations

import subprocess

import pytest

from core.bench.baseline import ROOT, best, compare, export_tree, run_against
from core.cli.main import main

pytestmark = pytest.mark.subprocess


def _git_checkout() -> bool:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode == 0


def rec(name: str, value: float, unit: str = "ms", section: str = "s") -> dict:
    return {"section": section, "name": name, "value": value, "unit": unit, "reference": ""}


def test_export_writes_the_commits_files(tmp_path):
    if not _git_checkout():
        pytest.skip("not a git checkout")
    export_tree("HEAD", tmp_path)
    for path in ("core/bench/record.py", "core/cli/__main__.py", "pyproject.toml"):
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{path}"], capture_output=True, check=True)
        assert (tmp_path / path).read_bytes() == shown.stdout


def test_best_keeps_the_smallest_time_and_the_largest_rate():
    runs = [[rec("t", 3.0), rec("rate", 5.0, "runs/s"), rec("load", 0.2, "fraction")],
            [rec("t", 2.0), rec("rate", 7.0, "runs/s"), rec("load", 0.3, "fraction")],
            [rec("t", 4.0), rec("rate", 6.0, "runs/s"), rec("load", 0.25, "fraction")]]
    kept = best(runs)
    assert kept[("s", "t")]["value"] == 2.0
    assert kept[("s", "rate")]["value"] == 7.0
    assert kept[("s", "load")]["value"] == 0.2


def test_compare_gives_this_tree_over_base_for_records_both_report_alike():
    base = best([[rec("t", 2.0), rec("gone", 1.0), rec("unit changed", 1.0, "ms"), rec("zero", 0.0),
                  rec("jit first call t", 9.0, "s")]])
    head = best([[rec("t", 1.0), rec("new", 1.0), rec("unit changed", 1.0, "s"), rec("zero", 1.0),
                  rec("jit first call t", 1.0, "s")]])
    out = compare(base, head, "abc123", 3)
    assert [(r.name, r.value, r.unit) for r in out] == [("s: t", 0.5, "x")]
    assert "abc123" in out[0].reference and "lower is better" in out[0].reference


def test_rounds_alternate_after_an_untimed_warm_up(tmp_path):
    if not _git_checkout():
        pytest.skip("not a git checkout")
    calls: list[str] = []

    def side(tree):
        which = "head" if tree == ROOT else "base"
        calls.append(which)
        first = calls.count(which) == 1
        # The warm-up (first call of each tree) is slow and must not count.
        value = 100.0 if first else (4.0 if which == "base" else 3.0) + len(calls) * 0.01
        return [rec("step", value)]

    out = run_against("HEAD", ["x"], quick=True, rounds=2, side=side)
    assert calls == ["base", "head", "base", "head", "base", "head"]
    (r,) = out
    # best of the timed rounds: base 4.03 (call 3), head 3.04 (call 4)
    assert r.value == pytest.approx(3.04 / 4.03)


@pytest.mark.parametrize("argv, message", [
    (["--baseline", "no-such-ref-anywhere"], "--baseline: cannot export 'no-such-ref-anywhere'"),
    (["--baseline=--output=/tmp/x"], "--baseline: expected a git commit"),
    (["--rounds", "5"], "--rounds: only counts with --baseline"),
    (["--baseline", "HEAD", "--rounds", "0"], "--rounds: must be 1 to 20, got 0"),
])
def test_bad_options_exit_2_naming_the_option(capsys, argv, message):
    if argv[0] == "--baseline" and "no-such" in argv[1] and not _git_checkout():
        pytest.skip("not a git checkout")
    assert main(["bench", *argv]) == 2
    assert message in capsys.readouterr().err
