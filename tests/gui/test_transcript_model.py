"""The transcript model: the article's verdicts with colours and icons, lazy fields, modeltest."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QFont, QIcon

from inspector.core.diff import diff_results
from inspector.core.formats import load_path, load_text, load_tools
from inspector.core.gate import Verdict, gate_transcript
from inspector.gui import qt_palette
from inspector.gui.alignment import Alignment
from inspector.gui.qt_transcript_model import (
    ChangesRole,
    Column,
    IndexRole,
    ItemRole,
    PointerRole,
    TranscriptModel,
    ValueRole,
    VerdictRole,
)
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS

ARTICLE_VERDICTS = [
    ("fc_001", Verdict.OK),
    (None, Verdict.NOT_FUNCTION_CALL),  # the function_call_output
    ("ws_001", Verdict.NAMESPACED),
    ("fc_009", Verdict.ARGUMENTS_SCHEMA),
]


def _colour(brush: QBrush | None) -> str | None:
    return brush.color().name() if brush is not None else None


def test_article_verdicts_words_colours_and_icons(article_window):
    model = article_window.left.model
    assert model.rowCount() == 4
    for row, (item_id, verdict) in enumerate(ARTICLE_VERDICTS):
        swatch = qt_palette.verdict_swatch(verdict)
        word = model.index(row, Column.VERDICT)
        assert word.data(Qt.ItemDataRole.DisplayRole) == str(verdict)
        assert word.data(VerdictRole) == verdict
        assert model.index(row, Column.ID).data() == (item_id or "")
        assert _colour(word.data(Qt.ItemDataRole.ForegroundRole)) == _colour(swatch.foreground)
        assert _colour(word.data(Qt.ItemDataRole.BackgroundRole)) == _colour(swatch.background)
        icon = model.index(row, Column.INDEX).data(Qt.ItemDataRole.DecorationRole)
        assert isinstance(icon, QIcon) and not icon.isNull()
        assert icon.cacheKey() == swatch.icon.cacheKey()
    # Each verdict gets its own foreground colour and icon: the signals are distinct.
    foregrounds = {
        _colour(model.index(r, Column.VERDICT).data(Qt.ItemDataRole.ForegroundRole))
        for r in range(4)
    }
    assert len(foregrounds) == 4
    icons = {model.index(r, 0).data(Qt.ItemDataRole.DecorationRole).cacheKey() for r in range(4)}
    assert len(icons) == 4


def test_provider_prefixed_item_stands_out(article_window):
    model = article_window.left.model
    font = model.index(2, Column.TYPE).data(Qt.ItemDataRole.FontRole)
    assert isinstance(font, QFont) and font.bold()
    assert model.index(2, Column.TYPE).data() == "openai:web_search_call"
    assert model.index(0, Column.TYPE).data(Qt.ItemDataRole.FontRole) is None


def test_verdict_tooltip_gives_the_reason(article_window):
    tip = article_window.left.model.index(3, Column.VERDICT).data(Qt.ItemDataRole.ToolTipRole)
    assert "arguments_schema" in tip and "enum" in tip and "global" in tip


def test_fields_are_children_built_on_demand(article_result):
    model = TranscriptModel()
    model.set_result(article_result)
    assert model.allocated_nodes == 0
    item = model.index(3, 0)
    assert model.hasChildren(item)
    assert model.allocated_nodes == 0  # asking whether there are children costs nothing
    keys = [model.index(r, 0, item).data().split(": ")[0] for r in range(model.rowCount(item))]
    assert keys == ["type", "id", "name", "call_id", "status", "arguments"]
    # A field row shows its key and value in its first cell, which spans the row in the views.
    assert model.index(0, 0, item).data() == 'type: "function_call"'
    arguments = model.index(5, 0, item)
    assert model.index(5, Column.TYPE, item).data() == '"{\\"region\\":\\"global\\"}"'
    assert arguments.data(PointerRole) == "/arguments"
    assert arguments.data(ValueRole) == '{"region":"global"}'
    assert arguments.data(IndexRole) == 3
    assert model.parent(arguments) == item
    assert model.allocated_nodes == 1
    action = model.index(3, 0, model.index(2, 0))
    assert action.data() == "action: {…} 2 keys"
    query = model.index(1, 0, action)
    assert query.data(PointerRole) == "/action/query"
    assert model.index(1, Column.TYPE, action).data() == '"apac sales report"'
    assert model.parent(query) == action


def test_item_role_is_the_core_item(article_result):
    model = TranscriptModel()
    model.set_result(article_result)
    item = model.index(3, Column.NAME).data(ItemRole)
    assert item is article_result.transcript.items[3]
    assert model.index(3, Column.NAME).data() == "get_latest_sales_report"


def _pair_models():
    tools = load_tools(SALES_TOOLS)
    left = gate_transcript(load_path(PROVIDER_A), tools)
    right = gate_transcript(load_path(PROVIDER_B), tools)
    alignment = Alignment(diff_results(left, right))
    models = {}
    for side, result in (("left", left), ("right", right)):
        model = TranscriptModel()
        model.set_result(result)
        models[side] = model
    return alignment, models


def test_change_markers_type_and_call_id_most_prominent():
    alignment, models = _pair_models()
    for side, model in models.items():
        model.set_alignment(alignment, side, aligned=False)
    left = models["left"]
    type_row, call_row, same_row = 5, 7, 3
    assert left.index(type_row, Column.CHANGE).data() == "→ NAMESPACED"
    assert left.index(call_row, Column.CHANGE).data() == "CALL_ID CHANGED"
    assert left.index(same_row, Column.CHANGE).data() == ""
    major = qt_palette.change_swatch(qt_palette.ChangeLevel.MAJOR)
    for row, cell in ((type_row, Column.TYPE), (call_row, Column.CALL_ID)):
        background = left.index(row, cell).data(Qt.ItemDataRole.BackgroundRole)
        assert _colour(background) == _colour(major.background)
        assert left.index(row, cell).data(Qt.ItemDataRole.FontRole).bold()
        icon = left.index(row, Column.CHANGE).data(Qt.ItemDataRole.DecorationRole)
        assert icon.cacheKey() == major.icon.cacheKey()
    assert left.index(same_row, Column.TYPE).data(Qt.ItemDataRole.BackgroundRole) is None
    minor = qt_palette.change_swatch(qt_palette.ChangeLevel.MINOR)
    content = left.index(8, Column.CHANGE)
    assert content.data() == "content changed"
    assert content.data(Qt.ItemDataRole.DecorationRole).cacheKey() == minor.icon.cacheKey()
    assert {c.code for c in left.index(7, 0).data(ChangesRole)} == {"call_id_changed"}


def test_aligned_mode_puts_gaps_where_a_side_has_no_item():
    alignment, models = _pair_models()
    for side, model in models.items():
        model.set_alignment(alignment, side, aligned=True)
    left, right = models["left"], models["right"]
    assert left.rowCount() == right.rowCount() == len(alignment.diff.pairs)
    gap = right.row_of_item(6)
    assert gap == 7  # call_999 sits beside call_129, one row below the missing output
    assert right.item_at_row(6) is None
    assert right.index(6, Column.NAME).data() == "no item here"
    assert right.index(6, 0).data(IndexRole) is None  # selecting it selects no item
    # The gap row has the counterpart's fields, as gap rows, so the lines stay level when
    # both are expanded.
    twin = left.index(6, 0)
    assert right.rowCount(right.index(6, 0)) == left.rowCount(twin) > 0
    assert right.index(0, 0, right.index(6, 0)).data().startswith("no ")
    assert right.index(0, 0, right.index(6, 0)).data(ItemRole) is None
    assert left.row_of_item(7) == right.row_of_item(6)


@pytest.mark.parametrize("aligned", [False, True])
def test_models_pass_qtmodeltester(qtmodeltester, aligned):
    alignment, models = _pair_models()
    for side, model in models.items():
        model.set_alignment(alignment, side, aligned=aligned)
        qtmodeltester.check(model, force_py=True)


@pytest.mark.parametrize("kept", [frozenset({1, 3}), frozenset()])
def test_filtered_model_passes_qtmodeltester(qtmodeltester, article_result, kept):
    model = TranscriptModel()
    model.set_result(article_result)
    model.set_filter(kept)
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == len(kept)
    assert [model.item_at_row(r) for r in range(len(kept))] == sorted(kept)
    if kept:
        shown = model.index(1, 0)
        assert shown.data(IndexRole) == 3
        assert model.rowCount(shown) == 6  # fields stay reachable under a kept item
        assert model.row_of_item(3) == 1
        assert model.row_of_item(0) is None
    model.set_filter(None)
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 4


def test_rows_are_exposed_in_chunks(qtmodeltester):
    items = [{"type": "message", "role": "user", "content": str(i)} for i in range(100)]
    result = gate_transcript(load_text(json.dumps(items)))
    model = TranscriptModel()
    model.initial_rows = 16
    model.set_result(result)
    assert (model.rowCount(), model.display_rows) == (16, 100)
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 32
    index = model.index_of_item(90)  # a jump exposes rows up to the item
    assert index.isValid() and index.row() == 90 and model.rowCount() == 100
    assert not model.canFetchMore(QModelIndex())
    model.set_filter(frozenset(range(0, 100, 2)))
    assert (model.rowCount(), model.display_rows) == (16, 50)
    assert model.index_of_item(98).row() == 49
    # Checked last: pytest-qt's tester fetches more from its own modelReset handler, which it
    # then misreads as rows inserted during the reset.
    qtmodeltester.check(model, force_py=True)


def test_empty_and_odd_items_pass_qtmodeltester(qtmodeltester):
    text = '[{"type": 5}, "just a string", [1, [2, {"a": {}}]], {"role": "user", "content": []}]'
    result = gate_transcript(load_text(text))
    model = TranscriptModel()
    qtmodeltester.check(model, force_py=True)
    model.set_result(result)
    qtmodeltester.check(model, force_py=True)
    assert model.index(0, Column.VERDICT).data() == "namespaced"
    assert model.index(0, Column.TYPE).data() == "5"
    assert model.index(1, Column.TYPE).data() == "(no type)"
    assert model.index(3, Column.TYPE).data() == "message"
    assert not model.hasChildren(model.index(1, 0))
    assert model.hasChildren(model.index(2, 0))
    assert not model.index(0, 0).parent().isValid()
    assert model.parent(QModelIndex()) == QModelIndex()


def test_laying_out_lean_rows_parses_no_item(tmp_path, monkeypatch):
    # A jump to the last of 200,000 rows asks hasChildren of every row: a lean item with a
    # `type` answers from its hot members, not by parsing its JSON.
    from inspector.core.formats import _lean

    path = tmp_path / "log.jsonl"
    lines = [{"type": "message", "role": "user", "content": str(i)} for i in range(50)]
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, {"role": "user"}]))
    result = gate_transcript(load_path(path))
    assert all(item.lean_source is not None for item in result.transcript.items[:50])
    parsed: list[int] = []
    real = _lean.JsonRun.value
    monkeypatch.setattr(_lean.JsonRun, "value", lambda s, i: parsed.append(i) or real(s, i))
    model = TranscriptModel()
    model.set_result(result)
    model.ensure_row(50)
    assert all(model.hasChildren(model.index(row, 0)) for row in range(51))
    assert parsed == []
