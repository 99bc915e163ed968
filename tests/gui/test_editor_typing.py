"""The Arguments editor under real typing: re-checks mark errors and never move the cursor."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inspector.core.gate import Verdict
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_schema_panel import CHECK_DELAY_MS, NO_TOOL_CHOSEN

#: Longer than the re-check delay: each pause lets an automatic re-check run.
PAUSE_MS = CHECK_DELAY_MS * 3


def _focused_editor(window, qtbot, item: int):
    window.show()
    qtbot.waitExposed(window)
    window.select("left", item)
    window.tabs.setCurrentIndex(Tab.ARGUMENTS)
    panel = window.arguments_panel
    panel.editor.setFocus()
    qtbot.keyClick(panel.editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    return panel


def _type_with_pauses(qtbot, panel, chunks: list[str]) -> list[str]:
    """Type each chunk as key events, pausing after each; return the verdict after each pause."""
    verdicts = []
    for chunk in chunks:
        with qtbot.waitSignal(panel.checked, timeout=PAUSE_MS * 8):
            qtbot.keyClicks(panel.editor, chunk)
        qtbot.wait(PAUSE_MS)
        verdicts.append(panel.banner.verdict_text)
    return verdicts


def test_pauses_inside_a_string_keep_what_was_typed(pair_window, qtbot):
    panel = _focused_editor(pair_window, qtbot, 3)  # get_latest_sales_report
    verdicts = _type_with_pauses(qtbot, panel, ['{"region": "ap', 'ac"}'])
    assert panel.editor.toPlainText() == '{"region": "apac"}'
    # The first pause was re-checked as a parse error; typing went on where it was.
    assert verdicts == ["arguments_parse", "ok"]
    assert panel.verdict == Verdict.OK


def test_many_pauses_and_an_error_each_time(pair_window, qtbot):
    panel = _focused_editor(pair_window, qtbot, 3)
    chunks = ['{"reg', 'ion": ', '"em', 'ea", ', '"x": 1', "}"]
    verdicts = _type_with_pauses(qtbot, panel, chunks)
    assert panel.editor.toPlainText() == "".join(chunks)
    assert verdicts[:-1] == ["arguments_parse"] * 5
    # The parse error is marked, underlined, where it is; the cursor stays at the end.
    assert panel.editor.textCursor().position() == len("".join(chunks))


def test_a_recheck_marks_the_error_and_leaves_cursor_and_selection(pair_window, qtbot):
    panel = _focused_editor(pair_window, qtbot, 3)
    _type_with_pauses(qtbot, panel, ['{"region": apac, "z": 1}'])
    assert panel.verdict == Verdict.ARGUMENTS_PARSE
    marks = panel.editor.marks("errors")
    assert marks, "the parse error is marked"
    assert all(m.format.underlineStyle() != m.format.UnderlineStyle.NoUnderline for m in marks)
    # Select a word by keys, wait for a re-check of the text (none ran: nothing typed), then
    # edit elsewhere by keys and let the re-check run: the selection is what the user made.
    qtbot.keyClick(panel.editor, Qt.Key.Key_Home)
    for _ in range(3):
        qtbot.keyClick(panel.editor, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    panel.recheck()
    qtbot.wait(PAUSE_MS)
    cursor = panel.editor.textCursor()
    assert (cursor.anchor(), cursor.position()) == (0, 3)
    # The error row is listed; choosing it is what moves the cursor to the error.
    assert panel.errors.rowCount() == 1
    panel.errors_view.selectRow(0)
    assert panel.editor.textCursor().position() == len('{"region": ')


# ---- the schema box -------------------------------------------------------------------------


def test_no_tool_chosen_for_a_named_call_says_so(pair_window, qtbot):
    window = pair_window
    window.select("left", 3)  # get_latest_sales_report
    panel = window.arguments_panel
    with qtbot.waitSignal(panel.checked, timeout=PAUSE_MS * 8) as blocker:
        panel.tool_combo.setCurrentIndex(0)  # "(no tool)"
    assert blocker.args == [""]
    assert panel.banner.detail.text() == NO_TOOL_CHOSEN
    assert "null" not in panel.banner.detail.text()


def test_a_schema_typed_with_no_tool_chosen_is_used(pair_window, qtbot):
    window = pair_window
    window.select("left", 3)  # {"region": "apac"}
    panel = window.arguments_panel
    panel.tool_combo.setCurrentIndex(0)
    schema = '{"type": "object", "properties": {"region": {"enum": ["emea"]}}}'
    with qtbot.waitSignal(panel.checked, timeout=PAUSE_MS * 8) as blocker:
        panel.schema_view.setFocus()
        qtbot.keyClicks(panel.schema_view, schema)
    assert blocker.args == ["arguments_schema"]
    assert panel.errors.records()[0].cells[:2] == ("/region", "enum")
    assert panel.schema_source.text() == "typed here"
    assert panel.schema_revert_button.isVisibleTo(panel)


def test_an_edited_schema_is_captioned_edited_and_reverts(pair_window, qtbot):
    window = pair_window
    window.select("left", 3)
    panel = window.arguments_panel
    caption = panel.schema_source.text()
    assert caption.startswith("parameters of get_latest_sales_report from sales-tools.json")
    assert not panel.schema_revert_button.isVisibleTo(panel)
    with qtbot.waitSignal(panel.checked, timeout=PAUSE_MS * 8) as blocker:
        panel.set_schema_text('{"type": "object", "required": ["nothing_here"]}')
    assert blocker.args == ["arguments_schema"]
    assert panel.schema_source.text().endswith("— edited — not saved")
    assert panel.schema_revert_button.isVisibleTo(panel)
    with qtbot.waitSignal(panel.checked, timeout=PAUSE_MS * 8) as blocker:
        panel.schema_revert_button.click()
    assert blocker.args == ["ok"]
    assert panel.schema_source.text() == caption
    assert not panel.schema_revert_button.isVisibleTo(panel)
