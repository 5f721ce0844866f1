"""The shipped scenes' paths files are byte-identical to the committed hashes (tests/golden/golden_paths.py), and
the check notices a change as small as one character's sigma."""

from __future__ import annotations

import json

import pytest
from golden_paths import REPO, cases, digest, recorded, run

pytestmark = pytest.mark.slow


def test_every_shipped_scenes_paths_file_is_byte_identical(tmp_path):
    want = recorded()
    assert set(want) == {f"{s}.{k}" for s, k in cases()}
    differ = [f"{s}.{k}" for s, k in cases() if digest(run(s, k, tmp_path)) != want[f"{s}.{k}"]]
    assert not differ, f"paths changed: {differ} (intended? python tests/golden/golden_paths.py --accept)"


def test_one_characters_sigma_changes_the_hash(tmp_path):
    scene = json.loads((REPO / "scenes" / "mckenna.json").read_text(encoding="utf-8"))
    scene["profiles"][0]["sigma"] += 1.0
    changed = tmp_path / "mckenna.json"
    changed.write_text(json.dumps(scene), encoding="utf-8")
    assert digest(run("mckenna", "own", tmp_path, scene_file=changed)) != recorded()["mckenna.own"]
