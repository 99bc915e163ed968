"""A large session file shows its first rows while the rest of it is still being read."""

from __future__ import annotations

import json
import threading

import pytest

from inspector.core.formats import load_conversations
from inspector.core.formats._follow import HEAD_BYTES, head_conversations
from inspector.gui import qt_session
from tests.benchmarks import synthetic
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES

SESSION = SAMPLES / "sessions" / "claude_code" / "v1.0.98-session.jsonl"
ROLLOUT = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"


def _session(path):
    repeated(SESSION, path, 3 * HEAD_BYTES)


def _rollout(path):
    repeated(ROLLOUT, path, 3 * HEAD_BYTES)


def _trace(path):
    synthetic.write_otlp(path, 3 * HEAD_BYTES)


@pytest.mark.parametrize("write", [_session, _rollout, _trace], ids=["claude", "codex", "otlp"])
def test_the_first_rows_are_shown_before_the_whole_file_is_read(
    make_window, qtbot, tmp_path, monkeypatch, write
):
    path = tmp_path / "session.jsonl"
    write(path)
    whole = load_conversations(path)[0]
    head = head_conversations(path)[0]
    # The head's first conversation is the file's (a trace's first trace may be cut short).
    assert head.conversation == whole.conversation
    assert 0 < len(head.items) <= len(whole.items)
    assert sum(map(len, (t.items for t in head_conversations(path)))) < sum(
        len(t.items) for t in load_conversations(path)
    )
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


def test_a_large_trace_written_as_one_document_is_loaded_whole(tmp_path):
    lines = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(lines, 2 * HEAD_BYTES)
    requests = [json.loads(line) for line in lines.read_text().splitlines()]
    spans = [s for r in requests for s in r["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    document = requests[0]
    document["resourceSpans"][0]["scopeSpans"][0]["spans"] = spans
    path = tmp_path / "otlp.json"
    path.write_text(json.dumps(document, indent=1))
    assert path.stat().st_size > 2 * HEAD_BYTES
    assert head_conversations(path) is None
