"""The one decision (inspector/core/decision.py) on the issue's cases, from real recordings.

A scripted session recorded against OpenAI Responses, Chat Completions, Anthropic, Gemini and
Bedrock compares as equivalent in every ordering; an SDK-built Responses request whose answered
calls carry no status is safe with a warning (unsafe under --strict); a call blocked only by an
unknown schema makes its answer a warning; each case of the issue has its own sample pair under
samples/diff/ (README.md there), checked here on what the issue says and by its goldens.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from inspector.cli import run
from inspector.core.decision import SUGGEST_COMPARE, Decision, Outcome, decide_file, decide_pair
from inspector.core.diff import DiffResult, diff_transcripts
from inspector.core.formats import load_bytes, load_path, load_tools, tools_from_document
from inspector.core.gate import (
    HISTORY_DETAIL,
    PASSING,
    VERDICT_ORDER,
    GateResult,
    Verdict,
    answered_history,
    gate_transcript,
    verdict_tally,
)
from tests.benchmarks import synthetic
from tests.conftest import REPO, SAMPLES

DIFF = SAMPLES / "diff"
CALL_TYPES = ("function_call", "function_call_output")
#: One scripted turn (two parallel calls and their answers) as five providers recorded it.
SESSION = sorted((DIFF / "session").glob("*.json"))
HISTORY = SAMPLES / "findings" / "request-history.json"
ORDERINGS = list(itertools.permutations(SESSION, 2))


def _compare_json(left: Path, right: Path) -> tuple[int, dict]:
    """`diff LEFT RIGHT --mode compare --format json` from the repository root."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(REPO)
    try:
        args = [p.relative_to(REPO).as_posix() for p in (left, right)]
        status = run(["diff", *args, "--mode", "compare", "--format", "json"], out, err)
    finally:
        os.chdir(old)
    assert err.getvalue() == ""
    return status, json.loads(out.getvalue())


def test_the_session_holds_five_providers():
    formats = {load_path(p).format for p in SESSION}
    assert formats == {"request", "chat_completions", "anthropic", "gemini", "bedrock_converse"}


@pytest.mark.parametrize(
    ("left", "right"), ORDERINGS, ids=[f"{a.stem}-{b.stem}" for a, b in ORDERINGS]
)
def test_one_session_from_five_providers_is_equivalent_in_every_ordering(left, right):
    result = diff_transcripts(load_path(left), load_path(right), mode="compare")
    decision = decide_pair(result)
    assert decision.outcome is Outcome.EQUIVALENT and decision.exit_status == 0
    assert not decision.warnings and not decision.reasons
    # No warning-level change anywhere, in the pairs or the documents: only information.
    assert {c.severity for p in result.pairs for c in p.changes} <= {"info"}
    assert {d.severity for d in result.document_changes} <= {"info"}
    # Every call and every answer pairs with its counterpart (none on one side only).
    litems, ritems = result.left.transcript.items, result.right.transcript.items
    calls = [p for p in result.pairs if p.left is not None and litems[p.left].type in CALL_TYPES]
    assert len(calls) == 4 and all(p.right is not None for p in calls)
    assert all(ritems[p.right].type == litems[p.left].type for p in calls if p.right is not None)
    # Each side's own envelope is shown per side and flips nothing.
    foreign = [s for s in decision.sides if s.outcome is Outcome.UNSAFE]
    assert all(f"{s.side} side on its own" in decision.note for s in foreign)


def test_the_session_orderings_golden(golden):
    """The CLI's answer for every ordering of the session, one line each (a golden)."""
    lines = []
    for left, right in ORDERINGS:
        status, document = _compare_json(left, right)
        summary = document["verdict_summary"]
        assert (status, summary["outcome"], summary["warnings"]) == (0, "equivalent", [])
        codes = ", ".join(
            f"{g['code']} {g['count']}" for g in document["changes_by_code"] if g["count"]
        )
        severities = {g["severity"] for g in document["changes_by_code"]}
        assert severities <= {"info"}, (left.name, right.name, severities)
        lines.append(f"{left.name} -> {right.name}: exit {status}, {summary['outcome']}; {codes}")
    golden(DIFF / "expected" / "session.orderings.compare.txt", "\n".join(lines) + "\n")


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


# --------------------------------------------------------------------------------------------
# The cases, each on its own sample pair under samples/diff/ (README.md there)


def _case(name: str, mode: str = "compare") -> tuple[DiffResult, Decision]:
    folder = DIFF / name
    (left,) = folder.glob("left.*")
    (right,) = folder.glob("right.*")
    tools_files = sorted(folder.glob("*.tools.json"))
    tools = load_tools(tools_files[0]) if tools_files else None
    result = diff_transcripts(load_path(left), load_path(right), tools, mode=mode)
    return result, decide_pair(result, names=(str(left), str(right)))


def _codes(result: DiffResult) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for pair in result.pairs:
        for change in pair.changes:
            found.setdefault(change.code, set()).add(str(change.severity))
    return found


def test_case_tools_in_one_file_only():
    # The Open Responses response carries its tools; the Anthropic response does not.
    result, decision = _case("tools-one-side")
    assert decision.outcome is Outcome.EQUIVALENT and "verdict_changed" not in _codes(result)
    assert "unknown_tool" in decision.note  # the right side's own finding, shown per side
    _, replayed = _case("tools-one-side", "replay")
    assert replayed.outcome is Outcome.UNSAFE  # replaying without a schema does block


def test_case_parallel_against_sequential_calls():
    result, decision = _case("parallel-sequential")
    assert decision.outcome is Outcome.EQUIVALENT
    assert _codes(result)["calls_reordered"] == {"info"}
    assert "call_id_mismatch" not in _codes(result) and "only_left" not in _codes(result)


def test_case_gemini_result_wrapper():
    result, decision = _case("gemini-result-wrapper")
    assert decision.outcome is Outcome.EQUIVALENT
    outputs = [c for p in result.pairs for c in p.changes if c.pointer == "/output"]
    assert [(c.code, str(c.severity)) for c in outputs] == [("output_reformatted", "info")] * 2
    assert all('{"output":' in c.right for c in outputs)


def test_case_reasoning_against_assistant_text():
    # OpenAI's reasoning item and Nova's <thinking> text are each run's own wording.
    result, decision = _case("reasoning-vs-text")
    assert decision.outcome is Outcome.EQUIVALENT
    codes = _codes(result)
    assert "type_changed" not in codes and codes["only_left"] == {"info"}
    (reasoning,) = [p for p in result.pairs if "only_left" in p.codes]
    assert result.left.transcript.items[reasoning.left].type == "reasoning"


def test_case_a_call_one_provider_skipped():
    # The right run said it would call the tool, then answered without calling: its answer
    # stands where the left run's first call does, and never pairs with it.
    result, decision = _case("skipped-call")
    assert decision.outcome is Outcome.DIVERGED and decision.exit_status == 1
    lines = decision.reason_lines()
    assert len(lines) == 4 and all(line.endswith("exists only on the left") for line in lines)
    assert not any("not_function_call" in line for line in lines)
    (answer,) = [p for p in result.pairs if p.left is None]
    assert [(c.code, str(c.severity)) for c in answer.changes] == [("only_right", "info")]
    assert result.right.transcript.items[answer.right].get("role") == "assistant"


def test_case_an_answer_to_a_call_with_no_schema():
    result, decision = _case("unknown-tool-answer")
    assert decision.outcome is Outcome.EQUIVALENT  # tools known on either side judge both
    right = gate_transcript(result.right.transcript)
    answers = [f for f in right.findings if f.code == "output_for_blocked_call"]
    assert len(answers) == 2 and {str(f.severity) for f in answers} == {"warning"}
    own = decide_file(right)
    assert own.outcome is Outcome.UNSAFE
    assert [r.code for r in own.reasons if r.code == "output_for_blocked_call"] == []


def test_case_truncated_left_stream_against_web_search_is_amber():
    _, decision = _case("truncated-web-search", "replay")
    assert decision.outcome is Outcome.SAFE_WITH_WARNINGS and decision.exit_status == 0
    assert str(decision.severity) == "warning" and decision.replay_safe
    codes = {w.code for w in decision.warnings}
    assert {"non_portable_type", "response_incomplete"} <= codes
    assert decision.headline.startswith("Replay safe with warnings: ")


def test_case_anthropic_against_gemini_with_tools_agrees_with_itself():
    for mode, outcome in (("compare", Outcome.EQUIVALENT), ("replay", Outcome.UNSAFE)):
        result, decision = _case("anthropic-gemini-tools", mode)
        assert decision.outcome is outcome
        summary = decision.to_json()
        assert summary["outcome"] == str(outcome) and summary["replay_safe"] is False
        assert summary["exit_status"] == (0 if mode == "compare" else 1)
        # The schema comes from the tools file: every call is ok on both sides.
        verdicts = {str(v.verdict) for side in (result.left, result.right) for v in side.verdicts}
        assert "unknown_tool" not in verdicts


def test_case_two_providers_in_replay_mode_suggest_compare():
    _, replayed = _case("two-providers-replay", "replay")
    assert replayed.outcome is Outcome.UNSAFE and replayed.suggestion == SUGGEST_COMPARE
    assert {r.code for r in replayed.reasons} == {"call_id_changed"}
    _, compared = _case("two-providers-replay")
    assert compared.outcome is Outcome.EQUIVALENT and not compared.suggestion


class _Uncounted(tuple):
    """Verdicts that say how many they are but may not be gone over one by one."""

    def __iter__(self):
        raise AssertionError("the verdicts were gone over one by one")


def _tallied(result: GateResult, verdicts: tuple) -> GateResult:
    return dataclasses.replace(result, verdicts=verdicts, tally=verdict_tally(result.verdicts))


def test_a_result_tallied_where_its_verdicts_were_made_is_decided_from_its_tally(tmp_path):
    # A gate by runs adds up each run's tally: the decision and the summary read it, not the
    # verdicts one by one, and say what the verdicts say.
    tools = tools_from_document({"tools": synthetic.tools()}, "tools.json")
    data = "".join(json.dumps(item) + "\n" for item in synthetic.items(300, seed=4))
    result = gate_transcript(load_bytes(data.encode(), "log.jsonl"), tools)
    assert not answered_history(result)
    tallied = _tallied(result, _Uncounted(result.verdicts))
    for options in ({}, {"strict": True}, {"fail_on": [Verdict.UNKNOWN_TOOL]}):
        assert decide_file(tallied, **options) == decide_file(result, **options)
    # What the verdicts say, counted one by one here.
    blocking = Counter(str(v.verdict) for v in result.verdicts if v.verdict not in PASSING)
    words = ", ".join(f"{word} {n}" for word, n in blocking.items())
    text = f"{blocking.total()} of 300 items block a replay (verdicts: {words})"
    assert decide_file(tallied).reasons[0].text == text
    every = Counter(v.verdict.value for v in result.verdicts)
    assert tallied.summary() == {v.value: every[v.value] for v in VERDICT_ORDER if v.value in every}
    assert list(tallied.summary()) == [v.value for v in VERDICT_ORDER if v.value in every]


def test_calls_answered_as_history_are_left_out_item_by_item():
    # Which blocking verdicts come first can change when history is left out: counted item
    # by item, as without a tally.
    result = gate_transcript(load_path(HISTORY))
    assert answered_history(result)
    tallied = _tallied(result, result.verdicts)
    assert decide_file(tallied) == decide_file(result)
    assert decide_file(tallied, strict=True) == decide_file(result, strict=True)
