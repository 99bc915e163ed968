"""Long loads show how far they have got; Cancel stops the work itself; quitting at any moment
is clean; a normal run prints nothing on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from PySide6.QtCore import QMessageLogContext, QtMsgType

from inspector.core.model import Cancelled
from inspector.gui import qt_app, qt_session
from inspector.gui.qt_workers import TaskRunner
from tests.conftest import REPO

PROFILE_TOOL = {
    "get_user_profile": {"type": "object", "properties": {"user_id": {"type": "string"}}}
}


def _big_jsonl(path, lines: int = 60_000):
    """About 20 MB of calls (memoised by the gate, so the load itself dominates)."""
    line = json.dumps(
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_user_profile",
            "arguments": '{"user_id":"u_1"}',
            "status": "completed",
            "padding": "x" * 240,
        }
    )
    path.write_text((line + "\n") * lines)
    return path


def test_a_long_load_shows_bytes_read_then_items_gated_with_a_percentage(
    make_window, qtbot, tmp_path
):
    big = _big_jsonl(tmp_path / "big.jsonl")
    window = make_window(synchronous=False)
    pane = window.left
    seen: list[tuple[str, float, int, bool]] = []
    window.session.progress.connect(
        lambda side, stage, fraction: seen.append(
            (stage, fraction, pane.progress.maximum(), pane.progress.isTextVisible())
        )
    )
    window.open_file("left", str(big))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    reading = [s for s in seen if s[0].startswith("Reading big.jsonl: ") and s[1] >= 0]
    gating = [s for s in seen if s[0].startswith("Gating big.jsonl: ")]
    assert reading and gating
    assert any(0 < fraction < 1 for _s, fraction, _m, _t in reading)
    assert reading[-1][0].endswith(" MB of 23.5 MB")
    assert gating[-1][0].endswith(" of 60,000 items")
    # The bar was determinate, with its percentage shown, while these stages were reported.
    assert all(maximum == 1000 and text for _s, _f, maximum, text in reading + gating)
    pane.show_loading(str(big))
    pane.set_stage("Reading big.jsonl: 11.8 MB of 23.5 MB", 0.5)
    assert pane.progress.maximum() == 1000 and pane.progress.text() == "50%"
    pane.set_stage("Reading…")
    assert pane.progress.maximum() == 0  # unknown: busy, no percentage


def test_cancel_stops_the_work_itself(make_window, qtbot, tmp_path, monkeypatch):
    big = _big_jsonl(tmp_path / "big.jsonl", 20_000)
    outcomes: list[str] = []
    # The load pauses at its first progress report until Cancel has been pressed, so that
    # Cancel lands mid-load however fast or busy the machine is.
    pressed = threading.Event()
    real_load, real_gate = qt_session.conversations_from_bytes, qt_session.gate_transcript

    def watched(real, name, hold=False):
        def run(*args, **kwargs):
            report = kwargs.get("progress")
            if hold and report is not None:

                def held(done: int, total: int) -> None:
                    report(done, total)
                    if done:
                        pressed.wait(30)

                kwargs["progress"] = held
            try:
                value = real(*args, **kwargs)
            except Cancelled:
                outcomes.append(f"{name} cancelled")
                raise
            outcomes.append(f"{name} finished")
            return value

        return run

    monkeypatch.setattr(
        qt_session, "conversations_from_bytes", watched(real_load, "load", hold=True)
    )
    monkeypatch.setattr(qt_session, "gate_transcript", watched(real_gate, "gate"))
    window = make_window(synchronous=False)
    fractions: list[float] = []
    window.session.progress.connect(lambda _side, _stage, f: fractions.append(f))
    window.open_file("left", str(big))
    qtbot.waitUntil(lambda: any(f > 0 for f in fractions), timeout=60_000)
    assert window.left.name_label.text() == "big.jsonl"  # the header names the file meanwhile
    window.left.cancel_button.click()
    pressed.set()
    assert window.runner.wait(60_000)
    assert outcomes == ["load cancelled"]  # the parse stopped at its next line; no gating
    assert window.results["left"] is None
    assert window.left.stack.currentIndex() == 0  # back to the drop target
    assert window.left.name_label.text() == "No file"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run Python offscreen in the repository, as a user would start the app."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
    )


_QUIT_SCRIPT = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from inspector.gui import qt_app
app = QApplication([sys.argv[0]])
QTimer.singleShot(int(sys.argv[1]), lambda: QApplication.instance().closeAllWindows())
sys.exit(qt_app.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("delay_ms", [30, 300, 900])
def test_quitting_while_loading_is_clean(tmp_path, delay_ms):
    big = _big_jsonl(tmp_path / "big.jsonl", 120_000)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(PROFILE_TOOL))
    done = _run(
        "-c",
        _QUIT_SCRIPT,
        str(delay_ms),
        str(big),
        str(big),
        "--tools",
        str(tools),
        "--settings",
        str(tmp_path / "settings.ini"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no traceback, no Qt warning


def test_an_offscreen_screenshot_run_prints_nothing_on_stderr(tmp_path):
    done = _run("-m", "inspector", "--screenshot", str(tmp_path / "shot.png"))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_the_qt_message_handler_drops_only_the_known_harmless_messages(capfd):
    context = QMessageLogContext()
    qt_app.qt_message(QtMsgType.QtWarningMsg, context, qt_app.HARMLESS_QT_MESSAGES[0])
    assert capfd.readouterr().err == ""
    qt_app.qt_message(QtMsgType.QtWarningMsg, context, "QPainter::begin: something real")
    assert "QPainter::begin: something real" in capfd.readouterr().err


def test_a_closed_runner_starts_nothing(qtbot):
    runner = TaskRunner()
    ran: list[str] = []
    runner.stop_all()
    runner.start("filter", lambda _report: ran.append("work"), ran.append, ran.append)
    runner.wait()
    qtbot.wait(20)
    assert ran == [] and not runner.busy("filter")


def test_a_filter_typed_just_before_closing_runs_no_work_into_the_closed_window(
    make_window, qtbot, tmp_path, monkeypatch
):
    # The pane's filter timer fires after the close, before the window is deleted: the match
    # it asks for must not start, or it finishes into the deleted status bar.
    monkeypatch.setattr(qt_session, "ASYNC_FILTER_ITEMS", 0)
    path = tmp_path / "calls.jsonl"
    _big_jsonl(path, lines=50)
    window = make_window(synchronous=False)
    window.open_file("left", str(path))
    qtbot.waitUntil(lambda: not window.runner.busy("left"), timeout=60_000)
    started: list[str] = []
    ran: list[str] = []
    real_start = window.runner.start

    def start(channel, work, *args, **kwargs):
        started.append(channel)
        return real_start(
            channel, lambda report: (ran.append(channel), work(report))[1], *args, **kwargs
        )

    monkeypatch.setattr(window.runner, "start", start)
    pane = window.panes["left"]
    qtbot.keyClicks(pane.filter_edit, "profile")
    window.close()
    qtbot.waitUntil(lambda: "filter" in started, timeout=10_000)  # the timer fired after the close…
    window.runner.wait()
    qtbot.wait(20)
    assert ran == [] and not window.runner.busy("filter")  # …and started nothing
