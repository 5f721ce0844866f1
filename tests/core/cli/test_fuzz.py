"""Fuzzing (hypothesis): the scene reader on arbitrary JSON and on mutated valid scenes, and each command's options.

The reader must answer every document with a Scene or an InputError whose problems are located sentences; each
command must answer every option value with exit 0 or 2, never a traceback or a hang. Runs are small and bounded
(a 20 x 20 scene, at most a few hundred steps, 60 s per call).
"""

from __future__ import annotations

import copy
import json

import pytest
import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from core.scene.jsonio import parse_json_text
from core.scene.parse import check_scene
from core.scene.problems import InputError, Problem

from hostile_corpus import BASE, run_cli

pytestmark = pytest.mark.fuzz

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])

# JSON values with the awkward ones: huge and tiny floats, big integers, lone surrogates, deep lists.
numbers = st.one_of(st.integers(min_value=-(10**30), max_value=10**30),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -0.0, 5e-324, 1e-300, 1e300, 1e308, 2**63, 1e9, 1e9 + 1]))
texts = st.one_of(st.text(max_size=8), st.sampled_from(["\ud800", "x\udfff", "", " ", "default", "mud", "p", "r1"]))
json_values = st.recursive(st.one_of(st.none(), st.booleans(), numbers, texts),
                           lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                   st.dictionaries(texts, inner, max_size=5)),
                           max_leaves=30)


def _assert_clean(data) -> None:
    scene, problems = check_scene(data)
    assert (scene is None) == bool(problems)
    for p in problems:
        assert isinstance(p, Problem) and isinstance(p.path, str) and p.message
        str(p).encode("utf-8", "backslashreplace")


@FUZZ
@given(json_values)
def test_reader_answers_any_json_value(data):
    _assert_clean(data)


def _paths(doc, prefix=()):
    """Every (container, key) pair of a document, to pick one to replace."""
    out = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((prefix + (k,)))
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append((prefix + (i,)))
            out += _paths(v, prefix + (i,))
    return out


BASE_PATHS = _paths(BASE)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(BASE_PATHS), json_values), min_size=1, max_size=4))
def test_reader_answers_mutated_scenes(changes):
    doc = copy.deepcopy(BASE)
    for path, value in changes:
        node = doc
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed this path
    _assert_clean(doc)


@FUZZ
@given(st.text(max_size=200))
def test_reader_answers_any_text(text):
    try:
        _assert_clean(parse_json_text(text))
    except InputError as e:
        assert e.problems and all(p.message for p in e.problems)


@FUZZ
@given(st.binary(max_size=300))
def test_every_scene_command_answers_any_file(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("fuzz") / "scene.json"
    path.write_bytes(content)
    for cmd in ("validate", "info"):
        code, _, err, _ = run_cli([cmd, str(path)])
        assert code == 2 and str(path) in err


option_text = st.one_of(st.text(max_size=12), numbers.map(str),
                        st.sampled_from(["0", "-1", "nan", "inf", "1e-300", "1e300", "1,2", "2,2", "18,6", ",", "x,y",
                                         "every", "none", "\udcff"]))


def _scene_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("fuzz") / "scene.json"
    path.write_text(json.dumps(BASE))
    return str(path)


def _answers(argv: list[str]) -> None:
    code, out, err, _ = run_cli(argv)
    assert code in (0, 2), (argv, code, err[-500:])
    assert "Traceback" not in err
    if code == 2:
        assert err.strip(), argv


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["--from", "--to", "--clearance", "--cell-size", "--planner", "--profile", "--network"]),
       option_text, st.sampled_from(["cdt", "grid", "portal", "network"]))
def test_route_options(tmp_path_factory, option, value, planner):
    scene = _scene_file(tmp_path_factory)
    argv = ["route", scene, "--from", "2,2", "--to", "18,6", "--planner", planner, option, value]
    _answers(argv)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["--dt", "--steps", "--agents", "--seed", "--method", "--integrator", "--planner"]),
       option_text)
def test_simulate_options(tmp_path_factory, option, value):
    scene = _scene_file(tmp_path_factory)
    argv = ["simulate", scene, option, value]
    if option != "--steps":
        argv += ["--steps", "100"]
    if option == "--agents":
        argv += ["--seed", "1"]
    _answers(argv)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(option_text, min_size=0, max_size=3))
def test_simulate_record_words(tmp_path_factory, words):
    scene = _scene_file(tmp_path_factory)
    _answers(["simulate", scene, "--steps", "50", "--record", *words] if words else ["simulate", scene, "--steps",
                                                                                      "50", "--record"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(option_text)
def test_measure_radius_and_ecm_resolution(tmp_path_factory, value):
    scene = _scene_file(tmp_path_factory)
    _answers(["measure", scene, scene, "--radius", value])
    try:
        small = 64 if 16 <= int(value) else value  # a valid resolution builds at 64 px: the test stays fast
    except ValueError:
        small = value
    _answers(["ecm", scene, "--resolution", str(small), "--json"])
