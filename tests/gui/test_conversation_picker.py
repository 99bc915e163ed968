"""A file of several conversations: the pane's picker lists them and shows the one picked."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inspector.core.formats import load_conversations
from tests.conftest import SAMPLES

TRACE = SAMPLES / "sessions" / "otel" / "tool-calls-spans.json"
PLAIN = SAMPLES / "providers" / "provider-a.json"


def test_the_picker_lists_the_conversations_and_shows_the_one_picked(window, qtbot):
    window.show()
    first, second = load_conversations(TRACE)
    window.open_file("left", str(TRACE))
    pane = window.panes["left"]
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    combo = pane.conversation_combo
    assert combo.isVisible()
    assert [combo.itemText(i) for i in range(combo.count())] == [
        f"{first.conversation} (4 items)",
        f"{second.conversation} (5 items)",
    ]
    assert pane.model.rowCount() == len(first.items)
    # Keyboard: focus the picker, move down one, confirm.
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)
    qtbot.waitUntil(
        lambda: window.results["left"].transcript.conversation == second.conversation,
        timeout=60_000,
    )
    assert pane.model.rowCount() == len(second.items)
    assert combo.currentIndex() == 1
    types = [window.results["left"].transcript.items[i].type for i in range(len(second.items))]
    assert types[2] == "otel:server_tool_call"


def test_a_file_of_one_conversation_shows_no_picker(window, qtbot):
    window.show()
    window.open_file("left", str(PLAIN))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    assert not window.panes["left"].conversation_combo.isVisible()
