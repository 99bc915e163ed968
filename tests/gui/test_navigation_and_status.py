"""Where the keys go and what the status line says, tested without widgets (Qt-free modules)."""

from __future__ import annotations

from inspector.core.decision import decide_file
from inspector.core.diff import diff_results
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.gui import navigation, status
from inspector.gui.alignment import Alignment
from tests.gui.conftest import ARTICLE, PROVIDER_A, PROVIDER_B, REGION_TOOLS, SALES_TOOLS


def _pair() -> Alignment:
    tools = load_tools(SALES_TOOLS)
    left = gate_transcript(load_path(PROVIDER_A), tools)
    right = gate_transcript(load_path(PROVIDER_B), tools)
    return Alignment(diff_results(left, right))


def _everything(_side: str, _item: int) -> bool:
    return True


def test_stepping_through_differences_wraps_and_says_so():
    alignment = _pair()
    changed = alignment.changed
    assert len(changed) >= 2
    first = navigation.step_difference(alignment, None, True, _everything)
    assert first is not None and first.position == changed[0] and not first.wrapped
    last = navigation.step_difference(alignment, changed[-1], True, _everything)
    assert last is not None and last.position == changed[0] and last.wrapped
    assert navigation.wrap_words(last, True, "difference", len(changed)) == (
        f"Wrapped past the last difference: back at the first of {len(changed)}"
    )
    back = navigation.step_difference(alignment, changed[0], False, _everything)
    assert back is not None and back.position == changed[-1] and back.wrapped
    assert navigation.wrap_words(first, True, "difference", len(changed)) == ""
    assert navigation.wrap_words(None, True, "problem item", 0) == "No problem item on this side"


def test_a_difference_hidden_on_both_sides_is_skipped():
    alignment = _pair()
    changed = alignment.changed
    hidden = alignment.diff.pairs[changed[0]]
    shown = {("left", hidden.left), ("right", hidden.right)}

    def shows(side: str, item: int) -> bool:
        return (side, item) not in shown

    step = navigation.step_difference(alignment, None, True, shows)
    assert step is not None and step.position == changed[1]
    assert navigation.step_difference(alignment, None, True, lambda _s, _i: False) is None


def test_problems_step_forward_back_and_wrap():
    problems = [2, 5, 9]
    assert navigation.step_problem(problems, None, True).item == 2
    assert navigation.step_problem(problems, 2, True).item == 5
    wrapped = navigation.step_problem(problems, 9, True)
    assert (wrapped.item, wrapped.wrapped) == (2, True)
    assert navigation.step_problem(problems, 5, False).item == 2
    assert navigation.step_problem(problems, 2, False).wrapped
    assert navigation.step_problem([], 3, True) is None


def test_counterpart_is_the_other_side_of_the_pair():
    alignment = _pair()
    pair = next(p for p in alignment.diff.pairs if p.left is not None and p.right is not None)
    found = navigation.counterpart(alignment, "left", pair.left)
    assert (found.side, found.item) == ("right", pair.right)
    assert navigation.counterpart(None, "left", 0) is None
    assert navigation.counterpart(alignment, "left", None) is None


def test_the_status_line_of_a_diff_is_the_core_s_decision():
    alignment = _pair()
    decision = alignment.decision
    right = alignment.diff.right
    answer = decide_file(right, name="provider-b.json")
    sides = [status.Side("provider-b.json", answer, right.summary())]
    line = status.diff_status(decision, len(alignment.changed), sides)
    assert line.text.startswith(decision.status_line())
    assert decision.headline.startswith("Replay UNSAFE")
    assert line.text.endswith(f"(replay mode; {len(alignment.changed)} changed pairs)")
    assert (line.icon, line.severity) == ("error", "error")
    assert decision.reason_lines()[0] in line.tip
    assert f"provider-b.json: {answer.status_line()}" in line.tip
    assert line.tip.endswith(status.CLICK_HINT)


def test_the_status_line_of_one_file_says_what_is_missing():
    result = gate_transcript(load_path(ARTICLE), load_tools(REGION_TOOLS))
    side = status.Side("items.json", decide_file(result, name="items.json"), result.summary())
    line = status.window_status(
        {"left": side}, {"left": str(ARTICLE), "right": None}, lambda _s: False, None, 0, False
    )
    assert line.text.startswith("items.json: Replay UNSAFE: ")
    assert line.text.endswith("— open a second transcript to compare")
    assert (line.icon, line.severity) == ("error", "error")
    unreadable = status.window_status(
        {"left": side}, {"left": "a", "right": "/x/broken.json"}, lambda s: s == "right",
        None, 0, False,
    )  # fmt: skip
    assert unreadable.text.endswith(
        "the right file broken.json could not be read, so there is nothing to compare"
    )
    nothing = status.window_status({}, {"left": None, "right": None}, bool, None, 0, False)
    assert nothing.text == status.NOTHING_OPEN and nothing.icon is None


def test_counts_have_plurals_and_thousands_separators():
    assert status.plural(1, "error") == "1 error"
    assert status.plural(2, "error") == "2 errors"
    assert status.plural(50332, "error") == "50,332 errors"
