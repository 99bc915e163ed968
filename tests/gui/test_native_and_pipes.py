"""Converted items show how they were made beside their native JSON; a pipe opens on a worker
and Cancel ends a read that waits for a writer."""

from __future__ import annotations

import os
import threading
import time

from inspector.core import jsonio
from inspector.core.formats import load_path
from inspector.core.model import Cancelled
from inspector.gui import qt_session
from tests.conftest import SAMPLES

NATIVE = SAMPLES / "native"


def test_a_converted_call_shows_its_note_and_native_block(window):
    path = NATIVE / "anthropic-response.json"
    window.open_file("left", str(path))
    transcript = load_path(path)
    calls = [i for i in transcript.items if i.conversion is not None and i.type == "function_call"]
    assert calls
    call = calls[0]
    window.panes["left"].select_item(call.index)
    panel = window.item_panel
    assert panel.conversion.isVisibleTo(window) and panel.native_box.isVisibleTo(window)
    assert panel.conversion.text().startswith("converted from Anthropic Messages")
    assert panel.native_caption.text() == "native Anthropic Messages JSON"
    native = panel.native_view.toPlainText()
    assert '"tool_use"' in native and call.conversion.native["id"] in native
    # An item from an Open Responses file has no note and no native pane.
    window.open_file("left", str(SAMPLES / "article" / "items.json"))
    window.panes["left"].select_item(0)
    assert not panel.conversion.isVisibleTo(window) and not panel.native_box.isVisibleTo(window)


def test_a_pipe_opens_on_a_worker_and_loads(make_window, qtbot, tmp_path):
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    data = (SAMPLES / "logs" / "agent-session.jsonl").read_bytes()

    def writer() -> None:
        time.sleep(0.3)
        with open(fifo, "wb") as out:
            out.write(data)

    window = make_window(synchronous=False)
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    window.open_file("left", str(fifo))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    assert len(window.results["left"].transcript.items) == len(
        load_path(SAMPLES / "logs" / "agent-session.jsonl").items
    )
    thread.join(timeout=5)


def test_cancel_ends_a_pipe_with_no_writer(make_window, qtbot, tmp_path, monkeypatch):
    reads: list[str] = []

    def read_bytes(path, *, cancel=None, **kwargs):
        reads.append("waiting")
        try:
            return jsonio.read_bytes(path, cancel=cancel, **kwargs)
        except Cancelled:
            reads.append("cancelled" if cancel is not None and cancel.is_set() else "stopped")
            raise

    monkeypatch.setattr(qt_session, "read_bytes", read_bytes)
    fifo = tmp_path / "silent.fifo"
    os.mkfifo(fifo)
    window = make_window(synchronous=False)
    window.open_file("left", str(fifo))
    qtbot.waitUntil(lambda: reads == ["waiting"], timeout=60_000)
    qtbot.wait(300)  # the worker is waiting for a writer; the window keeps working
    assert window.results["left"] is None and reads == ["waiting"]
    window.cancel_load("left")
    assert window.runner.wait(60_000)  # a guard against a hang, not a measure
    assert reads == ["waiting", "cancelled"]  # the read saw the flag Cancel set, and ended
    assert window.results["left"] is None
