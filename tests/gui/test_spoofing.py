"""Invisible and direction-changing characters from a file never reach the screen raw: a walk
over every widget after loading a spoofing file; the raw value stays one Copy away."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QWidget,
)

from inspector.core.gate import INVISIBLE
from inspector.gui.json_text import display, label, preview, visible
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_pane_tree import copy_actions
from inspector.gui.qt_transcript_model import Column
from tests.conftest import SAMPLES
from tests.gui.conftest import call_stream, model_indexes, write_sse

SPOOFED = SAMPLES / "findings" / "spoofed-names.json"
#: The bidi controls the issue names, beside every other Cc, Cf, Zl and Zp character.
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


# ---- the escaping function ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("get_\u202eeliforp_resu\u202c", "get_\\u202eeliforp_resu\\u202c"),
        ("a\u200bb\u2060c\ufeff", "a\\u200bb\\u2060c\\ufeff"),
        ("x\u2028y\u2029z", "x\\u2028y\\u2029z"),
        ("\u2066call\u2069\u200e\u200f", "\\u2066call\\u2069\\u200e\\u200f"),
        ("esc\x1b[31m\x85", "esc\\u001b[31m\\u0085"),
        ("line\nnext\ttab\r", "line\\nnext\\ttab\\r"),
        ("tag\U000e0041", "tag\\udb40\\udc41"),  # as JSON writes it
        ("plain ascii and ünïcödé ✓", "plain ascii and ünïcödé ✓"),
    ],
)
def test_visible_escapes_every_invisible_character(raw, shown):
    assert visible(raw) == shown
    assert not INVISIBLE.search(visible(raw))


def test_visible_keeps_lines_when_asked_and_json_stays_the_same_json():
    assert visible("a\nb\t\u202e", lines=True) == "a\nb\t\\u202e"
    value = {"name\u202e": ["get\u200b_user", "\U000e0067\u2028"], "n": 1}
    text = display(value).text
    assert json.loads(text) == value
    assert not INVISIBLE.search(text.replace("\n", ""))
    assert visible(visible("x\u202e")) == visible("x\u202e")  # escaping twice changes nothing


def test_cells_and_previews_are_escaped():
    assert label("call_1\u200e") == "call_1\\u200e"
    assert preview({"a": "\u202e"}, 200) == "{…} 1 key"
    assert preview("\u202e" * 300).count("\\u202e") > 100


# ---- the walk --------------------------------------------------------------------------------


def _texts(window) -> list[tuple[str, str]]:
    """(where, text) for every text the window shows or would show on hover."""
    found = [("title", window.windowTitle()), ("status", window.statusBar().currentMessage())]
    widgets = [window, *window.findChildren(QWidget)]
    for widget in widgets:
        name = f"{type(widget).__name__}:{widget.objectName()}"
        found.append((f"{name} tooltip", widget.toolTip()))
        found.append((f"{name} status tip", widget.statusTip()))
        if isinstance(widget, QLabel):
            found.append((name, widget.text()))
        elif isinstance(widget, QLineEdit):
            found.extend([(name, widget.text()), (name, widget.placeholderText())])
        elif isinstance(widget, QPlainTextEdit):
            found.append((name, widget.toPlainText()))
        elif isinstance(widget, QComboBox):
            for i in range(widget.count()):
                found.append((f"{name} item", widget.itemText(i)))
                tip = widget.itemData(i, Qt.ItemDataRole.ToolTipRole)
                found.append((f"{name} item tip", tip if isinstance(tip, str) else ""))
        elif isinstance(widget, QTabBar):
            found.extend((f"{name} tab", widget.tabText(i)) for i in range(widget.count()))
        elif isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView):
            model = widget.model()
            if model is None:
                continue
            for index in model_indexes(model, levels=3, rows=300):
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    data = index.data(role)
                    if isinstance(data, str):
                        found.append((f"{name} cell", data))
    for action in window.findChildren(QAction):
        found.extend(
            [
                ("action", action.text()),
                ("action tip", action.toolTip()),
                ("tip", action.statusTip()),
            ]
        )
    return found


def _assert_nothing_raw(window) -> int:
    texts = _texts(window)
    for where, text in texts:
        raw = {ch for ch in text if INVISIBLE.match(ch) and ch not in "\n\t"}
        assert not raw, (where, text, sorted(f"U+{ord(c):04X}" for c in raw))
        assert not BIDI & set(text), (where, text)
    return len(texts)


def _visit(window, qtbot) -> None:
    for side in ("left", "right"):
        pane = window.panes[side]
        for item in range(pane.model.item_count()):
            window.select(side, item)
            pane.tree.expand(pane.model.index_of_item(item))
        for tab in range(window.tabs.count()):
            window.tabs.setCurrentIndex(tab)
            window.settle(1)


def test_no_raw_invisible_character_anywhere_after_loading_a_spoofing_file(
    make_window, qtbot, tmp_path
):
    window = make_window()
    window.resize(1400, 900)
    window.show()
    tools = tmp_path / "spoofed\u202etools.json"  # a tool picker entry and a file name too
    tools.write_text(json.dumps({"look\u200bup\u202e": {"type": "object"}}))
    window.load_tool_file(str(tools), regate=False)
    window.open_pair(str(SPOOFED), str(SPOOFED))
    renamed = tmp_path / "names\u202efdp.json"  # a spoofed file name, for the recent files
    renamed.write_bytes(SPOOFED.read_bytes())
    window.open_file("right", str(renamed))
    window.find_in_contents()
    window.find_panel.query_edit.setText("user")
    window.find_panel.search()
    window.paste(SPOOFED.read_text())  # into Scratch as well
    _visit(window, qtbot)
    window.select("left", 3)
    window.tabs.setCurrentIndex(Tab.ARGUMENTS)
    window.recent_menu.aboutToShow.emit()
    count = _assert_nothing_raw(window)
    assert count > 1000  # the walk saw the window, not an empty shell

    # What the spoof looks like: escaped in the tree, the banner, the picker and the Item JSON.
    left = window.left.model
    assert left.index(3, Column.NAME).data() == "get_\\u202eeliforp_resu\\u202c"
    assert left.index(3, Column.CALL_ID).data() == "call_\\u202e2_llac\\u202c"
    assert left.index(6, Column.CALL_ID).data() == "call_1\\u200e"
    panel = window.arguments_panel
    assert "differs from 'get_user_profile' by U+202E, U+202C" in panel.banner.detail.text()
    assert panel.tool_combo.currentText().startswith("get_\\u202eeliforp_resu\\u202c")
    window.select("left", 4)
    assert "by U+200B" in window.item_panel.banner.detail.text()
    assert '"name": "get_user\\u200b_profile"' in window.item_panel.view.toPlainText()

    # A recorded stream whose events carry the same tricks: the Stream tab too.
    window.open_pair(str(SPOOFED), str(_spoofed_stream(tmp_path)))
    assert window.stream_panel.has_streams
    _visit(window, qtbot)
    window.select("right", 0)
    window.tabs.setCurrentIndex(Tab.STREAM)
    _assert_nothing_raw(window)
    timeline = window.stream_panel.timeline
    events = [timeline.index(r, 3).data() for r in range(timeline.rowCount())]
    assert "response.\\u202eevent" in events


def _spoofed_stream(folder):
    item = {
        "type": "function_call",
        "id": "fc\u200b1",
        "call_id": "call\u2066",
        "name": "get\u202e",
    }
    events = call_stream(item, "{\u202e}", "response.\u202eevent", "{\u202e}")
    return write_sse(folder / "spoofed\u200f.sse", events)


def test_the_raw_value_stays_one_copy_away(window):
    window.open_file("left", str(SPOOFED))
    model = window.left.model
    item = model.index(3, 0)
    window.left.tree.expand(item)
    name_row = next(
        model.index(r, 0, item)
        for r in range(model.rowCount(item))
        if model.index(r, 0, item).data().startswith("name: ")
    )
    menu = QMenu()
    copy_actions(name_row, menu)
    clipboard = QGuiApplication.clipboard()
    next(a for a in menu.actions() if a.text().startswith("Copy Value")).trigger()
    assert clipboard.text() == "get_\u202eeliforp_resu\u202c"
    window.select("left", 3)
    window.copy_item()
    assert json.loads(clipboard.text())["call_id"] == "call_\u202e2_llac\u202c"
    menu.deleteLater()


def test_escaped_arguments_still_check_and_copy_back_raw(window, tmp_path):
    path = tmp_path / "rlo-arguments.json"
    arguments = json.dumps({"user_id": "u_1\u202e"}, ensure_ascii=False)
    item = {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_user_profile",
        "arguments": arguments,
        "status": "completed",
    }
    tools = {"get_user_profile": {"type": "object", "properties": {"user_id": {"type": "string"}}}}
    path.write_text(json.dumps({"tools": [], "input": [item]}))
    tools_path = tmp_path / "tools.json"
    tools_path.write_text(json.dumps(tools))
    window.load_tool_file(str(tools_path), regate=False)
    window.open_file("left", str(path))
    window.select("left", 0)
    panel = window.arguments_panel
    assert "\\u202e" in panel.editor.toPlainText()
    assert not panel.edited_label.isVisibleTo(panel)  # the escaped text is the original
    assert panel.verdict is not None and panel.verdict.value == "ok"
    copied = json.loads(panel.arguments_string())  # the arguments string, compact
    assert copied == '{"user_id":"u_1\u202e"}'  # the character itself, not its escape
