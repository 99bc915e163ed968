"""The target selector, target findings in the Findings tab, and the Tools tab's matrix."""

from __future__ import annotations

import io
import json

import pytest
from PySide6.QtCore import Qt

from inspector.cli import run
from inspector.core.targets import TargetFinding, get_profile, profile_names
from inspector.gui.qt_main_window import Tab
from inspector.gui.qt_records import PayloadRole
from inspector.gui.qt_session import Session
from tests.conftest import SAMPLES
from tests.gui.conftest import ARTICLE, PROVIDER_A, PROVIDER_B, REGION_TOOLS, SALES_TOOLS

RENAMED_LEFT = SAMPLES / "diff" / "renamed-call-ids" / "left.json"
RENAMED_RIGHT = SAMPLES / "diff" / "renamed-call-ids" / "right.json"


def _targets_found(result) -> list[TargetFinding]:
    return [f for f in result.findings if isinstance(f, TargetFinding)]


def _choose(window, name: str | None) -> None:
    """Pick a target the way a person does: in the toolbar's combo box."""
    combo = window.target_selector
    combo.showPopup()
    combo.setCurrentIndex(combo.findData(name) if name is not None else 0)
    combo.hidePopup()


def test_the_selector_lists_every_profile_and_starts_with_none(window):
    combo = window.target_selector
    assert combo.currentText() == "No target" and combo.target is None
    # The profiles are loaded when the list is first opened (not while the window starts).
    assert combo.count() == 1
    combo.showPopup()
    assert [combo.itemData(n) for n in range(1, combo.count())] == profile_names()
    combo.hidePopup()
    assert combo.parent() is window.toolbar or window.toolbar.isAncestorOf(combo)


def test_a_target_rejudges_both_panes(window):
    window.open_pair(str(RENAMED_LEFT), str(RENAMED_RIGHT))
    window.set_mode("compare")  # two runs of one session: equivalent, nothing blocks
    before = {side: window.results[side] for side in ("left", "right")}
    assert not any(_targets_found(r) for r in before.values())
    assert window.decision_label.text().startswith("Equivalent: informational changes only")
    _choose(window, "mistral")
    assert window.session.target_name == "mistral"
    for side in ("left", "right"):
        result = window.results[side]
        found = _targets_found(result)
        assert found and {f.code for f in found} == {"target_call_id"}
        assert all(f.target == "mistral" and f.source for f in found)
        # The gate's own verdicts and findings stay; the target's come on top.
        assert result.verdicts == before[side].verdicts
        assert result.findings[: len(before[side].findings)] == before[side].findings
    # The Findings tab lists them, for both sides.
    rows = [r.payload for r in window.findings_panel.model.records()]
    listed = {(side, f.code) for side, f in rows}
    assert {("left", "target_call_id"), ("right", "target_call_id")} <= listed
    # The core's decision lists them per side: the runs are still equivalent, but the right
    # side would not replay to the target on its own.
    text = window.decision_label.text()
    assert text.startswith("Equivalent: informational changes only — ")
    assert "right side on its own: replay unsafe (target_call_id: " in text
    decision = window.alignment.decision
    assert decision.outcome == "equivalent" and not decision.replay_safe
    _choose(window, None)
    assert not any(_targets_found(window.results[s]) for s in ("left", "right"))
    assert window.decision_label.text().startswith("Equivalent: informational changes only")


def test_mistral_blocks_the_article_in_the_status_bar(article_window):
    window = article_window
    text = window.decision_label.text()
    assert text.startswith("items.json: Replay UNSAFE: 2 of 4 items block a replay (")
    window.set_target("mistral")
    assert window.target_selector.currentText() == "mistral"
    assert window.decision_label.text().startswith(
        "items.json: Replay UNSAFE: 2 of 4 items block a replay (verdicts: namespaced 1, "
        "arguments_schema 1) (+1 more)"
    )
    # The same answer as `gate --target mistral` gives.
    out, err = io.StringIO(), io.StringIO()
    status = run(
        ["gate", str(ARTICLE), "--tools", str(REGION_TOOLS), "--target", "mistral",
         "--format", "json"],
        out, err,
    )  # fmt: skip
    assert status == 1
    cli = [f for f in json.loads(out.getvalue())["files"][0]["findings"] if "target" in f]
    shown = [f.to_json() for f in _targets_found(window.results["left"])]
    assert shown == cli


def test_a_target_finding_shows_its_rule_and_sources(article_window):
    window = article_window
    window.set_target("mistral")
    panel = window.findings_panel
    rows = [r.payload for r in panel.model.records()]
    row = next(n for n, (_side, f) in enumerate(rows) if isinstance(f, TargetFinding))
    finding = rows[row][1]
    tip = panel.model.index(row, 4).data(Qt.ItemDataRole.ToolTipRole)
    assert finding.rule in tip and "source:" in tip
    assert panel.rule.isHidden()
    panel.view.selectRow(row)
    assert not panel.rule.isHidden()
    assert panel.rule.text().startswith(f"mistral rule {finding.rule}")
    assert f"source: {finding.source}" in panel.rule.text()
    assert panel.rule.sources and all(u.startswith("https://") for u in panel.rule.sources)
    links = [a.text() for a in panel.rule.open_button.menu().actions()]
    assert links == panel.rule.sources
    other = next(n for n, (_s, f) in enumerate(rows) if not isinstance(f, TargetFinding))
    panel.view.selectRow(other)
    assert panel.rule.isHidden()


def test_a_target_chosen_during_a_load_judges_the_file_when_it_arrives(qtbot):
    session = Session(synchronous=False)
    try:
        session.open("left", str(ARTICLE))
        session.set_target(get_profile("anthropic"))  # while the load runs
        qtbot.waitUntil(lambda: session.files["left"] is not None, timeout=60_000)
        qtbot.waitUntil(lambda: not session.runner.busy("left"), timeout=60_000)
        assert session.files["left"].target == "anthropic"
    finally:
        session.runner.wait()


# ---- the Tools tab ------------------------------------------------------------------------


def _cli_matrix() -> dict[str, dict[str, dict]]:
    out, err = io.StringIO(), io.StringIO()
    run(["tools", str(SALES_TOOLS), "--format", "json"], out, err)
    return {t["name"]: t["targets"] for t in json.loads(out.getvalue())["tools"]}


def test_the_tools_tab_shows_the_matrix_of_the_tools_command(pair_window):
    window = pair_window
    assert window.tabs.tabText(Tab.TOOLS) == "Tools"
    panel = window.tools_panel
    model = panel.matrix
    cli = _cli_matrix()
    assert [r.name for r in model.rows] == sorted(cli)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Tool", "left calls", "right calls", *profile_names()]
    for row, tool in enumerate(model.rows):
        for target, verdict in cli[tool.name].items():
            cell = model.index(row, model.column_of(target)).data()
            if not verdict["accepted"]:
                assert cell == "✗"
            else:
                assert cell == ("~" if verdict["altered"] else "✓")
    assert "3 tool definitions × 10 targets" in panel.summary.text()


def test_a_cell_lists_its_problems_and_marks_them_in_the_schema(pair_window):
    window = pair_window
    panel = window.tools_panel
    model = panel.matrix
    row = [r.name for r in model.rows].index("search_web")
    panel.select_cell(row, model.column_of("openai"))
    problems = [
        panel.problems.index(n, 0).data(PayloadRole) for n in range(panel.problems.rowCount())
    ]
    expected = _cli_matrix()["search_web"]["openai"]["problems"]
    assert [(p.code, p.pointer, p.rule.id) for p in problems] == [
        (p["code"], p["pointer"], p["rule"]) for p in expected
    ]
    assert panel.cell_title.text().startswith("search_web × openai: ✗ rejected")
    schema = panel.schema_view
    assert '"minLength": 3' in schema.toPlainText()
    # The first problem is selected: its value is selected and marked in the schema.
    assert problems[0].pointer == "/properties/query/minLength"
    assert schema.textCursor().selectedText() == "3"
    marked = {s.cursor.selectedText() for s in schema.extraSelections()}
    assert "3" in marked
    assert any(text.startswith("[") and "query" in text for text in marked)  # /required
    panel.problems_view.selectRow(1)
    assert problems[1].pointer == "/required"
    assert schema.textCursor().selectedText().startswith("[")
    assert panel.rule.text().startswith(f"openai rule {problems[1].rule.id} — /required")


def test_a_problem_about_a_nested_object_selects_that_object(window, tmp_path):
    tools = tmp_path / "strict.tools.json"
    nested = {"type": "object", "properties": {"x": {"type": "string"}}}
    tools.write_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "name": "lookup",
                    "strict": True,
                    "parameters": {"type": "object", "properties": {"q": nested}},
                }
            ]
        )
    )
    window.load_tool_file(str(tools))
    panel = window.tools_panel
    panel.select_cell(0, panel.matrix.column_of("openai"))
    problems = [
        panel.problems.index(n, 0).data(PayloadRole) for n in range(panel.problems.rowCount())
    ]
    assert {p.pointer for p in problems} == {"", "/properties/q"}
    row = next(n for n, p in enumerate(problems) if p.pointer == "/properties/q")
    panel.problems_view.selectRow(row)
    selected = panel.schema_view.textCursor().selectedText()
    assert json.loads(selected.replace("\u2029", "\n")) == nested  # the object, whole
    root = next(n for n, p in enumerate(problems) if p.pointer == "")
    panel.problems_view.selectRow(root)
    assert panel.schema_view.textCursor().selectedText().startswith("{")
    assert "(schema root)" in panel.rule.text()


def test_the_tools_tab_counts_each_tools_calls_by_verdict(pair_window):
    window = pair_window
    model = window.tools_panel.matrix
    rows = {r.name: r for r in model.rows}
    for side in ("left", "right"):
        result = window.results[side]
        for name, row in rows.items():
            expected: dict[str, int] = {}
            for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
                if item.name == name and item.type == "function_call":
                    expected[str(verdict.verdict)] = expected.get(str(verdict.verdict), 0) + 1
            assert {str(v): n for v, n in row.calls.get(side, {}).items()} == expected
    assert rows["get_latest_sales_report"].call_text("left") == "1 arguments_schema, 1 ok"
    column = 1  # left calls
    cell = model.index(list(rows).index("search_web"), column)
    assert cell.data() == "1 ok"
    assert cell.data(Qt.ItemDataRole.DecorationRole) is not None


def test_the_chosen_target_column_is_marked_and_selected(pair_window):
    window = pair_window
    window.set_target("gemini")
    panel = window.tools_panel
    model = panel.matrix
    column = model.column_of("gemini")
    assert model.current == "gemini"
    assert model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.FontRole).bold()
    assert panel.matrix_view.currentIndex().column() == column
    assert panel.problems.rowCount() > 0


def test_a_called_tool_without_definition_has_a_row_without_verdicts(window):
    window.open_file("left", str(ARTICLE))  # no tools file: the article carries none
    model = window.tools_panel.matrix
    assert [r.name for r in model.rows] == ["get_latest_sales_report"]
    row = model.rows[0]
    assert row.tool is None and row.call_text("left") == "2 unknown_tool"
    assert model.index(0, model.column_of("openai")).data() == "—"
    window.tools_panel.select_cell(0, model.column_of("openai"))
    assert "no definition" in window.tools_panel.schema_title.text()


@pytest.mark.parametrize("target", ["openai", "anthropic"])
def test_the_clean_sample_pair_gets_no_target_finding_for_its_calls(window, target):
    # provider-a's calls use ids the targets accept; only its tools may be judged.
    window.load_tool_file(str(SALES_TOOLS), regate=False)
    window.open_pair(str(PROVIDER_A), str(PROVIDER_B))
    window.set_target(target)
    codes = {f.code for f in _targets_found(window.results["left"])}
    assert "target_call_id" not in codes


def test_hostile_names_stay_plain_text_with_a_target(make_window, tmp_path):
    from tests.gui.test_safety import LINK, _hostile_files, _shown_texts, _visit_tabs

    files = _hostile_files(tmp_path)
    window = make_window()
    window.show()
    window.load_tool_file(str(files["tools"]), regate=False)
    window.open_pair(str(files["left"]), str(files["right"]))
    window.set_target("openai")  # the tool named like a link breaks openai's name rule
    panel = window.tools_panel
    names = [r.name for r in panel.matrix.rows]
    assert LINK in names
    panel.select_cell(names.index(LINK), panel.matrix.column_of("openai"))
    assert panel.problems.rowCount() > 0 and not panel.rule.isHidden()
    findings = window.findings_panel
    rows = [r.payload for r in findings.model.records()]
    target_row = next(n for n, (_s, f) in enumerate(rows) if isinstance(f, TargetFinding))
    findings.view.selectRow(target_row)
    assert not findings.rule.isHidden()
    _visit_tabs(window)
    shown = "\n".join(_shown_texts(window))  # asserts every label is plain text
    assert LINK in shown


def test_the_threaded_window_judges_both_sides_for_a_target_chosen_while_loading(
    make_window, qtbot
):
    window = make_window(synchronous=False)
    window.open_pair(str(RENAMED_LEFT), str(RENAMED_RIGHT))
    window.set_target("mistral")  # the loads are still running
    window.set_mode("compare")

    def settled() -> bool:
        session = window.session
        return (
            window.alignment is not None
            and not any(session.runner.busy(c) for c in ("left", "right", "diff", "tools"))
            and all(x is not None and x.target == "mistral" for x in session.files.values())
        )

    qtbot.waitUntil(settled, timeout=60_000)
    assert all(_targets_found(window.results[s]) for s in ("left", "right"))
    assert window.alignment.diff.mode == "compare"
    text = window.decision_label.text()
    assert text.startswith("Equivalent: informational changes only — ")
    assert "side on its own: replay unsafe (target_call_id: " in text
    assert window.tools_panel.matrix.current == "mistral"
    assert window.tools_panel.matrix.rows
