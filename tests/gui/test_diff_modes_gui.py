"""The diff mode switch, the Diff tab's JSON-by-pointer view, the Changes tab, and the status
bar's wording (the core's verdict, never the GUI's)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QPlainTextEdit

from inspector.core.decision import Outcome, decide_pair
from inspector.core.diff import diff_results
from inspector.core.formats import load_path
from inspector.core.gate import gate_transcript
from inspector.gui import qt_app, qt_palette
from inspector.gui.json_diff import compare_pair, follow_key_order, locate_nearest, word_spans
from inspector.gui.qt_changes import KindRole, PairRole
from inspector.gui.qt_main_window import Tab
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_B

RENAMED = SAMPLES / "diff" / "renamed-call-ids"
LEFT, RIGHT = RENAMED / "left.json", RENAMED / "right.json"


def _core_verdict(left: Path, right: Path, mode: str):
    return decide_pair(
        diff_results(gate_transcript(load_path(left)), gate_transcript(load_path(right)), mode=mode)
    )


def _text_colour(window):
    return window.decision_label.palette().color(QPalette.ColorRole.WindowText)


def _icon_is(window, swatch) -> bool:
    return window.decision_icon.pixmap().toImage() == qt_palette.pixmap(swatch.icon, 16).toImage()


# ---- the mode switch and the status bar ----------------------------------------------------


def test_the_mode_switch_sits_next_to_aligned_mode(window):
    actions = window.toolbar.actions()
    at = actions.index(window.aligned_action)
    replay, compare = window.mode_switch.actions.values()
    assert actions[at + 1 : at + 3] == [replay, compare]
    assert replay.isChecked() and not compare.isChecked()
    assert window.session.mode == "replay"


def test_replay_mode_calls_renamed_ids_unsafe_and_compare_mode_safe(window):
    window.open_pair(str(LEFT), str(RIGHT))
    text = window.decision_label.text()
    assert text.startswith("Replay UNSAFE: ")
    assert "call_id changed from 'call_eu' to 'call_0b7f3e21'" in text
    assert _icon_is(window, qt_palette.severity_swatch("error"))
    assert _text_colour(window) == qt_palette.severity_swatch("error").foreground.color()

    window.mode_switch.actions["compare"].trigger()  # the toolbar button
    assert window.session.mode == "compare"
    assert window.alignment.diff.mode == "compare"
    verdict = _core_verdict(LEFT, RIGHT, "compare")
    assert verdict.outcome == Outcome.EQUIVALENT
    assert window.decision_label.text().startswith(verdict.status_line() + "   (compare mode")
    assert window.decision_label.text().startswith("Equivalent")
    assert _icon_is(window, qt_palette.verdict_swatch("ok"))
    assert _text_colour(window) == window.statusBar().palette().color(QPalette.ColorRole.WindowText)
    # The Changes tab lists the renamings, every one an info change.
    assert dict(window.changes_panel.rows()) == {
        "arguments_reformatted": 3,
        "call_id_renamed": 6,
        "calls_reordered": 4,
    }

    window.set_mode("replay")
    assert window.mode_switch.actions["replay"].isChecked()
    assert window.decision_label.text().startswith("Replay UNSAFE: ")


def test_agreeing_sides_whose_right_side_blocks_are_not_called_safe(window):
    window.open_pair(str(PROVIDER_B), str(PROVIDER_B))  # no tools: its calls block
    verdict = _core_verdict(PROVIDER_B, PROVIDER_B, "replay")
    # The right side blocks on its own: the pair is unsafe, in the window as in the CLI.
    assert verdict.outcome == Outcome.UNSAFE
    text = window.decision_label.text()
    assert text.startswith("Replay UNSAFE: right side: 2 of 9 items block a replay")
    assert text.startswith(verdict.status_line())
    error = qt_palette.severity_swatch("error")
    assert _icon_is(window, error)
    assert _text_colour(window) == error.foreground.color()


def test_the_status_line_opens_the_changes_tab(window, qtbot):
    window.open_pair(str(LEFT), str(RIGHT))
    window.show()
    window.tabs.setCurrentIndex(Tab.ITEM)
    qtbot.mouseClick(window.decision_label, Qt.MouseButton.LeftButton)
    assert window.tabs.currentIndex() == Tab.CHANGES
    assert "Click to list" in window.decision_label.toolTip()


def test_the_launcher_takes_a_mode_and_a_target(tmp_path):
    png = tmp_path / "shot.png"
    status = qt_app.main(
        [str(LEFT), str(RIGHT), "--mode", "compare", "--target", "mistral",
         "--screenshot", str(png), "--size", "900x600"]
    )  # fmt: skip
    assert status == 0 and png.stat().st_size > 0
    assert qt_app.main(["--target", "no-such-provider"]) == 2


# ---- the Changes tab ----------------------------------------------------------------------


def test_the_changes_tab_groups_every_change_and_reason_by_code(window):
    window.open_pair(str(LEFT), str(RIGHT))
    diff = window.alignment.diff
    groups = diff.changes_by_code()
    panel = window.changes_panel
    assert panel.rows() == [(g.code, g.count) for g in groups]
    assert panel.rows()[0][0] == "call_id_changed"  # errors first
    model = panel.model
    for row, group in enumerate(groups):
        head = model.index(row, 0)
        kinds = [model.index(n, 0, head).data(KindRole) for n in range(model.rowCount(head))]
        assert kinds.count("reason") == len(group.reasons)
        # Every change of the code is listed, each with the pair it is in.
        changes = [c for p in diff.pairs for c in p.changes if c.code == group.code]
        assert kinds.count("change") == len(changes) == group.count - kinds.count("document")
        pairs = {
            model.index(n, 0, head).data(PairRole)
            for n in range(model.rowCount(head))
            if kinds[n] == "change"
        }
        assert pairs == set(group.pairs)
    reasons = [
        model.index(n, 4, model.index(r, 0)).data()
        for r in range(model.rowCount())
        for n in range(model.rowCount(model.index(r, 0)))
        if model.index(n, 0, model.index(r, 0)).data(KindRole) == "reason"
    ]
    assert sorted(reasons) == sorted(diff.reasons)


def test_the_changes_model_is_a_sound_item_model(window, qtmodeltester):
    window.open_pair(str(LEFT), str(RIGHT))
    qtmodeltester.check(window.changes_panel.model)
    window.changes_panel.set_diff(None)
    qtmodeltester.check(window.changes_panel.model)


def test_clicking_a_change_selects_its_pair(window, qtbot):
    window.open_pair(str(LEFT), str(RIGHT))
    window.show()
    window.tabs.setCurrentIndex(Tab.CHANGES)
    panel = window.changes_panel
    model = panel.model
    head = next(
        model.index(r, 0)
        for r in range(model.rowCount())
        if model.index(r, 0).data() == "only_right"
    )
    change = model.index(0, 0, head)
    number = change.data(PairRole)
    pair = window.alignment.diff.pairs[number]
    assert pair.left is None and pair.right is not None
    with qtbot.waitSignal(panel.pair_activated):
        panel.view.clicked.emit(change)
    assert window.right.current_item() == pair.right
    assert window.tabs.currentIndex() == Tab.CHANGES  # the list stays in view
    # A code's own row goes to its first pair.
    reason_head = model.index(0, 0)
    panel.view.clicked.emit(reason_head)
    first = window.alignment.diff.pairs[reason_head.data(PairRole)]
    assert window.left.current_item() == first.left


# ---- the Diff tab -------------------------------------------------------------------------


def _reordered(path: Path, folder: Path) -> Path:
    """The file with every item's keys in reverse order (the same JSON values)."""
    data = json.loads(path.read_text())
    data["input"] = [dict(reversed(list(item.items()))) for item in data["input"]]
    out = folder / "reordered.json"
    out.write_text(json.dumps(data, indent=1))
    return out


def _marked(view: QPlainTextEdit) -> list[str]:
    return [s.cursor.selectedText() for s in view.extraSelections()]


def test_a_key_order_change_marks_nothing(window, tmp_path):
    window.open_pair(str(LEFT), str(_reordered(LEFT, tmp_path)))
    assert window.alignment.diff.replay_safe
    panel = window.diff_panel
    for item in range(len(window.results["left"].transcript.items)):
        window.select("left", item)
        assert panel.changes.rowCount() == 0
        assert panel.marked == 0
        assert not _marked(panel.left.view) and not _marked(panel.right.view)
        # Shown in the left's key order, both texts read the same.
        assert panel.left.view.toPlainText() == panel.right.view.toPlainText()


def test_the_diff_tab_marks_changed_words_and_never_the_id(window):
    window.open_pair(str(LEFT), str(RIGHT))
    window.select("left", 1)  # call_eu / emea on the left, call_0b7f3e21 / amer on the right
    panel = window.diff_panel
    ltext, rtext = panel.left.view.toPlainText(), panel.right.view.toPlainText()
    assert '"id": "fc_a1"' in ltext and '"id": "fc_b7"' in rtext
    assert _marked(panel.left.view) == ["call_eu", "emea"]
    assert _marked(panel.right.view) == ["call_0b7f3e21", "amer"]
    assert panel.left.view.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    assert panel.right.view.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    # Every change is in the table; a change inside the arguments selects the arguments.
    pair = window.alignment.pair_of("left", 1)
    assert [r.payload for r in panel.changes.records()] == list(pair.changes)
    row = next(n for n, c in enumerate(pair.changes) if c.pointer.startswith("/arguments/"))
    panel.changes_view.selectRow(row)
    assert panel.right.view.textCursor().selectedText() == '"{\\"region\\": \\"amer\\"}"'


def test_the_changes_table_is_resizable(window):
    window.open_pair(str(LEFT), str(RIGHT))
    window.resize(1200, 900)
    window.show()
    window.tabs.setCurrentIndex(Tab.DIFF)
    window.select("left", 1)
    window.settle()
    split = window.diff_panel.splitter
    assert split.indexOf(window.diff_panel.changes_view) == 0
    before = window.diff_panel.changes_view.height()
    total = sum(split.sizes())
    split.setSizes([total - 120, 120])
    window.settle()
    assert window.diff_panel.changes_view.height() > before


def test_compare_pair_by_pointer_without_qt():
    left = {"type": "message", "id": "a", "content": "AMER grew 4.4% in Q3", "n": 1}
    right = {"n": 1.0, "content": "EMEA grew 4.4% in Q3", "id": "b", "type": "message"}
    shown = follow_key_order(right, left)
    assert list(shown) == list(left)
    ltext, rtext = json.dumps(left, indent=2), json.dumps(shown, indent=2)
    marks = compare_pair(left, right, ltext, rtext, ())
    assert marks.pointers == ("/content",)  # not /id, not /n (1 equals 1.0)
    assert [ltext[m.start : m.end] for m in marks.left] == ["AMER"]
    assert [rtext[m.start : m.end] for m in marks.right] == ["EMEA"]
    assert all(m.word for m in marks.left)
    # A member on one side only is marked with its key.
    extra = {**left, "extra": [1]}
    etext = json.dumps(extra, indent=2)
    marks = compare_pair(left, extra, ltext, etext, ())
    assert [etext[m.start : m.end] for m in marks.right] == ['"extra": [\n    1\n  ]']
    assert not marks.left


def test_word_spans_and_nearest_pointer():
    ours, theirs = word_spans('"the quick fox"', '"the slow fox"')
    assert [('"the quick fox"'[a:b]) for a, b in ours] == ["quick"]
    assert [('"the slow fox"'[a:b]) for a, b in theirs] == ["slow"]
    text = json.dumps({"arguments": '{"region": "emea"}', "a": {"b": 1}}, indent=2)
    span = locate_nearest(text, "/arguments/region")  # parsed arguments: the string holds it
    assert span is not None and text[span[0] : span[1]].startswith('"{')
    assert locate_nearest(text, "/a/missing") == locate_nearest(text, "/a")
