"""The tier markers are declared (--strict-markers), every kind makes a test slow, and the check that marks stay
true catches a test that starts a process without saying so."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


def _conftest_constant(name: str):
    """A constant of tests/conftest.py, read from its source (``import conftest`` finds whichever conftest another
    folder put first, and running it again would patch subprocess twice)."""
    for node in ast.parse(CONFTEST.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)


SLOW_KINDS = _conftest_constant("SLOW_KINDS")
PROCESS_KINDS = _conftest_constant("PROCESS_KINDS")


def test_the_tier_markers_are_declared(pytestconfig):
    declared = {line.split(":", 1)[0].strip() for line in pytestconfig.getini("markers")}
    assert {"slow", "gui", "perf", *SLOW_KINDS} <= declared
    assert PROCESS_KINDS <= set(SLOW_KINDS)
    assert "--strict-markers" in pytestconfig.getini("addopts")


@pytest.mark.subprocess
def test_an_unmarked_test_that_starts_a_process_fails(pytester):
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(f"""
        import subprocess, sys
        import pytest

        def test_unmarked():
            subprocess.run([{sys.executable!r}, "-c", "pass"], check=True)

        @pytest.mark.subprocess
        def test_marked():
            subprocess.run([{sys.executable!r}, "-c", "pass"], check=True)
        """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*started a process*not marked @pytest.mark.subprocess*"])


@pytest.mark.subprocess
def test_a_kind_mark_puts_a_test_in_the_slow_tier(pytester):
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile("""
        import pytest

        @pytest.mark.crowd
        def test_big():
            pass

        def test_small():
            pass
        """)
    pytester.makeini("[pytest]\nmarkers =\n    slow\n    gui\n    perf\n" +
                     "".join(f"    {k}\n" for k in ("subprocess", "cluster", "cold_cache", "corpus", "fuzz",
                                                     "experiment", "crowd", "soak", "heavy")))
    result = pytester.runpytest_subprocess("-m", "not slow", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, deselected=1)


def test_this_module_starts_no_process_of_its_own():
    assert subprocess.Popen.__init__.__name__ == "_recording_popen_init", sys.modules["conftest"].__file__
