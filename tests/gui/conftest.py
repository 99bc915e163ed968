"""GUI fixtures: a window on a temporary settings INI, sample paths, and a wait for checks."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from inspector.core.formats import load_path, load_tools
from inspector.core.gate import GateResult, gate_transcript
from inspector.gui.qt_main_window import MainWindow
from inspector.gui.qt_settings import Settings
from tests.conftest import SAMPLES

PROVIDER_A = SAMPLES / "providers" / "provider-a.json"
PROVIDER_B = SAMPLES / "providers" / "provider-b.json"
SALES_TOOLS = SAMPLES / "tools" / "sales-tools.json"
ARTICLE = SAMPLES / "article" / "items.json"
REGION_TOOLS = SAMPLES / "article" / "region-schema.tools.json"


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def settings_path(tmp_path: Path) -> Path:
    """A temporary INI store for QSettings."""
    return tmp_path / "settings.ini"


@pytest.fixture
def make_window(qtbot, settings_path: Path) -> Iterator:
    """Build main windows on the temporary settings store (closed at teardown)."""
    made: list[MainWindow] = []

    def make(*, synchronous: bool = True, path: Path | None = None) -> MainWindow:
        window = MainWindow(Settings.open(path or settings_path), synchronous=synchronous)
        qtbot.addWidget(window)
        made.append(window)
        return window

    yield make
    for window in made:
        window.runner.wait()


@pytest.fixture
def window(make_window) -> MainWindow:
    """A window that loads synchronously (deterministic tests)."""
    return make_window()


@pytest.fixture
def pair_window(window: MainWindow) -> MainWindow:
    """The window with the sample pair and its tools loaded and compared."""
    window.load_tool_file(str(SALES_TOOLS), regate=False)
    window.open_pair(str(PROVIDER_A), str(PROVIDER_B))
    assert window.alignment is not None
    return window


@pytest.fixture
def article_window(window: MainWindow) -> MainWindow:
    """The window with the article's items on the left, gated with the region schema."""
    window.load_tool_file(str(REGION_TOOLS), regate=False)
    window.open_file("left", str(ARTICLE))
    return window


@pytest.fixture
def article_result() -> GateResult:
    """The article's items gated with the region schema."""
    return gate_transcript(load_path(ARTICLE), load_tools(REGION_TOOLS))


class TickGaps:
    """Measures how long the GUI thread goes without running a QTimer (its responsiveness)."""

    def __init__(self, interval_ms: int = 10) -> None:
        from PySide6.QtCore import QTimer

        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.longest = 0.0
        self.ticks = 0

    def _tick(self) -> None:
        now = time.monotonic()
        self.longest = max(self.longest, now - self._last)
        self._last = now
        self.ticks += 1

    def __enter__(self) -> TickGaps:
        self._last = time.monotonic()
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._tick()  # the time since the last tick counts too
        self._timer.stop()
