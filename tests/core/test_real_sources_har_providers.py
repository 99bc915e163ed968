"""Polly.JS HAR recordings of OpenLLMetry-JS's tests calling each provider's own API:
Anthropic (a thinking block, and an event stream), Gemini, OpenAI's Responses API through the
Vercel AI SDK, and Chat Completions calls from openai-node and Together's SDK whose gzip
responses Polly kept as it received them (a JSON list of base64 chunks of the gzip stream).

Every expectation is made here from the raw capture with plain `json`, `base64` and `gzip`,
never by the loader: the entries that post to a provider path, their request and response
bodies, the blocks, parts, items and tool calls those bodies hold, and the text a stream's
`content_block_delta` events add up to.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from inspector.core import jsonio
from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from tests.conftest import SAMPLES
from tests.core.test_otel import check_gate_golden

HAR = SAMPLES / "sessions" / "har"
THINKING = HAR / "anthropic-polly-thinking.har"
STREAM = HAR / "anthropic-polly-stream.har"
GEMINI = HAR / "gemini-polly.har"
AGENTS = HAR / "openai-responses-polly-agents.har"
OPENAI_GZIP = HAR / "openai-polly-gzip-tool-call.har"
TOGETHER_GZIP = HAR / "together-polly-gzip-tool-call.har"
RECORDINGS = [THINKING, STREAM, GEMINI, AGENTS, OPENAI_GZIP, TOGETHER_GZIP]
GZIPPED = [OPENAI_GZIP, TOGETHER_GZIP]
PATHS = ("/v1/messages", ":generateContent", "/v1/responses", "/v1/chat/completions")


def document(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def calls_made(path: Path) -> list[dict[str, Any]]:
    return [
        e
        for e in document(path)["log"]["entries"]
        if urlsplit(e["request"]["url"]).path.endswith(PATHS) and e["request"]["method"] == "POST"
    ]


def sent(entry: dict[str, Any]) -> dict[str, Any]:
    return json.loads(entry["request"]["postData"]["text"])


def answer_text(entry: dict[str, Any]) -> str:
    """The response body as text: Polly's base64 chunk list joined and gunzipped."""
    content = entry["response"]["content"]
    if content.get("encoding") != "base64":
        return content["text"]
    data = b"".join(base64.b64decode(chunk) for chunk in json.loads(content["text"]))
    return gzip.decompress(data).decode("utf-8")


def answer(entry: dict[str, Any]) -> dict[str, Any]:
    return json.loads(answer_text(entry))


def texts(item: Any) -> list[str]:
    content = item.raw["content"]
    return [content] if isinstance(content, str) else [p["text"] for p in content]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_one_conversation_per_call_with_its_messages_calls_and_results(path):
    made = calls_made(path)
    transcripts = load_conversations(path)
    every = document(path)["log"]["entries"]
    assert [t.conversation for t in transcripts] == [f"entry {every.index(e)}" for e in made]
    for entry, transcript in zip(made, transcripts, strict=True):
        asked = sent(entry)
        # The turns sent: Anthropic's and Chat's `messages`, Gemini's `contents`, Responses'
        # `input` messages (none of these requests sends a call or a result back).
        turns = asked.get("messages") or asked.get("contents") or asked["input"]
        said = [m["role"] for m in turns]
        if entry["response"]["content"]["mimeType"].startswith("text/event-stream"):
            said.append("assistant")
            calls = 0
        else:
            body = answer(entry)
            blocks = body.get("content") or []
            output = body.get("output") or []
            choices = [c["message"] for c in body.get("choices", [])[:1]]
            parts = [p for c in body.get("candidates", [])[:1] for p in c["content"]["parts"]]
            spoken = any(b["type"] == "text" for b in blocks) or parts
            said += ["assistant"] * bool(spoken)
            said += [o["role"] for o in output if o["type"] == "message"]
            said += [m["role"] for m in choices if m.get("content")]
            calls = sum(o["type"] == "function_call" for o in output)
            calls += sum(len(m.get("tool_calls") or []) for m in choices)
            calls += sum(b["type"] == "tool_use" for b in blocks)
        items = transcript.items
        assert [i.raw["role"] for i in items if i.type == "message"] == said
        assert sum(i.type == "function_call" for i in items) == calls
        assert not any(i.type == "function_call_output" for i in items)


def test_a_thinking_block_keeps_its_text_and_signature():
    (entry,) = calls_made(THINKING)
    assert urlsplit(entry["request"]["url"]).query == "beta=true"  # the SDK's beta endpoint
    thinking, text = answer(entry)["content"]
    (transcript,) = load_conversations(THINKING)
    user, block, said = transcript.items
    assert [g.kind for g in transcript.groups] == ["anthropic_request", "anthropic_response"]
    assert texts(user) == [sent(entry)["messages"][0]["content"]]
    assert block.type == "anthropic:thinking"
    assert (block.raw["thinking"], block.raw["signature"]) == (
        thinking["thinking"],
        thinking["signature"],
    )
    assert texts(said) == [text["text"]]
    # A provider's reasoning replays only to that provider: the gate blocks it.
    verdicts = gate_transcript(transcript, {}).verdicts
    assert [v.verdict for v in verdicts] == ["not_function_call", "namespaced", "not_function_call"]


def test_an_anthropic_stream_is_the_text_its_deltas_add_up_to():
    (entry,) = calls_made(STREAM)
    events = [
        json.loads(line[len("data: ") :])
        for line in entry["response"]["content"]["text"].splitlines()
        if line.startswith("data: ")
    ]
    streamed = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    (transcript,) = load_conversations(STREAM)
    assert transcript.stream is not None and len(transcript.events) == len(events)
    assert texts(transcript.items[-1]) == [streamed]
    assert events[-1]["type"] == "message_stop"
    # The stream is Anthropic's, not Open Responses': its envelope blocks a replay.
    assert {v.code for v in transcript.stream.violations} == {"foreign_stream"}


def test_gemini_parts_are_the_request_and_candidate_text():
    (entry,) = calls_made(GEMINI)
    (transcript,) = load_conversations(GEMINI)
    user, model = transcript.items
    assert texts(user) == [p["text"] for p in sent(entry)["contents"][0]["parts"]]
    (candidate,) = answer(entry)["candidates"]
    assert texts(model) == [p["text"] for p in candidate["content"]["parts"]]
    assert model.raw["role"] == "assistant" and candidate["content"]["role"] == "model"


def test_a_responses_call_matches_the_output_and_is_judged_by_the_declared_tool():
    outer, inner = calls_made(AGENTS)
    (made,) = [o for o in answer(outer)["output"] if o["type"] == "function_call"]
    first, second = load_conversations(AGENTS)
    (call,) = [i for i in first.items if i.type == "function_call"]
    assert {k: call.raw[k] for k in ("call_id", "name", "arguments")} == {
        k: made[k] for k in ("call_id", "name", "arguments")
    }
    assert set(first.tools) == {t["name"] for t in sent(outer)["tools"]}
    verdicts = gate_transcript(first, {}).verdicts
    assert [v.verdict for i, v in zip(first.items, verdicts, strict=True) if i is call] == ["ok"]
    # The inner agent's call is a conversation of its own, with no tools and plain text.
    (message,) = [o for o in answer(inner)["output"] if o["type"] == "message"]
    assert texts(second.items[-1]) == [p["text"] for p in message["content"]]
    assert not second.tools


@pytest.mark.parametrize("path", GZIPPED, ids=lambda p: p.name)
def test_a_gzip_response_kept_as_base64_chunks_is_read(path):
    (entry,) = calls_made(path)
    content = entry["response"]["content"]
    headers = {h["name"].lower(): h["value"] for h in entry["response"]["headers"]}
    assert content["encoding"] == "base64" and headers["content-encoding"] == "gzip"
    (made,) = answer(entry)["choices"][0]["message"]["tool_calls"]
    (transcript,) = load_conversations(path)
    (call,) = [i for i in transcript.items if i.type == "function_call"]
    assert (call.raw["call_id"], call.raw["name"], call.raw["arguments"]) == (
        made["id"],
        made["function"]["name"],
        made["function"]["arguments"],
    )
    assert call.origin.pointer == "/log/entries/0/response/content/text"
    verdicts = gate_transcript(transcript, {}).verdicts
    assert [v.verdict for i, v in zip(transcript.items, verdicts, strict=True) if i is call] == [
        "ok"
    ]


def test_the_chunks_are_joined_before_the_stream_is_gunzipped():
    # openai-node's answer arrived in two chunks; neither is a gzip stream on its own.
    (entry,) = calls_made(OPENAI_GZIP)
    chunks = [base64.b64decode(c) for c in json.loads(entry["response"]["content"]["text"])]
    assert len(chunks) == 2
    with pytest.raises(EOFError):
        gzip.decompress(chunks[0])
    assert load_conversations(OPENAI_GZIP)[0].items[-1].type == "function_call"


def test_the_clients_are_named_and_no_key_was_kept():
    agents = {
        h["value"]
        for path in RECORDINGS
        for e in calls_made(path)
        for h in e["request"]["headers"]
        if h["name"] == "user-agent"
    }
    assert agents == {
        "Anthropic/JS 0.56.0",
        "Anthropic/JS 0.50.4",
        "OpenAI/JS 5.12.2",
        "Together/JS 0.13.0",
        "ai/6.0.132 ai-sdk/provider-utils/4.0.23 runtime/node.js/v20.9.0",
    }
    assert {document(p)["log"]["creator"]["version"] for p in RECORDINGS} == {"6.0.6"}
    # OpenLLMetry's tests drop the key headers before Polly writes the recording.
    names = {
        h["name"].lower()
        for p in RECORDINGS
        for e in calls_made(p)
        for h in e["request"]["headers"]
    }
    assert not names & {"authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie"}
    assert all(
        not urlsplit(e["request"]["url"]).query.startswith("key=")
        for p in RECORDINGS
        for e in calls_made(p)
    )


def rewritten(tmp_path: Path, change: Any) -> Path:
    """The Together recording with its one entry's response changed by `change`."""
    capture = document(TOGETHER_GZIP)
    change(capture["log"]["entries"][0]["response"])
    out = tmp_path / "capture.har"
    out.write_text(json.dumps(capture), encoding="utf-8")
    return out


def chunk_list(data: bytes) -> str:
    return json.dumps([base64.b64encode(data).decode("ascii")])


def test_a_cut_gzip_body_is_a_clear_error(tmp_path):
    (entry,) = calls_made(TOGETHER_GZIP)
    data = b"".join(base64.b64decode(c) for c in json.loads(entry["response"]["content"]["text"]))

    def cut(response):
        response["content"]["text"] = chunk_list(data[: len(data) // 2])

    with pytest.raises(LoadError, match=r"entry 0 \(POST .*\): the gzip body is cut short"):
        load_conversations(rewritten(tmp_path, cut))


def test_a_gzip_body_past_the_size_limit_is_refused(tmp_path, monkeypatch):
    big = gzip.compress(b'{"id": "x", "choices": []}' + b" " * 100_000)

    def bomb(response):
        response["content"]["text"] = chunk_list(big)

    path = rewritten(tmp_path, bomb)
    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", 50_000)
    with pytest.raises(LoadError, match="the gzip body decompresses to more than 50,000 bytes"):
        load_conversations(path)


def test_a_body_kept_in_another_compression_is_named(tmp_path):
    def brotli(response):
        response["content"]["text"] = chunk_list(b"\x8b\x05\x80\xff\xfe binary")
        for header in response["headers"]:
            if header["name"] == "content-encoding":
                header["value"] = "br"

    with pytest.raises(LoadError, match="kept br-compressed, as it came over the wire"):
        load_conversations(rewritten(tmp_path, brotli))


def test_a_chunk_list_with_a_bad_chunk_is_not_base64(tmp_path):
    def bad(response):
        response["content"]["text"] = json.dumps(["H4sI", "not base64!"])

    with pytest.raises(LoadError, match="the body says base64 but is not"):
        load_conversations(rewritten(tmp_path, bad))


GOLDEN = [
    ("sessions-har-anthropic-polly-thinking", THINKING),
    ("sessions-har-together-polly-gzip-tool-call", TOGETHER_GZIP),
]


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)
