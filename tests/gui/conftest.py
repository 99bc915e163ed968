"""GUI fixtures: a window on a temporary settings INI, sample paths, and a wait for checks."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from inspector.core.formats import load_path, load_tools
from inspector.core.gate import GateResult, gate_transcript
from inspector.gui.qt_compat import pin_singletons
from inspector.gui.qt_main_window import MainWindow
from inspector.gui.qt_settings import Settings
from tests.conftest import SAMPLES

PROVIDER_A = SAMPLES / "providers" / "provider-a.json"
PROVIDER_B = SAMPLES / "providers" / "provider-b.json"
SALES_TOOLS = SAMPLES / "tools" / "sales-tools.json"
ARTICLE = SAMPLES / "article" / "items.json"
REGION_TOOLS = SAMPLES / "article" / "region-schema.tools.json"

# As the app does when it makes its QApplication: before the tests' many Qt calls.
pin_singletons()


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


def call_stream(item: dict, delta: str, odd_type: str, arguments: str) -> list[dict]:
    """The events of one streamed function call `item`, with an event of `odd_type` before its
    end (numbered from 0; callers may renumber them)."""
    events = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": item["id"],
            "output_index": 0,
            "delta": delta,
        },
        {"type": odd_type},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "arguments": arguments, "status": "completed"},
        },
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def write_sse(path: Path, events: list[dict]) -> Path:
    """Write events as a recorded SSE stream."""
    path.write_text("".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events))
    return path


def model_indexes(model, parent=None, *, levels: int, rows: int, depth: int = 0):
    """Every index of a model down to `levels` below the top, at most `rows` rows per level."""
    from PySide6.QtCore import QModelIndex

    parent = parent if parent is not None else QModelIndex()
    for row in range(min(model.rowCount(parent), rows)):
        for column in range(model.columnCount(parent)):
            index = model.index(row, column, parent)
            yield index
            if column == 0 and depth < levels and model.rowCount(index) > 0:
                yield from model_indexes(model, index, levels=levels, rows=rows, depth=depth + 1)


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
