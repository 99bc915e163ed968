"""Daily use: bare arguments in Scratch, find in contents, copying edited arguments back, the
Stream and Arguments tabs following the selection, the filter's count and Esc, and the status
bar and error texts."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest

from inspector.core.gate import Verdict
from inspector.gui.contents import find_in_contents, spans_of
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_schema_panel import NO_TOOLS, PICK_TOOL
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_A, PROVIDER_B

# ---- Scratch: a bare arguments object -------------------------------------------------------


def _type_into_scratch(window, qtbot, text: str) -> None:
    """A plain paste into the Scratch editor (Ctrl+V), not the window's Paste action."""
    window.tabs.setCurrentIndex(Tab.SCRATCH)
    editor = window.scratch_panel.editor
    QGuiApplication.clipboard().setText(text)
    editor.setFocus()
    editor.paste()
    window.scratch_panel.regate()  # what the edit timer does a moment later


def test_a_plain_paste_of_bare_arguments_offers_the_tool_picker(pair_window, qtbot):
    window = pair_window
    scratch = window.scratch_panel
    _type_into_scratch(window, qtbot, '{"region": "global"}')
    assert scratch.bare_arguments and not scratch.arguments_row.isHidden()
    names = [scratch.tool_combo.itemData(i) for i in range(scratch.tool_combo.count())]
    assert names == ["get_latest_sales_report", "search_web", "send_summary"]
    assert scratch.error is None  # not "unrecognised record"
    assert scratch.banner.verdict_text == "arguments_schema"
    assert '"global" is not one of' in scratch.banner.detail.text()
    scratch.tool_combo.setCurrentIndex(scratch.tool_combo.findData("search_web"))
    assert scratch.banner.verdict_text == "arguments_schema"
    assert "'region' was unexpected" in scratch.banner.detail.text()
    scratch.tool_combo.setCurrentIndex(scratch.tool_combo.findData("get_latest_sales_report"))
    scratch.arguments_button.click()
    assert window.tabs.currentIndex() == Tab.ARGUMENTS
    panel = window.arguments_panel
    assert panel.tool_combo.currentData() == "get_latest_sales_report"
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA


def test_bare_arguments_without_tools_say_to_load_tools_or_paste_a_schema(window, qtbot):
    _type_into_scratch(window, qtbot, '{"region": "global"}')
    scratch = window.scratch_panel
    assert scratch.bare_arguments
    assert scratch.banner.detail.text() == NO_TOOLS
    assert "Ctrl+T" in NO_TOOLS and "schema" in NO_TOOLS
    window.paste('{"region": "global"}')  # Ctrl+Shift+V
    panel = window.arguments_panel
    assert window.tabs.currentIndex() == Tab.ARGUMENTS
    assert panel.banner.detail.text() == NO_TOOLS
    assert "not a tool name" not in panel.banner.detail.text()
    # A transcript pasted next is a transcript again.
    _type_into_scratch(window, qtbot, json.dumps([{"role": "user", "content": "hi"}]))
    assert not scratch.bare_arguments and scratch.arguments_row.isHidden()


def test_pasted_arguments_with_several_tools_ask_for_one(pair_window):
    window = pair_window
    window.arguments_panel.tool_combo.setCurrentIndex(0)  # "(no tool)"
    window.paste('{"region": "global"}')
    assert window.arguments_panel.banner.detail.text() == PICK_TOOL


# ---- find in contents -----------------------------------------------------------------------


def test_find_in_contents_lists_hits_in_messages_outputs_and_arguments(pair_window, qtbot):
    window = pair_window
    window.select("left", 0)
    assert window.find_contents_action.shortcut().toString() == "Ctrl+Shift+F"
    window.find_contents_action.trigger()
    assert window.tabs.currentIndex() == Tab.SEARCH
    panel = window.find_panel
    assert panel.side == "left"
    panel.query_edit.setText("REGION")  # any case
    panel.search()
    found = panel.found
    assert found is not None and found.total >= 2
    pointers = {(hit.item, hit.pointer) for hit in found.hits}
    assert (3, "/arguments") in pointers  # inside the arguments string
    assert "hits in" in panel.summary.text()
    texts = [panel.model.index(r, 2).data() for r in range(panel.model.rowCount())]
    assert all("region" in t.lower() for t in texts)

    # F3 shows each hit in the Item tab, highlighted there.
    window.step_hit(True)
    assert window.tabs.currentIndex() == Tab.ITEM
    first = panel.found.hits[0]
    assert window.left.current_item() == first.item
    view = window.item_panel.view
    marks = view._marks.get("find", [])
    spans = spans_of(view.toPlainText(), "region")
    assert marks and len(marks) == len(spans)
    selected = view.textCursor().selectedText().lower()
    assert selected == "region"
    window.step_hit(True)
    assert window.left.current_item() == panel.found.hits[1 % len(panel.found.hits)].item


def test_find_in_contents_on_its_own():
    from inspector.core.formats import load_path, load_tools
    from inspector.core.gate import gate_transcript

    result = gate_transcript(
        load_path(PROVIDER_B), load_tools(SAMPLES / "tools" / "sales-tools.json")
    )
    found = find_in_contents(result, '"region"')  # quotes: no JSON pre-check, still found
    assert {hit.pointer for hit in found.hits} == {"/arguments", "/output"}
    assert find_in_contents(result, "no such text anywhere").total == 0
    capped = find_in_contents(result, "e", limit=3)
    assert len(capped.hits) == 3 and capped.total > 3


# ---- copying edited arguments ---------------------------------------------------------------


def test_edited_arguments_copy_as_the_arguments_string_or_the_whole_item(article_window):
    window = article_window
    window.select("left", 3)
    panel = window.arguments_panel
    panel.editor.setPlainText('{\n  "region": "emea"\n}')
    panel.recheck()
    assert panel.verdict == Verdict.OK
    clipboard = QGuiApplication.clipboard()
    window.copy_arguments_action.trigger()
    assert clipboard.text() == '"{\\"region\\":\\"emea\\"}"'
    window.copy_item_arguments_action.trigger()
    item = json.loads(clipboard.text())
    assert item["arguments"] == '{"region":"emea"}'
    assert item["call_id"] == "call_129"
    # Pasted arguments belong to no item: only the string can be copied.
    window.paste('{"region": "apac"}')
    assert not panel.copy_item_action.isEnabled()
    window.copy_arguments_action.trigger()
    assert clipboard.text() == '"{\\"region\\":\\"apac\\"}"'


# ---- the tabs follow the selection ----------------------------------------------------------


def test_the_stream_tab_follows_the_selected_side(window):
    window.open_pair(str(PROVIDER_A), str(SAMPLES / "streams" / "function-call.sse"))
    panel = window.stream_panel
    window.select("right", 0)
    assert panel.side == "right" and panel.timeline.rowCount() > 0
    window.select("left", 0)
    assert panel.side is None and panel.timeline.rowCount() == 0
    assert "left file is not a recorded stream" in panel.hint.text()
    assert not panel.hint.isHidden()
    window.select("right", 0)
    assert panel.side == "right" and panel.hint.isHidden()


def test_the_arguments_tab_of_a_message_shows_no_unrelated_schema(pair_window):
    window = pair_window
    window.select("left", 0)  # a developer message
    panel = window.arguments_panel
    assert panel.tool_combo.currentText() == "(no tool)"
    assert panel.schema_view.toPlainText() == ""
    assert panel.schema_source.text().startswith("No tool chosen")
    window.select("left", 3)
    assert panel.tool_combo.currentData() == "get_latest_sales_report"
    assert panel.schema_view.toPlainText()


# ---- the filter -----------------------------------------------------------------------------


def test_the_filter_shows_its_count_and_esc_clears_it(pair_window):
    window = pair_window
    window.set_aligned(False)
    pane = window.left
    pane.filter_edit.setText("function_call")
    window.refilter()
    assert pane.match_label.text() == f"{pane.model.rowCount()} of 10"
    pane.verdict_combo.setCurrentIndex(pane.verdict_combo.findData("problems"))
    window.refilter()
    assert pane.match_label.text() == "1 of 10"
    pane.filter_edit.setFocus()
    QTest.keyClick(pane.filter_edit, Qt.Key.Key_Escape)
    assert pane.filter_edit.text() == "" and pane.verdict_combo.currentIndex() == 0
    window.refilter()
    assert pane.match_label.text() == "" and pane.model.rowCount() == 10


# ---- texts ----------------------------------------------------------------------------------


def test_a_truncated_file_error_does_not_end_mid_sentence(window, tmp_path):
    text = PROVIDER_A.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"get_latest_sales_report"') + 8])
    window.open_file("left", str(cut))
    assert window.left.showing_error
    message = window.left.error_message.text()
    assert "Unterminated string starting at line " in message
    assert not message.endswith(" at")


def test_after_a_failed_load_on_the_right_the_status_bar_says_so(window, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"input": [')
    window.open_pair(str(PROVIDER_A), str(broken))
    assert window.right.showing_error
    text = window.decision_label.text()
    assert "open a second transcript" not in text
    assert "the right file broken.json could not be read" in text


def test_an_anthropic_record_takes_an(window):
    window.open_file("left", str(SAMPLES / "anthropic-messages.json"))
    messages = [r.cells[4] for r in window.findings_panel.model.records()]
    assert any("is an Anthropic Messages record" in m for m in messages)
    assert not any("a Anthropic" in m for m in messages)
