"""A large session file shows its first rows while the rest of it is still being read."""

from __future__ import annotations

import threading

from inspector.core.formats import load_conversations
from inspector.core.formats._follow import HEAD_BYTES, head_conversations
from inspector.gui import qt_session
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES

SESSION = SAMPLES / "sessions" / "claude_code" / "v1.0.98-session.jsonl"


def test_the_first_rows_are_shown_before_the_whole_file_is_read(
    make_window, qtbot, tmp_path, monkeypatch
):
    path = tmp_path / "session.jsonl"
    repeated(SESSION, path, 3 * HEAD_BYTES)
    (whole,) = load_conversations(path)
    (head,) = head_conversations(path)
    assert 0 < len(head.items) < len(whole.items)
    # The whole load waits until the test lets it go on: what the pane shows meanwhile can
    # only have come from the first rows.
    go_on = threading.Event()
    reads: list[int] = []
    load_whole = qt_session.conversations_from_bytes

    def paused(data, *args, **kwargs):
        reads.append(len(data))
        assert go_on.wait(60)
        return load_whole(data, *args, **kwargs)

    monkeypatch.setattr(qt_session, "conversations_from_bytes", paused)
    window = make_window(synchronous=False)
    window.show()
    window.open_file("left", str(path))
    pane = window.panes["left"]
    try:
        qtbot.waitUntil(lambda: pane.model.rowCount() > 0, timeout=60_000)
        assert window.session.runner.busy("left")  # the whole load is still running
        shown = window.session.files["left"]
        assert shown is not None and shown.reading
        assert len(shown.result.transcript.items) == len(head.items)
        assert [i.raw for i in shown.result.transcript.items] == [i.raw for i in head.items]
        assert "reading on" in pane.header.format_label.text()
        assert "reading on" in window.status_line().text
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: not window.session.runner.busy("left"), timeout=120_000)
    done = window.session.files["left"]
    assert done is not None and not done.reading
    assert len(done.result.transcript.items) == len(whole.items)
    assert reads == [path.stat().st_size]  # the whole file was read once, after the rows
    assert "reading on" not in pane.header.format_label.text()


def test_a_small_file_is_loaded_whole_at_once(tmp_path):
    assert head_conversations(SESSION) is None
    assert head_conversations(SAMPLES / "providers" / "provider-a.json") is None
