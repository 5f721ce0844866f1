"""The shipped scenes' paths files are byte-identical to the committed hashes (tests/golden/golden_paths.py), and
the check notices a change as small as one character's sigma."""

from __future__ import annotations

import json

import pytest
from golden_paths import REPO, cases, digest, matching, recorded, run

pytestmark = pytest.mark.crowd


def test_every_shipped_scenes_paths_file_is_byte_identical(tmp_path):
    sets = recorded()
    assert sets and all(set(want) == {f"{s}.{k}" for s, k in cases()} for want in sets.values())
    got = {f"{s}.{k}": digest(run(s, k, tmp_path)) for s, k in cases()}
    differ = {name: sorted(k for k in got if want[k] != got[k]) for name, want in sets.items()}
    assert matching(got) is not None, \
        f"paths changed: {differ} (intended? python tests/golden/golden_paths.py --accept MACHINE)"


def test_one_characters_sigma_changes_the_hash(tmp_path):
    scene = json.loads((REPO / "scenes" / "mckenna.json").read_text(encoding="utf-8"))
    scene["profiles"][0]["sigma"] += 1.0
    changed = tmp_path / "mckenna.json"
    changed.write_text(json.dumps(scene), encoding="utf-8")
    got = digest(run("mckenna", "own", tmp_path, scene_file=changed))
    assert all(got != want["mckenna.own"] for want in recorded().values())
