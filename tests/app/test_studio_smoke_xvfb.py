"""A smoke test on a real X server (Xvfb): the city opens and the window's screenshot is not blank."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
CITY = REPO / "scenes" / "city.json"

SCRIPT = textwrap.dedent("""
    import sys, time
    from PySide6 import QtWidgets
    from app.main import create_main_window, ensure_app
    app = ensure_app()
    w = create_main_window(sys.argv[1])
    w.resize(1400, 900)
    w.show()
    end = time.time() + 1.0
    while time.time() < end:
        app.processEvents()
        time.sleep(0.02)
    assert QtWidgets.QApplication.platformName() == "xcb", QtWidgets.QApplication.platformName()
    shot = w.screen().grabWindow(w.winId())
    if shot.isNull() or shot.width() < 100:
        shot = w.grab()
    assert shot.save(sys.argv[2])
    # Closed as a user closes it, so that the window stops its engine thread before the interpreter exits.
    w.close()
    end = time.time() + 0.5
    while time.time() < end:
        app.processEvents()
        time.sleep(0.02)
    print("ok", len(w.scene.obstacles), shot.width(), shot.height())
""")


def test_city_screenshot_under_xvfb_is_not_blank(tmp_path):
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (Debian/Ubuntu: apt-get install xvfb)")
    out = tmp_path / "city.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["MIRAN_STUDIO_CONFIG_DIR"] = str(tmp_path / "config")
    proc = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-c", SCRIPT,
                           str(CITY), str(out)], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert proc.stdout.startswith("ok")

    from PySide6.QtGui import QImage

    img = QImage(str(out))
    assert img.width() >= 1000 and img.height() >= 600
    # Sample a grid of pixels: a drawn window has many distinct colours (terrain, obstacles, routes, panels).
    colours = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    assert len(colours) > 20
    # The viewport area (the middle of the window) shows the obstacles' dark fill and the terrain colours.
    from PySide6.QtGui import QColor

    middle = [QColor(img.pixel(x, y)) for x in range(img.width() // 4, 3 * img.width() // 4, 5)
              for y in range(img.height() // 4, 3 * img.height() // 4, 5)]
    dark = sum(1 for c in middle if c.lightness() < 110)
    assert dark > len(middle) * 0.02, "no obstacles visible"
