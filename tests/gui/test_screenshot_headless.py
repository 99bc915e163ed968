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


def test_select_picks_an_item_by_call_id_and_an_unknown_one_is_an_error(window, tmp_path):
    from inspector.gui import qt_app

    window.open_file("left", str(REPO / "samples/sessions/otel/tool-calls-spans.json"))
    items = window.results["left"].transcript.items
    call = next(i for i, item in enumerate(items) if item.raw.get("type") == "function_call")
    shot = tmp_path / "shot.png"
    assert qt_app.screenshot(window, str(shot), (1100, 700), items[call].raw["call_id"]) == 0
    assert window.left.current_item() == call and shot.exists()
    missing = tmp_path / "missing.png"
    window.show()
    assert qt_app.screenshot(window, str(missing), (1100, 700), "no_such_id") == 2
    assert not missing.exists()
