"""Verbatim trace files that real instrumentation wrote, checked against a second record.

The loader reads a trace's GenAI content attributes; each count here is made with plain
`json` (or `ast` for a Python repr) from another record of the same exchange that the loader
never reads: Google ADK's own `gcp.vertex.agent.*` attributes beside OpenLLMetry's (kagent),
the raw provider response LiteLLM logs on its `raw_gen_ai_request` span, and the response
OpenLLMetry's workflow span keeps as `traceloop.entity.output`.

Codex rollouts and two Claude Code sessions are checked in test_real_sources_codex.py and
test_real_sources_claude.py; their goldens are checked here with the others.
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from inspector.core.model import Transcript
from tests.conftest import SAMPLES
from tests.core.test_otel import check_gate_golden, plain

OTEL = SAMPLES / "sessions" / "otel"
JAEGER = OTEL / "kagent-jaeger-helm.json"
TEMPO = OTEL / "kagent-tempo-batches.json"
LITELLM = OTEL / "litellm-1.100.0.json"
OPENLLMETRY = OTEL / "openllmetry-0.62.3.json"
OPENAI_V2 = OTEL / "openai-v2-2.4b0.json"


def spans(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each span's name and attributes as plain values: Jaeger's tags or OTLP's attributes
    (`resourceSpans` or Tempo's `batches`)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    if "data" in document:
        return [
            (span["operationName"], {t["key"]: t["value"] for t in span["tags"]})
            for trace in document["data"]
            for span in trace["spans"]
        ]
    found = []
    for resource in document.get("resourceSpans", []) + document.get("batches", []):
        for scope in resource.get("scopeSpans", []) + resource.get(
            "instrumentationLibrarySpans", []
        ):
            for span in scope["spans"]:
                values = {
                    a["key"]: next(iter(a["value"].values())) for a in span.get("attributes", [])
                }
                found.append((span["name"], values))
    return found


def loaded(path: Path) -> Transcript:
    (transcript,) = load_conversations(path)
    return transcript


def calls_and_results(transcript: Transcript) -> tuple[list[Any], list[Any]]:
    items = transcript.items
    return (
        [(i.raw["call_id"], i.raw["name"]) for i in items if i.type == "function_call"],
        [i.raw["call_id"] for i in items if i.type == "function_call_output"],
    )


@pytest.mark.parametrize("path", [JAEGER, TEMPO], ids=lambda p: p.name)
def test_kagent_calls_results_and_tools_match_adks_own_record(path):
    # ADK writes each model response on its call_llm span, the request (with the declared
    # tools) beside it, and one execute_tool span per tool run; the loader reads none of these.
    responses = [
        json.loads(a["gcp.vertex.agent.llm_response"]) for n, a in spans(path) if n == "call_llm"
    ]
    adk_calls = [
        (part["function_call"]["id"], part["function_call"]["name"])
        for response in responses
        for part in response["content"]["parts"]
        if "function_call" in part
    ]
    adk_runs = [a["gen_ai.tool.call.id"] for n, a in spans(path) if n.startswith("execute_tool")]
    requests = [
        json.loads(a["gcp.vertex.agent.llm_request"]) for n, a in spans(path) if n == "call_llm"
    ]
    declared = {
        d["name"]
        for request in requests
        for tool in request["config"]["tools"]
        for d in tool["function_declarations"]
    }
    transcript = loaded(path)
    calls, results = calls_and_results(transcript)
    assert len(adk_calls) == 1 and calls == adk_calls
    assert results == adk_runs
    assert set(transcript.tools) == declared
    (conversation,) = {a["gen_ai.conversation.id"] for n, a in spans(path) if n == "call_llm"}
    assert transcript.conversation == conversation


@pytest.mark.parametrize("path", [JAEGER, TEMPO], ids=lambda p: p.name)
def test_kagent_call_with_no_arguments_passes_the_gate(path):
    # The model called helm_list_releases with `{}` and the tool declares no required field.
    transcript = loaded(path)
    verdicts = [v.verdict.value for v in gate_transcript(transcript, {}).verdicts]
    assert verdicts == ["not_function_call"] * 2 + ["ok"] + ["not_function_call"] * 2
    (call,) = [i for i in transcript.items if i.type == "function_call"]
    assert call.raw["arguments"] == "{}" and call.status == "completed"


def test_litellm_call_written_only_in_the_flattened_attributes_is_read():
    # LiteLLM 1.100.0 writes `gen_ai.output.messages` with no parts and the call only as
    # `gen_ai.completion.0.function_call.*`; the provider's own response, as LiteLLM logged it
    # (a Python repr), says what the model called.
    (raw,) = [a for n, a in spans(LITELLM) if n == "raw_gen_ai_request"]
    choices = ast.literal_eval(raw["llm.openai.choices"])
    (sent,) = choices[0]["message"]["tool_calls"]
    transcript = loaded(LITELLM)
    (call,) = [i for i in transcript.items if i.type == "function_call"]
    assert call.raw["name"] == sent["function"]["name"]
    assert call.raw["arguments"] == sent["function"]["arguments"]
    # The flattened attributes kept no id: it is made up and marked so.
    marks = {d.field: d.how for d in call.conversion.derived}
    assert marks["call_id"] == "synthesised" and call.status == "completed"
    assert [v.verdict.value for v in gate_transcript(transcript, {}).verdicts][-1] == "ok"


def test_openllmetry_call_matches_the_response_its_workflow_span_kept():
    (workflow,) = [a for n, a in spans(OPENLLMETRY) if n.endswith(".workflow")]
    # traceloop.entity.output is the response's JSON text, itself written as a JSON string.
    response = json.loads(json.loads(workflow["traceloop.entity.output"]))
    sent = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in response["choices"][0]["message"]["tool_calls"]
    ]
    transcript = loaded(OPENLLMETRY)
    got = [
        (i.raw["call_id"], i.raw["name"], json.loads(i.raw["arguments"]))
        for i in transcript.items
        if i.type == "function_call"
    ]
    assert got == sent
    # The span kept the arguments as an object: the text is serialised here, marked lossy.
    (call,) = [i for i in transcript.items if i.type == "function_call"]
    assert any(d.field == "arguments" for d in call.conversion.derived)


def test_openai_v2_records_no_tool_definitions():
    # opentelemetry-instrumentation-openai-v2 2.4b0 writes the messages but not the tools the
    # model was offered: the call is read, its tool is unknown.
    assert not any(k == "gen_ai.tool.definitions" for _, a in spans(OPENAI_V2) for k in a)
    transcript = loaded(OPENAI_V2)
    assert transcript.tools == {}
    verdicts = [v.verdict.value for v in gate_transcript(transcript, {}).verdicts]
    assert verdicts == ["not_function_call", "not_function_call", "unknown_tool"]


def test_the_instrumentation_versions_read_are_several():
    versions = set()
    for path in (JAEGER, OPENLLMETRY, OPENAI_V2):
        document = json.loads(path.read_text(encoding="utf-8"))
        for trace in document.get("data", []):
            for span in trace["spans"]:
                tags = {t["key"]: t["value"] for t in span["tags"]}
                if "otel.scope.version" in tags:
                    versions.add((tags["otel.scope.name"], tags["otel.scope.version"]))
        for resource in document.get("resourceSpans", []):
            for scope in resource["scopeSpans"]:
                versions.add((scope["scope"]["name"], scope["scope"].get("version")))
    assert {
        ("opentelemetry.instrumentation.openai.v1", "0.47.3"),
        ("opentelemetry.instrumentation.openai.v1", "0.62.3"),
        ("gcp.vertex.agent", "1.22.1"),
        ("opentelemetry.util.genai.handler", "1.1b0"),
    } <= versions


ADK_LOGS = OTEL / "adk-2.10-event-logs.json"
#: The same scenario with google-genai's instrumentation under ADK: its spans and its events.
GENAI_LOGS = OTEL / "google-genai-0.7b1-event-logs.json"
EVENT_LOGS = pytest.mark.parametrize("path", [ADK_LOGS, GENAI_LOGS], ids=lambda p: p.name)


def log_events(path: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """Each OTLP log record's span id, event name and body, read with json."""
    document = json.loads(path.read_text(encoding="utf-8"))
    return [
        (record["spanId"], record["eventName"], plain(record["body"]))
        for resource in document["resourceLogs"]
        for scope in resource["scopeLogs"]
        for record in scope["logRecords"]
    ]


@EVENT_LOGS
def test_adk_event_logs_calls_and_results_match_adks_own_spans(path):
    # ADK 2.10 (or google-genai's instrumentation under it) wrote each model call's messages as
    # the older events (log records, Gemini's own `Content` as the body, history resent on every
    # call); ADK's spans say what it ran: one `execute_tool` span per call with the arguments
    # and the response, and each model response as `gcp.vertex.agent.llm_response`. The loader
    # reads only the log records.
    ran = [
        (
            a["gen_ai.tool.name"],
            a["gcp.vertex.agent.tool_call_args"],
            a["gcp.vertex.agent.tool_response"],
        )
        for n, a in spans(path)
        if n.startswith("execute_tool")
    ]
    answered = [
        part["function_call"]
        for n, a in spans(path)
        if n == "call_llm"
        for part in json.loads(a["gcp.vertex.agent.llm_response"])["content"]["parts"]
        if "function_call" in part
    ]
    transcript = loaded(path)
    calls = [i for i in transcript.items if i.type == "function_call"]
    results = [i for i in transcript.items if i.type == "function_call_output"]
    assert len(ran) == len(answered) == 2
    assert [(c.raw["name"], json.loads(c.raw["arguments"])) for c in calls] == [
        (call["name"], call["args"]) for call in answered
    ]
    assert [(c.raw["name"], json.loads(c.raw["arguments"])) for c in calls] == [
        (name, json.loads(args)) for name, args, _ in ran
    ]
    assert [json.loads(r.raw["output"]) for r in results] == [json.loads(out) for *_, out in ran]
    # No id in the events: each call's id is made up, each response answers its call by name.
    assert [r.raw["call_id"] for r in results] == [c.raw["call_id"] for c in calls]
    assert all(
        {d.how for d in r.conversion.derived if d.field == "call_id"} == {"paired"} for r in results
    )
    # Gemini's own finish reason (`STOP`) says the calls completed.
    assert [c.status for c in calls] == ["completed", "completed"]


@EVENT_LOGS
def test_adk_event_logs_history_resent_on_every_call_is_read_once(path):
    events = log_events(path)
    choices = [body for _, name, body in events if name == "gen_ai.choice"]
    texts = [
        part["text"]
        for body in choices
        for part in body["content"]["parts"]
        if part["text"] is not None
    ]
    # The model's turns come back as `gen_ai.user.message` events of role `model`.
    resent = [
        b for _, n, b in events if n == "gen_ai.user.message" and b["content"]["role"] == "model"
    ]
    assert len(events) == 15 and len(choices) == 3 and len(resent) == 3
    transcript = loaded(path)
    said = [i.raw for i in transcript.items if i.type == "message" and i.raw["role"] == "assistant"]
    assert [part["text"] for m in said for part in m["content"]] == texts
    assert [i.raw["role"] for i in transcript.items if i.type == "message"] == [
        "system",
        "user",
        "assistant",
        "assistant",
    ]


def test_a_gemini_thought_in_an_event_is_reasoning_not_text(tmp_path):
    # The same real records with the first choice's text marked as a thought (`thought: true`,
    # as Gemini writes a thought summary): it is the model's reasoning, not its answer.
    document = json.loads(ADK_LOGS.read_text(encoding="utf-8"))
    records = document["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    choice = next(r for r in records if r["eventName"] == "gen_ai.choice")
    (content,) = choice["body"]["kvlistValue"]["values"][:1]
    first_part = content["value"]["kvlistValue"]["values"][0]["value"]["arrayValue"]["values"][0]
    (thought,) = [e for e in first_part["kvlistValue"]["values"] if e["key"] == "thought"]
    thought["value"] = {"boolValue": True}
    changed = tmp_path / "thought.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    items = loaded(changed).items
    assert [i.type for i in items[:4]] == ["message", "message", "otel:reasoning", "function_call"]
    assert items[2].raw["content"] == "Let me look that up."


def test_a_gemini_part_of_no_conventions_kind_stays_in_its_message_prefixed(tmp_path):
    # The real records with the first choice's text replaced by Gemini's `executable_code` (code
    # the model wrote for its code execution tool): no part of the conventions says that, so it
    # stays in the assistant's message as an `otel:executable_code` part.
    document = json.loads(ADK_LOGS.read_text(encoding="utf-8"))
    records = document["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    choice = next(r for r in records if r["eventName"] == "gen_ai.choice")
    (content,) = choice["body"]["kvlistValue"]["values"][:1]
    first_part = content["value"]["kvlistValue"]["values"][0]["value"]["arrayValue"]["values"][0]
    fields = {e["key"]: e for e in first_part["kvlistValue"]["values"]}
    del fields["text"]["value"]
    code = {"kvlistValue": {"values": [{"key": "code", "value": {"stringValue": "print(1)"}}]}}
    fields["executable_code"]["value"] = code
    changed = tmp_path / "code.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    said = loaded(changed).items[2]
    assert said.raw["role"] == "assistant"
    assert said.raw["content"] == [
        {"type": "otel:executable_code", "executable_code": {"code": "print(1)"}}
    ]


def test_an_event_content_of_no_known_shape_stays_in_its_message_once_prefixed(tmp_path):
    # The real records with the question's `content` an object that is no Gemini `Content` (no
    # `parts`): kept in the user's message as an `otel:content` part (it was `otel:otel:content`).
    document = json.loads(ADK_LOGS.read_text(encoding="utf-8"))
    records = document["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    question = next(r for r in records if r["eventName"] == "gen_ai.user.message")
    (content,) = question["body"]["kvlistValue"]["values"]
    content["value"] = {
        "kvlistValue": {"values": [{"key": "query", "value": {"stringValue": "Paris"}}]}
    }
    changed = tmp_path / "content.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    user = loaded(changed).items[1]
    assert user.raw["role"] == "user"
    assert user.raw["content"] == [{"type": "otel:content", "content": {"query": "Paris"}}]


CLAUDE_2064 = SAMPLES / "sessions" / "claude_code" / "project-2.0.64"
CLAUDE_2064 /= "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
GOLDEN = [
    ("sessions-otel-kagent-jaeger", JAEGER),
    ("sessions-otel-kagent-tempo", TEMPO),
    ("sessions-otel-litellm", LITELLM),
    ("sessions-otel-openllmetry", OPENLLMETRY),
    ("sessions-otel-adk-event-logs", ADK_LOGS),
    ("sessions-codex-0.77", SAMPLES / "sessions" / "codex" / "rollout-0.77-exec.jsonl"),
    ("sessions-codex-0.125", SAMPLES / "sessions" / "codex" / "rollout-0.125-tools.jsonl"),
    ("sessions-codex-0.128", SAMPLES / "sessions" / "codex" / "rollout-0.128-js.jsonl"),
    ("sessions-claude-code-2.1.4", SAMPLES / "sessions" / "claude_code" / "v2.1.4-rejected.jsonl"),
    ("sessions-claude-code-2.0.75", SAMPLES / "sessions" / "claude_code" / "v2.0.75-session.jsonl"),
    (
        "sessions-inspect-browser",
        SAMPLES / "sessions" / "inspect" / "2025-05-12T20-27-36-04-00_browser.json",
    ),
    # The session file alone (its agents beside it are read with the folder: _claude.py).
    ("sessions-claude-code-2.0.64", CLAUDE_2064),
]


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)


def test_the_inspect_versions_read_are_several():
    # The logs say which inspect_ai wrote them (the header of an .eval archive, the top of a
    # .json log); each is read with the standard library here.
    inspect = SAMPLES / "sessions" / "inspect"
    written = set()
    for path in sorted(inspect.iterdir()):
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                header = json.loads(archive.read("header.json"))
        else:
            header = json.loads(path.read_text(encoding="utf-8"))
        written.add((header["version"], header["eval"]["packages"]["inspect_ai"].split(".dev")[0]))
        assert load_conversations(path)
    assert written == {
        (2, "0.3.41"),
        (2, "0.3.42"),
        (2, "0.3.58"),
        (2, "0.3.95"),
        (3, "0.3.135"),
        (2, "0.3.154"),
    }


def test_inspect_browser_calls_and_results_are_the_samples_own():
    # inspect_ai 0.3.95's browser task: each call is a `tool_calls` entry of an assistant turn
    # (its id, function and arguments object), each result the `tool` message naming its id.
    path = SAMPLES / "sessions" / "inspect" / "2025-05-12T20-27-36-04-00_browser.json"
    (sample,) = json.loads(path.read_text(encoding="utf-8"))["samples"]
    made = [c for m in sample["messages"] for c in m.get("tool_calls") or []]
    answered = [m for m in sample["messages"] if m["role"] == "tool"]
    (transcript,) = load_conversations(path)
    calls = [i for i in transcript.items if i.type == "function_call"]
    outputs = [i for i in transcript.items if i.type == "function_call_output"]
    assert len(made) == 4
    assert [(i.raw["call_id"], i.raw["name"], json.loads(i.raw["arguments"])) for i in calls] == [
        (c["id"], c["function"], c["arguments"]) for c in made
    ]
    assert [(i.raw["call_id"], i.raw["output"]) for i in outputs] == [
        (m["tool_call_id"], m["content"]) for m in answered
    ]
    # The tools offered are on the sample's model events; every call names one of them.
    offered = {
        t["name"]
        for e in sample["events"]
        if e.get("event") == "model"
        for t in e.get("tools") or []
    }
    assert set(transcript.tools) == offered
    verdicts = gate_transcript(transcript, {}).verdicts
    judged = [v.verdict for i, v in zip(transcript.items, verdicts, strict=True) if i in calls]
    assert judged == ["ok"] * 4


@pytest.mark.parametrize(
    "path", sorted((SAMPLES / "sessions" / "inspect").iterdir()), ids=lambda p: p.name
)
def test_inspect_messages_match_the_samples_messages(path):
    # Every message of every sample, read with zipfile and json, is one message item, in order;
    # an assistant turn that only calls tools is its calls (no empty message of its own).
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.startswith("samples/"))
            samples = [json.loads(archive.read(n)) for n in names]
    else:
        samples = json.loads(path.read_text(encoding="utf-8"))["samples"]
    transcripts = load_conversations(path)
    assert len(transcripts) == len(samples)
    for sample, transcript in zip(samples, transcripts, strict=True):
        said = [
            m["role"]
            for m in sample["messages"]
            if m["role"] != "tool" and (m["content"] or not m.get("tool_calls"))
        ]
        assert [i.raw["role"] for i in transcript.items if i.type == "message"] == said
