"""The shipped scenes' paths files, regenerated and compared byte for byte with committed SHA-256 hashes.

Five scenes x four settings, each a ``miran simulate`` run with a fixed seed: the scene's own characters; 20
random IRM characters; 20 random MIRAN characters with Verlet integration on 2 threads; 10 random disc MIRAN
characters on 2 threads. A change to the engine that moves any position by one bit changes a hash.

Run ``python tests/golden/golden_paths.py`` to check, ``python tests/golden/golden_paths.py --accept`` to record
the current files as the new reference after an intended change (say why in the commit), ``--out DIR`` to keep
the files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HASHES = Path(__file__).with_name("paths.sha256.json")
SCENES = ["city", "forest", "hills", "mckenna", "mckenna_road"]
SETTINGS: dict[str, list[str]] = {
    "own": [],
    "irm20": ["--method", "irm", "--agents", "20", "--seed", "7"],
    "miran20-verlet": ["--method", "miran", "--integrator", "verlet", "--agents", "20", "--seed", "7",
                       "--threads", "2"],
    "disc10": ["--method", "disc-miran", "--agents", "10", "--seed", "7", "--threads", "2"],
}


def cases() -> list[tuple[str, str]]:
    """(scene, setting) of every paths file, in a fixed order."""
    return [(scene, setting) for scene in SCENES for setting in SETTINGS]


def run(scene: str, setting: str, out_dir: Path, scene_file: Path | None = None) -> Path:
    """Simulate one case with ``miran simulate`` (in this process) into ``out_dir``; its paths file."""
    from core.cli.main import main

    out = out_dir / f"{scene}.{setting}.paths.json"
    src = scene_file or REPO / "scenes" / f"{scene}.json"
    code = main(["simulate", str(src), *SETTINGS[setting], "--out", str(out)])
    if code != 0:
        raise RuntimeError(f"miran simulate {scene} {setting} exited {code}")
    return out


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recorded() -> dict[str, str]:
    """The committed hashes, by ``scene.setting``."""
    return json.loads(HASHES.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accept", action="store_true", help="record the current files' hashes as the reference")
    ap.add_argument("--out", type=Path, help="keep the paths files in this folder")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.out or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        got = {f"{s}.{k}": digest(run(s, k, out_dir)) for s, k in cases()}
    if args.accept:
        HASHES.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded {len(got)} hashes in {HASHES.relative_to(REPO)}")
        return 0
    want = recorded()
    differ = sorted(k for k in got if want.get(k) != got[k])
    for k in differ:
        print(f"differs: {k}")
    print(f"{len(got) - len(differ)} of {len(got)} paths files identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
