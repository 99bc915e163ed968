"""OpenTelemetry GenAI traces: OTLP JSON spans, the collector's file exporter, OTLP logs, Jaeger
JSON and the OTLP document as Jaeger's and Tempo's APIs wrap it.

Counts are made here from the raw files with plain `json`, not by the loader: a call is a
`tool_call` part, a result a `tool_call_response` part, of the content attributes of any span,
span event, log record, Jaeger span tag or Jaeger log field, each counted once by its id (chat
spans resend their history).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from tests.conftest import REPO, SAMPLES
from tests.core.test_cli_gate import gate

OTEL = SAMPLES / "sessions" / "otel"
SPANS = OTEL / "tool-calls-spans.json"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CONTENT = ("gen_ai.input.messages", "gen_ai.output.messages")


def plain(any_value: Any) -> Any:
    """An OTLP AnyValue as a plain value (only what the samples use); a Jaeger tag's value is
    plain already."""
    if not isinstance(any_value, dict):
        return any_value
    if "arrayValue" in any_value:
        return [plain(v) for v in any_value["arrayValue"].get("values", [])]
    if "kvlistValue" in any_value:
        # An entry may have no value at all (an unset field of an SDK's dump).
        return {e["key"]: plain(e.get("value")) for e in any_value["kvlistValue"]["values"]}
    (inner,) = any_value.values()
    return inner


def otlp_records(export: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span, span event and log record of one OTLP document: their attribute lists."""
    found = []
    for resource in export.get("resourceSpans", []) + export.get("batches", []):
        for scope in resource.get("scopeSpans", []) + resource.get(
            "instrumentationLibrarySpans", []
        ):
            for span in scope["spans"]:
                found.append(span.get("attributes", []))
                found += [event.get("attributes", []) for event in span.get("events", [])]
    for resource in export.get("resourceLogs", []):
        for scope in resource["scopeLogs"]:
            found += [record.get("attributes", []) for record in scope["logRecords"]]
    return found


def jaeger_records(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span's tags and every log's fields of a Jaeger document (`data`, or one trace)."""
    found = []
    for trace in document.get("data", [document]):
        for span in trace["spans"]:
            found.append(span.get("tags", []))
            found += [log.get("fields", []) for log in span.get("logs", [])]
    return found


def records(path: Path) -> list[list[dict[str, Any]]]:
    """The attribute list of every span, span event, log record, Jaeger span and Jaeger log of
    an export file, read with json."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        exports = [json.loads(text)]
    else:
        exports = [json.loads(line) for line in text.splitlines() if line.strip()]
    found = []
    for export in exports:
        # Jaeger's /api/v3 and Tempo's /api/v2 wrap the OTLP document in one key.
        export = export.get("result") or export.get("trace") or export
        jaeger = "data" in export or "traceID" in export
        found += jaeger_records(export) if jaeger else otlp_records(export)
    return found


def legacy_events(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The older per-message events of a file's OTLP logs: each record's name and body."""
    if path.suffix != ".json":
        return []
    found = []
    for resource in json.loads(path.read_text(encoding="utf-8")).get("resourceLogs", []):
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                named = {a["key"]: plain(a["value"]) for a in record.get("attributes", [])}
                name = record.get("eventName") or named.get("event.name")
                if isinstance(name, str) and name.startswith("gen_ai.") and "body" in record:
                    found.append((name, plain(record["body"])))
    return found


def content_events(path: Path) -> list[Any]:
    """The Chat Completions messages of the first conventions' `gen_ai.content.prompt` and
    `gen_ai.content.completion` span events (those written as JSON)."""
    if path.suffix != ".json":
        return []
    found = []
    for resource in json.loads(path.read_text(encoding="utf-8")).get("resourceSpans", []):
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for event in span.get("events", []):
                    if event["name"] in ("gen_ai.content.prompt", "gen_ai.content.completion"):
                        (attribute,) = event["attributes"]
                        text = plain(attribute["value"])
                        if text.startswith('[{"'):
                            found += json.loads(text)
    return found


FLAT_CALL_ID = re.compile(r"gen_ai\.(?:prompt|completion)\.\d+\.tool_calls\.\d+\.id")
FLAT_FUNCTION = re.compile(r"gen_ai\.completion\.(\d+)\.function_call\.name")
FLAT_ROLE = re.compile(r"gen_ai\.prompt\.(\d+)\.role")


def flattened_ids(record: int, attributes: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    """The call ids and result ids of the older flattened attributes of one record: each
    `tool_calls.M.id`, a `function_call` (which has no id: one per record and message), and
    the `tool_call_id` of each prompt message whose role is `tool`."""
    named = {a["key"]: plain(a["value"]) for a in attributes}
    calls = {json.dumps(v) for k, v in named.items() if FLAT_CALL_ID.fullmatch(k)}
    calls |= {f"{record}/{m[1]}" for k in named if (m := FLAT_FUNCTION.fullmatch(k))}
    results = {
        json.dumps(named.get(f"gen_ai.prompt.{m[1]}.tool_call_id"))
        for k, v in named.items()
        if (m := FLAT_ROLE.fullmatch(k)) and v == "tool"
    }
    return calls, results


def raw_counts(path: Path) -> tuple[int, int]:
    """Distinct tool_call ids and tool_call_response ids of the file's content attributes, of
    its older flattened attributes, and of its older per-message events (a call counts when
    its arguments were kept, a tool message when its content was)."""
    calls: set[str] = set()
    results: set[str] = set()
    for n, (name, body) in enumerate(legacy_events(path)):
        message = body.get("message", {}) if name == "gen_ai.choice" else body
        for call in message.get("tool_calls", []):
            if "arguments" in call["function"]:
                calls.add(json.dumps(call["id"]))
        if name == "gen_ai.tool.message" and "content" in body:
            results.add(json.dumps(body["id"]))
        # A Gemini `Content` (google-genai's instrumentation, Google ADK): parts without ids,
        # a call once in the choice that made it, a response once by its value.
        content = body.get("content")
        for p, part in enumerate(content.get("parts", []) if isinstance(content, dict) else []):
            if name == "gen_ai.choice" and part.get("function_call"):
                calls.add(f"{n}/{p}")
            if part.get("function_response"):
                results.add(json.dumps(part["function_response"], sort_keys=True))
    for message in content_events(path):
        calls.update(json.dumps(c["id"]) for c in message.get("tool_calls", []))
        if message["role"] == "tool":
            results.add(json.dumps(message["tool_call_id"]))
    for n, attributes in enumerate(records(path)):
        flat_calls, flat_results = flattened_ids(n, attributes)
        calls.update(flat_calls)
        results.update(flat_results)
        for attribute in attributes:
            if attribute["key"] not in CONTENT:
                continue
            messages = plain(attribute["value"])
            if isinstance(messages, str):
                messages = json.loads(messages)
            for message in messages:
                for part in message.get("parts", []):
                    # agent_framework 1.0.0b251007 wrote an id as a list (run id, call id).
                    key = json.dumps(part.get("id"))
                    if part["type"] == "tool_call":
                        calls.add(key)
                    elif part["type"] == "tool_call_response":
                        results.add(key)
    return len(calls), len(results)


def loaded_counts(path: Path) -> tuple[int, int]:
    items = [i for t in load_conversations(path) for i in t.items]
    return (
        sum(i.type == "function_call" for i in items),
        sum(i.type == "function_call_output" for i in items),
    )


@pytest.mark.parametrize("path", sorted(OTEL.iterdir()), ids=lambda p: p.name)
def test_calls_and_results_match_the_raw_parts(path):
    assert loaded_counts(path) == raw_counts(path)


def test_a_chat_span_repeating_its_history_is_read_once():
    first, _ = load_conversations(SPANS)
    # Span 1 sends the user's message and gets the call; span 2 resends both with the result.
    assert [(i.type, i.raw.get("role")) for i in first.items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "assistant"),
    ]
    spans = {g.origin.pointer for g in first.groups}
    assert len(spans) == 2
    # The final answer comes from the second chat span, the call from the first.
    assert first.items[1].origin.pointer.startswith("/resourceSpans/0/scopeSpans/0/spans/0/")
    assert first.items[3].origin.pointer.startswith("/resourceSpans/0/scopeSpans/0/spans/2/")


def test_one_conversation_per_trace_each_with_its_id():
    transcripts = load_conversations(SPANS)
    assert [t.conversation for t in transcripts] == [TRACE, "5c0a3e1d9b7f4a2c8e6d4b2a0f9e8d7c"]
    codes = [f.code for f in gate_transcript(transcripts[0], {}).findings]
    assert "several_conversations" in codes


def test_tool_definitions_become_the_transcripts_tools():
    first, _ = load_conversations(SPANS)
    tool = first.tools["get_current_weather"]
    assert tool.parameters["required"] == ["location", "unit"]
    # The conventions' own example calls a tool it did not define: the gate says so.
    result = gate_transcript(first, {})
    assert [v.verdict for v in result.verdicts][1] == "unknown_tool"


def test_arguments_objects_are_serialised_and_marked_lossy():
    first, _ = load_conversations(SPANS)
    call = first.items[1]
    assert call.raw["arguments"] == '{"location":"Paris"}'
    (mark,) = [d for d in call.conversion.derived if d.field == "arguments"]
    assert "exact argument text" in mark.detail
    assert call.conversion.source == "otel"


def test_structured_attributes_and_a_kind_name_are_read():
    _, second = load_conversations(SPANS)
    types = [i.type for i in second.items]
    assert types == [
        "message",
        "message",
        "otel:server_tool_call",
        "otel:server_tool_call_response",
        "message",
    ]
    assert second.items[2].raw["call_id"] == second.items[3].raw["call_id"]


def test_the_file_exporter_lines_and_the_older_names_are_read():
    path = OTEL / "collector-file-exporter.jsonl"
    first, second = load_conversations(path)
    # The first line's content is on the operation-details event, not the span.
    assert "/events/0" in first.items[0].origin.pointer and first.items[0].origin.line == 1
    assert [i.type for i in second.items][2] == "otel:reasoning"
    assert second.items[0].origin.pointer.startswith("/batches/0/instrumentationLibrarySpans/0")
    assert second.items[0].origin.line == 2


def test_log_records_are_inferences():
    (t,) = load_conversations(OTEL / "inference-logs.json")
    assert [i.type for i in t.items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert t.groups[0].kind == "otel_log"


def test_capture_off_is_a_finding_not_an_empty_success():
    (t,) = load_conversations(OTEL / "capture-off-spans.json")
    assert t.items == ()
    (finding,) = [f for f in gate_transcript(t, {}).findings if f.code == "content_not_captured"]
    assert "capture was off" in finding.message
    # The definitions are still there to read, even with no content.
    assert not t.tools


def test_jaeger_json_is_read_from_tags_and_logs():
    first, second = load_conversations(OTEL / "jaeger-api-traces.json")
    assert [first.conversation, second.conversation] == [TRACE, "0af7651916cd43dd8448eb211c80319c"]
    # The same calls as the OTLP document it shows, pointed at in Jaeger's own layout.
    (otlp, _) = load_conversations(SPANS)
    assert [i.raw for i in first.items] == [i.raw for i in otlp.items]
    assert first.items[1].origin.pointer == "/data/0/spans/0/tags/11/value"
    # The details event is a Jaeger log, named by its `event` field.
    assert second.items[0].origin.pointer.startswith("/data/1/spans/0/logs/0/fields/")
    # `finish_reasons` written as JSON text (an array tag) still gives the response's status.
    assert second.groups[0].status == "completed"


def test_jaeger_ui_fixtures_one_trace_and_the_data_list():
    (trace,) = load_conversations(OTEL / "jaeger-ui-genai-trace.json")
    assert trace.conversation == "4a1b2c3d4e5f60718293a4b5c6d7e8f9"
    assert [i.raw["role"] for i in trace.items] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    # execute_tool spans describe the tool's run, not the model's call: no items of their own.
    assert not [i for i in trace.items if i.type != "message"]
    full, partial = load_conversations(OTEL / "jaeger-ui-download.json")
    # Messages in a provider's own shape (`content`, no `parts`) are read as their text.
    assert full.items[1].raw["content"][0]["text"].startswith("Can you explain how to set up")
    assert partial.items == ()
    codes = [f.code for f in gate_transcript(partial, {}).findings]
    assert "content_not_captured" in codes


@pytest.mark.parametrize(
    ("name", "key", "conversation"),
    [("jaeger-api-v3.json", "result", 0), ("tempo-api-v2.json", "trace", 1)],
)
def test_a_backends_wrapper_around_the_otlp_document(name, key, conversation):
    (wrapped,) = load_conversations(OTEL / name)
    plain_otlp = load_conversations(SPANS)[conversation]
    assert [i.raw for i in wrapped.items] == [i.raw for i in plain_otlp.items]
    assert all(i.origin.pointer.startswith(f"/{key}/resourceSpans/0/") for i in wrapped.items)


def test_a_document_with_jaeger_keys_that_is_no_trace_is_named(tmp_path):
    path = tmp_path / "not-a-trace.json"
    path.write_text(json.dumps({"traceID": "t", "spanID": "s", "operationName": "chat"}))
    status, _, err = gate(str(path))
    assert status == 2 and "Traceback" not in err and err.count("\n") == 1
    assert f"{path}:" in err and "nor a Jaeger trace" in err


def test_the_older_per_message_events_are_read_as_one_call_per_span():
    (t,) = load_conversations(OTEL / "legacy-events-logs.json")
    assert [(i.type, i.raw.get("role")) for i in t.items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "assistant"),
    ]
    # Two chat spans, each one call made of its events (named by `event.name` or `eventName`).
    assert len(t.groups) == 2 and {g.kind for g in t.groups} == {"otel_log"}
    pointers = [i.origin.pointer for i in t.items]
    assert pointers[0] == "/resourceLogs/0/scopeLogs/0/logRecords/0/body"
    assert pointers[3] == "/resourceLogs/0/scopeLogs/0/logRecords/5/body"
    # These events keep a call's arguments as the model's text: kept, not marked.
    call = t.items[1]
    assert call.raw["arguments"] == '{"location":"Paris"}'
    assert not [d for d in call.conversion.derived if d.field == "arguments"]
    assert t.groups[-1].status == "completed"


def test_the_older_events_without_content_are_a_finding():
    (t,) = load_conversations(OTEL / "legacy-events-capture-off.json")
    assert t.items == ()
    codes = [f.code for f in gate_transcript(t, {}).findings]
    assert "content_not_captured" in codes


def test_the_older_events_on_a_span(tmp_path):
    path = tmp_path / "span-events.json"
    choice = {"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}
    events = [
        {"name": "gen_ai.system.message", "attributes": [attr("content", "be brief")]},
        {"name": "gen_ai.user.message", "attributes": [attr("content", "go")]},
        {
            "name": "gen_ai.choice",
            "attributes": [
                attr("finish_reason", "tool_calls"),
                attr("message", json.dumps(choice)),
            ],
        },
    ]
    chat = {**span("t", "a", 1, {"gen_ai.system": "openai"}), "events": events}
    path.write_text(export(chat))
    (t,) = load_conversations(path)
    assert [(i.type, i.raw.get("role")) for i in t.items] == [
        ("message", "system"),
        ("message", "user"),
        ("function_call", None),
    ]
    assert t.items[2].origin.pointer == "/resourceSpans/0/scopeSpans/0/spans/0/events/2"


def test_the_first_conventions_prompt_and_completion_events():
    plain_text, tools = load_conversations(OTEL / "content-events-spans.json")
    # v1.27's own example is Python's repr, not JSON: one message of plain text, marked.
    assert [i.raw["role"] for i in plain_text.items] == ["user", "assistant"]
    assert plain_text.items[0].raw["content"][0]["text"].startswith("[{'role': 'user'")
    (mark,) = plain_text.items[0].conversion.derived
    assert "plain text" in mark.detail
    # Chat Completions JSON, as the events recommend: calls, results and history read once.
    assert [i.type for i in tools.items] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert tools.items[1].origin.pointer == "/resourceSpans/0/scopeSpans/0/spans/1/events/1"


def test_real_agent_framework_spans_one_conversation_from_the_model_calls():
    (t,) = load_conversations(OTEL / "agent-framework-1.0.0b251216.json")
    # The conversation id is set on the second chat span only (the Responses API's previous
    # response): the trace's other spans join it.
    assert t.conversation == "resp_0e32bda5b6259ecd00694279e271348194a818447145cd1763"
    assert [(i.type, i.raw.get("role")) for i in t.items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "assistant"),
    ]
    # The invoke_agent span repeats the whole turn: only the chat spans are read.
    document = json.loads((OTEL / "agent-framework-1.0.0b251216.json").read_text("utf-8"))
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    read = {int(i.origin.pointer.split("/")[6]) for i in t.items}
    assert {spans[n]["name"] for n in read} == {"chat gpt-5-mini"}
    assert t.tools["get_weather"].parameters["required"] == ["location"]


def test_a_call_a_later_span_answers_ran_though_no_finish_reason_says_so():
    # The chat span that made the call recorded no finish_reason; the next chat span sends the
    # call's tool_call_response: it ran, as a call in a request's history had.
    path = OTEL / "agent-framework-1.0.0b251216.json"
    (t,) = load_conversations(path)
    verdicts = [v.verdict for v in gate_transcript(t, {}).verdicts]
    assert verdicts == ["not_function_call", "ok", "not_function_call", "not_function_call"]
    call = t.items[1]
    assert call.status == "completed"
    (mark,) = [d for d in call.conversion.derived if d.field == "status"]
    assert mark.how == "derived" and "no finish_reason" in mark.detail
    assert "later result" in mark.detail
    _, out, _ = gate(str(path.relative_to(REPO)), "--format", "json")
    (entry,) = json.loads(out)["files"]
    shown = entry["items"][1]["converted"]
    assert (
        shown["from"] == "otel"
        and {"field": "status", "how": "derived"}.items()
        <= next(d for d in shown["derived"] if d["field"] == "status").items()
    )
    assert entry["verdict_summary"]["outcome"] == "safe"


def test_a_call_with_no_answer_and_no_finish_reason_stays_in_progress(tmp_path):
    path = tmp_path / "unanswered.json"
    asked = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]
    call = {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {}}
    answer = {"type": "tool_call_response", "id": "call_1", "response": "sunny"}
    # An answer read before the call (here an earlier span's) does not show that it ran.
    path.write_text(
        export(
            span(
                "t",
                "a",
                1,
                {"gen_ai.input.messages": json.dumps([{"role": "tool", "parts": [answer]}])},
            ),
            span(
                "t",
                "b",
                2,
                {
                    "gen_ai.input.messages": json.dumps(asked),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
                },
            ),
        )
    )
    (t,) = load_conversations(path)
    (made,) = [i for i in t.items if i.type == "function_call"]
    assert made.status == "in_progress"
    (mark,) = [d for d in made.conversion.derived if d.field == "status"]
    assert mark.detail == "no finish_reason"
    assert gate_transcript(t, {}).verdicts[made.index].verdict == "status"


def pydantic_tools(path: Path) -> dict[str, Any]:
    """Each tool of the spans' `model_request_parameters` (function and output tools), read
    with json: name → its parameters schema."""
    found = {}
    for attributes in records(path):
        for attribute in attributes:
            if attribute["key"] == "model_request_parameters":
                parameters = json.loads(plain(attribute["value"]))
                for tool in parameters["function_tools"] + parameters["output_tools"]:
                    found[tool["name"]] = tool["parameters_json_schema"]
    return found


def test_pydantic_ai_tools_are_read_from_its_model_request_parameters():
    path = OTEL / "pydantic-ai-1.26.0.json"
    expected = pydantic_tools(path)
    # Five joke tools offered by two agents, and the evaluator's output tool.
    assert len(expected) == 6 and "final_result" in expected
    (t,) = load_conversations(path)
    assert {name: tool.parameters for name, tool in t.tools.items()} == expected
    result = gate_transcript(t, {})
    calls = [
        v.verdict
        for i, v in zip(t.items, result.verdicts, strict=True)
        if i.type == "function_call"
    ]
    assert calls == ["ok"] * 4
    # Pydantic AI 0.2 declared no tools for its one call.
    (older,) = load_conversations(OTEL / "pydantic-ai-0.2.15.json")
    assert pydantic_tools(OTEL / "pydantic-ai-0.2.15.json") == {} and older.tools == {}


def test_a_call_id_written_as_a_list_pairs_by_its_call_id():
    # agent_framework 1.0.0b251007 wrote each id as [run id, call id] (an Assistants API run):
    # the call and its result pair by the call id, marked, and the call a later span answers ran.
    path = OTEL / "agent-framework-1.0.0b251007.json"
    document = json.loads(path.read_text("utf-8"))
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    written = {
        json.dumps(part["id"])
        for span_ in spans
        for attribute in span_["attributes"]
        if attribute["key"] in CONTENT
        for message in json.loads(plain(attribute["value"]))
        for part in message["parts"]
        if part["type"] in ("tool_call", "tool_call_response")
    }
    ((run_id, call_id),) = [json.loads(w) for w in written]
    (t,) = load_conversations(path)
    paired = [i for i in t.items if i.type in ("function_call", "function_call_output")]
    assert [i.call_id for i in paired] == [call_id, call_id] and run_id != call_id
    for item in paired:
        assert any(d.field == "call_id" and "list" in d.detail for d in item.conversion.derived)
    result = gate_transcript(t, {})
    assert [v.verdict for v in result.verdicts][1] == "ok"
    assert not {f.code for f in result.findings} & {"missing_output", "orphan_output"}


def test_pydantic_ai_0_2_events_attribute():
    (t,) = load_conversations(OTEL / "pydantic-ai-0.2.15.json")
    assert [i.raw["role"] for i in t.items] == ["system", "user", "assistant"]
    # One model call: the chat span's `events`; the agent run's `all_messages_events` repeats
    # the run and is not read.
    assert len(t.groups) == 1
    document = json.loads((OTEL / "pydantic-ai-0.2.15.json").read_text("utf-8"))
    (chat,) = [
        n
        for n, span in enumerate(document["resourceSpans"][0]["scopeSpans"][0]["spans"])
        if span["name"] == "chat gpt-4o"
    ]
    assert {i.origin.pointer.split("/")[6] for i in t.items} == {str(chat)}


def attr(key: str, text: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": text}}


def span(trace: str, span_id: str, start: int, attributes: dict[str, str]) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span_id,
        "name": "chat",
        "kind": "SPAN_KIND_CLIENT",
        "startTimeUnixNano": str(start),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }


def export(*spans: dict[str, Any]) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


def test_the_older_flattened_attributes_are_read(tmp_path):
    path = tmp_path / "traceloop.json"
    attributes = {
        "gen_ai.system": "openai",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": "Weather in Paris?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "call_1",
        "gen_ai.completion.0.tool_calls.0.name": "get_weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"location": "Paris"}',
        "llm.request.functions.0.name": "get_weather",
        "llm.request.functions.0.parameters": '{"type": "object"}',
    }
    path.write_text(export(span("t1", "s1", 1, attributes)))
    (t,) = load_conversations(path)
    call = t.items[1]
    # Arguments recorded as text are the model's text: kept as they are, not marked.
    assert call.raw["arguments"] == '{"location": "Paris"}' and call.raw["status"] == "completed"
    assert not [d for d in call.conversion.derived if d.field == "arguments"]
    assert t.tools["get_weather"].parameters == {"type": "object"}
    assert gate_transcript(t, {}).verdicts[1].verdict == "ok"


def test_a_conversation_id_joins_traces_and_outranks_them(tmp_path):
    path = tmp_path / "two-traces.json"
    ask = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])
    answer = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}])
    both = {"gen_ai.conversation.id": "conv-1", "gen_ai.input.messages": ask}
    path.write_text(
        export(
            span("t2", "b", 20, {**both, "gen_ai.output.messages": answer}),
            span("t1", "a", 10, both),
        )
    )
    (t,) = load_conversations(path)
    assert t.conversation == "conv-1"
    assert [i.raw.get("role") for i in t.items] == ["user", "assistant"]


def test_the_same_words_twice_are_two_messages(tmp_path):
    path = tmp_path / "again.json"
    said = {"role": "user", "parts": [{"type": "text", "content": "continue"}]}
    reply = {"role": "assistant", "parts": [{"type": "text", "content": "ok"}]}
    path.write_text(
        export(
            span("t", "a", 1, {"gen_ai.input.messages": json.dumps([said])}),
            span("t", "b", 2, {"gen_ai.input.messages": json.dumps([said, reply, said])}),
        )
    )
    (t,) = load_conversations(path)
    assert [i.raw.get("role") for i in t.items] == ["user", "assistant", "user"]


def test_a_line_that_is_not_an_export_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = (OTEL / "collector-file-exporter.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path.write_text(good + "\n" + '{"spans": []}\n')
    with pytest.raises(LoadError, match="not an OTLP export request") as caught:
        load_conversations(path)
    assert caught.value.line == 2


def test_a_cut_document_names_its_line_and_column(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(SPANS.read_text(encoding="utf-8")[:5000])
    status, _, err = gate(str(path))
    assert status == 2 and "Traceback" not in err
    assert f"{path}:" in err and err.count("\n") == 1


def test_a_trace_with_no_genai_spans_is_a_load_error(tmp_path):
    path = tmp_path / "http.json"
    path.write_text(export(span("t", "a", 1, {"http.method": "GET"})))
    status, _, err = gate(str(path))
    assert status == 2
    assert "no GenAI spans" in err and "Traceback" not in err


def test_gate_conversation_picks_one_trace():
    _, out, _ = gate(str(SPANS.relative_to(REPO)), "--conversation", TRACE, "--format", "json")
    (entry,) = json.loads(out)["files"]
    assert entry["conversation"] == TRACE and len(entry["items"]) == 4


GOLDEN = [
    ("sessions-otel-spans", SPANS),
    ("sessions-otel-file-exporter", OTEL / "collector-file-exporter.jsonl"),
    ("sessions-otel-logs", OTEL / "inference-logs.json"),
    ("sessions-otel-capture-off", OTEL / "capture-off-spans.json"),
    ("sessions-otel-jaeger", OTEL / "jaeger-api-traces.json"),
    ("sessions-otel-jaeger-ui", OTEL / "jaeger-ui-genai-trace.json"),
    ("sessions-otel-tempo", OTEL / "tempo-api-v2.json"),
    ("sessions-otel-legacy-events", OTEL / "legacy-events-logs.json"),
    ("sessions-otel-content-events", OTEL / "content-events-spans.json"),
    ("sessions-otel-agent-framework", OTEL / "agent-framework-1.0.0b251216.json"),
    ("sessions-otel-pydantic-ai", OTEL / "pydantic-ai-1.26.0.json"),
]


def check_gate_golden(name: str, path: Path, golden: Callable[[Path, str], None]) -> None:
    """Check `gate --format json` of a sample (with its exit status) against its golden."""
    status, out, _ = gate(str(path.relative_to(REPO)), "--format", "json")
    document = json.loads(out)
    document["exit_status"] = status
    rendered = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    golden(SAMPLES / "expected" / f"{name}.gate.json", rendered)


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)
