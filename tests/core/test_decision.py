"""The one decision (inspector/core/decision.py) on the issue's cases, from real recordings.

A scripted session recorded against OpenAI Responses, Chat Completions and Anthropic compares
as equivalent pairwise; an SDK-built Responses request whose answered calls carry no status is
safe with a warning (unsafe under --strict); a call blocked only by an unknown schema makes its
answer a warning.
"""

from __future__ import annotations

import itertools
import json

import pytest

from inspector.core.decision import SUGGEST_COMPARE, Outcome, decide_file, decide_pair
from inspector.core.diff import diff_transcripts
from inspector.core.formats import load_bytes, load_path
from inspector.core.gate import HISTORY_DETAIL, Verdict, gate_transcript
from tests.conftest import SAMPLES

SESSION = [SAMPLES / "diff" / "session" / n for n in ("left.json", "right.json", "anthropic.json")]
HISTORY = SAMPLES / "findings" / "request-history.json"


@pytest.mark.parametrize(
    ("left", "right"),
    list(itertools.permutations(SESSION, 2)),
    ids=lambda p: p.name,
)
def test_one_session_from_three_providers_is_equivalent_pairwise(left, right):
    result = diff_transcripts(load_path(left), load_path(right), mode="compare")
    decision = decide_pair(result)
    assert decision.outcome is Outcome.EQUIVALENT and decision.exit_status == 0
    assert not decision.warnings and not decision.reasons
    # No warning-level change anywhere: only information.
    assert {c.severity for p in result.pairs for c in p.changes} <= {"info"}
    # Each side's own envelope is shown per side and flips nothing.
    foreign = [s for s in decision.sides if s.outcome is Outcome.UNSAFE]
    assert all(f"{s.side} side on its own" in decision.note for s in foreign)


def test_replaying_another_providers_run_suggests_compare_mode():
    decision = decide_pair(diff_transcripts(load_path(SESSION[0]), load_path(SESSION[1])))
    assert decision.outcome is Outcome.UNSAFE and decision.suggestion == SUGGEST_COMPARE


def test_answered_history_without_status_warns_and_blocks_only_under_strict():
    result = gate_transcript(load_path(HISTORY))
    call = next(i for i, item in enumerate(result.transcript.items) if item.type == "function_call")
    assert result.verdicts[call].verdict is Verdict.STATUS  # the seed's verdict stays
    assert result.verdicts[call].detail == HISTORY_DETAIL
    codes = {f.code: f for f in result.findings}
    assert "output_for_blocked_call" not in codes
    assert codes["status_not_recorded"].severity == "warning"
    assert codes["status_not_recorded"].items == (call,)
    decision = decide_file(result)
    assert decision.outcome is Outcome.SAFE_WITH_WARNINGS and decision.exit_status == 0
    assert decision.blocked_items == 0
    assert [w.code for w in decision.warnings] == ["status_not_recorded"]
    strict = decide_file(result, strict=True)
    assert strict.outcome is Outcome.UNSAFE and strict.blocked_items == 1


def test_history_against_a_converted_completed_call_is_information():
    left = load_path(SAMPLES / "diff" / "request-history" / "left.json")
    right = load_path(SAMPLES / "diff" / "request-history" / "right.json")
    result = diff_transcripts(left, right, mode="compare")
    call = next(p for p in result.pairs if p.left == 1)
    assert [c.code for c in call.changes if c.code.startswith("status")] == ["status_not_recorded"]
    assert decide_pair(result).outcome is Outcome.EQUIVALENT


def _request(items, tools=()):
    return load_bytes(json.dumps({"input": items, "tools": list(tools)}).encode(), "r.json")


CALL = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
ANSWER = {"type": "function_call_output", "call_id": "c1", "output": "42"}


def test_an_answer_to_a_call_with_no_schema_is_a_warning_not_a_second_error():
    result = gate_transcript(_request([{**CALL, "status": "completed"}, ANSWER]))
    (finding,) = [f for f in result.findings if f.code == "output_for_blocked_call"]
    assert finding.severity == "warning"
    # The call itself still blocks by its verdict (unknown_tool): one error, not two.
    assert decide_file(result).outcome is Outcome.UNSAFE
    bad = gate_transcript(_request([{**CALL, "status": "in_progress"}, ANSWER]))
    (finding,) = [f for f in bad.findings if f.code == "output_for_blocked_call"]
    assert finding.severity == "error"


TOOL = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}


def test_tools_known_on_either_side_judge_both_in_compare_mode():
    with_tools = _request([{**CALL, "status": "completed"}, ANSWER], [TOOL])
    without = _request([{**CALL, "status": "completed"}, ANSWER])
    compared = diff_transcripts(with_tools, without, mode="compare")
    assert all("verdict_changed" not in p.codes for p in compared.pairs)
    assert decide_pair(compared).outcome is Outcome.EQUIVALENT
    replayed = diff_transcripts(with_tools, without)
    assert any("verdict_changed" in p.codes for p in replayed.pairs)


def test_a_required_result_wrapper_and_reasoning_in_one_run_are_information():
    left = _request(
        [{**CALL, "status": "completed"}, ANSWER, {"type": "reasoning", "summary": []}], [TOOL]
    )
    wrapped = {**ANSWER, "output": json.dumps({"result": 42})}
    right = _request([{**CALL, "status": "completed"}, wrapped], [TOOL])
    result = diff_transcripts(left, right, mode="compare")
    codes = {c.code: c.severity for p in result.pairs for c in p.changes}
    assert codes["output_reformatted"] == "info" and codes["only_left"] == "info"
    assert decide_pair(result).outcome is Outcome.EQUIVALENT
    other = _request([{**CALL, "status": "completed"}, {**ANSWER, "output": "43"}], [TOOL])
    diverged = decide_pair(diff_transcripts(left, other, mode="compare"))
    assert diverged.outcome is Outcome.DIVERGED and diverged.exit_status == 1


def test_a_call_one_provider_skipped_exists_only_on_one_side():
    left = _request(
        [{**CALL, "status": "completed"}, ANSWER, {"role": "user", "content": "thanks"}], [TOOL]
    )
    right = _request([{"role": "user", "content": "thanks"}], [TOOL])
    result = diff_transcripts(left, right, mode="compare")
    reasons = decide_pair(result).reason_lines()
    assert any("exists only on the left" in r for r in reasons)
    assert not any("not_function_call" in r for r in reasons)


def test_parallel_against_sequential_calls_is_information():
    def call(call_id: str, name: str) -> dict:
        return {**CALL, "call_id": call_id, "name": name, "status": "completed"}

    def answer(call_id: str, output: str) -> dict:
        return {**ANSWER, "call_id": call_id, "output": output}

    tools = [TOOL, {**TOOL, "name": "other"}]
    parallel = _request(
        [call("c1", "lookup"), call("c2", "other"), answer("c1", "1"), answer("c2", "2")], tools
    )
    sequential = _request(
        [call("t1", "lookup"), answer("t1", "1"), call("t2", "other"), answer("t2", "2")], tools
    )
    result = diff_transcripts(parallel, sequential, mode="compare")
    reordered = [p for p in result.pairs if "calls_reordered" in p.codes]
    assert {(p.left, p.right) for p in reordered} == {(1, 2), (2, 1)}
    assert decide_pair(result).outcome is Outcome.EQUIVALENT
