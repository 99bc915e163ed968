"""The window keeps the size it is given with every transcript; names, call_ids, item numbers,
change markers, field keys, event names and pointers read whole where there is room."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics, QImage

from inspector.core.gate import Verdict
from inspector.gui import qt_app
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_pane import CountsMode
from inspector.gui.qt_transcript_model import Column
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS

VERDICTS = SAMPLES / "findings" / "verdicts.json"
VERDICT_TOOLS = SAMPLES / "findings" / "verdicts.tools.json"
SIZE = (1400, 900)


def test_the_screenshot_keeps_1400_by_900_with_every_verdict_on_both_sides(tmp_path, qapp):
    target = tmp_path / "verdicts.png"
    args = [str(VERDICTS), str(VERDICTS), "--tools", str(VERDICT_TOOLS)]
    assert qt_app.main([*args, "--size", "1400x900", "--screenshot", str(target)]) == 0
    image = QImage(str(target))
    assert (image.width(), image.height()) == SIZE


def _shown_window(make_window, left, right, tools=None):
    window = make_window()
    window.resize(*SIZE)
    window.show()
    if tools is not None:
        window.load_tool_file(str(tools), regate=False)
    window.open_pair(str(left), str(right))
    window.settle()
    return window


def test_every_verdict_on_both_sides_keeps_the_window_and_the_file_names(make_window):
    window = _shown_window(make_window, VERDICTS, VERDICTS, VERDICT_TOOLS)
    assert (window.width(), window.height()) == SIZE
    for pane in window.panes.values():
        assert pane.counts.summary == window.session.files[pane.side].summary
        assert len(pane.counts.summary) == len(Verdict)  # every verdict has a chip
        label = pane.name_label
        assert label.width() >= label.fontMetrics().horizontalAdvance("verdicts.json")
        assert pane.header.width() <= pane.width()


PAIRS = [
    (
        SAMPLES / "native" / "anthropic-response.json",
        SAMPLES / "native" / "chat-completions-response.json",
    ),
    *(
        (folder / "left.json", folder / "right.json")
        for folder in sorted((SAMPLES / "diff").iterdir())
        if (folder / "left.json").exists()
    ),
]


def test_long_reasons_and_captions_never_widen_the_window(make_window):
    # The Changes summary, Diff captions and Tools titles quote file paths and reasons: they
    # wrap, in every tab and every mode, and the window keeps its width.
    for left, right in PAIRS:
        window = _shown_window(make_window, left, right)
        for mode in ("replay", "compare"):
            window.set_mode(mode)
            window.settle()
            for tab in range(window.tabs.count()):
                window.tabs.setCurrentIndex(tab)
                window.select("left", 0)
                window.settle()
                assert window.width() == SIZE[0], (left.parent.name, mode, tab)
                assert window.minimumSizeHint().width() <= SIZE[0], (left.parent.name, mode, tab)
        window.close()


def test_the_counts_give_way_and_keep_every_count_in_their_tooltip(make_window):
    window = _shown_window(make_window, PROVIDER_A, PROVIDER_B, SALES_TOOLS)
    header = window.left.header
    huge = {str(v): 123_456 for v in Verdict}
    header.set_content("a-rather-long-transcript-name.jsonl", "/x/a.jsonl", "jsonl", huge)
    window.settle()
    assert (window.width(), window.height()) == SIZE  # 100k-item counts do not grow it
    assert header.counts.mode != CountsMode.FULL
    assert header.name_label.width() >= header.name_label.fontMetrics().horizontalAdvance(
        "a-rather-long-transcript-name.jsonl"
    )
    tip = header.counts.toolTip()
    assert all(f"{v} 123,456" in tip for v in Verdict)
    full, compact = header._wanted(CountsMode.FULL), header._wanted(CountsMode.COMPACT)
    assert compact < full
    for width, mode in (
        (full, CountsMode.FULL),
        (full - 1, CountsMode.COMPACT),
        (compact, CountsMode.COMPACT),
        (compact - 1, CountsMode.SUMMARY),
        (200, CountsMode.SUMMARY),  # the name is elided only now
    ):
        header.resize(width, header.height())
        header.arrange()
        assert header.counts.mode == mode, width
        assert header.counts.geometry().right() < width
    assert header.counts.shown_texts() == ["987,648 items, 740,736 blocked"]
    assert header.minimumSizeHint().width() == 0


def _text_width(tree, text: str, bold: bool = False) -> int:
    font = QFont(tree.font())
    font.setBold(bold)
    return QFontMetrics(font).horizontalAdvance(text)


def test_names_call_ids_types_and_changes_read_whole_at_1400_by_900(make_window):
    window = _shown_window(make_window, PROVIDER_A, PROVIDER_B, SALES_TOOLS)
    for pane in window.panes.values():
        tree, model, header = pane.tree, pane.model, pane.tree.header()
        shown = sum(header.sectionSize(c) for c in Column if not header.isSectionHidden(c))
        assert shown <= tree.viewport().width(), pane.side  # no horizontal scrolling
        for row in range(model.rowCount()):
            for column in (Column.TYPE, Column.NAME, Column.CALL_ID, Column.VERDICT, Column.CHANGE):
                if header.isSectionHidden(column):
                    continue
                index = model.index(row, column)
                text = index.data() or ""
                font = index.data(Qt.ItemDataRole.FontRole)
                bold = font is not None and font.bold()
                room = header.sectionSize(column) - (22 if column == Column.CHANGE else 0)
                assert _text_width(tree, text, bold) + 6 <= room, (pane.side, row, column, text)
        # `#` fits the last item's number beside the branch arrow and the verdict icon, and
        # no more: its room goes to the names.
        digits = _text_width(tree, str(model.item_count() - 1).rjust(2, "0"))
        assert tree.indentation() + 16 + digits <= header.sectionSize(Column.INDEX)
        assert header.sectionSize(Column.INDEX) <= tree.indentation() + 16 + digits + 20
    # Name and call_id took the spare width: wider than their longest text.
    left = window.left.tree.header()
    assert left.sectionSize(Column.NAME) > _text_width(window.left.tree, "get_latest_sales_report")
    # The changes are marked on the right; the left pane colours its changed cells.
    assert window.left.tree.header().isSectionHidden(Column.CHANGE)
    assert not window.right.tree.header().isSectionHidden(Column.CHANGE)


def test_a_column_the_user_resizes_keeps_its_width(make_window):
    window = _shown_window(make_window, PROVIDER_A, PROVIDER_B, SALES_TOOLS)
    header = window.left.tree.header()
    header.resizeSection(Column.CALL_ID, 250)
    window.resize(1300, 900)
    window.settle()
    assert header.sectionSize(Column.CALL_ID) == 250


def test_field_rows_span_the_row_with_their_key(make_window):
    window = _shown_window(make_window, PROVIDER_A, PROVIDER_B, SALES_TOOLS)
    tree, model = window.left.tree, window.left.model
    item = model.index(7, 0)
    tree.expand(item)
    for row in range(model.rowCount(item)):
        assert tree.isFirstColumnSpanned(row, item)
    texts = [model.index(r, 0, item).data() for r in range(model.rowCount(item))]
    assert 'name: "get_latest_sales_report"' in texts
    assert 'call_id: "call_129"' in texts


def test_the_stream_and_error_tables_fit_their_columns_to_the_content(make_window):
    window = _shown_window(make_window, PROVIDER_A, SAMPLES / "streams" / "function-call.sse")
    window.select("right", 0)
    window.tabs.setCurrentIndex(Tab.STREAM)
    window.settle()
    view, model = window.stream_panel.timeline_view, window.stream_panel.timeline
    longest = max(
        (model.index(r, 3).data() for r in range(model.rowCount())),
        key=lambda t: view.fontMetrics().horizontalAdvance(t),
    )
    assert longest.startswith("response.function_call_arguments")
    assert view.columnWidth(3) >= view.fontMetrics().horizontalAdvance(longest)
    assert view.columnWidth(0) >= view.fontMetrics().horizontalAdvance(model.index(0, 0).data())

    window.select("left", 7)  # arguments_schema
    window.tabs.setCurrentIndex(Tab.ARGUMENTS)
    window.settle()
    errors = window.arguments_panel.errors_view
    for column in (0, 1, 3):
        text = errors.model().index(0, column).data()
        assert errors.columnWidth(column) >= errors.fontMetrics().horizontalAdvance(text), text
