"""The shipped scenes' paths files, regenerated and compared byte for byte with committed SHA-256 hashes.

Five scenes x four settings, each a ``miran simulate`` run with a fixed seed: the scene's own characters; 20
random IRM characters; 20 random MIRAN characters with Verlet integration on 2 threads; 10 random disc MIRAN
characters on 2 threads. A change to the engine that moves any position by one bit changes a hash.

The reference holds one set of 20 hashes per machine whose floating point gives other bytes: two x86-64 machines,
with the same code and the same packages, differ in 7 of the crowd files (the cause is not known; it is neither
numba's target CPU, nor glibc's nor numpy's choice of SIMD code). A run passes when its 20 hashes equal one set
whole. Run ``python tests/golden/golden_paths.py`` to check, ``--accept MACHINE`` to record the current files as the
only reference after an intended change (say why in the commit; the other machines' sets are dropped, since they
no longer hold), ``--add MACHINE`` to add this machine's set beside the others when the engine did not change,
``--out DIR`` to keep the files.
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


def recorded() -> dict[str, dict[str, str]]:
    """The committed hash sets: for each machine that recorded one, its hashes by ``scene.setting``."""
    return json.loads(HASHES.read_text(encoding="utf-8"))["machines"]


def matching(got: dict[str, str]) -> str | None:
    """The machine whose set ``got`` equals whole, or None."""
    return next((name for name, want in recorded().items() if want == got), None)


def _write(sets: dict[str, dict[str, str]]) -> None:
    HASHES.write_text(json.dumps({"machines": sets}, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--accept", metavar="MACHINE", help="record the current files' hashes as the only reference")
    ap.add_argument("--add", metavar="MACHINE", help="add the current files' hashes as this machine's set")
    ap.add_argument("--out", type=Path, help="keep the paths files in this folder")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.out or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        got = {f"{s}.{k}": digest(run(s, k, out_dir)) for s, k in cases()}
    if args.accept or args.add:
        _write({args.accept: got} if args.accept else {**recorded(), args.add: got})
        print(f"recorded {len(got)} hashes as {args.accept or args.add!r} in {HASHES.relative_to(REPO)}")
        return 0
    machine = matching(got)
    if machine is not None:
        print(f"{len(got)} of {len(got)} paths files identical to the set of {machine}")
        return 0
    for name, want in recorded().items():
        differ = sorted(k for k in got if want.get(k) != got[k])
        print(f"{name}: {len(got) - len(differ)} of {len(got)} identical; differ: {', '.join(differ)}")
    return 1


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
