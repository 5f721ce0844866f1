"""The bad-file corpus: one file per validation rule, each reporting exactly its problems with their JSON paths."""

from __future__ import annotations

import pytest

from core.scene.io import load_scene
from core.scene.problems import InputError

from scenedata import BAD, BAD_CORPUS


def test_corpus_is_complete():
    """Every file in bad/ has its expectations, and every expectation its file (make_bad_corpus.py writes both)."""
    assert sorted(p.name for p in BAD.glob("*.json")) == sorted(BAD_CORPUS)
    assert len(BAD_CORPUS) >= 25


@pytest.mark.parametrize("name", sorted(BAD_CORPUS))
def test_bad_file_reports_exactly_its_problems(name):
    with pytest.raises(InputError) as info:
        load_scene(BAD / name)
    got = [(p.path, p.message) for p in info.value.problems]
    expected = BAD_CORPUS[name]["problems"]
    assert len(got) == len(expected), got
    for path, part in expected:
        assert any(gp == path and part in gm for gp, gm in got), (path, part, got)
    # Every message is a plain sentence naming the problem, never a Python repr of an exception.
    for _, message in got:
        assert message and "Traceback" not in message and "Error" not in message


def test_problem_lines_name_file_and_path():
    with pytest.raises(InputError) as info:
        load_scene(BAD / "self_intersecting.json")
    where = BAD / "self_intersecting.json"
    assert info.value.lines() == [f"{where}: obstacles[0].polygon: self-intersecting at (50, 50)"]
