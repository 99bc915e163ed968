"""Diff modes: replay (the article's workflow) and compare (two providers' runs of one session).

On the sample pairs under samples/diff/ and on item data: consistent and inconsistent call_id
renamings, a reordered parallel batch, a format change (Chat Completions, Anthropic, Open
Responses), reformatted arguments, the status-line verdict and the changes grouped by code.
"""

from __future__ import annotations

import json
import random
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.decision import Outcome, decide_pair, side_decision
from inspector.core.diff import (
    CodeGroup,
    DiffMode,
    DiffResult,
    DocumentChange,
    align_items,
    diff_results,
    diff_transcripts,
    plain_text,
)
from inspector.core.formats import anthropic, chat_completions, load_bytes, load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.core.model import Envelope, InspectorError, Item, Origin, Transcript
from inspector.core.report.diff_json import diff_document
from tests.conftest import SAMPLES
from tests.core.test_properties import documents

TOOLS = load_tools(SAMPLES / "tools" / "sales-tools.json")
PAIRS = SAMPLES / "diff"
INFO_ONLY = {"info"}


def transcript(
    raws: list, envelope: Envelope = Envelope.OPEN_RESPONSES, fmt: str = "items"
) -> Transcript:
    """A transcript of raw items with the sales tools."""
    items = tuple(
        Item(i, raw, Origin("<test>", None, f"/{i}"), envelope=envelope)
        for i, raw in enumerate(raws)
    )
    return Transcript("<test>", fmt, items, tools=MappingProxyType(dict(TOOLS)))


def compare(left: list, right: list) -> DiffResult:
    return diff_transcripts(transcript(left), transcript(right), mode="compare")


def replay(left: list, right: list) -> DiffResult:
    return diff_transcripts(transcript(left), transcript(right))


def sample(name: str, mode: str, right: str = "right.json") -> DiffResult:
    folder = PAIRS / name
    return diff_transcripts(load_path(folder / "left.json"), load_path(folder / right), mode=mode)


def pairs_of(result: DiffResult) -> list[tuple[int | None, int | None]]:
    return [(p.left, p.right) for p in result.pairs]


def codes(result: DiffResult) -> list[list[str]]:
    return [[c.code for c in p.changes] for p in result.pairs]


def severities(result: DiffResult) -> set[str]:
    pairs = {str(c.severity) for p in result.pairs for c in p.changes}
    return pairs | {str(d.severity) for d in result.document_changes}


def fc(call_id: str, name: str = "get_latest_sales_report", arguments: str = '{"region":"apac"}'):
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def output(call_id: str, text: str = "sales report for apac") -> dict:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


USER = {"type": "message", "role": "user", "content": "How did APAC and EMEA do in Q3?"}
ANSWER = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "APAC grew 6.2%.", "annotations": []}],
}


# --------------------------------------------------------------------------------------------
# The API: modes, defaults, names that must keep working


def test_replay_is_the_default_and_gives_the_same_result():
    left = load_path(SAMPLES / "providers" / "provider-a.json")
    right = load_path(SAMPLES / "providers" / "provider-b.json")
    default = diff_results(gate_transcript(left), gate_transcript(right))
    explicit = diff_results(gate_transcript(left), gate_transcript(right), mode="replay")
    assert default.mode is DiffMode.REPLAY is explicit.mode
    assert (default.pairs, default.reasons) == (explicit.pairs, explicit.reasons)
    assert diff_transcripts(left, right, mode=DiffMode.COMPARE).mode is DiffMode.COMPARE


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="bogus"):
        compare_result = diff_transcripts(transcript([]), transcript([]), mode="bogus")
        del compare_result


def test_a_result_built_the_old_way_still_works():
    left = gate_transcript(transcript([USER]))
    old = DiffResult(left, left, (), True, ())
    assert old.mode is DiffMode.REPLAY and old.document_changes == ()
    assert decide_pair(old).outcome is Outcome.SAFE
    assert old.changes_by_code() == ()


# --------------------------------------------------------------------------------------------
# Consistent renaming


def test_consistent_renaming_is_info_in_compare_and_blocks_in_replay():
    left = [USER, fc("call_1"), output("call_1"), ANSWER]
    right = [USER, fc("toolu_01A"), output("toolu_01A"), {**ANSWER, "id": "msg_b"}]
    result = compare(left, right)
    assert result.replay_safe and result.reasons == ()
    assert codes(result) == [[], ["call_id_renamed"], ["call_id_renamed"], []]
    renamed = result.pairs[1].changes[0]
    assert (renamed.pointer, renamed.left, renamed.right, renamed.severity) == (
        "/call_id",
        "call_1",
        "toolu_01A",
        "info",
    )
    assert not replay(left, right).replay_safe


def test_calls_align_by_order_and_name_not_by_call_id():
    # The second provider happens to reuse the first one's ids for other calls.
    left = [fc("c1", "get_latest_sales_report"), fc("c2", "search_web", '{"query":"apac"}')]
    right = [fc("c2", "get_latest_sales_report"), fc("c1", "search_web", '{"query":"apac"}')]
    by_name = compare(left, right)
    assert pairs_of(by_name) == [(0, 0), (1, 1)]
    assert codes(by_name) == [["call_id_renamed"], ["call_id_renamed"]]
    assert by_name.replay_safe
    by_call_id = replay(left, right)
    assert pairs_of(by_call_id) == [(0, 1), (1, 0)]
    assert "name_changed" in codes(by_call_id)[0]


def test_renamed_call_ids_sample_reordered_batch_and_reformatted_arguments():
    result = sample("renamed-call-ids", "compare")
    assert result.replay_safe
    assert pairs_of(result) == [(0, 0), (1, 2), (2, 1), (3, 4), (4, 3), (5, 5), (6, 6), (7, 7)]
    assert severities(result) == INFO_ONLY
    assert codes(result)[5] == ["call_id_renamed", "arguments_reformatted"]
    verdict = decide_pair(result)
    assert verdict.equivalent and verdict.outcome is Outcome.EQUIVALENT
    assert verdict.headline == "Equivalent: informational changes only"
    # In replay mode the same pair is unsafe: every call_id changed.
    replayed = sample("renamed-call-ids", "replay")
    assert not replayed.replay_safe
    assert {r.code for r in replayed.reason_details} >= {"call_id_changed"}


def test_reordered_parallel_batch_pairs_in_both_modes():
    for mode in ("replay", "compare"):
        result = sample("reordered-parallel", mode)
        assert pairs_of(result) == [(0, 0), (1, 2), (2, 1), (3, 4), (4, 3), (5, 5)], mode
        assert result.replay_safe
        # Compare mode says the batch came back in another order, as information.
        expected = {"calls_reordered"} if mode == "compare" else set()
        assert all(p.codes <= expected for p in result.pairs)
        assert all(c.severity == "info" for p in result.pairs for c in p.changes)


def test_reordered_batch_with_renamed_ids_and_reordered_outputs():
    left = [
        USER,
        fc("c_eu", arguments='{"region":"emea"}'),
        fc("c_us", arguments='{"region":"amer"}'),
        output("c_eu", "emea report"),
        output("c_us", "amer report"),
    ]
    right = [
        USER,
        fc("t_us", arguments='{"region":"amer"}'),
        fc("t_eu", arguments='{"region":"emea"}'),
        output("t_eu", "emea report"),
        output("t_us", "amer report"),
    ]
    result = compare(left, right)
    assert pairs_of(result) == [(0, 0), (1, 2), (2, 1), (3, 3), (4, 4)]
    assert result.replay_safe and severities(result) == INFO_ONLY


def test_identical_calls_of_a_batch_are_told_apart_by_their_outputs():
    # Two identical calls came back in another order; only their results tell them apart.
    left = [fc("c1"), fc("c2"), output("c1", "first page"), output("c2", "second page")]
    right = [fc("t2"), fc("t1"), output("t2", "second page"), output("t1", "first page")]
    result = compare(left, right)
    assert result.replay_safe, result.reasons
    assert pairs_of(result) == [(0, 1), (1, 0), (2, 3), (3, 2)]


# --------------------------------------------------------------------------------------------
# Inconsistent renaming


def test_inconsistent_renaming_sample_names_the_calls_and_outputs():
    result = sample("inconsistent-renaming", "compare")
    assert not result.replay_safe
    mismatches = [r for r in result.reason_details if r.code == "call_id_mismatch"]
    assert [r.pair for r in mismatches] == [2, 3, 4, 5]
    assert mismatches[2].text == (
        "#4 function_call_output (call_id 'call_R4fVb81nQe2LzX0s') answers #2 function_call "
        "get_latest_sales_report, but its counterpart right #4 (call_id "
        "'toolu_01NqG8c2ZsMuW5jXd1fAkR6b') answers right #3 function_call "
        "get_latest_sales_report, the counterpart of #3"
    )
    assert mismatches[0].text == (
        "#2 function_call get_latest_sales_report call_id 'call_R4fVb81nQe2LzX0s' became "
        "'toolu_01NpE4x9QwLrT2kVb7sYhM3a' (right #2), but at #4 (function_call_output) the same "
        "call_id became 'toolu_01NqG8c2ZsMuW5jXd1fAkR6b' (right #4)"
    )
    assert all(p.changes[0].severity == "error" for p in result.pairs[2:])


def test_outputs_swapped_between_calls_with_the_same_ids():
    left = [
        fc("c1", arguments='{"region":"apac"}'),
        fc("c2", arguments='{"region":"emea"}'),
        output("c1", "apac report"),
        output("c2", "emea report"),
    ]
    # The right side keeps the output texts in place but gave the calls each other's ids.
    right = [
        fc("c2", arguments='{"region":"apac"}'),
        fc("c1", arguments='{"region":"emea"}'),
        output("c1", "apac report"),
        output("c2", "emea report"),
    ]
    result = compare(left, right)
    assert not result.replay_safe
    assert [c for p in codes(result) for c in p] == ["call_id_mismatch"] * 4
    assert (
        "answers #0 function_call get_latest_sales_report, but its counterpart right #2"
        in (result.reasons[2])
    )


def test_two_calls_renamed_to_one_id_is_not_one_to_one():
    left = [fc("c1"), fc("c2", "search_web", '{"query":"apac"}')]
    right = [fc("t1"), fc("t1", "search_web", '{"query":"apac"}')]
    result = compare(left, right)
    assert not result.replay_safe
    assert result.reasons == (
        "#0 function_call get_latest_sales_report call_id 'c1' became 't1' (right #0), but "
        "'t1' also stands for 'c2' at #1 (function_call, right #1)",
        "#1 function_call search_web call_id 'c2' became 't1' (right #1), but 't1' also "
        "stands for 'c1' at #0 (function_call, right #0)",
    )


def test_output_before_its_call_on_one_side_is_a_mismatch():
    left = [fc("c1"), output("c1")]
    right = [output("t1"), fc("t1")]
    result = compare(left, right)
    assert not result.replay_safe
    assert any(
        "follows no function_call with that call_id on the right" in reason
        for reason in result.reasons
    )


def test_a_call_that_lost_its_call_id_is_a_mismatch():
    result = compare([fc("c1")], [{**fc("x"), "call_id": None}])
    assert codes(result) == [["call_id_mismatch"]]
    assert result.reasons == (
        "#0 function_call get_latest_sales_report call_id 'c1' became None (right #0): a "
        "call_id that is not a string cannot be answered",
    )


def test_an_output_of_no_call_renamed_cannot_be_checked():
    result = compare([output("c1")], [output("t1")])
    assert codes(result) == [["call_id_mismatch"]]
    assert "the renaming cannot be checked" in result.reasons[0]
    assert compare([output("c1")], [output("c1")]).replay_safe


# --------------------------------------------------------------------------------------------
# What stays unsafe in compare mode


def test_one_sided_call_and_output_block_in_compare_mode():
    result = compare([USER, fc("c1"), output("c1"), ANSWER], [USER, ANSWER])
    assert not result.replay_safe
    assert result.reasons == (
        "#1 function_call get_latest_sales_report exists only on the left",
        "#2 function_call_output (call_id 'c1') exists only on the left",
    )
    extra = compare([USER], [USER, output("t9")])
    assert extra.reasons == (
        "right #1 function_call_output (call_id 't9') exists only on the right",
    )


def test_type_change_to_a_prefixed_type_blocks_in_compare_mode():
    search = {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"}
    result = compare([USER, fc("c1", "search_web", '{"query":"apac"}')], [USER, search])
    assert not result.replay_safe
    assert result.reasons == (
        "#1 function_call search_web became provider-prefixed openai:web_search_call (right #1)",
    )
    providers = diff_transcripts(
        load_path(SAMPLES / "providers" / "provider-a.json"),
        load_path(SAMPLES / "providers" / "provider-b.json"),
        mode="compare",
    )
    # call_129 became call_999 with no output on either side: a consistent renaming.
    assert providers.pair_for_left(7).changes[0].code == "call_id_renamed"
    assert providers.reasons == (
        "#5 function_call search_web became provider-prefixed openai:web_search_call (right #5)",
        "#6 function_call_output (call_id 'call_124') exists only on the left",
    )


def test_worse_arguments_still_block_in_compare_mode():
    result = compare([fc("c1")], [fc("t1", arguments='{"region":"global"}')])
    assert not result.replay_safe
    # Other arguments are a divergence in compare mode, and the verdict that got worse too.
    assert result.reasons == (
        "#0 function_call get_latest_sales_report has other arguments at /arguments/region "
        "(right #0)",
        "#0 function_call get_latest_sales_report is ok on the left but arguments_schema on the "
        "right (right #0)",
    )


# --------------------------------------------------------------------------------------------
# Arguments as parsed JSON


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ('{"region":"apac","page":1}', '{"page": 1, "region": "apac"}'),
        ('{"region":"apac","page":1}', '{\n  "region": "apac",\n  "page": 1.0\n}'),
        ('{"n":[1,2,{"a":true}]}', '{ "n" : [ 1.0 , 2 , { "a" : true } ] }'),
    ],
)
def test_reformatted_arguments_are_info_in_both_modes(left, right):
    for mode in ("replay", "compare"):
        result = diff_transcripts(
            transcript([fc("c1", "x", left)]), transcript([fc("c1", "x", right)]), mode=mode
        )
        assert codes(result) == [["arguments_reformatted"]], mode
        assert result.replay_safe


def test_changed_argument_values_are_named_by_pointer():
    result = compare([fc("c1", "x", '{"a":1,"b":[true]}')], [fc("t1", "x", '{"a":2,"b":[1]}')])
    assert [(c.code, c.pointer) for c in result.pairs[0].changes] == [
        ("call_id_renamed", "/call_id"),
        ("arguments_changed", "/arguments/a"),
        ("arguments_changed", "/arguments/b/0"),
    ]


def test_reformatted_arguments_sample_in_compare_mode():
    result = sample("reformatted-arguments", "compare")
    assert result.replay_safe and severities(result) == INFO_ONLY
    assert codes(result)[0][0] == "arguments_reformatted"


# --------------------------------------------------------------------------------------------
# Format changes


def test_chat_completions_against_anthropic_is_equivalent_in_compare_mode():
    result = sample("format-change", "compare")
    assert result.replay_safe and result.reasons == ()
    assert pairs_of(result) == [(i, i) for i in range(10)]
    assert severities(result) == INFO_ONLY
    assert result.document_changes == (
        DocumentChange(
            "format_changed",
            "info",
            "chat_completions",
            "anthropic",
            "the format changed from chat_completions to anthropic",
        ),
    )
    assert codes(result)[5] == ["call_id_renamed", "output_reformatted"]
    assert codes(result)[6] == ["content_reformatted"]
    verdict = decide_pair(result)
    # Equivalent (exit 0); an Anthropic record replayed as Open Responses has the wrong
    # envelope, which is the right side's own finding: shown per side, not replay safe.
    assert verdict.outcome is Outcome.EQUIVALENT and verdict.equivalent
    assert verdict.exit_status == 0 and not verdict.replay_safe
    assert verdict.headline == "Equivalent: informational changes only"
    assert "right side on its own: replay unsafe (anthropic_envelope: " in verdict.note
    # What blocks on the right is the gate's own decision for that file.
    assert verdict.sides[1].blocking == side_decision(result.right, side="right").blocking
    assert verdict.to_json()["blocking_findings"][0] == "anthropic_envelope"


@pytest.mark.parametrize("reverse", [False, True])
def test_chat_completions_against_open_responses_is_equivalent(reverse):
    left, right = (
        load_path(PAIRS / "format-change" / "left.json"),
        load_path(PAIRS / "format-change" / "responses.json"),
    )
    if reverse:
        left, right = right, left
    result = diff_transcripts(left, right, mode="compare")
    assert result.replay_safe, result.reasons
    assert severities(result) == INFO_ONLY
    # Chat Completions records no item status; the loader derives it from the finish reason, so
    # the calls are the completed calls they are (no status or verdict change).
    assert codes(result)[2] == ["call_id_renamed"]
    assert [d.code for d in result.document_changes] == ["format_changed"]


def test_format_change_in_replay_mode_is_unsafe_for_the_foreign_envelope():
    result = sample("format-change", "replay")
    assert not result.replay_safe
    assert [d.code for d in result.document_changes] == ["format_changed", "foreign_envelope"]
    envelope = result.document_changes[1]
    assert (envelope.severity, envelope.right, envelope.right_items) == (
        "error",
        "anthropic",
        tuple(range(10)),
    )
    assert result.reason_details[0].code == "foreign_envelope"
    assert result.reason_details[0].pair is None
    assert result.reasons[0] == (
        "right side: right.json:1: the file is an Anthropic Messages "
        "record, not Open Responses; replaying it would send the wrong envelope to the next "
        "provider"
    )  # the file by its base name (the point 6)


def test_chat_completions_file_against_itself():
    chat = load_path(SAMPLES / "chat-completions.json")
    replayed = diff_transcripts(chat, chat)
    assert not replayed.replay_safe
    assert [r.code for r in replayed.reason_details] == ["foreign_envelope"]
    compared = diff_transcripts(chat, chat, mode="compare")
    assert compared.replay_safe and compared.document_changes == ()
    verdict = decide_pair(compared)
    assert verdict.outcome is Outcome.EQUIVALENT and verdict.exit_status == 0
    assert verdict.outcome.severity == "info" and not verdict.replay_safe
    assert verdict.headline == "Equivalent: no differences"
    assert "chat_completions_envelope" in verdict.note


def test_foreign_envelope_on_the_left_only_does_not_block_a_replay():
    chat = load_path(SAMPLES / "chat-completions.json")
    responses = transcript(
        [
            {"type": "message", "role": "user", "content": "Weather in Paris?"},
            {**fc("call_w1", "get_weather", '{"city":"Paris"}')},
            output("call_w1", "18C, clear"),
        ]
    )
    result = diff_transcripts(chat, responses)
    assert "foreign_envelope" not in {d.code for d in result.document_changes}
    assert [d.code for d in result.document_changes] == ["format_changed"]


def test_mixed_log_on_the_right_names_its_foreign_records():
    log = load_path(SAMPLES / "logs" / "mixed-envelopes.jsonl")
    result = diff_transcripts(log, log)
    (envelope,) = (d for d in result.document_changes if d.code == "foreign_envelope")
    foreign = tuple(i.index for i in log.items if i.envelope != Envelope.OPEN_RESPONSES)
    assert envelope.right_items == foreign and foreign
    assert envelope.right == "chat_completions"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Hi", "Hi"),
        ([{"type": "text", "text": "Hi"}], "Hi"),
        (
            [
                {"type": "output_text", "text": "H", "annotations": []},
                {"type": "text", "text": "i"},
            ],
            "Hi",
        ),
        ([{"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}], "Hi"),
        ([{"type": "output_text", "text": "Hi", "annotations": [{"type": "url_citation"}]}], None),
        ([{"type": "input_image", "image_url": "x"}], None),
        ([{"type": ["text"], "text": "Hi"}], None),
        ([], None),
        (None, None),
    ],
)
def test_plain_text(value, text):
    assert plain_text(value) == text


def test_content_with_annotations_is_a_real_change_in_compare_mode():
    annotated = {
        **ANSWER,
        "content": [
            {"type": "output_text", "text": "APAC grew 6.2%.", "annotations": [{"type": "x"}]}
        ],
    }
    result = compare([ANSWER], [annotated])
    assert codes(result) == [["content_changed"]]
    plain = compare([ANSWER], [{**ANSWER, "content": "APAC grew 6.2%."}])
    assert codes(plain) == [["content_reformatted"]]
    assert codes(replay([ANSWER], [{**ANSWER, "content": "APAC grew 6.2%."}])) == [
        ["content_changed"]
    ]


def test_missing_status_in_open_responses_is_still_a_status_change():
    no_status = {k: v for k, v in fc("c1").items() if k != "status"}
    result = compare([fc("c1")], [no_status])
    assert codes(result) == [["status_changed", "verdict_changed"]]
    assert not result.replay_safe


def test_status_not_recorded_keeps_a_real_verdict_for_foreign_calls():
    # A Chat Completions call with bad arguments is still worse than a good one.
    chat_call = {k: v for k, v in fc("c1", arguments='{"region":"global"}').items()}
    del chat_call["status"], chat_call["id"]
    left = diff_results(
        gate_transcript(transcript([fc("c1")])),
        gate_transcript(transcript([chat_call], chat_completions.ENVELOPE, "chat_completions")),
        mode="compare",
    )
    assert codes(left)[0] == [
        "status_not_recorded",
        "arguments_changed",
        "verdict_changed",
    ]
    assert left.pairs[0].changes[-1].left == "ok"
    assert left.pairs[0].changes[-1].right == "arguments_schema"
    assert not left.replay_safe


# --------------------------------------------------------------------------------------------
# The status line and the changes by code


def test_verdict_summary_of_an_unsafe_switch():
    result = diff_transcripts(
        load_path(SAMPLES / "providers" / "provider-a.json"),
        load_path(SAMPLES / "providers" / "provider-b.json"),
    )
    verdict = decide_pair(result)
    assert verdict.outcome is Outcome.UNSAFE and verdict.outcome.severity == "error"
    assert verdict.headline == (
        "Replay UNSAFE: #5 function_call search_web became provider-prefixed "
        "openai:web_search_call (right #5) (+3 more)"
    )
    # The diff's own reasons, then what blocks the right side by itself.
    assert tuple(verdict.reason_lines()[: len(result.reasons)]) == result.reasons
    assert verdict.reasons[-1].side == "right" and not verdict.equivalent
    assert verdict.differences == 4
    assert verdict.to_json()["outcome"] == "unsafe"


def test_verdict_summary_of_a_safe_switch_with_changes():
    result = replay([USER, ANSWER], [USER, {**ANSWER, "content": "Done."}])
    verdict = decide_pair(result)
    # A warning-level change is listed: safe, with warnings (exit 0; --strict blocks).
    assert verdict.outcome is Outcome.SAFE_WITH_WARNINGS and verdict.exit_status == 0
    assert verdict.headline == (
        "Replay safe with warnings: 1 difference, none blocking; "
        "#1 message assistant (right #1): content_changed"
    )
    assert (verdict.blocked_items, verdict.items) == (0, 2)
    assert decide_pair(result, strict=True).outcome is Outcome.UNSAFE


def test_verdict_summary_counts_blocked_items_without_differences():
    blocked = [USER, fc("c1", arguments='{"region":"global"}')]
    verdict = decide_pair(replay(blocked, blocked))
    # The right side blocks on its own: unsafe, so replay_safe and the outcome agree.
    assert verdict.outcome is Outcome.UNSAFE and not verdict.replay_safe
    assert verdict.headline == (
        "Replay UNSAFE: right side: 1 of 2 items block a replay (verdicts: arguments_schema 1)"
    )
    assert verdict.blocked_items == 1


def test_verdict_summary_when_a_finding_without_items_blocks():
    failed = load_path(SAMPLES / "findings" / "response-failed.json")
    verdict = decide_pair(diff_transcripts(failed, failed))
    assert verdict.outcome is Outcome.UNSAFE
    assert verdict.headline.startswith("Replay UNSAFE: right side: response_failed: ")
    assert verdict.to_json()["blocking_findings"] == ["response_failed"]
    assert verdict.blocked_items == 0


def test_changes_by_code_groups_every_change_and_reason():
    result = diff_transcripts(
        load_path(SAMPLES / "providers" / "provider-a.json"),
        load_path(SAMPLES / "providers" / "provider-b.json"),
    )
    groups = {g.code: g for g in result.changes_by_code()}
    assert groups["became_namespaced"] == CodeGroup(
        "became_namespaced",
        "error",
        1,
        (5,),
        ("#5 function_call search_web became provider-prefixed openai:web_search_call (right #5)",),
        False,
    )
    # The verdict change after a type change is no reason of its own, but it is a change.
    assert groups["verdict_changed"].count == 1 and groups["verdict_changed"].reasons == ()
    order = [g.severity for g in result.changes_by_code()]
    assert order == sorted(order, key=["error", "warning", "info"].index)
    every_change = sum(len(p.changes) for p in result.pairs)
    assert sum(g.count for g in result.changes_by_code()) == every_change
    assert sum(len(g.reasons) for g in result.changes_by_code()) == len(result.reasons)


def test_changes_by_code_includes_document_changes_with_their_pairs():
    result = sample("format-change", "replay")
    groups = {g.code: g for g in result.changes_by_code()}
    envelope = groups["foreign_envelope"]
    assert envelope.document and envelope.count == 1
    assert envelope.pairs == tuple(range(10))
    assert envelope.reasons == (result.reasons[0],)
    assert groups["format_changed"].pairs == () and groups["format_changed"].severity == "info"
    assert groups["call_id_changed"].count == 6


def test_json_document_has_mode_and_document_changes():
    result = sample("format-change", "compare")
    document = diff_document(result, "l", "r")
    assert list(document)[:6] == ["left", "right", "pairs", "replay_safe", "reasons", "summary"]
    assert document["mode"] == "compare"
    assert document["document_changes"][0]["code"] == "format_changed"
    assert document["verdict_summary"]["outcome"] == "equivalent"
    assert document["replay_safe"] is False  # the right side is an Anthropic record
    assert {g["code"] for g in document["changes_by_code"]} >= {"call_id_renamed"}
    json.dumps(document)


# --------------------------------------------------------------------------------------------
# Properties: the same session recorded by two providers


NAMES = ("get_latest_sales_report", "search_web", "send_summary")
arguments = st.dictionaries(
    st.sampled_from(["region", "page", "query"]),
    st.one_of(st.integers(0, 3), st.sampled_from(["apac", "emea"])),
    max_size=3,
)
calls = st.tuples(st.sampled_from(NAMES), arguments, st.sampled_from(["ok", "none", "3 rows"]))
sessions = st.lists(
    st.tuples(st.text("abc ", max_size=6), st.lists(calls, max_size=3), st.booleans()),
    min_size=1,
    max_size=4,
)


def _reformat(value: dict) -> str:
    """Another provider's spelling of the same arguments: other key order, spaces, floats."""
    respelt = {k: float(v) if isinstance(v, int) else v for k, v in reversed(value.items())}
    return json.dumps(respelt, indent=1)


def render(session: list, other: bool, seed: int) -> tuple[list[dict], Envelope]:
    """One provider's record of a session; the other one renames, reorders and respells."""
    rng = random.Random(seed)
    items: list[dict] = []
    number = 0
    for question, batch, answered in session:
        items.append({"type": "message", "role": "user", "content": f"Q {question}"})
        ids = [
            f"toolu_{n:03d}" if other else f"call_{n}" for n in range(number, number + len(batch))
        ]
        number += len(batch)
        order = list(range(len(batch)))
        outputs = list(order)
        if other:
            rng.shuffle(order)
            rng.shuffle(outputs)
        for k in order:
            name, value, _ = batch[k]
            text = _reformat(value) if other else json.dumps(value, separators=(",", ":"))
            items.append(
                {"type": "function_call", "call_id": ids[k], "name": name, "arguments": text}
            )
        for k in outputs:
            items.append({"type": "function_call_output", "call_id": ids[k], "output": batch[k][2]})
        if answered:
            text = f"A {question}"
            content: object = [{"type": "text", "text": text}] if other else text
            items.append({"type": "message", "role": "assistant", "content": content})
    return items, anthropic.ENVELOPE if other else chat_completions.ENVELOPE


PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(sessions, st.integers(0, 2**16))
def test_the_same_session_from_two_providers_is_equivalent(session, seed):
    left_items, left_envelope = render(session, False, seed)
    right_items, right_envelope = render(session, True, seed)
    left = transcript(left_items, left_envelope, "chat_completions")
    right = transcript(right_items, right_envelope, "anthropic")
    result = diff_transcripts(left, right, mode="compare")
    assert result.replay_safe, result.reasons
    assert severities(result) <= INFO_ONLY
    assert decide_pair(result).equivalent
    assert sorted(p.left for p in result.pairs if p.left is not None) == list(
        range(len(left_items))
    )


@PROPERTY
@given(sessions, st.integers(0, 2**16))
def test_outputs_given_to_the_wrong_calls_are_unsafe(session, seed):
    # Distinct results, and a batch of two distinct calls whose results the right side swapped.
    session = [
        *session,
        ("swap", [("search_web", {"page": 1}, ""), ("search_web", {"page": 2}, "")], False),
    ]
    session = [
        (q, [(n, v, f"result {t}.{k}") for k, (n, v, _) in enumerate(batch)], a)
        for t, (q, batch, a) in enumerate(session)
    ]
    left_items, _ = render(session, False, seed)
    right_items, _ = render(session, False, seed)
    swapped = [
        k for k, item in enumerate(right_items) if item.get("type") == "function_call_output"
    ][-2:]
    first, second = (right_items[k]["call_id"] for k in swapped)
    right_items[swapped[0]] = {**right_items[swapped[0]], "call_id": second}
    right_items[swapped[1]] = {**right_items[swapped[1]], "call_id": first}
    result = compare(left_items, right_items)
    assert not result.replay_safe
    assert {r.code for r in result.reason_details} == {"call_id_mismatch"}
    named = " ".join(result.reasons)
    assert f"#{swapped[0]} function_call_output" in named


@PROPERTY
@given(sessions, sessions, st.integers(0, 2**16))
def test_compare_alignment_holds_every_item_once(one, two, seed):
    left_items, _ = render(one, False, seed)
    right_items, _ = render(two, True, seed)
    left = [Item(i, raw, Origin(None, None, "")) for i, raw in enumerate(left_items)]
    right = [Item(i, raw, Origin(None, None, "")) for i, raw in enumerate(right_items)]
    pairs = align_items(left, right, mode="compare")
    assert sorted(i for i, _ in pairs if i is not None) == list(range(len(left)))
    assert sorted(j for _, j in pairs if j is not None) == list(range(len(right)))
    result = compare(left_items, right_items)
    assert result.replay_safe == (not result.reasons)
    assert [r.text for r in result.reason_details] == list(result.reasons)


@PROPERTY
@given(documents, documents)
def test_compare_mode_on_arbitrary_files(left_data, right_data):
    try:
        left = load_bytes(left_data, "left.json")
        right = load_bytes(right_data, "right.json")
    except InspectorError:
        return
    for mode in DiffMode:
        result = diff_transcripts(left, right, mode=mode)
        assert sorted(p.left for p in result.pairs if p.left is not None) == list(
            range(len(left.items))
        )
        assert sorted(p.right for p in result.pairs if p.right is not None) == list(
            range(len(right.items))
        )
        assert result.replay_safe == (not result.reasons)
        decide_pair(result)
        json.dumps(diff_document(result, "l", "r"), default=repr)
