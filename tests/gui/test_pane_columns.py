"""The transcript panes at 1100×700 on a native cross-provider pair: names and call_ids read
whole (the other columns give way to short forms first), the legend wraps, every toolbar action
stays on the bar, aligned rows stay level with fields expanded, target findings mark their
rows, and Ctrl+End reaches the real last item."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QStyleOptionViewItem, QWidget

from inspector.core.targets import TargetFinding
from inspector.gui import qt_palette
from inspector.gui.alignment import padded_keys
from inspector.gui.qt_pane import CountsMode
from inspector.gui.qt_transcript_model import GAP_TEXT, Column, CompactRole, TargetRole
from tests.conftest import SAMPLES

GEMINI = SAMPLES / "native" / "gemini-request.json"
BEDROCK = SAMPLES / "native" / "bedrock-request.json"
NARROW = (1100, 700)


def _compare_window(make_window, size=NARROW, *, aligned=True):
    window = make_window()
    window.resize(*size)
    window.show()
    window.set_aligned(aligned)
    window.open_pair(str(GEMINI), str(BEDROCK))
    window.set_mode("compare")
    window.settle()
    return window


def _reads_whole(tree, index) -> bool:
    font = index.data(Qt.ItemDataRole.FontRole) or QFont(tree.font())
    text = index.data() or ""
    # The delegate's text margins (3 px a side) and the rounding it allows for.
    room = tree.header().sectionSize(index.column()) - 8
    return QFontMetrics(font).horizontalAdvance(text) <= room


def test_names_and_call_ids_read_whole_at_1100_by_700(make_window):
    window = _compare_window(make_window)
    assert (window.width(), window.height()) == NARROW
    assert window.minimumSizeHint().width() <= NARROW[0]
    for pane in window.panes.values():
        tree, model = pane.tree, pane.model
        header = tree.header()
        shown = sum(header.sectionSize(c) for c in Column if not header.isSectionHidden(c))
        assert shown <= tree.viewport().width(), pane.side  # no sideways scrolling
        for row in range(model.rowCount()):
            for column in (Column.NAME, Column.CALL_ID):
                index = model.index(row, column)
                assert _reads_whole(tree, index), (pane.side, row, index.data())
    # The verdict gave way to make the room: its column is narrower than its widest word, and
    # a cell too narrow for the word shows the short form (the tooltip keeps the full reason).
    right = window.right
    verdict = right.model.index(0, Column.VERDICT)
    assert verdict.data() == "not_function_call"
    assert verdict.data(CompactRole) == "not a call"
    assert right.tree.header().sectionSize(Column.VERDICT) < QFontMetrics(
        right.tree.font()
    ).horizontalAdvance("not_function_call")
    # A column down to its icons is titled with an icon, its name in the tooltip.
    for column in (Column.VERDICT, Column.CHANGE):
        model = right.model
        assert model.headerData(column, Qt.Orientation.Horizontal) == ""
        assert model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DecorationRole)
        tip = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert tip.startswith(("Verdict:", "Change:"))


def test_the_item_number_column_fits_its_digits(make_window):
    window = _compare_window(make_window, (1400, 900))
    tree = window.left.tree
    # Nine items: one digit (two are kept), beside the branch arrow and the verdict icon.
    digits = QFontMetrics(tree.font()).horizontalAdvance("00")
    assert tree.header().sectionSize(Column.INDEX) <= tree.indentation() + 22 + digits + 12


def test_the_legend_wraps_rather_than_being_cut(make_window):
    window = _compare_window(make_window)
    legend = window.legend
    entries = [w for w in legend.findChildren(QWidget) if w.parent() is legend]
    assert entries
    for entry in entries:
        assert entry.isVisible()
        assert legend.rect().contains(entry.geometry()), entry.geometry()
    assert legend.flow.lines() >= 2  # 1100 px do not hold it on one line
    wide = _compare_window(make_window, (1900, 900))
    assert wide.legend.flow.lines() == 1


def test_every_toolbar_action_stays_on_the_bar(make_window):
    # At 1100 px the toolbar's short words fit; narrower, the buttons show icons alone.
    for size, compact in (((1100, 700), False), ((800, 600), True)):
        window = _compare_window(make_window, size)
        bar = window.toolbar
        assert window.toolbar_fit.compact == compact, size
        for action in bar.actions():
            if action.isSeparator():
                continue
            widget = bar.widgetForAction(action)
            assert widget is not None and widget.isVisible(), action.text()
            assert bar.rect().contains(widget.geometry()), action.text()
        assert window.target_selector.isVisible()


def test_aligned_rows_stay_level_with_their_fields_expanded(make_window):
    # Gemini's and Bedrock's items of a pair have different fields (a thought signature, a
    # status): each pane pads the fields the other has, so the lines stay level.
    window = _compare_window(make_window, (1400, 900))
    left, right = window.left, window.right
    assert left.model.rowCount() == right.model.rowCount()
    for row in range(left.model.rowCount()):
        left.tree.expand(left.model.index(row, 0))
    window.settle()
    for row in range(right.model.rowCount()):
        assert right.tree.isExpanded(right.model.index(row, 0)), row
    # A nested container expanded on the right expands its twin (a gap on the left, if need be).
    nested = next(
        right.model.index(r, 0, right.model.index(row, 0))
        for row in range(right.model.rowCount())
        for r in range(right.model.rowCount(right.model.index(row, 0)))
        if right.model.hasChildren(right.model.index(r, 0, right.model.index(row, 0)))
    )
    right.tree.expand(nested)
    window.settle()
    _assert_level(left, right)
    # Fields of one side only are gap rows on the other.
    gaps = [
        left.model.index(r, 0, left.model.index(row, 0)).data()
        for row in range(left.model.rowCount())
        for r in range(left.model.rowCount(left.model.index(row, 0)))
    ]
    assert any(text.startswith("no ") for text in gaps)


def _assert_level(left, right) -> None:
    def walk(pane, parent=None):
        model = pane.model
        parent = parent if parent is not None else QModelIndex()
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            yield pane.tree.visualRect(index).top()
            if pane.tree.isExpanded(index):
                yield from walk(pane, index)

    assert list(walk(left)) == list(walk(right))
    assert left.tree.verticalScrollBar().maximum() == right.tree.verticalScrollBar().maximum()


def test_padded_keys_list_the_left_order_then_the_right_only_keys():
    assert padded_keys({"a": 1, "b": 2}, {"b": 3, "c": 4}) == ["a", "b", "c"]
    assert padded_keys([1, 2], [1, 2, 3]) == [0, 1, 2]
    assert padded_keys("text", {"x": 1}) == ["x"]
    assert padded_keys(None, None) == []


def test_target_findings_mark_their_rows_and_the_header_counts_them(make_window):
    window = _compare_window(make_window, (1400, 900), aligned=False)
    window.set_target("mistral")
    window.settle()
    for pane in window.panes.values():
        result = window.session.files[pane.side].result
        targets = [f for f in result.findings if isinstance(f, TargetFinding)]
        errors = [f for f in targets if str(f.severity) == "error"]
        assert errors  # Mistral's call_id rule: nine letters and digits
        named = {i for f in targets for i in f.items}
        marker = qt_palette.target_swatch("error").icon.cacheKey()
        for item in range(len(result.transcript.items)):
            index = pane.model.index(pane.model.row_of_item(item), Column.VERDICT)
            icon = index.data(Qt.ItemDataRole.DecorationRole)
            if item in named:
                assert icon is not None and icon.cacheKey() == marker, (pane.side, item)
                assert index.data(TargetRole)
                assert "target_call_id" in index.data(Qt.ItemDataRole.ToolTipRole)
            else:
                assert icon is None, (pane.side, item)
        counts = pane.header.counts
        assert counts.target == ("mistral", len(errors))
        counts.set_mode(CountsMode.FULL)
        assert f"mistral: {len(errors)} errors" in counts.shown_texts()
        counts.set_mode(CountsMode.SUMMARY)
        assert f"{len(errors)}" in counts.shown_texts()
    window.set_target(None)
    window.settle()
    assert window.left.header.counts.target is None


@pytest.fixture
def long_transcript(tmp_path):
    path = tmp_path / "long.json"
    items = [{"type": "message", "role": "user", "content": f"m{i}"} for i in range(20_000)]
    path.write_text(json.dumps(items))
    return path


def test_ctrl_end_reaches_the_last_item_while_rows_are_still_fetched(
    make_window, qtbot, long_transcript
):
    window = make_window()
    window.resize(1100, 700)
    window.show()
    window.open_file("left", str(long_transcript))
    window.settle()
    pane = window.left
    assert pane.model.fetched_rows < pane.model.display_rows  # the rows come in chunks
    pane.tree.setFocus()
    qtbot.keyClick(pane.tree, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert pane.current_item() == 19_999
    assert pane.model.fetched_rows == pane.model.display_rows
    qtbot.keyClick(pane.tree, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert pane.current_item() == 0


def test_a_cut_id_keeps_its_distinguishing_end(make_window):
    # Narrower than anything can fit: the ids are cut at their start, other texts in the middle.
    window = _compare_window(make_window, (760, 600))
    tree, model = window.right.tree, window.right.model
    delegate = tree.itemDelegate()
    index = model.index(model.row_of_item(4), Column.CALL_ID)
    option = QStyleOptionViewItem()
    tree.initViewItemOption(option)
    option.rect = tree.visualRect(index)
    delegate.initStyleOption(option, index)
    assert option.textElideMode == Qt.TextElideMode.ElideLeft
    shown = option.fontMetrics.elidedText(option.text, option.textElideMode, option.rect.width())
    assert shown.startswith("…") and shown.endswith(index.data()[-4:])
    option = QStyleOptionViewItem()
    tree.initViewItemOption(option)
    name = model.index(model.row_of_item(4), Column.NAME)
    option.rect = tree.visualRect(name)
    delegate.initStyleOption(option, name)
    assert option.textElideMode == Qt.TextElideMode.ElideMiddle


def test_a_gap_rows_phrase_reads_whole_beside_short_names(make_window):
    # The capture's one call is `ls`: the name column sized for names alone cut the gap
    # rows' "no item here" that the longer trace beside it makes.
    window = make_window()
    for size in (NARROW, (1400, 900)):
        window.resize(*size)
        window.show()
        window.set_aligned(True)
        window.open_pair(
            str(SAMPLES / "sessions" / "har" / "openai-polly-tool-roundtrip.har"),
            str(SAMPLES / "sessions" / "otel" / "tool-calls-spans.json"),
        )
        window.settle()
        tree, model = window.left.tree, window.left.model
        gaps = [
            r for r in range(model.rowCount()) if model.index(r, Column.NAME).data() == GAP_TEXT
        ]
        assert gaps
        assert all(_reads_whole(tree, model.index(r, Column.NAME)) for r in gaps), size
