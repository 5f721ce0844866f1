"""Build the Linux desktop bundle with its kernels: ``python packaging/build_bundle.py`` (from any folder).

1. Compiles every kernel of core/jit_manifest.json into ``build/kernels`` for a baseline x86-64 CPU
   (``NUMBA_CPU_NAME=generic``: SSE2, no AVX), in ``--workers`` processes, and checks that a first step of every
   shipped scene then compiles nothing (an empty writable cache, the built kernels as the shipped one).
2. Runs PyInstaller on packaging/miran-studio.spec with those kernels as the bundle's ``kernels/`` folder: a one-folder
   app in ``dist/miran-studio/`` (``miran-studio``, and ``miran``, the command line, as a link to it).
3. Adds the desktop entry, the icon and ``VERSION`` (pyproject's), and packs
   ``dist/miran-studio-<version>-linux-x86_64.tar.gz``; with ``--appimage``, an AppImage when ``appimagetool`` is on
   PATH.

Needs the ``bundle`` extra (``pip install -e '.[bundle]'``). ``--check`` then runs the built app offscreen on the
city with an empty user cache and prints the seconds to its first step (``miran-studio --first-step``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
DIST = ROOT / "dist"
APP = DIST / "miran-studio"
# Where PyInstaller puts the app's files beside its executable (sys._MEIPASS in the running app).
CONTENTS = APP / "_internal"
# numba's name for a baseline x86-64 CPU: a cache compiled for it loads wherever numba runs on x86-64.
KERNEL_ENV = {"NUMBA_CPU_NAME": "generic"}

COMPILE = r"""
import sys
from core.jitprecompile import load_manifest, precompile
entries = load_manifest()
report = precompile(entries, int(sys.argv[1]))
failed = report.skipped
print(f"{report.compiled} kernels compiled in {report.workers} processes ({report.worker_cpu_s:.0f} s CPU), "
      f"{report.grouped} of them the parallel step's, in one")
sys.exit("\n".join(failed) if failed else 0)
"""

# A first step of every shipped scene on one thread and on two, counting the kernels compiled instead of loaded.
FIRST_STEPS = r"""
import sys
from pathlib import Path
from numba.core import event
from core.scene.io import load_scene
from core.sim import Simulation
from app.sim.warmup import warm_up_for
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    if path.name.endswith(".sweep.json"):
        continue
    scene = load_scene(path)
    warm_up_for(scene)
    Simulation(scene).step(1)
    Simulation(scene, threads=2).step(1)
print(f"first steps of the shipped scenes compiled {len(compiled)} kernels: {sorted(set(compiled))[:10]}")
sys.exit(1 if compiled else 0)
"""


def version() -> str:
    """The project's version, from pyproject.toml."""
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    """Run ``cmd`` from the repository root; exit with its status when it fails."""
    proc = subprocess.run(cmd, cwd=ROOT, env=None if env is None else dict(os.environ, **env))
    if proc.returncode != 0:
        sys.exit(f"build_bundle: {' '.join(cmd[:4])}… failed (exit status {proc.returncode})")


def build_kernels(out: Path, workers: int) -> None:
    """Compile the manifest's kernels into ``out`` (a fresh folder) for the baseline CPU, and check them."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    run([sys.executable, "-c", COMPILE, str(workers)], dict(KERNEL_ENV, NUMBA_CACHE_DIR=str(out)))
    print(f"build_bundle: kernels in {out} after {time.perf_counter() - t0:.0f} s")
    check_kernels(out)


def check_kernels(shipped: Path) -> None:
    """Exit unless a first step of every shipped scene, on one thread and on two, compiles nothing beside the
    ``shipped`` cache (an empty writable one)."""
    with tempfile.TemporaryDirectory(prefix="miran-empty-cache-") as empty:
        run([sys.executable, "-c", FIRST_STEPS, str(ROOT / "scenes")],
            dict(KERNEL_ENV, NUMBA_CACHE_DIR=empty, MIRAN_SHIPPED_KERNELS=str(shipped), QT_QPA_PLATFORM="offscreen"))


def build_app(kernels: Path | None) -> None:
    """PyInstaller's one-folder app in dist/miran-studio, with ``kernels`` as its shipped cache."""
    env = {"MIRAN_BUNDLE_KERNELS": str(kernels)} if kernels is not None else {"MIRAN_BUNDLE_KERNELS": ""}
    run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", str(DIST),
         "--workpath", str(BUILD / "pyinstaller"), str(ROOT / "packaging" / "miran-studio.spec")], env)
    link = APP / "miran"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to("miran-studio")
    for name in ("miran-studio.desktop", "miran-studio.svg"):
        shutil.copy2(ROOT / "packaging" / name, APP / name)
    (APP / "VERSION").write_text(version() + "\n", encoding="utf-8")


def pack() -> Path:
    """dist/miran-studio-<version>-linux-x86_64.tar.gz of the app folder."""
    archive = DIST / f"miran-studio-{version()}-linux-x86_64.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(APP, arcname="miran-studio")
    return archive


def appimage() -> Path | None:
    """An AppImage of the app folder when ``appimagetool`` is on PATH (None, said, when it is not)."""
    tool = shutil.which("appimagetool")
    if tool is None:
        print("build_bundle: no AppImage: appimagetool is not on PATH (the tar.gz is the download)")
        return None
    appdir = BUILD / "MIRAN_Studio.AppDir"
    shutil.rmtree(appdir, ignore_errors=True)
    shutil.copytree(APP, appdir / "usr" / "lib" / "miran-studio", symlinks=True)
    shutil.copy2(ROOT / "packaging" / "miran-studio.desktop", appdir / "miran-studio.desktop")
    shutil.copy2(ROOT / "packaging" / "miran-studio.svg", appdir / "miran-studio.svg")
    apprun = appdir / "AppRun"
    apprun.write_text('#!/bin/sh\nexec "$(dirname "$(readlink -f "$0")")/usr/lib/miran-studio/miran-studio" "$@"\n',
                      encoding="utf-8")
    apprun.chmod(0o755)
    out = DIST / f"MIRAN_Studio-{version()}-x86_64.AppImage"
    run([tool, str(appdir), str(out)], {"ARCH": "x86_64"})
    return out


def check(timeout: float) -> None:
    """Run the built app offscreen on the city with an empty user cache; print its first step's seconds."""
    with tempfile.TemporaryDirectory(prefix="miran-user-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "MIRAN_"))}
        env.update(HOME=home, XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_CONFIG_HOME=os.path.join(home, "cfg"),
                   QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        t0 = time.perf_counter()
        proc = subprocess.run([str(APP / "miran-studio"), str(CONTENTS / "scenes" / "city.json"), "--first-step",
                               str(timeout)], env=env, capture_output=True, text=True, timeout=timeout + 30)
        compiled = sorted(p.name for p in Path(home, "cache").rglob("*.nbc"))
        print(f"build_bundle: the bundle on an empty user cache: {proc.stdout.strip() or proc.stderr.strip()} "
              f"({time.perf_counter() - t0:.1f} s for the whole process; {len(compiled)} kernels compiled into "
              f"the user's cache)")
        if proc.returncode != 0:
            sys.exit(f"build_bundle: the bundle's first step failed (exit status {proc.returncode})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="compile processes (default: the cores)")
    p.add_argument("--no-kernels", action="store_true",
                   help="ship no kernels (a first start then compiles them into the user's cache)")
    p.add_argument("--appimage", action="store_true", help="also an AppImage (needs appimagetool on PATH)")
    p.add_argument("--check", type=float, nargs="?", const=60.0, metavar="TIMEOUT",
                   help="then run the built app until its first step (default timeout 60 s)")
    p.add_argument("--check-only", action="store_true",
                   help="build nothing: check the bundle in dist/ (its kernels, then --check's first step)")
    args = p.parse_args(argv)
    if args.check_only:
        check_kernels(CONTENTS / "kernels")
        check(args.check or 60.0)
        return 0
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        print("build_bundle: PyInstaller is missing: pip install -e '.[bundle]'", file=sys.stderr)
        return 2
    kernels = None if args.no_kernels else BUILD / "kernels"
    if kernels is not None:
        build_kernels(kernels, max(1, args.workers))
    build_app(kernels)
    print(f"build_bundle: {APP} and {pack()}")
    if args.appimage:
        appimage()
    if args.check is not None:
        check(args.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
