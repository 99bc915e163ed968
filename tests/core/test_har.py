"""HAR captures: every provider API call of a capture is one conversation, read from its bodies.

Counts are made here from the raw capture with plain `json`, `base64` and `gzip`, not by the
loader: per API, the calls and results its bodies hold (Responses items, Anthropic blocks, Chat
tool calls, Gemini parts, and in a stream the calls its events announce).
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from inspector.core.formats import load_conversations
from inspector.core.formats.har import provider_path
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from tests.conftest import SAMPLES
from tests.core.test_cli_gate import gate
from tests.core.test_otel import check_gate_golden

HAR = SAMPLES / "sessions" / "har"
OPENAI = HAR / "openai-responses.har"
MIXED = HAR / "mitmproxy-providers.har"
PROVIDER = ("/responses", "/chat/completions", "/v1/messages", ":generateContent")


def bodies(entry: dict[str, Any]) -> list[str]:
    """The request and response body texts of an entry, base64 decoded."""
    found = []
    post = entry["request"].get("postData", {}).get("text")
    if post:
        found.append(post)
    content = entry["response"].get("content", {})
    if content.get("text"):
        text = content["text"]
        if content.get("encoding") == "base64":
            # Polly.JS keeps a gzip response as a JSON list of its chunks, each in base64.
            chunks = json.loads(text) if text.startswith("[") else [text]
            data = b"".join(base64.b64decode(c) for c in chunks)
            text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")
        found.append(text)
    return found


def stream_records(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[5:])
        for line in text.splitlines()
        if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def body_counts(text: str) -> tuple[int, int]:
    """Calls and results of one body, by the API its shape shows."""
    if text.lstrip().startswith(("event:", "data:")):
        events = stream_records(text)
        done = [e["item"] for e in events if e.get("type") == "response.output_item.done"]
        indexes = {
            (c["index"])
            for e in events
            for choice in e.get("choices", [])
            for c in choice.get("delta", {}).get("tool_calls") or []
        }
        return sum(i["type"] == "function_call" for i in done) + len(indexes), 0
    document = json.loads(text)
    items = document.get("input") or document.get("output") or []
    calls = sum(i.get("type") == "function_call" for i in items if isinstance(i, dict))
    results = sum(i.get("type") == "function_call_output" for i in items if isinstance(i, dict))
    blocks = list(document.get("content") or []) if document.get("type") == "message" else []
    for message in document.get("messages") or []:
        if isinstance(message.get("content"), list):
            blocks += message["content"]
    calls += sum(b.get("type") == "tool_use" for b in blocks)
    results += sum(b.get("type") == "tool_result" for b in blocks)
    # Chat Completions: a request's assistant `tool_calls` and `tool` messages, a response's
    # first choice (the others are alternatives, not the conversation).
    chat = list(document.get("messages") or [])
    chat += [c["message"] for c in (document.get("choices") or [])[:1]]
    calls += sum(len(m.get("tool_calls") or []) for m in chat)
    results += sum(m.get("role") == "tool" for m in chat)
    # Gemini: the parts of a request's `contents` and of a response's first candidate.
    turns = list(document.get("contents") or [])
    turns += [c["content"] for c in (document.get("candidates") or [])[:1]]
    parts = [p for t in turns for p in t.get("parts") or []]
    calls += sum("functionCall" in p for p in parts)
    results += sum("functionResponse" in p for p in parts)
    return calls, results


def raw_counts(path: Path) -> tuple[int, int, int]:
    """Provider calls (entries), and calls and results in their bodies."""
    entries = json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]
    chosen = [
        e
        for e in entries
        # The path, not the URL: Azure OpenAI's carries `?api-version=…`.
        if urlsplit(e["request"]["url"]).path.endswith(PROVIDER)
        and e["request"]["method"] != "OPTIONS"
    ]
    counts = [body_counts(text) for e in chosen for text in bodies(e)]
    return len(chosen), sum(c for c, _ in counts), sum(r for _, r in counts)


@pytest.mark.parametrize("path", sorted(HAR.iterdir()), ids=lambda p: p.name)
def test_calls_and_results_match_the_raw_bodies(path):
    transcripts = load_conversations(path)
    items = [i for t in transcripts for i in t.items]
    assert (
        len(transcripts),
        sum(i.type == "function_call" for i in items),
        sum(i.type == "function_call_output" for i in items),
    ) == raw_counts(path)


def test_one_conversation_per_provider_entry_others_counted():
    transcripts = load_conversations(OPENAI)
    assert [t.conversation for t in transcripts] == ["entry 1", "entry 2", "entry 4"]
    findings = {f.code: f for f in gate_transcript(transcripts[0], {}).findings}
    assert "2 of 5 entries" in findings["har_entries_ignored"].message
    assert "several_conversations" in findings


def test_a_preflight_to_a_provider_path_is_not_a_call():
    transcripts = load_conversations(MIXED)
    assert "entry 3" not in [t.conversation for t in transcripts]
    (finding,) = [
        f for f in gate_transcript(transcripts[0], {}).findings if f.code == "har_entries_ignored"
    ]
    assert "OPTIONS" in finding.message


def test_items_point_at_their_entry_and_body():
    last = load_conversations(OPENAI)[-1]
    pointers = {i.origin.pointer for i in last.items}
    # The request's history, then the base64-encoded response's calls.
    assert pointers == {
        "/log/entries/4/request/postData/text",
        "/log/entries/4/response/content/text",
    }
    assert [i.index for i in last.items] == list(range(len(last.items)))


def test_an_event_stream_body_is_read_as_a_stream():
    first = load_conversations(OPENAI)[0]
    assert first.stream is not None and first.events
    assert first.items[-1].origin.event_index is not None


def test_the_bodies_keep_their_formats_and_envelopes():
    codes = [{f.code for f in gate_transcript(t, {}).findings} for t in load_conversations(MIXED)]
    assert "anthropic_envelope" in codes[0] and "chat_completions_envelope" in codes[2]
    assert "provider_error" in codes[3]


def entry(url: str, request: str | None = None, response: dict[str, Any] | None = None):
    found: dict[str, Any] = {"request": {"method": "POST", "url": url}, "response": {}}
    if request is not None:
        found["request"]["postData"] = {"mimeType": "application/json", "text": request}
    if response is not None:
        found["response"]["content"] = response
    return found


def write(tmp_path: Path, *entries: dict[str, Any]) -> Path:
    path = tmp_path / "capture.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": list(entries)}}))
    return path


def test_a_call_whose_bodies_were_not_kept_is_a_finding(tmp_path):
    path = write(tmp_path, entry("https://api.anthropic.com/v1/messages", None, {"size": 0}))
    (t,) = load_conversations(path)
    assert t.items == ()
    codes = {f.code for f in gate_transcript(t, {}).findings}
    assert "content_not_captured" in codes


def test_a_capture_of_no_provider_call_is_a_load_error(tmp_path):
    path = write(tmp_path, entry("https://example.test/api/login", "{}"))
    status, _, err = gate(str(path))
    assert status == 2 and "no provider API call" in err and "Traceback" not in err


def test_a_body_that_is_no_record_names_its_entry(tmp_path):
    path = write(tmp_path, entry("https://api.openai.com/v1/chat/completions", '{"hello": 1}'))
    with pytest.raises(LoadError, match=r"entry 0 \(POST .*chat/completions\).*postData/text"):
        load_conversations(path)


def test_bad_base64_is_said_so(tmp_path):
    bad = {"text": "not base64!", "encoding": "base64"}
    path = write(tmp_path, entry("https://api.openai.com/v1/responses", None, bad))
    with pytest.raises(LoadError, match="says base64 but is not"):
        load_conversations(path)


#: Each exporter's own capture (mitmproxy's test data) with one provider call spliced in: its
#: creator, and which bodies the call kept (request, response).
EXPORTERS = [
    ("chrome-devtools.har", "WebInspector", (True, True)),
    ("firefox.har", "Firefox", (True, True)),
    ("charles.har", "Charles Proxy", (True, True)),
    ("insomnia.har", "Insomnia REST Client", (False, True)),
]


@pytest.mark.parametrize(("name", "creator", "kept"), EXPORTERS, ids=[e[0] for e in EXPORTERS])
def test_each_exporters_shape_loads(name, creator, kept):
    path = HAR / name
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["log"]["creator"]["name"] == creator
    (t,) = load_conversations(path)
    # The exporter's own page entry is ignored and counted; the call is entry 1.
    assert t.conversation == "entry 1"
    notes = [n.message for g in t.groups for n in g.notes if n.code == "har_entries_ignored"]
    assert notes and "1 of 2 entries" in notes[0]
    pointers = {i.origin.pointer for i in t.items}
    request = "/log/entries/1/request/postData/text"
    response = "/log/entries/1/response/content/text"
    assert (request in pointers, response in pointers) == kept
    assert pointers <= {request, response}


GOLDEN = [("sessions-har-openai", OPENAI), ("sessions-har-mitmproxy", MIXED)]


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)


@pytest.mark.parametrize(
    ("url", "provider"),
    [
        ("https://api.openai.com/v1/responses", True),
        ("https://openrouter.ai/api/v1/chat/completions", True),
        ("https://api.anthropic.com/v1/messages", True),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:"
            "streamGenerateContent?alt=sse",
            True,
        ),
        ("https://api.cohere.com/v2/chat", True),
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-v2/converse",
            True,
        ),
        ("https://api.openai.com/v1/models", False),
        ("https://api.anthropic.com/v1/messages/count_tokens", False),
        ("not a url", False),
    ],
)
def test_provider_paths(url, provider):
    assert provider_path(url) is provider
