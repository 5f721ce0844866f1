"""The outputs, exports, sweeps and plots on the generated hostile corpus (hostile_outputs_corpus): each case in
its own process with a time bound, never a traceback, never a hang, the exit status expected, a refusal naming the
element, and nothing created, changed or deleted outside the output folder (the user's look-alikes of our
temporaries in it included)."""

from __future__ import annotations

from collections import Counter

import pytest

from hostile_outputs_corpus import Servers, build_cases, run_case

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    cases = build_cases(tmp_path_factory.mktemp("outputs-corpus"), seed=0)
    servers = Servers()
    try:
        return [run_case(c, servers.address(c.server)) for c in cases]
    finally:
        servers.close()


def test_the_corpus_covers_every_class(outcomes):
    kinds = Counter(o.case.name.split("-")[0] for o in outcomes)
    assert {"simulate", "route", "import", "export", "ecm", "sweep", "resume", "plot"} <= set(kinds)
    assert len(outcomes) > 60 and sum(o.case.codes == (2,) for o in outcomes) > 40


def test_no_case_raises_hangs_or_touches_files_outside_its_output(outcomes):
    failures = [f"{o.case.name} ({' '.join(o.case.argv)[:120]}): {p}" for o in outcomes for p in o.problems]
    assert not failures, "\n".join(failures)


def test_the_recorded_sweep_values_are_those_of_the_grid(outcomes):
    import json

    import pandas as pd

    (o,) = [o for o in outcomes if o.case.name == "sweep-records-used-values"]
    spec = json.loads((o.case.folder / "in" / "s.json").read_text())
    runs = pd.read_csv(o.case.folder / "out" / "r.csv")
    from core.sweep.spec import canonical

    for name, values in spec["grid"].items():
        col = canonical(name)
        assert sorted(set(runs[col])) == sorted(set(values)), col
