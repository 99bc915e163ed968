"""Linked selection, aligned scrolling, difference and problem navigation, filters, status."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_pane import fill_column_menu
from inspector.gui.qt_transcript_model import Column, IndexRole
from tests.gui.conftest import PROVIDER_A, PROVIDER_B


def test_selecting_a_call_selects_its_counterpart(pair_window):
    window = pair_window
    assert window.select("left", 7)  # call_129 on the left …
    assert window.right.current_item() == 6  # … sits beside call_999 on the right
    assert window.item_panel.origin.text().startswith("#7")
    window.select("right", 3)
    assert window.left.current_item() == 3
    assert window.current_side == "right"
    assert window.item_panel.origin.text().startswith("#3")


def test_an_item_without_counterpart_clears_the_other_side(pair_window):
    window = pair_window
    window.select("right", 3)
    window.select("left", 6)  # the function_call_output that provider B dropped
    assert window.right.current_item() is None
    assert "no counterpart" in window.diff_panel.right.title.text()


def test_next_difference_visits_the_type_change_and_the_call_id_change(pair_window):
    window = pair_window
    window.select("left", 0)
    visited = []
    for _ in range(len(window.alignment.changed)):
        window.next_diff_action.trigger()
        pair = window.alignment.pair_of("left", window.left.current_item())
        visited.append({c.code for c in pair.changes})
    assert any("became_namespaced" in codes for codes in visited)
    assert any("call_id_changed" in codes for codes in visited)
    assert window.tabs.currentIndex() == Tab.DIFF
    listed = {r.payload.code for r in window.diff_panel.changes.records()}
    assert listed == visited[-1]  # the Diff tab lists the selected pair's changes
    window.next_diff_action.trigger()  # wraps around to the first difference
    first = window.alignment.pair_of("left", window.left.current_item())
    assert "became_namespaced" in {c.code for c in first.changes}
    window.prev_diff_action.trigger()
    last = window.alignment.pair_of("left", window.left.current_item())
    assert visited[-1] == {c.code for c in last.changes}


def test_diff_shortcuts_are_f8_and_shift_f8(pair_window):
    assert pair_window.next_diff_action.shortcut().toString() == "F8"
    assert pair_window.prev_diff_action.shortcut().toString() == "Shift+F8"
    assert pair_window.next_problem_action.shortcut().toString() == "F9"
    go = next(m for m in pair_window.menuBar().actions() if m.text() == "&Go").menu()
    assert pair_window.next_diff_action in go.actions()
    assert pair_window.next_problem_action in go.actions()


def test_diff_tab_shows_both_items_and_marks_changed_lines(pair_window):
    window = pair_window
    window.select("left", 7)
    panel = window.diff_panel
    assert '"call_129"' in panel.left.view.toPlainText()
    assert '"call_999"' in panel.right.view.toPlainText()
    assert [r.cells[:3] for r in panel.changes.records()] == [
        ("call_id_changed", "error", "/call_id")
    ]
    assert panel.left.view.extraSelections()  # the call_id line is marked
    panel.changes_view.selectRow(0)
    assert panel.right.view.textCursor().selectedText() == '"call_999"'


def test_next_problem_steps_through_blocking_items(pair_window):
    window = pair_window
    window.select("right", 0)
    window.next_problem_action.trigger()
    assert window.right.current_item() == 5  # openai:web_search_call
    window.next_problem_action.trigger()
    assert window.right.current_item() == 6  # region "global"
    window.next_problem_action.trigger()
    assert window.right.current_item() == 5  # wraps


def test_status_bar_shows_the_replay_decision_and_reasons(pair_window):
    text = pair_window.decision_label.text()
    assert text.startswith("Replay UNSAFE")
    # The line holds the headline (the first reason); the tooltip lists every reason.
    assert "provider-prefixed" in text and "(+3 more)" in text
    assert "call_id changed" in pair_window.decision_label.toolTip()


def test_aligned_mode_scrolls_both_trees_together(pair_window, qtbot):
    window = pair_window
    window.show()
    window.set_aligned(True)
    for tree in (window.left.tree, window.right.tree):
        tree.setFixedHeight(90)
    qtbot.waitUntil(lambda: window.left.tree.verticalScrollBar().maximum() > 0)
    window.left.tree.verticalScrollBar().setValue(3)
    assert window.right.tree.verticalScrollBar().value() == 3
    window.set_aligned(False)
    before = window.right.tree.verticalScrollBar().value()
    window.left.tree.verticalScrollBar().setValue(before + 2)
    assert window.right.tree.verticalScrollBar().value() == before


def test_aligned_mode_expands_the_twin_row(pair_window):
    window = pair_window
    window.set_aligned(True)
    window.left.tree.expand(window.left.tree.model().index(7, 0))
    assert window.right.tree.isExpanded(window.right.tree.model().index(7, 0))


def test_filter_by_verdict_and_text(pair_window, qtbot):
    window = pair_window
    window.set_aligned(False)
    with qtbot.waitSignal(window.left.filter_changed, timeout=60_000):
        window.left.filter_edit.setText("verdict:ok")  # typing is debounced, then filters
    shown = window.left.model
    assert shown.rowCount() == 3
    assert {shown.index(r, Column.VERDICT).data() for r in range(3)} == {"ok"}
    window.left.filter_edit.setText("call_129")
    window.refilter()
    assert window.left.tree.model().rowCount() == 1
    window.left.filter_edit.setText("freight")  # text inside an output, a message, arguments
    window.refilter()
    assert window.left.tree.model().rowCount() == 3
    window.left.filter_edit.clear()
    window.left.verdict_combo.setCurrentIndex(window.left.verdict_combo.findData("namespaced"))
    window.refilter()
    assert window.left.tree.model().rowCount() == 0
    assert window.right.tree.model().rowCount() == 9  # each pane filters on its own


def test_aligned_filter_keeps_pairs_on_the_same_lines(pair_window):
    window = pair_window
    window.set_aligned(True)
    window.right.verdict_combo.setCurrentIndex(window.right.verdict_combo.findData("changed"))
    window.refilter()
    left, right = window.left.tree.model(), window.right.tree.model()
    assert left.rowCount() == right.rowCount() == 4  # the gap beside the dropped output too
    for row in range(4):
        pairs = set()
        for side, model in (("left", left), ("right", right)):
            item = model.index(row, 0).data(IndexRole)
            if item is not None:
                pairs.add(id(window.alignment.pair_of(side, item)))
        assert len(pairs) == 1  # both cells of a line belong to one pair
    window.select("left", 7)
    assert window.right.current_item() == 6


def test_difference_navigation_keeps_the_filter_and_steps_to_shown_pairs(pair_window):
    window = pair_window
    window.set_aligned(False)
    window.left.filter_edit.setText("verdict:ok")
    window.refilter()
    window.select("left", 3)
    window.next_difference()
    assert window.left.filter_edit.text() == "verdict:ok"  # never dropped behind the user's back
    assert window.left.current_item() == 5


def test_difference_navigation_says_when_the_filter_hides_every_pair(pair_window):
    window = pair_window
    window.set_aligned(False)
    for pane in window.panes.values():
        pane.filter_edit.setText("verdict:status")  # no item has it
    window.refilter()
    window.next_difference()
    assert "filter hides" in window.statusBar().currentMessage()
    assert "Esc" in window.statusBar().currentMessage()
    assert all(p.filter_edit.text() == "verdict:status" for p in window.panes.values())
    window.left.filter_edit.setFocus()
    QTest.keyClick(window.left.filter_edit, Qt.Key.Key_Escape)
    assert window.left.filter_edit.text() == ""


def test_findings_double_click_selects_the_items(pair_window, qtbot):
    window = pair_window
    panel = window.findings_panel
    rows = [r.payload for r in panel.model.records()]
    row = next(i for i, (side, f) in enumerate(rows) if side == "right")
    side, finding = rows[row]
    index = panel.model.index(row, 0)
    with qtbot.waitSignal(panel.activated):
        panel.view.doubleClicked.emit(index)
    assert window.panes[side].current_item() == finding.items[0]
    assert window.tabs.currentIndex() == Tab.ITEM
    icon = panel.model.index(row, 1).data(Qt.ItemDataRole.DecorationRole)
    assert icon is not None and not icon.isNull()


def test_swap_sides(pair_window):
    window = pair_window
    window.swap_action.trigger()
    assert window.left.path.endswith("provider-b.json")
    assert window.right.path.endswith("provider-a.json")
    assert window.alignment is not None
    assert window.alignment.diff.left.transcript.path.endswith("provider-b.json")


def test_moving_into_the_other_tree_shows_its_linked_item(pair_window):
    window = pair_window
    window.select("left", 5)
    assert window.item_panel.banner.verdict_text == "ok"
    window.select("right", 5)  # already current there, through the link
    assert window.current_side == "right"
    assert window.item_panel.banner.verdict_text == "namespaced"
    window.show()
    window.left.tree.setFocus()
    window.activateWindow()
    window.settle()
    assert window.current_side == "left"
    assert window.item_panel.banner.verdict_text == "ok"


def test_one_columns_menu_drives_both_panes(pair_window):
    window = pair_window
    menu = QMenu(window)
    fill_column_menu(menu, [p.tree.header() for p in window.panes.values()])
    status = next(a for a in menu.actions() if a.text() == "Status")
    assert not status.isChecked()
    status.trigger()
    assert not window.left.tree.header().isSectionHidden(Column.STATUS)
    assert not window.right.tree.header().isSectionHidden(Column.STATUS)
    assert window.right.model.index(3, Column.STATUS).data() == "completed"


def test_the_first_item_stays_shown_when_the_diff_arrives(window):
    window.open_file("left", str(PROVIDER_A))
    assert window.left.current_item() == 0
    window.open_file("right", str(PROVIDER_B))  # the diff lands and the models reset
    assert window.item_panel.origin.text().startswith("#0")
    assert window.item_panel.banner.verdict_text == "not_function_call"


def test_type_column_fits_the_provider_prefixed_type(pair_window):
    from PySide6.QtGui import QFont, QFontMetrics

    tree = pair_window.right.tree
    bold = QFont(tree.font())
    bold.setBold(True)
    needed = QFontMetrics(bold).horizontalAdvance("openai:web_search_call")
    assert tree.header().sectionSize(Column.TYPE) >= needed
