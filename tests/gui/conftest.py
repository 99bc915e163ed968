"""GUI fixtures: a window on a temporary settings INI, sample paths, and a wait for checks."""

from __future__ import annotations

import hashlib
import json
import threading
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


class WorkerProbe:
    """Wraps the work of every TaskRunner job on some channels: records the thread each ran on,
    and can hold the work at its start until the test has seen the GUI thread answer."""

    def __init__(self, channels: frozenset[str], hold: bool) -> None:
        self.channels, self.hold = channels, hold
        self.threads: list[threading.Thread] = []
        self.finished = 0
        self.entered = threading.Event()
        self.released = threading.Event()

    def wrap(self, channel: str, work):
        """The work, recorded (and held) when it runs on one of the probed channels."""
        if channel not in self.channels:
            return work

        def probed(progress):
            thread = threading.current_thread()
            self.threads.append(thread)
            if self.hold and thread is not threading.main_thread():
                self.entered.set()
                self.released.wait(timeout=120)  # a guard against a hang, not a measure
            try:
                return work(progress)
            finally:
                self.finished += 1

        return probed

    @property
    def off_gui_thread(self) -> bool:
        """Whether work ran, and all of it on worker threads."""
        return bool(self.threads) and threading.main_thread() not in self.threads

    def gui_answers_while_held(self, qtbot) -> bool:
        """Wait for work to be held, post an event to the GUI thread, release the work once the
        GUI thread has run it; whether it ran while the work was still unfinished."""
        from PySide6.QtCore import QTimer

        qtbot.waitUntil(self.entered.is_set, timeout=60_000)
        answered: list[bool] = []
        QTimer.singleShot(0, lambda: answered.append(self.finished == 0))
        try:
            qtbot.waitUntil(lambda: bool(answered), timeout=60_000)
        finally:
            self.released.set()
        return answered == [True]


@pytest.fixture
def probe_workers(monkeypatch):
    """Probe the work TaskRunner runs on the given channels (``hold``: see WorkerProbe)."""
    from inspector.gui.qt_workers import TaskRunner

    probes: list[WorkerProbe] = []
    real = TaskRunner.start

    def start(self, channel, work, *args, **kwargs):
        for probe in probes:
            work = probe.wrap(channel, work)
        return real(self, channel, work, *args, **kwargs)

    monkeypatch.setattr(TaskRunner, "start", start)

    def make(*channels: str, hold: bool = True) -> WorkerProbe:
        probe = WorkerProbe(frozenset(channels), hold)
        probes.append(probe)
        return probe

    yield make
    for probe in probes:
        probe.released.set()  # never leave a worker waiting
