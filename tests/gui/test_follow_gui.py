"""File → Follow: the left pane shows what an agent appends to its session file, as it arrives."""

from __future__ import annotations

from inspector.core.formats import load_conversations
from tests.conftest import SAMPLES

ROLLOUT = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"


def test_follow_shows_appended_items_without_reloading(window, qtbot, tmp_path):
    lines = ROLLOUT.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rollout.jsonl"
    head = len(lines) // 3
    path.write_bytes(b"".join(lines[:head]))
    window.show()
    window.open_file("left", str(path))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    pane = window.panes["left"]
    before = pane.model.rowCount()
    reloads: list[str] = []
    window.session.loading.connect(lambda side, p: reloads.append(p))
    window.act["follow"].trigger()
    assert window.act["follow"].isChecked() and window.session.following("left")
    with path.open("ab") as handle:
        handle.write(b"".join(lines[head:]))
    (whole,) = load_conversations(ROLLOUT)
    qtbot.waitUntil(lambda: pane.model.rowCount() == len(whole.items), timeout=60_000)
    assert pane.model.rowCount() > before
    assert reloads == []  # the pane was updated, never reloaded
    window.act["follow"].trigger()
    assert not window.session.following("left")


def test_a_file_that_is_no_session_stops_following(window, qtbot):
    window.show()
    window.open_file("left", str(SAMPLES / "providers" / "provider-a.json"))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    window.act["follow"].trigger()
    qtbot.waitUntil(lambda: not window.act["follow"].isChecked(), timeout=60_000)
    assert not window.session.following("left")
    assert "Cannot follow" in window.statusBar().currentMessage()
