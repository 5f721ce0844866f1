"""``miran-studio [SCENE]``: the application's entry point, and ``create_main_window`` for tests and scripts."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

from PySide6 import QtCore, QtWidgets


def ensure_app(argv: list[str] | None = None) -> QtWidgets.QApplication:
    """The QApplication, created (with the app's style and palette) when there is none yet."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        QtWidgets.QApplication.setHighDpiScaleFactorRoundingPolicy(
            QtCore.Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QtWidgets.QApplication(argv if argv is not None else sys.argv[:1])
        app.setApplicationName("MIRAN Studio")
        app.setOrganizationName("MIRAN")
        app.setStyle("Fusion")
        from .qt_style import apply_style

        apply_style(app)
    return app


def create_main_window(scene_path: str | os.PathLike | None = None, config_dir: str | os.PathLike | None = None):
    """Build the main window (not shown). With a scene path, open it; else show the welcome page. Work left by
    an editor that did not close is offered for recovery first."""
    ensure_app()
    from .qt_main_window import QtMainWindow

    window = QtMainWindow(config_dir)
    if window.files.offer_recovery():
        window.show_editor()
    elif scene_path is not None and window.files.open_path(Path(scene_path), prompt=False):
        window.show_editor()
    else:
        window.show_welcome()
    return window


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="miran-studio", description="MIRAN Studio: edit and simulate scenes.")
    p.add_argument("scene", nargs="?", help="a scene file (miran-scene JSON) to open")
    p.add_argument("--replay", metavar="PATHS",
                   help="a miran-paths file (Export Paths, miran simulate --out) to replay over the scene: the "
                        "timeline slider moves it back and forth")
    p.add_argument("--config-dir", help="folder for settings and recovery files (default: the user's config "
                                        "folder, or $MIRAN_STUDIO_CONFIG_DIR)")
    p.add_argument("--first-step", type=float, metavar="TIMEOUT",
                   help="check an install: open the scene, press Play, print the seconds from the start to the "
                        "first simulated step and quit (exit status 1 when no step came within TIMEOUT seconds)")
    return p.parse_args(argv)


def quit_after_first_step(window, app: QtWidgets.QApplication, timeout: float, started: float) -> None:
    """Press Play and quit the app at its first simulated step (status 0, the seconds since ``started`` printed),
    or after ``timeout`` seconds without one (status 1)."""
    def on_frame(frame) -> None:
        if frame.steps > 0:
            print(f"first step after {time.monotonic() - started:.1f} s", flush=True)
            app.exit(0)

    def on_timeout() -> None:
        print(f"no step within {timeout:g} s", file=sys.stderr, flush=True)
        app.exit(1)

    window.sim.bridge.frame.connect(on_frame)
    QtCore.QTimer.singleShot(int(timeout * 1000), on_timeout)
    window.sim.play()


def entry(argv: list[str] | None = None) -> int:
    """Run the app; returns its exit status."""
    started = time.monotonic()
    multiprocessing.freeze_support()  # the first start's compile workers (app.sim.warmup) in a frozen build
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.first_step is not None and args.scene is None:
        print("miran-studio: --first-step needs a scene file", file=sys.stderr)
        return 2
    if args.replay is not None:
        from core.export import read_paths
        from core.scene.problems import InputError

        try:
            read_paths(args.replay)
        except InputError as e:
            print("miran-studio: --replay:\n" + "\n".join(e.lines()), file=sys.stderr)
            return 2
        except OSError as e:
            print(f"miran-studio: --replay {args.replay}: {e.strerror or e}", file=sys.stderr)
            return 2
    app = ensure_app(sys.argv[:1])
    from core.triangulate import offload

    offload(True)  # large triangulations of the engine's threads run in a helper process: the window keeps drawing
    window = create_main_window(args.scene, args.config_dir)
    window.show()
    if args.replay is not None and window.sim is not None:
        window.show_editor()
        window.sim.replay.open(args.replay)
    if args.first_step is not None:
        quit_after_first_step(window, app, args.first_step, started)
    status = app.exec()
    from .sim.warmup import stop_background

    stop_background()  # a first start's compile in the background: its workers end with the app
    return status


if __name__ == "__main__":
    sys.exit(entry())
