"""File → Follow: the left pane shows what an agent appends to its session file, as it arrives."""

from __future__ import annotations

import pytest

from inspector.core.formats import _sessions, load_conversations
from tests.conftest import SAMPLES
from tests.spies import CountingJson

ROLLOUT = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"


@pytest.mark.parametrize("synchronous", [True, False], ids=["in-place", "on-workers"])
def test_follow_shows_appended_items_without_reloading(
    make_window, qtbot, tmp_path, monkeypatch, synchronous
):
    window = make_window(synchronous=synchronous)
    lines = ROLLOUT.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rollout.jsonl"
    head = len(lines) // 3
    path.write_bytes(b"".join(lines[:head]))
    window.show()
    window.open_file("left", str(path))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    pane = window.panes["left"]
    before = pane.model.display_rows  # every row the pane has, exposed to the tree or not
    reloads: list[str] = []
    window.session.loading.connect(lambda side, p: reloads.append(p))
    (whole,) = load_conversations(ROLLOUT)
    spy = CountingJson()
    monkeypatch.setattr(_sessions, "orjson", spy)
    window.act["follow"].trigger()
    assert window.act["follow"].isChecked() and window.session.following("left")
    # The agent writes on, in three goes: each poll parses what was appended since the last.
    third = (len(lines) - head) // 3
    for start in (head, head + third, head + 2 * third):
        end = start + third if start < head + 2 * third else len(lines)
        with path.open("ab") as handle:
            handle.write(b"".join(lines[start:end]))
        qtbot.waitUntil(lambda: window.session.follower("left").bytes_read == path.stat().st_size)
    qtbot.waitUntil(lambda: pane.model.display_rows == len(whole.items), timeout=60_000)
    assert pane.model.display_rows > before
    assert reloads == []  # the pane was updated, never reloaded
    # Following read each line once, over all its polls (the terminal echoes not at all).
    assert spy.parsed and max(spy.parsed.values()) == 1
    assert all(line.strip() in spy.parsed for line in lines[head:] if b'"response_item"' in line)
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
