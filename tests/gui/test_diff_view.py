"""The Diff tab read like a diff tool: the texts scroll together, a pair opens at its first
change, a chosen change comes into view on both sides, the marks stand out in both palettes,
the change table shares its width, and F8 says when it wraps."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QStyleFactory

from inspector.gui import qt_palette
from inspector.gui.json_diff import LineMap
from inspector.gui.qt_main_window import Tab
from inspector.resources import palette_data
from tests.gui.test_resources import contrast


def _parts(texts):
    return [{"type": "input_text", "text": t} for t in texts]


@pytest.fixture
def long_pair(tmp_path):
    """One long message on each side: the right has five parts more in the middle and one
    part reworded near the end."""
    texts = [f"part number {i} of the report" for i in range(60)]
    extra = [f"an inserted remark {i}" for i in range(5)]
    right_texts = texts[:20] + extra + texts[20:]
    right_texts[-5] = "part number 55 of the revised report"
    left = [{"type": "message", "role": "user", "id": "m1", "content": _parts(texts)}]
    right = [{"type": "message", "role": "user", "id": "m2", "content": _parts(right_texts)}]
    paths = tmp_path / "left.json", tmp_path / "right.json"
    for path, value in zip(paths, (left, right), strict=True):
        path.write_text(json.dumps(value))
    return paths


@pytest.fixture
def diff_window(make_window, long_pair):
    window = make_window()
    window.resize(1100, 700)
    window.show()
    window.open_pair(*(str(p) for p in long_pair))
    window.tabs.setCurrentIndex(Tab.DIFF)
    window.select("left", 0)
    window.settle()
    return window


def _visible_lines(view) -> range:
    rect = view.viewport().rect()
    top = view.cursorForPosition(rect.topLeft()).blockNumber()
    bottom = view.cursorForPosition(QPoint(0, rect.bottom())).blockNumber()
    return range(top, bottom + 1)


def _line_of(view, position: int) -> int:
    return view.document().findBlock(position).blockNumber()


def _line_text(view, line: int) -> str:
    return view.document().findBlockByNumber(line).text()


def test_the_two_texts_scroll_together_line_beside_line(diff_window):
    panel = diff_window.diff_panel
    left, right = panel.left.view, panel.right.view
    assert left.verticalScrollBar().maximum() > 0  # the texts are longer than the views
    # Before the inserted parts, and after them: the same line stands at the top of both.
    for line in (8, 150):
        left.scroll_to_line(line)
        assert left.top_line() == line
        assert right.top_line() == panel.lines.to_right(line)
        assert _line_text(right, right.top_line()) == _line_text(left, line)
    right.scroll_to_line(40)
    assert left.top_line() == panel.lines.to_left(40)
    assert _line_text(left, left.top_line()) == _line_text(right, 40)
    # Inside the inserted parts the left waits at the line before them, where they go.
    inserted = next(n for n in range(right.blockCount()) if "inserted" in _line_text(right, n))
    right.scroll_to_line(inserted + 8)
    assert abs(left.top_line() - panel.lines.to_left(inserted)) <= 1


def test_a_pair_opens_at_its_first_change_on_both_sides(diff_window):
    panel = diff_window.diff_panel
    for side in (panel.left, panel.right):
        marks = [s.cursor.selectionStart() for s in side.view.extraSelections()]
        assert marks
        first = _line_of(side.view, min(marks))
        assert first > 40  # far below the first screenful
        assert first in _visible_lines(side.view)


def test_choosing_a_change_brings_it_into_view_on_both_sides(diff_window):
    panel = diff_window.diff_panel
    left, right = panel.left.view, panel.right.view
    last = panel.changes.rowCount() - 1
    change = panel.changes.record(last).payload
    left.scroll_to_line(0)
    panel.changes_view.selectRow(last)
    for view in (left, right):
        cursor = view.textCursor()
        assert cursor.hasSelection()
        assert _line_of(view, cursor.selectionStart()) in _visible_lines(view), change.pointer


def test_the_line_map_follows_inserted_and_replaced_runs():
    left = "a\nb\nc\nd\ne"
    right = "a\nx\ny\nz\nw\ne"
    lines = LineMap.of(left, right)
    assert [lines.to_right(n) for n in range(5)] == [0, 1, 2, 3, 5]
    assert [lines.to_left(n) for n in range(6)] == [0, 1, 1, 2, 3, 4]
    # A trailing comma is not a difference: the last member of an object has none.
    assert LineMap.of('  "a": 1,\n  "b": 2', '  "a": 1\n').to_right(0) == 0


BASES = {
    "light": QStyleFactory.create("Fusion")
    .standardPalette()
    .color(qt_palette.QPalette.ColorRole.Base),
    "dark": palette_data()["dark_palette"]["Base"],
}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_marks_stand_out_3_to_1_and_their_text_reads_4_5_to_1(theme):
    base = BASES[theme]
    base = base if isinstance(base, str) else base.name()
    marks = {k: v for k, v in palette_data()["marks"].items() if k != "about"}
    assert set(marks) == {"major", "minor"}
    for level, entry in marks.items():
        colours = entry[theme]
        assert contrast(colours["bg"], base) >= 3.0, (level, theme)
        assert contrast(colours["fg"], colours["bg"]) >= 4.5, (level, theme)


def test_the_panel_paints_the_palette_marks(diff_window):
    panel = diff_window.diff_panel
    painted = {s.format.background().color().name() for s in panel.right.view.extraSelections()}
    minor = qt_palette.mark(qt_palette.ChangeLevel.MINOR)
    assert minor is not None and minor.background.color().name() in painted


def test_the_change_table_splits_left_and_right_evenly_and_wraps(diff_window):
    view = diff_window.diff_panel.changes_view
    header = view.horizontalHeader()
    assert abs(header.sectionSize(3) - header.sectionSize(4)) <= 1
    assert header.sectionSize(3) > header.sectionSize(2) // 2
    assert view.wordWrap()
    total = sum(header.sectionSize(c) for c in range(5))
    assert total <= view.viewport().width() + 1


def test_f8_and_shift_f8_say_when_they_wrap(pair_window):
    window = pair_window
    window.show()
    changed = window.alignment.changed
    assert len(changed) > 1
    last = window.alignment.diff.pairs[changed[-1]]
    side = "left" if last.left is not None else "right"
    window.select(side, last.left if side == "left" else last.right)
    window.statusBar().clearMessage()
    assert window.next_diff_action.shortcut().toString() == "F8"
    window.next_diff_action.trigger()
    assert window._current_position() == changed[0]
    assert "back at the first" in window.statusBar().currentMessage()
    window.statusBar().clearMessage()
    window.next_diff_action.trigger()
    assert window._current_position() == changed[1]
    assert window.statusBar().currentMessage() == ""  # no wrap, nothing said
    window.select(side, window.alignment.diff.pairs[changed[0]].left or 0)
    window.prev_diff_action.trigger()
    assert window._current_position() == changed[-1]
    assert "back at the last" in window.statusBar().currentMessage()
