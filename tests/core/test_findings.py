"""Transcript findings, each triggered by a real sample file."""

from __future__ import annotations

import pytest

from inspector.core.decision import decide_file
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.core.model import Severity


def findings_of(path, tools=None):
    result = gate_transcript(load_path(path), load_tools(tools) if tools else None)
    return result, {(f.code, f.severity): f for f in result.findings}


@pytest.mark.parametrize(
    ("sample", "code", "severity", "items"),
    [
        ("findings/orphan-output.json", "orphan_output", Severity.ERROR, (1,)),
        ("findings/orphan-output-previous-response.json", "orphan_output", Severity.WARNING, (0,)),
        ("findings/output-before-call.json", "output_before_call", Severity.ERROR, (1, 2)),
        ("findings/duplicate-call-id.json", "duplicate_call_id", Severity.ERROR, (1, 2)),
        (
            "findings/output-for-blocked-call.json",
            "output_for_blocked_call",
            Severity.ERROR,
            (1, 2),
        ),
        ("article/items.json", "missing_output", Severity.INFO, (3,)),
        ("findings/incomplete-not-last.json", "incomplete_not_last", Severity.ERROR, (0,)),
        (
            "findings/response-status-mismatch.json",
            "response_status_mismatch",
            Severity.ERROR,
            (1,),
        ),
        ("findings/duplicate-item-id.json", "duplicate_item_id", Severity.ERROR, (1, 3)),
        ("chat-completions.json", "chat_completions_envelope", Severity.ERROR, (0, 1, 2)),
        ("logs/mixed-envelopes.jsonl", "chat_completions_envelope", Severity.ERROR, (1, 2, 3)),
        ("anthropic-messages.json", "anthropic_envelope", Severity.ERROR, (0, 1, 2, 3, 4)),
        ("findings/provider-error.json", "provider_error", Severity.ERROR, ()),
        ("findings/non-portable-type.json", "non_portable_type", Severity.WARNING, (0,)),
        ("findings/response-failed.json", "response_failed", Severity.ERROR, ()),
        ("incomplete/response-incomplete.json", "response_incomplete", Severity.WARNING, (0, 1)),
        ("native/gemini-request.json", "gemini_envelope", Severity.ERROR, tuple(range(9))),
        ("native/bedrock-response.json", "bedrock_envelope", Severity.ERROR, (0, 1, 2)),
        ("logs/mixed-native.jsonl", "gemini_envelope", Severity.ERROR, (7,)),  # the last of two
        ("native/chat-completions-response.json", "extra_choices", Severity.WARNING, (0, 1)),
        ("findings/input-items-newest-first.json", "list_order", Severity.INFO, (0, 1, 2)),
        ("findings/response-cancelled.json", "response_status_unknown", Severity.ERROR, (0, 1)),
        (
            "findings/hosted-item-in-progress.json",
            "response_status_mismatch",
            Severity.WARNING,
            (0,),
        ),
    ],
)
def test_each_finding_on_a_sample(samples, sample, code, severity, items):
    result, found = findings_of(samples / sample)
    assert (code, severity) in found, [f.code for f in result.findings]
    assert found[(code, severity)].items == items
    assert found[(code, severity)].message


def test_provider_error_quotes_the_message(samples):
    _, found = findings_of(samples / "findings" / "provider-error.json")
    message = found[("provider_error", Severity.ERROR)].message
    assert "string too long" in message and "invalid_request_error" in message


def test_mixed_log_says_mixed_and_whole_file_says_whole(samples):
    _, mixed = findings_of(samples / "logs" / "mixed-envelopes.jsonl")
    _, whole = findings_of(samples / "chat-completions.json")
    assert (
        "inside an Open Responses log"
        in mixed[("chat_completions_envelope", Severity.ERROR)].message
    )
    assert (
        "the file is a Chat Completions record"
        in whole[("chat_completions_envelope", Severity.ERROR)].message
    )
    assert ":2:" in mixed[("chat_completions_envelope", Severity.ERROR)].message


def test_tool_override_is_reported(samples):
    result, found = findings_of(
        samples / "providers" / "provider-a.json",
        samples / "tools" / "region-with-global.tools.json",
    )
    assert ("tool_override", Severity.INFO) in found
    assert "get_latest_sales_report" in found[("tool_override", Severity.INFO)].message
    # The override wins: "global" is now allowed, so call_129 passes.
    verdicts = {
        i.call_id: v.verdict for i, v in zip(result.transcript.items, result.verdicts, strict=True)
    }
    assert verdicts["call_129"] == "ok"


def test_replayed_items_are_not_duplicates(samples):
    # The JSONL log replays a response's calls in the next request: a replay, not a clash.
    result, _found = findings_of(samples / "logs" / "agent-session.jsonl")
    codes = {f.code for f in result.findings}
    assert "duplicate_call_id" not in codes and "duplicate_item_id" not in codes


def test_error_findings_block_even_when_no_verdict_counts(samples):
    result, _ = findings_of(samples / "findings" / "output-for-blocked-call.json")
    assert decide_file(result, fail_on=[], strict=False).blocks
    article, _ = findings_of(
        samples / "article" / "items.json", samples / "article" / "region-schema.tools.json"
    )
    assert not any(f.severity == Severity.ERROR for f in article.findings)
    assert not decide_file(article, fail_on=[], strict=True).blocks
    assert decide_file(article).blocks


def test_warnings_block_only_when_strict(samples):
    result, _ = findings_of(samples / "findings" / "non-portable-type.json")
    assert not decide_file(result).blocks
    assert decide_file(result, strict=True).blocks
