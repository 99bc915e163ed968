"""Launching: arguments, --screenshot in light and dark, the sample-pair link."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from inspector.gui import qt_app
from inspector.gui.qt_main_window import MainWindow
from inspector.gui.qt_settings import Settings
from tests.conftest import REPO
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS, digest


def _distinct_colours(image: QImage, step: int = 7) -> int:
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


def test_screenshot_in_process(tmp_path, qapp):
    before = [digest(p) for p in (PROVIDER_A, PROVIDER_B, SALES_TOOLS)]
    target = tmp_path / "shot.png"
    code = qt_app.main(
        [str(PROVIDER_A), str(PROVIDER_B), "--tools", str(SALES_TOOLS), "--screenshot", str(target)]
    )
    assert code == 0
    image = QImage(str(target))
    assert image.width() >= 1200 and image.height() >= 800
    assert _distinct_colours(image) > 20  # a rendered window, not a blank canvas
    assert [digest(p) for p in (PROVIDER_A, PROVIDER_B, SALES_TOOLS)] == before


def test_screenshot_dark_in_a_subprocess(tmp_path):
    target = tmp_path / "dark.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "--dark", "--screenshot", str(target)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == qt_app.SCREENSHOT_SIZE
    # The forced dark palette: the window background is dark.
    corner = image.pixelColor(image.width() // 2, image.height() - 40)
    assert corner.lightness() < 100


def test_usage_errors_exit_2(capsys):
    assert qt_app.main(["--dark", "--light"]) == 2
    assert qt_app.main(["--size", "big", "--screenshot", "x.png"]) == 2
    assert qt_app.main(["a", "b", "c"]) == 2
    assert qt_app.main(["--version"]) == 0
    assert "replay-inspector" in capsys.readouterr().out


def test_empty_window_offers_the_sample_pair(qtbot, tmp_path):
    window = MainWindow(Settings.open(tmp_path / "s.ini"), synchronous=True)
    qtbot.addWidget(window)
    for pane in window.panes.values():
        assert pane.stack.currentIndex() == 0
        assert not pane.sample_button.isHidden()
    window.left.sample_button.click()
    assert window.left.path == str(PROVIDER_A)
    assert window.right.path == str(PROVIDER_B)
    assert window.session.tool_files == [str(SALES_TOOLS)]
    assert window.alignment is not None


def test_sample_link_hidden_without_samples(qtbot, tmp_path):
    window = MainWindow(Settings.open(tmp_path / "s.ini"), synchronous=True, samples=None)
    qtbot.addWidget(window)
    assert window.left.sample_button.isHidden()
    assert not window.sample_action.isVisible()


def test_help_lists_the_options(capsys):
    assert qt_app.main(["--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--tools", "--screenshot", "--dark", "--light"):
        assert option in out
