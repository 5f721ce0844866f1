"""Paths of the scene test data (imported by the scene tests; no fixtures here)."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SCENES = REPO / "scenes"
SCHEMAS = REPO / "resources" / "schemas"
BAD = Path(__file__).resolve().parent / "bad"
BAD_CORPUS = json.loads((Path(__file__).resolve().parent / "bad_corpus.json").read_text())
# Sweep specs (*.sweep.json) ship beside the scenes but are not scenes.
SHIPPED = sorted(p.name for p in SCENES.glob("*.json") if not p.name.endswith(".sweep.json"))
