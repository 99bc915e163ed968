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


def test_the_picker_has_a_row_of_its_own_and_both_panes_stay_level(window, qtbot):
    window.resize(1100, 700)
    window.show()
    window.open_pair(str(TRACE), str(PLAIN))
    qtbot.waitUntil(lambda: None not in (window.results["left"], window.results["right"]))
    left, right = window.panes["left"], window.panes["right"]
    assert left.conversation_combo.isVisible() and not right.conversation_combo.isVisible()
    assert right.conversation_note.isVisible()
    assert right.conversation_note.text() == "one conversation"

    # The trees start at the same height, and the filter keeps room to type in.
    def top(pane):
        return pane.tree.mapTo(window, pane.tree.rect().topLeft()).y()

    assert top(left) == top(right)
    assert left.filter_edit.width() >= left.width() // 3
    # The whole trace id shows: the picker is as wide as its text needs.
    combo = left.conversation_combo
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(combo.currentText())
    # Another file of one conversation on the left: neither pane keeps the row.
    window.open_file("left", str(PLAIN))
    qtbot.waitUntil(lambda: not left.conversation_row.isVisible())
    assert not right.conversation_row.isVisible()


def test_a_file_that_fails_to_load_drops_the_picker_of_the_one_before(window, qtbot, tmp_path):
    window.show()
    window.open_file("left", str(TRACE))
    pane = window.panes["left"]
    qtbot.waitUntil(lambda: pane.conversation_combo.isVisible())
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    window.open_file("left", str(broken))
    qtbot.waitUntil(lambda: not pane.conversation_row.isVisible())
    assert pane.conversation_combo.count() == 0
