"""Every command on the generated hostile corpus: no traceback, no hang, exit 2 with a message naming the problem.

The commands run in-process (``core.cli.main.main``) with a 60 s alarm each; files and options come from
``hostile_corpus.build_corpus``.
"""

from __future__ import annotations

import json

import pytest

from hostile_corpus import Hang, build_corpus, run_cli

pytestmark = pytest.mark.corpus


def _gl_available() -> bool:
    try:
        from core.ecm.glcontext import get_context

        get_context()
        return True
    except Exception:  # no OpenGL at all on this machine: the ECM cases are left out
        return False


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return build_corpus(folder, ecm=_gl_available())


def test_corpus_is_large_and_covers_every_command(corpus):
    assert len(corpus) > 200
    commands = {c.argv[0] for c in corpus}
    assert {"validate", "info", "route", "simulate", "measure", "bench", "reproduce"} <= commands
    assert sum(c.code == 2 for c in corpus) > 100


def test_every_case_fails_clean_or_succeeds(corpus):
    """Each case gives its exit status; a refusal names the JSON path, option or file; nothing raises."""
    failures = []
    for case in corpus:
        try:
            code, out, err, wall = run_cli(list(case.argv))
        except Hang as e:
            failures.append(f"{case.name}: hang ({e})")
            continue
        except BaseException as e:  # any traceback is a failure of this test, reported with its case
            failures.append(f"{case.name}: raised {type(e).__name__}: {e}"[:300])
            continue
        if code != case.code:
            failures.append(f"{case.name}: exit {code}, expected {case.code}; stderr {err[-300:]!r}")
        elif case.code == 2 and case.mentions not in err:
            failures.append(f"{case.name}: the message does not name {case.mentions!r}: {err[-300:]!r}")
        elif "Traceback" in err or "Traceback" in out:
            failures.append(f"{case.name}: printed a traceback")
    assert not failures, "\n".join(failures)


def test_refusals_write_nothing(corpus, tmp_path):
    """A refused run leaves no output file and no temporary file behind."""
    folder = tmp_path / "outs"
    folder.mkdir()
    out = folder / "paths.json"
    code, _, err, _ = run_cli(["simulate", str(tmp_path / "nowhere.json"), "--out", str(out)])
    assert code == 2 and "no such file" in err
    assert list(folder.iterdir()) == []


def test_good_cases_give_right_results(corpus):
    """The awkward but valid scenes simulate to their goals with finite, consistent lengths."""
    base = next(c for c in corpus if c.name == "simulate:base").argv[1]
    code, out, err, _ = run_cli(["simulate", base, "--json", "--steps", "400"])
    assert code == 0, err
    summary = json.loads(out)
    (agent,) = summary["agents"]
    # Along the route (32 m) with its corner cut, never shorter than the straight line (22.6 m).
    assert agent["reached_goal"] and 22.6 < agent["length"] <= 32.0 + 1e-9
    code, out, err, _ = run_cli(["route", base, "--from", "2,3", "--to", "18,5", "--planner", "network", "--json"])
    assert code == 0, err
    (route,) = json.loads(out)["routes"]
    assert route["cost"] < 1e3 and route["points"][0] == [2.0, 3.0]
