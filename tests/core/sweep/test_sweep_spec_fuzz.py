"""Fuzzing (hypothesis) the sweep spec readers: JSON documents (arbitrary, and mutations of a valid spec) and TOML
texts (generated tables with quoted and dotted keys, and arbitrary text) each give a checked spec or an InputError
whose problems are located sentences, never another exception; a spec that is accepted gives each parameter once,
in canonical form, and counts its runs right.

Examples are bounded for the everyday run; ``MIRAN_FUZZ_EXAMPLES=2000`` (or any count) runs them at full size.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

from ci_size import size
from core.scene.problems import InputError, Problem
from core.sweep.spec import MAX_RUNS, canonical, load_spec, parse_spec

pytestmark = pytest.mark.fuzz

EXAMPLES = size(60, 1000, "MIRAN_FUZZ_EXAMPLES")
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

SCENE = {
    "format": "miran-scene", "version": 1, "name": "tiny", "units": "m", "bounds": [0, 0, 20, 20],
    "terrain_types": [{"id": "default"}, {"id": "mud"}], "default_terrain": "default",
    "profiles": [{"id": "adult", "weights": {"mud": 4}}, {"id": "child"}],
    "routes": [{"id": "r1", "points": [[2, 2], [18, 2]]}],
    "agents": [{"id": "a1", "profile": "adult", "route": "r1"}],
}
NAMES = ["c_s", "dt", "method", "integrator", "planner", "agents", "interact", "adult.sigma", "child.d", "*.sigma",
         "*.radius", "adult.weight.mud", "adult.weights.mud", "*.weight.mud", "child.max_speed", "f_max", "bogus",
         "adult.bogus", "x.y.z.w", "", ".", "*", "adult..sigma"]
numbers = st.one_of(st.integers(-3, 200), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, 0.5, 1, 2, 5e-324, 1e308, 2**63]))
values = st.one_of(numbers, st.booleans(), st.none(),
                   st.sampled_from(["miran", "irm", "euler", "verlet", "grid", "cdt", "x", ""]))
json_values = st.recursive(values, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                           st.dictionaries(st.sampled_from(NAMES), inner,
                                                                           max_size=4)), max_leaves=20)


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("fuzz") / "tiny.json"
    p.write_text(json.dumps(SCENE))
    return p


def base(scene_path: Path) -> dict:
    return {"format": "miran-sweep", "version": 1, "name": "f", "scenes": [str(scene_path)],
            "fixed": {"c_s": 2}, "grid": {"adult.sigma": [10, 20], "method": ["miran", "irm"]},
            "random": {"samples": 2, "seed": 1, "parameters": {"child.d": {"uniform": [1, 3]}}},
            "seeds": [0, 1], "limit": {"steps": 5}}


def check(answer) -> None:
    """A spec that is sound, or the problems of an InputError as located sentences."""
    if isinstance(answer, InputError):
        assert answer.problems
        for p in answer.problems:
            assert isinstance(p, Problem) and isinstance(p.path, str) and p.message
            str(p).encode("utf-8", "backslashreplace")
        return
    spec = answer
    names = spec.parameter_names
    assert len(set(names)) == len(names) and all(canonical(n) == n for n in names)
    covered = {}
    for n in names:
        parts = n.split(".")
        field, prof = (".".join(parts[1:]), parts[0]) if len(parts) > 1 else (n, "")
        for other in covered.get(field, []):
            assert other != prof and "*" not in (other, prof), (n, names)
        covered.setdefault(field, []).append(prof)
    assert spec.n_runs <= MAX_RUNS
    tasks = spec.tasks() if spec.n_runs <= 2000 else []
    if tasks:
        assert len(tasks) == spec.n_runs and len({t.run_id for t in tasks}) == len(tasks)
        for t in tasks:
            for _, v in t.params:
                assert v is not None and (not isinstance(v, float) or math.isfinite(v))


def answer(fn, *args):
    try:
        return fn(*args)
    except InputError as e:
        return e


@FUZZ
@given(st.dictionaries(st.sampled_from(["format", "version", "name", "scenes", "fixed", "grid", "random", "seeds",
                                        "agents", "scene_agents", "limit", "metrics", "other"]),
                       json_values, max_size=8))
def test_any_json_document_is_answered(scene_path, doc):
    check(answer(parse_spec, doc))


def _replace(doc, path, value):
    d = copy.deepcopy(doc)
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value
    return d


def _paths(doc, prefix=()):
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append(prefix + (k,))
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append(prefix + (i,))
            out += _paths(v, prefix + (i,))
    return out


@FUZZ
@given(st.data())
def test_a_mutated_valid_spec_is_answered(scene_path, data):
    doc = base(scene_path)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = data.draw(st.sampled_from(paths))
        if path[0] == "scenes":
            continue
        doc = _replace(doc, path, data.draw(json_values))
    extra = data.draw(st.sampled_from(["fixed", "grid", "none"]))
    if extra != "none" and isinstance(doc.get(extra), dict):
        name = data.draw(st.sampled_from(NAMES))
        doc[extra][name] = data.draw(st.one_of(values, st.lists(values, min_size=1, max_size=3)))
    check(answer(parse_spec, doc))


def _toml_key(name: str, quoted: bool) -> str:
    """A quoted key ("adult.sigma": one key) or a dotted key of bare parts (adult.sigma: nested tables)."""
    bare = bool(name) and all(re.fullmatch(r"[A-Za-z0-9_-]+", part) for part in name.split("."))
    return name if bare and not quoted else json.dumps(name)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v == math.inf else "-inf" if v == -math.inf else repr(v))
    if isinstance(v, (int, str)):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return '"?"'


toml_values = st.one_of(st.integers(-3, 200), st.floats(allow_nan=False, allow_infinity=False, width=32),
                        st.booleans(), st.sampled_from(["miran", "irm", "euler", "x"]))


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["fixed", "grid"]), st.sampled_from(NAMES[:16]), st.booleans(),
                          st.one_of(toml_values, st.lists(toml_values, min_size=1, max_size=3))),
                max_size=6),
       st.lists(st.integers(0, 50), min_size=1, max_size=4))
def test_generated_toml_specs_are_answered(tmp_path_factory, scene_path, entries, seeds):
    """Tables with quoted ("adult.sigma") and dotted (adult.sigma) keys: a name spelled twice is refused naming
    both spellings; whatever TOML itself refuses is a located problem too."""
    lines = ['format = "miran-sweep"', "version = 1", f"scenes = [{json.dumps(str(scene_path))}]",
             f"seeds = {_toml_value(list(dict.fromkeys(seeds)))}", "[limit]", "steps = 3"]
    for table in ("fixed", "grid"):
        lines.append(f"[{table}]")
        for t, name, quoted, v in entries:
            if t == table:
                lines.append(f"{_toml_key(name, quoted)} = {_toml_value(v)}")
    text = "\n".join(lines) + "\n"
    p = tmp_path_factory.mktemp("toml") / "s.toml"
    p.write_text(text)
    got = answer(load_spec, p)
    check(got)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert isinstance(got, InputError) and "malformed TOML" in str(got.problems[0])
        return
    spelled = {}
    for t, name, quoted, _ in entries:
        spelled.setdefault((t, canonical(name)), set()).add((name, quoted))
    if not isinstance(got, InputError):
        assert all(len(s) == 1 for s in spelled.values()), text


@FUZZ
@given(st.text(max_size=200))
def test_any_toml_text_is_answered(tmp_path_factory, text):
    p = tmp_path_factory.mktemp("toml") / "s.toml"
    p.write_text(text, encoding="utf-8", errors="surrogatepass")
    check(answer(load_spec, p))
