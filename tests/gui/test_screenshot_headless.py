"""--screenshot on a machine with no display and no QT_QPA_PLATFORM: offscreen by default."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from tests.conftest import REPO


def test_a_screenshot_needs_no_display_and_no_platform_setting(tmp_path):
    target = tmp_path / "shot.png"
    hidden = ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "--size", "1100x700", "--screenshot", str(target)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1100, 700)
