"""The Findings tab at scale (filter, group, Enter), tab badges, Scratch's detail pane."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from inspector.core.targets import TargetFinding
from inspector.gui.qt_main_window import Tab
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_A

GAP = SAMPLES / "streams" / "sequence-gap-duplicate.sse"


def _rows(panel) -> list:
    return [r.payload for r in panel.model.records()]


def _targets(result) -> list[TargetFinding]:
    return [f for f in result.findings if isinstance(f, TargetFinding)]


def test_enter_on_a_finding_selects_its_items(pair_window, qtbot):
    window = pair_window
    window.show()
    window.tabs.setCurrentIndex(Tab.FINDINGS)
    panel = window.findings_panel
    row = next(n for n, (side, _f) in enumerate(_rows(panel)) if side == "right")
    side, finding = _rows(panel)[row]
    panel.view.setFocus()
    panel.view.selectRow(row)
    with qtbot.waitSignal(panel.activated) as blocker:
        qtbot.keyClick(panel.view, Qt.Key.Key_Return)
    assert blocker.args == [side, list(finding.items)]
    assert window.panes[side].current_item() == finding.items[0]
    assert window.tabs.currentIndex() == Tab.ITEM


def test_findings_filter_by_text_code_severity_and_side(pair_window, qtbot):
    window = pair_window
    window.set_target("mistral")
    panel = window.findings_panel
    everything = _rows(panel)
    assert {s for s, _f in everything} == {"left", "right"}
    panel.side_combo.setCurrentIndex(panel.side_combo.findData("right"))
    assert {s for s, _f in _rows(panel)} == {"right"}
    panel.code_combo.setCurrentIndex(panel.code_combo.findData("target_call_id"))
    shown = _rows(panel)
    right = _targets(window.results["right"])
    assert [f for _s, f in shown] == [f for f in right if f.code == "target_call_id"]
    both = sum(1 for _s, f in everything if f.code == "target_call_id")
    assert panel.code_combo.currentText() == f"target_call_id ({both})"
    assert panel.summary.text().startswith(f"{len(shown)} findings of {len(everything):,}")
    panel.side_combo.setCurrentIndex(0)
    panel.code_combo.setCurrentIndex(0)
    panel.severity_combo.setCurrentIndex(panel.severity_combo.findData("error"))
    assert all(str(f.severity) == "error" for _s, f in _rows(panel))
    panel.severity_combo.setCurrentIndex(0)
    word = right[0].message.split()[-1]
    panel.filter_edit.setText(word.upper())  # any case; matched after a pause in typing
    qtbot.waitUntil(lambda: len(_rows(panel)) < len(everything))
    assert _rows(panel) and all(word in f.message or word in f.code for _s, f in _rows(panel))
    panel.filter_edit.setText("no finding says this")
    qtbot.waitUntil(lambda: _rows(panel) == [])


def test_findings_grouped_by_code_with_counts_open_and_close(pair_window, qtbot):
    window = pair_window
    window.set_target("mistral")
    window.show()
    panel = window.findings_panel
    flat = _rows(panel)
    total = len(flat)
    panel.group_box.setChecked(True)
    model = panel.model
    heads = [r for r in range(model.rowCount()) if model.index(r, 0).data() == ""]
    codes = {model.index(r, 2).data() for r in heads}
    assert "▾ target_call_id" in codes
    head = next(r for r in heads if model.index(r, 2).data() == "▾ target_call_id")
    count = int(model.index(head, 3).data())
    assert count == sum(1 for _s, f in flat if f.code == "target_call_id")
    assert model.rowCount() == total + len(heads)
    panel.view.setFocus()
    panel.view.selectRow(head)
    qtbot.keyClick(panel.view, Qt.Key.Key_Return)  # closes the code
    assert model.index(head, 2).data() == "▸ target_call_id"
    assert model.rowCount() == total + len(heads) - count
    qtbot.keyClick(panel.view, Qt.Key.Key_Return)  # opens it again
    assert model.rowCount() == total + len(heads)


def test_tab_badges_count_findings_stream_violations_and_rejected_tools(pair_window):
    window = pair_window
    tabs = window.tabs
    count = sum(len(r.findings) for r in window.results.values() if r is not None)
    assert tabs.tabText(Tab.FINDINGS) == (f"Findings ({count:,})" if count else "Findings")
    assert tabs.tabText(Tab.STREAM) == "Stream" and tabs.tabText(Tab.TOOLS) == "Tools"
    window.set_target("mistral")
    count = sum(len(r.findings) for r in window.results.values() if r is not None)
    assert tabs.tabText(Tab.FINDINGS) == f"Findings ({count:,})"
    assert not tabs.tabIcon(Tab.FINDINGS).isNull()
    rows = window.tools_panel.matrix.rows
    rejected = sum(1 for r in rows if (v := r.verdicts.get("mistral")) and not v.accepted)
    assert tabs.tabText(Tab.TOOLS) == (f"Tools ({rejected})" if rejected else "Tools")
    window.set_target(None)
    assert tabs.tabText(Tab.TOOLS) == "Tools"
    window.open_file("right", str(GAP))
    assert tabs.tabText(Tab.STREAM) == "Stream (2)"


def test_scratch_shows_the_selected_item_s_verdict_reason_and_errors(pair_window, qtbot):
    window = pair_window
    scratch = window.scratch_panel
    items = json.loads(PROVIDER_A.read_text(encoding="utf-8"))
    items = items["output"] if isinstance(items, dict) and "output" in items else items
    call = {
        "type": "function_call", "call_id": "c1", "name": "get_latest_sales_report",
        "arguments": '{"region": "mars"}', "status": "completed",
    }  # fmt: skip
    window.paste(json.dumps([{"role": "user", "content": "hi"}, call]))
    assert window.tabs.currentIndex() == Tab.SCRATCH
    qtbot.waitUntil(lambda: scratch.result is not None, timeout=5000)
    scratch.tree.setCurrentIndex(scratch.model.index(1, 0))
    verdict = scratch.result.verdicts[1]
    assert scratch.item_banner.verdict_text == "arguments_schema" == str(verdict.verdict)
    assert scratch.reason.text() == verdict.detail  # in full, not only in a tooltip
    assert scratch.issues.rowCount() == len(verdict.errors) > 0
    assert scratch.issues.index(0, 0).data() == verdict.errors[0].path
    assert scratch.open_item_button.isEnabled()
    scratch.open_item_button.click()
    panel = window.arguments_panel
    assert window.tabs.currentIndex() == Tab.ARGUMENTS
    assert json.loads(panel.editor.toPlainText()) == {"region": "mars"}
    assert panel.verdict == verdict.verdict
    scratch.tree.setCurrentIndex(scratch.model.index(0, 0))
    assert scratch.item_banner.verdict_text == "not_function_call"
    assert scratch.issues_view.isHidden()


def test_the_item_tab_wraps_a_long_string(window, qtbot, tmp_path):
    words = " ".join(f"word{n}" for n in range(400))
    path = tmp_path / "long.json"
    path.write_text(json.dumps([{"role": "user", "content": words}]), encoding="utf-8")
    window.resize(1100, 700)
    window.show()
    qtbot.waitExposed(window)
    window.open_file("left", str(path))
    window.select("left", 0)
    window.tabs.setCurrentIndex(Tab.ITEM)
    view = window.item_panel.view
    qtbot.waitUntil(lambda: view.toPlainText() != "")
    window.settle()
    assert words[:200] in view.toPlainText().replace("\n", " ")
    assert view.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways to
