"""Paste: items and transcripts into Scratch, bare arguments and schemas into Arguments."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication

from inspector.core.gate import Verdict
from inspector.gui.paste import PasteKind, route_paste
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_transcript_model import Column
from tests.gui.conftest import PROVIDER_B

WEB_SEARCH = {
    "type": "openai:web_search_call",
    "id": "ws_001",
    "status": "completed",
    "action": {"type": "search", "query": "apac sales report"},
}


def test_pasting_a_provider_prefixed_item_shows_namespaced(window):
    QGuiApplication.clipboard().setText(json.dumps(WEB_SEARCH))
    window.paste_action.trigger()
    assert window.tabs.currentIndex() == Tab.SCRATCH
    scratch = window.scratch_panel
    assert scratch.banner.verdict_text == "namespaced"
    assert scratch.model.index(0, Column.VERDICT).data() == "namespaced"
    assert window.item_panel.banner.verdict_text == "namespaced"  # the item is shown in detail


def test_pasting_an_array_and_a_whole_transcript(window):
    items = [WEB_SEARCH, {"role": "user", "content": "hi"}]
    window.paste(json.dumps(items))
    assert window.scratch_panel.model.rowCount() == 2
    window.paste(PROVIDER_B.read_text(encoding="utf-8"))
    scratch = window.scratch_panel
    assert scratch.model.rowCount() == 9
    assert scratch.result is not None
    assert scratch.result.summary()["namespaced"] == 1
    assert "request: 9 items" in scratch.banner.detail.text()


def test_scratch_regates_as_it_is_edited(window, qtbot):
    window.paste(json.dumps(WEB_SEARCH))
    scratch = window.scratch_panel
    call = {**WEB_SEARCH, "type": "function_call", "status": "in_progress"}
    scratch.editor.selectAll()
    scratch.editor.insertPlainText(json.dumps(call))
    qtbot.waitUntil(lambda: scratch.banner.verdict_text == "status", timeout=60_000)


def test_unparsable_paste_shows_the_loader_error(window):
    window.paste('{"type": "function_call", "arguments": }')
    scratch = window.scratch_panel
    assert scratch.model.rowCount() == 0
    assert scratch.error is not None
    assert scratch.banner.detail.text().startswith("<pasted>:1:")


def test_bare_arguments_validate_against_the_chosen_tool(pair_window):
    window = pair_window
    window.paste('{"region": "global"}')
    assert window.tabs.currentIndex() == Tab.ARGUMENTS
    panel = window.arguments_panel
    panel.tool_combo.setCurrentIndex(panel.tool_combo.findData("get_latest_sales_report"))
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    panel.tool_combo.setCurrentIndex(panel.tool_combo.findData("search_web"))
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    assert {r.cells[1] for r in panel.errors.records()} >= {"required"}


def test_a_schema_goes_into_the_schema_box(article_window, qtbot):
    window = article_window
    window.select("left", 3)
    schema = {"type": "object", "properties": {"region": {"type": "string"}}}
    window.paste(json.dumps(schema))
    panel = window.arguments_panel
    assert json.loads(panel.schema_view.toPlainText()) == schema
    qtbot.waitUntil(lambda: panel.verdict == Verdict.OK, timeout=60_000)


def test_route_paste():
    assert route_paste('{"region": "apac"}').kind == PasteKind.ARGUMENTS
    assert route_paste(json.dumps(WEB_SEARCH)).kind == PasteKind.TRANSCRIPT
    assert route_paste("[]").kind == PasteKind.TRANSCRIPT
    assert route_paste('{"$schema": "x", "type": "object"}').kind == PasteKind.SCHEMA
    tool = route_paste('{"type": "function", "name": "f", "parameters": {"type": "object"}}')
    assert (tool.kind, tool.tool, json.loads(tool.text)) == (
        PasteKind.SCHEMA,
        "f",
        {"type": "object"},
    )
    assert route_paste('{"a": 1}\n{"b": 2}').kind == PasteKind.TRANSCRIPT
