"""Polly.JS HAR recordings of real provider calls, checked against the raw capture read with
plain `json`: ragged's tests calling OpenAI (a tool call and its result sent back) and Azure
OpenAI, and electron-template's tests calling a local LM Studio server through the Vercel AI SDK.

The counts are made here from the HAR's entries, not by the loader: an entry is a provider call
when its URL's path ends in one of the APIs' paths and its method posts a body; a message is an
element of the request's `messages` or a response's first choice, or the text a stream's
`data:` chunks add up to; a call is an element of a message's `tool_calls` and a result a
message whose role is `tool`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from tests.conftest import SAMPLES
from tests.core.test_otel import check_gate_golden

HAR = SAMPLES / "sessions" / "har"
MUTATIONS = HAR / "lmstudio-polly.har"
STREAM = HAR / "lmstudio-polly-stream.har"
ROUNDTRIP = HAR / "openai-polly-tool-roundtrip.har"
AZURE = HAR / "azure-openai-polly.har"
LMSTUDIO = [MUTATIONS, STREAM]
RECORDINGS = [ROUNDTRIP, AZURE, *LMSTUDIO]
API_PATHS = ("/chat/completions", "/v1/messages")


def entries(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]


def calls_made(path: Path) -> list[dict[str, Any]]:
    return [
        e
        for e in entries(path)
        if urlsplit(e["request"]["url"]).path.endswith(API_PATHS)
        and e["request"]["method"] == "POST"
    ]


def chunks(text: str) -> list[dict[str, Any]]:
    """The JSON of each `data:` line of an event stream, up to `[DONE]`."""
    found = []
    for line in text.splitlines():
        if line.startswith("data: ") and line[6:] != "[DONE]":
            found.append(json.loads(line[6:]))
    return found


def streamed_text(text: str) -> str:
    return "".join(
        c["choices"][0]["delta"].get("content") or "" for c in chunks(text) if c["choices"]
    )


def messages_of(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's messages, then the response's answer (its first choice's message, or the
    message a stream's chunks spell)."""
    found = list(json.loads(entry["request"]["postData"]["text"])["messages"])
    content = entry["response"]["content"]
    if content["mimeType"] == "text/event-stream":
        text = streamed_text(content["text"])
        if text:
            found.append({"role": "assistant", "content": text})
        return found
    body = json.loads(content["text"])
    found += [c["message"] for c in body.get("choices", [])[:1]]
    return found


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_calls_messages_and_results_match_the_raw_entries(path):
    made = calls_made(path)
    transcripts = load_conversations(path)
    assert [t.conversation for t in transcripts] == [
        f"entry {n}" for n, e in enumerate(entries(path)) if e in made
    ]
    for entry, transcript in zip(made, transcripts, strict=True):
        messages = messages_of(entry)
        items = transcript.items
        # A tool message is a result, and an assistant turn of calls alone is its calls.
        said = [
            m["role"]
            for m in messages
            if m["role"] != "tool" and (m["content"] or not m.get("tool_calls"))
        ]
        assert [i.raw["role"] for i in items if i.type == "message"] == said
        calls = sum(len(m.get("tool_calls") or []) for m in messages)
        results = sum(m["role"] == "tool" for m in messages)
        assert sum(i.type == "function_call" for i in items) == calls
        assert sum(i.type == "function_call_output" for i in items) == results


def test_a_streamed_answer_is_the_text_its_chunks_add_up_to():
    (entry,) = calls_made(STREAM)
    text = entry["response"]["content"]["text"]
    (transcript,) = load_conversations(STREAM)
    assert transcript.stream is not None
    assert len(transcript.events) == len(chunks(text)) + 1  # and the `[DONE]` line
    answer = transcript.items[-1]
    assert answer.raw["role"] == "assistant"
    assert answer.raw["content"] == streamed_text(text)
    finish = [c["choices"][0]["finish_reason"] for c in chunks(text) if c["choices"]]
    assert finish[-1] == "stop" and transcript.groups[-1].status == "completed"


def test_a_request_to_the_messages_path_is_read_as_anthropic():
    # Text turns alone fit Chat Completions too: the URL the request went to says which API.
    anthropic = next(e for e in calls_made(MUTATIONS) if e["request"]["url"].endswith("/messages"))
    sent = json.loads(anthropic["request"]["postData"]["text"])
    _, transcript = load_conversations(MUTATIONS)
    request, _ = transcript.groups
    assert (request.kind, request.envelope.name) == ("anthropic_request", "anthropic")
    (asked,) = transcript.items
    assert [p["text"] for p in asked.raw["content"]] == [
        b["text"] for b in sent["messages"][0]["content"]
    ]
    codes = {f.code for f in gate_transcript(transcript, {}).findings}
    assert "anthropic_envelope" in codes and "chat_completions_envelope" not in codes


def test_a_server_that_does_not_serve_the_path_answers_an_error_body():
    # LM Studio answered POST /v1/messages with HTTP 200 and `{"error": "..."}` alone.
    entry = calls_made(MUTATIONS)[1]
    said = json.loads(entry["response"]["content"]["text"])["error"]
    assert entry["response"]["status"] == 200
    _, transcript = load_conversations(MUTATIONS)
    (finding,) = [f for f in gate_transcript(transcript, {}).findings if f.code == "provider_error"]
    assert said in finding.message and "/log/entries/1/response/content/text" in finding.message


def test_the_recorders_and_clients_are_named_in_the_captures():
    creators = {json.loads(p.read_text("utf-8"))["log"]["creator"]["version"] for p in RECORDINGS}
    agents = {
        h["value"]
        for path in LMSTUDIO
        for e in calls_made(path)
        for h in e["request"]["headers"]
        if h["name"] == "user-agent"
    }
    assert creators == {"6.0.6"}
    assert agents == {
        "ai/5.0.89 ai-sdk/provider-utils/3.0.16 runtime/browser",
        "ai-sdk/openai-compatible/1.0.27 ai-sdk/provider-utils/3.0.17 runtime/browser",
    }
    # The recordings hold no secret: LM Studio takes any key and the client sent a placeholder;
    # ragged's recorder replaced OpenAI's and Azure's keys before writing.
    keys = {
        h["value"]
        for path in RECORDINGS
        for e in calls_made(path)
        for h in e["request"]["headers"]
        if h["name"] in ("authorization", "x-api-key")
    }
    assert keys == {"Bearer not-required", "not-required", "Bearer <redacted>"}
    assert {h["value"] for e in calls_made(AZURE) for h in e["request"]["headers"]} >= {
        "<redacted>"
    }


def test_a_tool_call_and_the_result_sent_back_match_the_raw_messages():
    first, second = calls_made(ROUNDTRIP)
    (made,) = json.loads(first["response"]["content"]["text"])["choices"][0]["message"][
        "tool_calls"
    ]
    sent = json.loads(second["request"]["postData"]["text"])
    (answered,) = [m for m in sent["messages"] if m["role"] == "tool"]
    asked, answer = load_conversations(ROUNDTRIP)
    (call,) = [i for i in asked.items if i.type == "function_call"]
    assert (call.raw["call_id"], call.raw["name"], call.raw["arguments"]) == (
        made["id"],
        made["function"]["name"],
        made["function"]["arguments"],
    )
    # The next request sends the call back with its result: one conversation holds both.
    (output,) = [i for i in answer.items if i.type == "function_call_output"]
    assert output.raw["call_id"] == answered["tool_call_id"] == made["id"]
    assert output.raw["output"] == answered["content"]
    # Each request declared the tool: the call is judged against its schema.
    declared = {t["function"]["name"] for t in sent["tools"]}
    assert set(answer.tools) == declared
    for transcript in (asked, answer):
        verdicts = gate_transcript(transcript, {}).verdicts
        judged = zip(transcript.items, verdicts, strict=True)
        assert [v.verdict for i, v in judged if i.type == "function_call"] == ["ok"]


def har(tmp_path: Path, url: str, body: dict[str, Any]) -> Path:
    entry = {
        "request": {
            "method": "POST",
            "url": url,
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {},
    }
    path = tmp_path / "capture.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}))
    return path


def test_a_chat_request_with_an_anthropic_looking_field_is_read_as_chat(tmp_path):
    # `top_k` is a sampling field of Anthropic's, and of OpenAI-compatible servers such as vLLM.
    body = {"model": "m", "top_k": 20, "messages": [{"role": "user", "content": "hi"}]}
    (alone,) = load_conversations(har(tmp_path, "http://localhost:8000/v1/responses", body))
    assert alone.groups[0].kind == "anthropic_request"  # a body read by its contents alone
    (sent,) = load_conversations(har(tmp_path, "http://localhost:8000/v1/chat/completions", body))
    assert [g.kind for g in sent.groups] == ["chat_request"]
    assert [(i.raw["role"], i.raw["content"]) for i in sent.items] == [("user", "hi")]


def test_an_error_body_of_a_message_alone_is_read_and_other_shapes_are_not(tmp_path):
    alone = tmp_path / "error.json"
    alone.write_text('{"error": "model \'llama3.2\' not found"}')
    (t,) = load_conversations(alone)
    (finding,) = [f for f in gate_transcript(t, {}).findings if f.code == "provider_error"]
    assert "model 'llama3.2' not found" in finding.message
    other = tmp_path / "other.json"
    other.write_text('{"error": "x", "detail": "y"}')
    with pytest.raises(LoadError, match="unrecognised record"):
        load_conversations(other)


GOLDEN = [
    ("sessions-har-lmstudio-polly", MUTATIONS),
    ("sessions-har-openai-polly-tool-roundtrip", ROUNDTRIP),
]


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)
