"""Every provider's native transcripts: converted calls, marks, envelopes, streams, mixed logs."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.cli import run
from inspector.core.diff import diff_results
from inspector.core.formats import bedrock, classify, load_bytes, load_path, load_text, load_tools
from inspector.core.gate import Verdict, gate_transcript
from inspector.core.model import InspectorError, LoadError, Severity
from tests.conftest import CORPUS, SAMPLES

NATIVE = SAMPLES / "native"
SALES = SAMPLES / "tools" / "sales-tools.json"


def cli(*args: str) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    status = run([*args, "--format", "json"], out, err)
    return status, json.loads(out.getvalue())


def gated(path: Path, tools: Path | None = None):
    return gate_transcript(load_path(path), load_tools(tools) if tools else None)


def verdicts(result) -> list[tuple[Any, str]]:
    return [
        (i.call_id, v.verdict.value)
        for i, v in zip(result.transcript.items, result.verdicts, strict=True)
        if i.type == "function_call"
    ]


def codes(result) -> dict[str, Severity]:
    return {f.code: f.severity for f in result.findings}


def marks(item) -> dict[str, str]:
    assert item.conversion is not None, item.raw
    return item.conversion.marks()


# --------------------------------------------------------------------------------------------
# Gemini


def test_gemini_request_synthesises_ids_and_pairs_results_by_name():
    t = load_path(NATIVE / "gemini-request.json")
    assert t.format == "gemini"
    calls = [i for i in t.items if i.type == "function_call"]
    outputs = [i for i in t.items if i.type == "function_call_output"]
    assert [c.call_id for c in calls] == ["google_call_1", "google_call_2", "google_call_3"]
    assert [o.call_id for o in outputs] == ["google_call_1", "google_call_2", "google_call_3"]
    assert marks(calls[0]) == {
        "call_id": "synthesised",
        "arguments": "serialised",
        "status": "derived",
    }
    assert marks(outputs[0]) == {"call_id": "paired", "output": "serialised"}
    assert calls[0].raw["arguments"] == '{"region":"apac"}'  # compact, in native key order
    assert calls[0].raw["status"] == "completed"
    # The signature stays on the call it was given with; the thought summary is its own item.
    assert calls[0].raw["google:thought_signature"].startswith("CtwBAdHtim9")
    assert t.items[2].type == "google:thought"
    assert calls[0].origin.pointer == "/contents/1/parts/1"
    assert calls[0].conversion.native == {
        "functionCall": {"name": "get_latest_sales_report", "args": {"region": "apac"}},
        "thoughtSignature": calls[0].raw["google:thought_signature"],
    }


def test_results_without_ids_pair_with_the_nearest_turn_in_call_order():
    def turn(role: str, kind: str, *regions: str) -> dict[str, Any]:
        key = "args" if kind == "functionCall" else "response"
        return {
            "role": role,
            "parts": [{kind: {"name": "report", key: {"region": r}}} for r in regions],
        }

    request = {
        "contents": [
            turn("model", "functionCall", "apac"),  # answered below
            turn("user", "functionResponse", "apac"),
            turn("model", "functionCall", "amer"),  # never answered: farther than the next turn
            turn("model", "functionCall", "emea", "latam"),  # parallel, answered in order
            turn("user", "functionResponse", "emea", "latam"),
        ]
    }
    items = load_text(json.dumps(request)).items
    by_id = {}
    for item in items:
        region = json.loads(item.raw.get("arguments") or item.raw["output"])["region"]
        by_id.setdefault(item.call_id, []).append((item.type, region))
    assert sorted(by_id.values()) == [
        [("function_call", "amer")],
        [("function_call", "apac"), ("function_call_output", "apac")],
        [("function_call", "emea"), ("function_call_output", "emea")],
        [("function_call", "latam"), ("function_call_output", "latam")],
    ]


def test_gemini_schema_is_read_as_json_schema():
    tools = load_path(NATIVE / "gemini-request.json").tools
    summary = tools["send_summary"].parameters
    assert summary["type"] == "object"
    assert summary["properties"]["cc"] == {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "maxItems": 5,
    }
    assert summary["properties"]["body"]["maxLength"] == 2000
    assert tools["search_web"].parameters["properties"]["query"]["minLength"] == 3


def test_gemini_response_verdicts_under_tools():
    result = gated(NATIVE / "gemini-response.json", NATIVE / "gemini-request.json")
    assert verdicts(result) == [("google_call_1", "ok"), ("google_call_2", "arguments_schema")]
    assert codes(result)["gemini_envelope"] == Severity.ERROR
    items = result.transcript.items
    assert items[-1].type == "google:citation_metadata"
    assert marks(items[1])["role"] == "converted" and items[1].role == "assistant"
    assert marks(items[2])["status"] == "derived"
    assert "finishReason 'STOP'" in items[2].conversion.describe()


def test_gemini_snake_case_record_gives_the_same_items():
    camel = json.loads((NATIVE / "gemini-request.json").read_text())

    def snake(value: Any) -> Any:
        renames = {
            "functionCall": "function_call",
            "functionResponse": "function_response",
            "thoughtSignature": "thought_signature",
            "systemInstruction": "system_instruction",
            "functionDeclarations": "function_declarations",
        }
        if isinstance(value, dict):
            return {renames.get(k, k): snake(v) for k, v in value.items()}
        if isinstance(value, list):
            return [snake(v) for v in value]
        return value

    a = load_text(json.dumps(camel))
    b = load_text(json.dumps(snake(camel)))
    assert [i.raw for i in a.items] == [i.raw for i in b.items]
    assert set(b.tools) == set(a.tools)


def test_gemini_streams_sse_and_json_array():
    sse = load_path(NATIVE / "gemini-stream.sse")
    assert sse.format == "gemini" and sse.stream.dialect == "gemini"
    assert sse.stream.framing == "sse"
    assert [v.code for v in sse.stream.violations] == ["foreign_stream"]
    thought, message, *calls = sse.items
    assert thought.type == "google:thought"
    assert thought.raw["text"].startswith("**Checking the other regions**\n\nDana wants")
    assert message.raw["content"] == [
        {"type": "output_text", "text": "Fetching the EMEA report and this week's European news."}
    ]
    assert [c.name for c in calls] == ["get_latest_sales_report", "search_web"]
    assert all(c.status == "completed" for c in calls)
    array = load_path(NATIVE / "gemini-stream.json")
    assert array.stream.framing == "json_array" and array.stream.events == 4
    (text,) = array.items
    assert text.raw["content"][0]["text"].endswith("Against that backdrop the")
    # The signature that came alone in the last chunk joins the text before it.
    assert text.raw["content"][0]["google:thought_signature"].startswith("CsEBAdHtim9")
    assert array.groups[0].status == "incomplete"
    assert codes(gate_transcript(array))["response_incomplete"] == Severity.WARNING


def test_gemini_jsonl_chunks_with_partial_args_are_one_stream():
    # Vertex AI streams arguments by JSON Path; 8 chunks are the 2 calls the model made.
    t = load_path(NATIVE / "gemini-stream-partial-args.jsonl")
    assert t.stream is not None and t.stream.dialect == "gemini" and t.stream.events == 8
    first, second = t.items
    assert (first.name, first.raw["arguments"], first.status) == (
        "get_latest_sales_report",
        '{"region":"emea"}',
        "completed",
    )
    assert first.raw["google:thought_signature"] == "CtUBAdHtim9vQm8kR2v1Yk3s0Q=="
    assert json.loads(second.raw["arguments"]) == {"query": "EMEA retail news", "max_results": 5}
    assert not any("partial" in k or "will_continue" in k for i in t.items for k in i.raw)


def test_gemini_stream_cut_inside_a_call_keeps_what_was_streamed(tmp_path):
    chunk = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "name": "search_web",
                                "partialArgs": [{"jsonPath": "$.query", "stringValue": "ra"}],
                                "willContinue": True,
                            }
                        }
                    ],
                }
            }
        ],
        "responseId": "r",
    }
    path = tmp_path / "cut.jsonl"
    path.write_text(json.dumps(chunk) + "\n" + json.dumps(chunk) + "\n", encoding="utf-8")
    (item,) = load_path(path).items
    assert item.raw["arguments"] == '{"query":"rara"}' and item.status != "completed"


def test_gemini_system_instruction_is_the_system_prompt_whatever_its_role():
    t = load_path(NATIVE / "gemini-request-system-role.json")
    assert [(i.type, i.role) for i in t.items] == [("message", "system"), ("message", "user")]


def test_gemini_max_tokens_leaves_the_last_call_incomplete():
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "a", "args": {}}},
                        {"functionCall": {"name": "b", "args": {"x": 1}}},
                    ],
                },
                "finishReason": "MAX_TOKENS",
            }
        ]
    }
    t = load_text(json.dumps(response))
    assert [i.status for i in t.items] == ["completed", "incomplete"]
    assert "a later item follows the call" in t.items[0].conversion.describe()
    result = gate_transcript(t)
    assert [v.verdict for v in result.verdicts] == [Verdict.UNKNOWN_TOOL, Verdict.STATUS]


def test_gemini_allowed_function_names_limit_the_tools():
    request = json.loads((NATIVE / "gemini-request.json").read_text())
    request["toolConfig"] = {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["search_web"]}
    }
    result = gate_transcript(load_text(json.dumps(request)))
    assert verdicts(result)[0] == ("google_call_1", "unknown_tool")
    assert verdicts(result)[1] == ("google_call_2", "ok")


def test_gemini_blocked_prompt_is_a_failed_response():
    t = load_text(
        '{"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-2.5-flash"}'
    )
    assert t.items == () and t.groups[0].status == "failed"
    assert "response_failed" in codes(gate_transcript(t))


# --------------------------------------------------------------------------------------------
# Bedrock Converse


def test_bedrock_request_is_not_taken_for_anthropic_or_chat():
    t = load_path(NATIVE / "bedrock-request.json")
    assert t.format == "bedrock_converse"
    assert {i.envelope for i in t.items} == {bedrock.ENVELOPE}
    calls = [i for i in t.items if i.type == "function_call"]
    outputs = [i for i in t.items if i.type == "function_call_output"]
    assert (
        [c.call_id for c in calls]
        == [o.call_id for o in outputs]
        == [
            "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
            "tooluse_Qm3o4pW1T0a8fW2E7m5x9A",
        ]
    )
    assert "call_id" not in marks(calls[0])
    assert outputs[0].raw["output"] == (
        '{"region":"apac","quarter":"2026-Q3","revenue_usd":4210000,"growth_pct":6.4}'
    )
    assert outputs[0].raw["bedrock:status"] == "success"
    assert outputs[1].raw["output"] == [
        {
            "type": "input_text",
            "text": "1. Singapore retail sales rise 3.1% in September (news.example.com)",
        },
        {
            "type": "input_text",
            "text": "2. Japan consumer spending flat as yen weakens (news.example.com)",
        },
    ]
    assert t.items[2].type == "bedrock:reasoning_content"
    assert t.items[0].raw["content"][1] == {
        "type": "bedrock:cache_point",
        "cachePoint": {"type": "default"},
    }
    assert set(t.tools) == {"get_latest_sales_report", "search_web", "send_summary"}
    assert t.tool_choice == "auto"


def test_bedrock_response_and_stream():
    result = gated(NATIVE / "bedrock-response.json", NATIVE / "bedrock-request.json")
    assert verdicts(result) == [("tooluse_b7Yc2nT4QwKx9LmP0aZr1g", "arguments_schema")]
    assert codes(result)["bedrock_envelope"] == Severity.ERROR
    stream = load_path(NATIVE / "bedrock-stream.jsonl")
    assert stream.format == "bedrock_converse" and stream.stream.dialect == "bedrock_converse"
    record = stream.stream.assembled
    assert record["stopReason"] == "tool_use"
    content = record["output"]["message"]["content"]
    assert content[0]["reasoningContent"]["reasoningText"]["text"] == (
        "The user wants EMEA too; I'll fetch it."
    )
    assert content[1] == {"text": "Let me get the EMEA report."}
    assert content[2]["toolUse"] == {
        "toolUseId": "tooluse_Hs8d3KqLTe2x7VbN1mPo4w",
        "name": "get_latest_sales_report",
        "input": {"region": "emea"},
    }
    assert record["usage"]["totalTokens"] == 1520


@pytest.mark.parametrize(
    ("name", "dialect"),
    [
        ("gemini-stream.sse", "gemini"),
        ("gemini-stream.json", "gemini"),
        ("bedrock-stream.jsonl", "bedrock_converse"),
        ("chat-completions-stream.sse", "chat_completions"),
        ("anthropic-stream.sse", "anthropic"),
    ],
)
def test_events_and_gate_agree_on_native_streams(name, dialect):
    events_status, events = cli("events", str(NATIVE / name))
    gate_status, gate = cli("gate", str(NATIVE / name))
    assert events_status == gate_status == 1
    assert events["dialect"] == dialect == gate["files"][0]["format"]
    assert gate["files"][0]["stream"]["violations"] == events["violations"]
    assert [v["code"] for v in events["violations"]] == ["foreign_stream"]
    assert events["assembled"] == load_path(NATIVE / name).stream.assembled


def test_bedrock_server_tools_are_prefixed_items_not_client_calls():
    # Nova's code interpreter runs in Bedrock's sandbox: a replay must not ask a client to.
    result = gated(NATIVE / "bedrock-response-server-tool.json")
    kinds = [i.type for i in result.transcript.items]
    assert kinds == ["message", "bedrock:server_tool_use", "bedrock:server_tool_result", "message"]
    use, answer = result.transcript.items[1:3]
    assert use.raw["toolUseId"] == answer.raw["toolUseId"]
    assert answer.raw["result_type"] == "nova_code_interpreter_result"
    assert "output_for_blocked_call" not in codes(result)


def test_empty_native_content_gives_no_items():
    # An empty `system` list and a trailing `{"text": ""}` hold nothing: no empty messages
    # that would show as one-side-only changes in every compare.
    t = load_path(NATIVE / "bedrock-request-empty-content.json")
    assert [(i.type, i.role) for i in t.items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
    ]


def test_bedrock_stream_as_json_array_and_a_cut_off_call(tmp_path):
    events = [
        json.loads(line) for line in (NATIVE / "bedrock-stream.jsonl").read_text().splitlines()
    ]
    array = tmp_path / "stream.json"
    array.write_text(json.dumps(events, indent=1))
    t = load_path(array)
    assert t.stream.framing == "json_array"
    assert [i.raw for i in t.items] == [
        i.raw for i in load_path(NATIVE / "bedrock-stream.jsonl").items
    ]
    # Cut off by max_tokens mid-arguments: the streamed text is kept and the call is incomplete.
    cut = [*events[:15], {"messageStop": {"stopReason": "max_tokens"}}]
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in cut) + "\n")
    result = gate_transcript(load_path(path), load_tools(NATIVE / "bedrock-request.json"))
    last = result.transcript.items[-1]
    assert last.raw["arguments"] == '{"query": "EU retail' and last.status == "incomplete"
    assert result.verdicts[-1].verdict == Verdict.STATUS
    assert result.verdicts[-2].verdict == Verdict.OK


def test_bedrock_stream_exception_fails_the_response(tmp_path):
    path = tmp_path / "throttled.jsonl"
    path.write_text(
        '{"messageStart": {"role": "assistant"}}\n'
        '{"throttlingException": {"message": "Too many requests, please wait."}}\n'
    )
    t = load_path(path)
    assert t.groups[0].status == "failed"
    assert "Too many requests" in next(
        f.message for f in gate_transcript(t).findings if f.code == "response_failed"
    )


# --------------------------------------------------------------------------------------------
# Chat Completions and Anthropic Messages


def test_chat_extra_choices_take_choice_zero_with_a_warning():
    result = gated(NATIVE / "chat-completions-response.json", SALES)
    assert len(result.transcript.items) == 2
    assert verdicts(result) == [
        ("call_Yq8LrT2mV5nX0cB3dF6gH9jK", "ok"),
        ("call_Pz1WsE4rT7yU0iO3pA6sD9fG", "arguments_schema"),
    ]
    assert codes(result)["extra_choices"] == Severity.WARNING


def test_chat_stream_cut_off_by_length():
    result = gated(NATIVE / "chat-completions-stream.sse", SALES)
    assert [i.status for i in result.transcript.items] == ["completed", "incomplete"]
    assert verdicts(result)[1] == ("call_Qw8Er1Ty4Ui7Op0As3Df6Gh9", "status")
    assert codes(result)["response_incomplete"] == Severity.WARNING


def test_chat_stream_calls_without_index_are_told_apart_by_id():
    # Mistral streams each call whole, with no `index`: each new id is the next call.
    result = gated(NATIVE / "chat-completions-stream-no-index.sse", SALES)
    assert verdicts(result) == [("D681PevKs", "ok"), ("kT2bQx9Lm", "ok")]
    assert [i.name for i in result.transcript.items] == ["get_latest_sales_report", "search_web"]


def test_chat_stream_empty_continuations_keep_name_and_id_and_no_arguments_is_derived():
    result = gated(NATIVE / "chat-completions-stream-continuations.sse", SALES)
    first, second = result.transcript.items
    assert (first.name, first.call_id) == ("get_latest_sales_report", "call_5f1a9c2e7b3d4e8f9a0b1c")
    assert first.raw["arguments"] == '{"region": "emea"}' and "arguments" not in marks(first)
    assert (second.name, second.call_id) == ("get_current_time", "call_9e8d7c6b5a4f3e2d1c0b9a")
    assert second.raw["arguments"] == "{}" and marks(second)["arguments"] == "serialised"
    assert verdicts(result)[1] == ("call_9e8d7c6b5a4f3e2d1c0b9a", "unknown_tool")


def test_chat_stream_entry_without_index_or_id_continues_the_last_call(tmp_path):
    chunk = {"object": "chat.completion.chunk", "id": "c", "model": "m"}
    deltas = [
        {"tool_calls": [{"id": "a1", "function": {"name": "search_web", "arguments": '{"qu'}}]},
        {"tool_calls": [{"function": {"arguments": 'ery": "rain"}'}}]},
    ]
    lines = [
        json.dumps({**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]})
        for d in deltas
    ]
    path = tmp_path / "s.sse"
    path.write_text("".join(f"data: {x}\n\n" for x in lines), encoding="utf-8")
    (item,) = load_path(path).items
    assert (item.call_id, item.raw["arguments"]) == ("a1", '{"query": "rain"}')


def test_chat_legacy_function_call_pairs_by_name():
    request = {
        "model": "gpt-3.5-turbo-0613",
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            },
            {"role": "function", "name": "get_weather", "content": "4C, rain"},
        ],
        "functions": [{"name": "get_weather", "parameters": {"type": "object"}}],
    }
    result = gate_transcript(load_text(json.dumps(request)))
    _, call, output = result.transcript.items
    assert call.call_id == output.call_id == "openai_call_1"
    assert marks(output)["call_id"] == "paired"
    assert result.verdicts[1].verdict == Verdict.OK
    assert "output_for_blocked_call" not in codes(result)


def test_chat_stream_with_a_legacy_function_call(tmp_path):
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps({"object": "chat.completion.chunk", "choices": [choice]})

    frames = [
        chunk({"role": "assistant", "function_call": {"name": "get_weather", "arguments": ""}}),
        chunk({"function_call": {"arguments": '{"city": '}}),
        chunk({"function_call": {"arguments": '"Oslo"}'}}),
        chunk({}, "function_call"),
    ]
    path = tmp_path / "legacy.sse"
    path.write_text("\n\n".join(frames) + "\n\ndata: [DONE]\n\n")
    (call,) = load_path(path).items
    assert (call.name, call.raw["arguments"], call.status) == (
        "get_weather",
        '{"city": "Oslo"}',
        "completed",
    )
    assert marks(call)["call_id"] == "synthesised"


def test_chat_parts_refusal_and_unknown_fields_are_kept():
    message = {
        "role": "assistant",
        "content": None,
        "refusal": "I can't help with that.",
        "audio": {"id": "audio_1"},
    }
    t = load_text(json.dumps({"model": "m", "messages": [message]}))
    (item,) = t.items
    assert item.raw["content"] == [{"type": "refusal", "refusal": "I can't help with that."}]
    assert item.raw["openai:audio"] == {"id": "audio_1"}
    user = {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "https://x.example/a.png", "detail": "low"}},
            {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
        ],
    }
    (item,) = load_text(json.dumps({"model": "m", "messages": [user]})).items
    assert [p["type"] for p in item.raw["content"]] == [
        "input_text",
        "input_image",
        "openai:input_audio",
    ]


# Cohere v2 chat


def test_cohere_response_calls_are_read_not_taken_for_an_item_reference():
    # It has an `id`, but is no item_reference: both calls under message.tool_calls are read.
    result = gated(NATIVE / "cohere-response.json", SALES)
    assert result.transcript.format == "cohere"
    assert [i.type for i in result.transcript.items] == [
        "cohere:tool_plan",
        "function_call",
        "function_call",
    ]
    assert verdicts(result) == [
        ("get_latest_sales_report_ma4prd4t0rv5", "ok"),
        ("search_web_1byjy32y4hvq", "ok"),
    ]
    assert codes(result)["cohere_envelope"] == Severity.ERROR


def test_cohere_request_pairs_its_tool_result_and_takes_its_tools():
    t = load_path(NATIVE / "cohere-request.json")
    assert [i.type for i in t.items] == [
        "message",
        "message",
        "cohere:tool_plan",
        "function_call",
        "function_call_output",
    ]
    assert t.items[3].call_id == t.items[4].call_id and "get_latest_sales_report" in t.tools


def test_cohere_stream_assembles_its_plan_and_call():
    t = load_path(NATIVE / "cohere-stream.sse")
    assert t.stream is not None and t.stream.dialect == "cohere"
    plan, call = t.items
    assert plan.raw["tool_plan"] == "I will fetch the report."
    assert (call.call_id, call.raw["arguments"], call.status) == (
        "get_latest_sales_report_9kd2m1x7q3ab",
        '{"region": "emea"}',
        "completed",
    )


def test_an_object_that_merely_has_an_id_is_unrecognised(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"id": "m1", "size": 3, "sha": "ab"}', encoding="utf-8")
    with pytest.raises(LoadError, match="unrecognised record"):
        load_path(path)
    path.write_text('{"id": "msg_1"}', encoding="utf-8")
    assert [i.type for i in load_path(path).items] == ["item_reference"]


def test_anthropic_thinking_blocks_are_prefixed_items():
    result = gated(NATIVE / "anthropic-response.json", SALES)
    items = result.transcript.items
    assert [i.type for i in items[:2]] == ["anthropic:thinking", "anthropic:redacted_thinking"]
    assert items[0].raw["signature"].startswith("EqQB")
    assert items[1].raw["data"].startswith("EmwK")
    assert verdicts(result) == [
        ("toolu_01A09q90qw90lq917835lq9", "ok"),
        ("toolu_01B8r7Y6t5R4e3W2q1P0o9i8", "ok"),
    ]
    stream = gated(NATIVE / "anthropic-stream.sse", SALES)
    assert stream.transcript.items[0].raw["thinking"] == (
        "EMEA is in; AMER is the last region Dana will ask about."
    )


def test_anthropic_max_tokens_server_tools_and_result_fields():
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "q"},
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": 1}},
        ],
        "stop_reason": "max_tokens",
    }
    t = load_text(json.dumps(response))
    assert [i.type for i in t.items] == [
        "anthropic:server_tool_use",
        "anthropic:web_search_tool_result",
        "function_call",
    ]
    assert t.items[2].status == "incomplete"
    assert t.groups[0].incomplete_details == {"reason": "max_tokens"}
    message = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [{"type": "text", "text": "boom"}],
                "is_error": True,
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }
    (output,) = load_text(json.dumps(message)).items
    assert output.raw == {
        "type": "function_call_output",
        "call_id": "toolu_1",
        "output": [{"type": "input_text", "text": "boom"}],
        "anthropic:is_error": True,
        "anthropic:cache_control": {"type": "ephemeral"},
    }


def test_converted_results_of_good_calls_are_not_blocked(samples):
    for name in ("chat-completions.json", "anthropic-messages.json"):
        result = gated(samples / name)
        assert "output_for_blocked_call" not in codes(result), name
        assert Verdict.OK in {v.verdict for v in result.verdicts}


# --------------------------------------------------------------------------------------------
# Every format: the gate, envelopes, exit statuses, the format's name


@pytest.mark.parametrize(
    ("path", "tools", "fmt", "code", "verdict"),
    [
        (
            "native/gemini-response.json",
            "native/gemini-request.json",
            "gemini",
            "gemini_envelope",
            "arguments_schema",
        ),
        (
            "native/bedrock-response.json",
            "native/bedrock-request.json",
            "bedrock_converse",
            "bedrock_envelope",
            "arguments_schema",
        ),
        (
            "native/chat-completions-response.json",
            "tools/sales-tools.json",
            "chat_completions",
            "chat_completions_envelope",
            "arguments_schema",
        ),
        (
            "native/anthropic-response.json",
            "tools/region-with-global.tools.json",
            "anthropic",
            "anthropic_envelope",
            "unknown_tool",
        ),
    ],
)
def test_converted_calls_go_through_the_gate(path, tools, fmt, code, verdict):
    status, document = cli("gate", str(SAMPLES / path), "--tools", str(SAMPLES / tools))
    (entry,) = document["files"]
    assert status == 1 and entry["format"] == fmt
    finding = next(f for f in entry["findings"] if f["code"] == code)
    assert finding["severity"] == "error"
    assert verdict in {i["verdict"] for i in entry["items"] if i["type"] == "function_call"}
    call = next(i for i in entry["items"] if i["type"] == "function_call")
    assert call["converted"]["from"] == fmt
    assert {"field": "status", "how": "derived"}.items() <= call["converted"]["derived"][-1].items()


def test_marks_stay_out_of_the_items(samples):
    """The gate and the diff see only the item: a converted item equals its written-out form."""
    converted = load_path(NATIVE / "gemini-request.json")
    plain = load_text(json.dumps([i.raw for i in converted.items]))
    assert all(i.conversion is None for i in plain.items)
    left, right = gate_transcript(converted), gate_transcript(plain, converted.tools)
    assert [v.verdict for v in left.verdicts] == [v.verdict for v in right.verdicts]
    result = diff_results(left, right)
    assert all(not p.changes for p in result.pairs)


# --------------------------------------------------------------------------------------------
# Mixed logs


def test_each_line_of_a_mixed_log_is_read_in_its_own_format():
    result = gated(SAMPLES / "logs" / "mixed-native.jsonl")
    t = result.transcript
    assert [g.kind for g in t.groups] == [
        "request",
        "chat_message",
        "chat_message",
        "anthropic_message",
        "anthropic_message",
        "gemini_content",
        "gemini_content",
        "bedrock_message",
        "bedrock_message",
        "items",
    ]
    envelopes = {
        f.message.split(":")[1]: f.code for f in result.findings if f.code.endswith("_envelope")
    }
    assert envelopes == {
        "2": "chat_completions_envelope",
        "3": "chat_completions_envelope",
        "4": "anthropic_envelope",
        "5": "anthropic_envelope",
        "6": "gemini_envelope",
        "7": "gemini_envelope",
        "8": "bedrock_envelope",
        "9": "bedrock_envelope",
    }
    pairs = [(i.type, i.call_id) for i in t.items if i.type.startswith("function_call")]
    assert pairs == [
        ("function_call", "call_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"),
        ("function_call_output", "call_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"),
        ("function_call", "toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K"),
        ("function_call_output", "toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K"),
        ("function_call", "google_call_1"),
        ("function_call_output", "google_call_1"),
        ("function_call", "tooluse_Vb9Nm2Qw5Er8Ty1Ui4Op7A"),
        ("function_call_output", "tooluse_Vb9Nm2Qw5Er8Ty1Ui4Op7A"),
    ]
    assert {"orphan_output", "missing_output"}.isdisjoint(codes(result))
    # Plain Open Responses message lines stay items; `role: tool` is not one.
    assert classify({"role": "user", "content": "hi"}) == "item"
    assert classify({"role": "tool", "tool_call_id": "c", "content": "x"}) == "chat_message"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ({"type": "message", "role": "assistant", "content": []}, "item"),
        (
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}],
            },
            "anthropic_message",
        ),
        ({"role": "model", "parts": [{"text": "hi"}]}, "gemini_content"),
        ({"role": "user", "content": [{"text": "hi"}]}, "bedrock_message"),
        ({"messageStart": {"role": "assistant"}}, "stream_event"),
        ({"object": "chat.completion.chunk", "choices": []}, "stream_event"),
        ({"type": "message_start", "message": {}}, "stream_event"),
        (
            {"modelId": "m", "messages": [{"role": "user", "content": [{"text": "x"}]}]},
            "bedrock_request",
        ),
        ({"model": "claude", "system": "s", "messages": []}, "anthropic_request"),
        ({"model": "gpt", "messages": [{"role": "system", "content": "s"}]}, "chat_request"),
    ],
)
def test_scored_detection(line, kind):
    assert classify(line) == kind


@pytest.mark.parametrize(
    "frames",
    [
        [
            {
                "type": "message_start",
                "message": {"id": "m", "type": "message", "role": "assistant", "content": []},
            },
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t1", "name": "lookup", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        ],
        [
            {
                "object": "chat.completion.chunk",
                "id": "c",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "role": "assistant",
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "t1",
                                    "type": "function",
                                    "function": {"name": "lookup", "arguments": "{}"},
                                }
                            ],
                        },
                        "finish_reason": None,
                    }
                ],
            },
            {
                "object": "chat.completion.chunk",
                "id": "c",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
            },
        ],
    ],
    ids=["anthropic", "chat"],
)
def test_sdk_recorded_event_lines_are_streams(frames):
    t = load_bytes("\n".join(json.dumps(f) for f in frames).encode() + b"\n", "rec.jsonl")
    assert t.stream is not None and t.stream.framing == "jsonl"
    (call,) = t.items
    assert (call.call_id, call.status) == ("t1", "completed")


# --------------------------------------------------------------------------------------------
# OpenAI lists, refusals, statuses


def _items_list(data: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"object": "list", "data": data, "has_more": False, **extra})


CALL = {
    "id": "fc_1",
    "type": "function_call",
    "call_id": "c1",
    "name": "f",
    "arguments": "{}",
    "status": "completed",
}
OUTPUT = {"id": "fco_1", "type": "function_call_output", "call_id": "c1", "output": "x"}
USER = {"id": "msg_1", "type": "message", "role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("data", "extra", "order", "because"),
    [
        ([OUTPUT, CALL, USER], {}, ["msg_1", "fc_1", "fco_1"], "outputs come before their calls"),
        ([USER, CALL, OUTPUT], {}, ["msg_1", "fc_1", "fco_1"], "calls come before their outputs"),
        ([USER, USER | {"id": "msg_2"}], {}, ["msg_2", "msg_1"], "the API's default order"),
        (
            [USER, USER | {"id": "msg_2"}],
            {"order": "asc"},
            ["msg_1", "msg_2"],
            "order field is 'asc'",
        ),
        (
            [USER, USER | {"id": "msg_2"}],
            {"first_id": "msg_2", "last_id": "msg_1"},
            ["msg_1", "msg_2"],
            "first_id names the last element",
        ),
    ],
    ids=["outputs-first", "calls-first", "default", "order-field", "first-last"],
)
def test_lists_are_put_in_conversation_order(data, extra, order, because):
    result = gate_transcript(load_text(_items_list(data, **extra)))
    assert [i.id for i in result.transcript.items] == order
    note = next(f for f in result.findings if f.code == "list_order")
    assert note.severity == Severity.INFO and because in note.message
    assert {"output_before_call", "missing_output"}.isdisjoint(codes(result))
    # Origins still point at the element as written.
    first = result.transcript.items[0]
    assert first.origin.pointer == f"/data/{[d['id'] for d in data].index(first.id)}"


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "resp_68a1", "object": "response.deleted", "deleted": true}',
        '{"id": "msg_1", "object": "conversation.item.deleted", "deleted": true}',
        '{"id": "msgbatch_01", "type": "message_batch_deleted"}',
        '{"object": "response.input_tokens", "input_tokens": 118}',
        '{"input_tokens": 2095}',
        '{"totalTokens": 31, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 31}]}',
        '{"inputTokens": 88}',
        '["get_latest_sales_report", "search_web"]',
        "[1, 2, 3]",
    ],
)
def test_what_is_not_a_transcript_is_refused(tmp_path, text):
    with pytest.raises(LoadError, match="unrecognised record"):
        load_text(text)
    path = tmp_path / "odd.json"
    path.write_text(text)
    status, document = cli("gate", str(path))
    assert status == 2 and "unrecognised record" in document["files"][0]["error"]["message"]


def test_unknown_response_status_is_an_error(samples):
    result = gated(samples / "findings" / "response-cancelled.json")
    assert codes(result)["response_status_unknown"] == Severity.ERROR
    assert "'cancelled'" in next(
        f.message for f in result.findings if f.code == "response_status_unknown"
    )


def test_hosted_item_left_in_progress_is_judged_alike_in_a_file_and_a_stream(samples, tmp_path):
    response = json.loads((samples / "findings" / "hosted-item-in-progress.json").read_text())
    assert (
        codes(gated(samples / "findings" / "hosted-item-in-progress.json"))[
            "response_status_mismatch"
        ]
        == Severity.WARNING
    )
    hosted = response["output"][0]
    events = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {**response, "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": hosted,
        },
        {
            "type": "response.completed",
            "sequence_number": 2,
            "response": {**response, "output": [hosted]},
        },
    ]
    path = tmp_path / "hosted.sse"
    path.write_text(
        "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        + "data: [DONE]\n\n"
    )
    stream = load_path(path).stream
    (violation,) = [v for v in stream.violations if v.code == "open_item_at_completion"]
    assert violation.severity == "warning"
    # A core item left in_progress stays an error in both.
    core = {**response, "output": [{**response["output"][1], "status": "in_progress"}]}
    assert (
        codes(gate_transcript(load_text(json.dumps(core))))["response_status_mismatch"]
        == Severity.ERROR
    )


# --------------------------------------------------------------------------------------------
# Nothing dropped: native calls and results against converted items, for every sample


def _trim(obj: Any) -> Any:
    """Keep only choice / candidate 0 of a response: the others are alternatives, not read."""
    if isinstance(obj, dict):
        for key in ("choices", "candidates"):
            if isinstance(obj.get(key), list) and len(obj[key]) > 1:
                obj = {**obj, key: obj[key][:1]}
    return obj


#: Native call and result markers: Gemini parts and Bedrock blocks are keyed by kind.
CALL_KEYS = ("functionCall", "toolUse")
RESULT_KEYS = ("functionResponse", "function_response", "toolResult")
#: Settings, not turns: a tool list or a forced choice names tools without calling them.
SETTINGS = ("tools", "functions", "toolConfig", "tool_choice", "toolChoice")


def _server_tool_ids(node: Any) -> set[Any]:
    """The ids of Bedrock `toolUse` blocks marked `server_tool_use`, anywhere in a value."""
    if isinstance(node, list):
        return set().union(*map(_server_tool_ids, node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = set().union(*map(_server_tool_ids, node.values())) if node else set()
    use = node.get("toolUse")
    if isinstance(use, dict) and use.get("type") == "server_tool_use":
        found.add(use.get("toolUseId"))
    return found


def native_counts(value: Any) -> tuple[int, int]:
    """Count the tool calls and results in native JSON of any supported format."""
    calls = results = 0
    # Bedrock's server tools (its own sandbox) are no client calls, nor are their results.
    server = _server_tool_ids(value)

    def walk(node: Any) -> None:
        nonlocal calls, results
        if isinstance(node, list):
            for x in node:
                walk(x)
            return
        if not isinstance(node, dict):
            return
        node = _trim(node)
        inner = node.get("toolUse") or node.get("toolResult")
        if isinstance(inner, dict) and inner.get("toolUseId") in server:
            return
        kind, role = node.get("type"), node.get("role")
        calls += kind in ("function_call", "tool_use")
        results += kind in ("function_call_output", "tool_result") or role in ("tool", "function")
        tool_calls = node.get("tool_calls")
        calls += len(tool_calls) if isinstance(tool_calls, list) else 0
        calls += sum(isinstance(node.get(k), dict) for k in CALL_KEYS)
        results += sum(isinstance(node.get(k), dict) for k in RESULT_KEYS)
        # `function_call`: a legacy Chat call on an assistant message, or a Gemini snake_case
        # part (no role); on a request it is a setting.
        legacy = node.get("function_call")
        calls += isinstance(legacy, dict) and "messages" not in node
        for key, child in node.items():
            if key not in SETTINGS and key != "function_call":
                walk(child)

    walk(value)
    return calls, results


def stream_counts(path: Path) -> tuple[int, int]:
    """Count the tool calls a recorded stream delivered, from its events alone."""
    t = load_path(path)
    calls: set[Any] = set()
    for ev in t.events:
        data = ev.data if isinstance(ev.data, dict) else {}
        for choice in data.get("choices") or ():
            if choice.get("index") == 0:
                for call in choice.get("delta", {}).get("tool_calls") or ():
                    # Without `index` (Mistral) each call is told apart by its `id`.
                    index = call.get("index")
                    calls.add(("chat", index if index is not None else call.get("id")))
        block = data.get("content_block") or {}
        if data.get("type") == "content_block_start" and block.get("type") == "tool_use":
            calls.add(("anthropic", data["index"]))
        if (
            data.get("type") == "response.output_item.added"
            and data["item"].get("type") == "function_call"
        ):
            calls.add(("open_responses", data["item"].get("id"), data.get("output_index")))
        if data.get("type") == "tool-call-start":
            calls.add(("cohere", data["index"]))
        start = (data.get("contentBlockStart") or {}).get("start") or {}
        if "toolUse" in start:
            calls.add(("bedrock", data["contentBlockStart"]["contentBlockIndex"]))
        for candidate in (data.get("candidates") or ())[:1]:
            for part in (candidate.get("content") or {}).get("parts") or ():
                # A continuation of a streamed call (Vertex `partialArgs`) names no function.
                if "functionCall" in part and "name" in part["functionCall"]:
                    calls.add(("gemini", ev.index, json.dumps(part)))
    return len(calls), 0


def _samples() -> list[Path]:
    found = [
        p
        for p in sorted(SAMPLES.rglob("*"))
        if p.is_file()
        and p.suffix in (".json", ".jsonl", ".sse")
        and "expected" not in p.parts
        and "tools" not in p.parts
        # Session files hold several conversations and repeated records: test_sources counts them.
        and "sessions" not in p.parts
        # Files that are no transcript at all, kept to show they are refused.
        and "refused" not in p.parts
        and not p.name.endswith(".tools.json")
    ]
    if CORPUS.is_dir():
        found += sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return found


@pytest.mark.parametrize("path", _samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_call_or_result_is_dropped(path):
    t = load_path(path)
    items = (
        sum(1 for i in t.items if i.type == "function_call"),
        sum(1 for i in t.items if i.type == "function_call_output"),
    )
    if t.stream is not None:
        expected = stream_counts(path)
    elif path.suffix == ".jsonl":
        expected = tuple(
            sum(c)
            for c in zip(
                *(
                    native_counts(json.loads(line))
                    for line in path.read_text().splitlines()
                    if line.strip()
                ),
                strict=True,
            )
        )
    else:
        expected = native_counts(json.loads(path.read_text(encoding="utf-8-sig")))
    assert items == expected


# --------------------------------------------------------------------------------------------
# Hostile input: native-looking garbage gives a transcript or a LoadError, never a traceback

_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
_key = st.sampled_from(
    [
        "role",
        "content",
        "parts",
        "contents",
        "candidates",
        "text",
        "thought",
        "functionCall",
        "functionResponse",
        "function_call",
        "args",
        "response",
        "name",
        "id",
        "toolUse",
        "toolResult",
        "toolUseId",
        "input",
        "json",
        "messages",
        "output",
        "message",
        "stopReason",
        "finishReason",
        "tool_calls",
        "type",
        "thoughtSignature",
        "system",
        "modelId",
        "index",
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "start",
        "delta",
        "contentBlockIndex",
        "reasoningContent",
        "choices",
        "tools",
        "toolConfig",
        "functionDeclarations",
        "parameters",
        "object",
        "data",
        "order",
        "first_id",
        "status",
    ]
)
_values = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_key, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_values, min_size=1, max_size=3))
def test_native_shaped_garbage_never_crashes(values):
    for data in (
        json.dumps(values[0]).encode(),
        "\n".join(json.dumps(v) for v in values).encode() + b"\n",
        "".join(f"data: {json.dumps(v)}\n\n" for v in values).encode(),
    ):
        try:
            transcript = load_bytes(data, "fuzz")
        except InspectorError:
            continue
        result = gate_transcript(transcript)
        assert len(result.verdicts) == len(transcript.items)
        for item in transcript.items:
            assert item.conversion is None or item.conversion.describe()


def test_an_array_stream_inside_a_jsonl_log_is_refused_with_its_line():
    data = b'{"type": "message", "role": "user", "content": "hi"}\n[{"candidates": []}]\n'
    with pytest.raises(LoadError, match="must be a file of its own") as info:
        load_bytes(data, "log.jsonl")
    assert info.value.line == 2
