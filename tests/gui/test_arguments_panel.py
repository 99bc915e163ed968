"""The Arguments tab: live re-checks through the core, error pointers, tool picker, no writes."""

from __future__ import annotations

from inspector.core.gate import Verdict
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_schema_panel import (
    CHECK_DELAY_MS,
    DERIVED_CAPTION,
    RAW_CAPTION,
    REDACTED_CAPTION,
)
from tests.conftest import REPO
from tests.gui.conftest import ARTICLE, REGION_TOOLS, digest


def _type(panel, text: str) -> None:
    panel.editor.selectAll()
    panel.editor.insertPlainText(text)  # as if typed: goes through the debounce timer


def test_fc_009_shows_the_enum_error_at_region(article_window):
    window = article_window
    window.select("left", 3)
    panel = window.arguments_panel
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    assert panel.banner.verdict_text == "arguments_schema"
    assert panel.raw_view.text() == '"{\\"region\\":\\"global\\"}"'  # the literal string
    first = panel.errors.records()[0].cells
    assert first[:2] == ("/region", "enum")
    assert '"global" is not one of' in first[2]
    assert first[3] == "/properties/region/enum"


def test_selecting_an_error_highlights_the_offending_value(article_window):
    window = article_window
    window.select("left", 3)
    panel = window.arguments_panel
    panel.errors_view.selectRow(0)
    assert panel.editor.textCursor().selectedText() == '"global"'


def test_editing_fc_009_to_apac_turns_it_ok(article_window, qtbot):
    before = digest(ARTICLE), digest(REGION_TOOLS)
    window = article_window
    window.select("left", 3)
    window.tabs.setCurrentIndex(Tab.ARGUMENTS)
    panel = window.arguments_panel
    with qtbot.waitSignal(panel.checked, timeout=CHECK_DELAY_MS * 8) as blocker:
        _type(panel, '{"region":"apac"}')
        assert panel.verdict == Verdict.ARGUMENTS_SCHEMA  # not before the debounce
    assert blocker.args == ["ok"]
    assert panel.verdict == Verdict.OK
    assert panel.banner.verdict_text == "ok"
    assert panel.errors.rowCount() == 0
    assert panel.edited_label.isVisibleTo(panel)
    # The transcript and its verdict are untouched: edits are never written anywhere.
    assert window.left.model.index(3, 6).data() == "arguments_schema"
    assert window.results["left"].transcript.items[3].raw["arguments"] == '{"region":"global"}'
    assert (digest(ARTICLE), digest(REGION_TOOLS)) == before
    panel.revert_button.click()
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    assert not panel.edited_label.isVisibleTo(panel)


def test_broken_json_is_a_parse_verdict_with_position(article_window, qtbot):
    window = article_window
    window.select("left", 3)
    panel = window.arguments_panel
    with qtbot.waitSignal(panel.checked, timeout=CHECK_DELAY_MS * 8) as blocker:
        _type(panel, '{"region": apac}')
    assert blocker.args == ["arguments_parse"]
    message = panel.errors.records()[0].cells[2]
    assert "line 1 column 12" in message
    panel.errors_view.selectRow(0)
    assert panel.editor.textCursor().position() == 11


def test_picking_another_tool_rechecks(pair_window):
    window = pair_window
    window.select("left", 3)  # get_latest_sales_report {"region":"apac"}
    panel = window.arguments_panel
    assert panel.verdict == Verdict.OK
    assert panel.tool_combo.currentData() == "get_latest_sales_report"
    names = [panel.tool_combo.itemData(i) for i in range(panel.tool_combo.count())]
    assert names == [None, "get_latest_sales_report", "search_web", "send_summary"]
    panel.tool_combo.setCurrentIndex(names.index("send_summary"))
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    keywords = {r.cells[1] for r in panel.errors.records()}
    assert "required" in keywords and "additionalProperties" in keywords
    assert '"to"' in panel.schema_view.toPlainText()


def test_schema_box_edits_override_the_tool(article_window, qtbot):
    window = article_window
    window.select("left", 3)
    panel = window.arguments_panel
    schema = '{"type": "object", "properties": {"region": {"enum": ["global"]}}}'
    with qtbot.waitSignal(panel.checked, timeout=CHECK_DELAY_MS * 8) as blocker:
        panel.set_schema_text(schema)
    assert blocker.args == ["ok"]
    with qtbot.waitSignal(panel.checked, timeout=CHECK_DELAY_MS * 8) as blocker:
        panel.set_schema_text("{not json")
    assert blocker.args == [""]
    assert "schema box is not JSON" in panel.banner.detail.text()


def test_an_item_stopped_before_its_arguments_says_so(article_window):
    window = article_window
    window.select("left", 2)  # openai:web_search_call
    panel = window.arguments_panel
    assert "stopped before its arguments: namespaced" in panel.note.text()
    assert panel.editor.toPlainText() == ""


def test_edits_survive_the_same_item_being_shown_again(pair_window, qtbot):
    window = pair_window
    window.select("left", 7)
    panel = window.arguments_panel
    _type(panel, '{"region": "emea"}')
    window.set_aligned(not window.aligned)  # the models reset and the details are refreshed
    assert panel.editor.toPlainText() == '{"region": "emea"}'
    window.select("left", 3)
    window.select("left", 7)  # another item in between: the file's arguments come back
    assert '"global"' in panel.editor.toPlainText()


def test_arguments_a_source_stored_as_an_object_are_not_called_the_files_literal(window):
    # The OTel span holds {"location": "Paris"} as an object: the string shown was serialised.
    window.open_file("left", str(REPO / "samples/sessions/otel/tool-calls-spans.json"))
    calls = [
        i
        for i, item in enumerate(window.results["left"].transcript.items)
        if item.raw.get("type") == "function_call"
    ]
    window.select("left", calls[0])
    panel = window.arguments_panel
    assert panel.raw_caption.text() == DERIVED_CAPTION
    assert "arguments as an object" in panel.raw_caption.toolTip()
    window.open_file("left", str(ARTICLE))  # an Open Responses file: the literal string
    window.select("left", 3)
    assert panel.raw_caption.text() == RAW_CAPTION and panel.raw_caption.toolTip() == ""


def test_arguments_a_publisher_redacted_are_called_a_marker(window, qtbot):
    # The published rollout holds "[REDACTED_ARGUMENTS len=… sha=…]" where the arguments were:
    # a string in the file, but neither the model's text nor an object serialised here.
    window.open_file("left", str(REPO / "samples/sessions/codex/rollout-0.104-calls.jsonl"))
    items = window.results["left"].transcript.items
    call = next(i for i, item in enumerate(items) if item.raw.get("type") == "function_call")
    assert items[call].raw["arguments"].startswith("[REDACTED_ARGUMENTS")
    window.select("left", call)
    panel = window.arguments_panel
    assert panel.raw_caption.text() == REDACTED_CAPTION
    assert "replaced the arguments with a marker" in panel.raw_caption.toolTip()
    assert panel.raw_view.text() == f'"{items[call].raw["arguments"]}"'  # as a JSON string
    # The panel's verdict is the gate's, which says why the text does not parse.
    gated = window.results["left"].verdicts[call]
    assert "redaction marker" in gated.detail
    assert panel.banner.detail.text() == gated.detail
    # Edited, the text is no longer the publisher's marker: it is only not JSON.
    _type(panel, "[REDACTED_ARGUMENTS, edited]")
    qtbot.waitUntil(lambda: "redaction" not in panel.banner.detail.text())
    assert panel.banner.detail.text().startswith("arguments are not JSON: ")


def test_long_raw_arguments_are_shown_from_their_start(window):
    window.open_file("left", str(REPO / "samples/sessions/claude_code/v1.0.98-session.jsonl"))
    items = window.results["left"].transcript.items
    call = next(i for i, item in enumerate(items) if item.raw.get("name") == "TodoWrite")
    window.select("left", call)
    panel = window.arguments_panel
    assert len(panel.raw_view.text()) > 200 and panel.raw_view.cursorPosition() == 0
