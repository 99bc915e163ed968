"""HAR captures of real provider calls written by recorders other than Polly.JS: LangChain.js's
`net-mocks` (`@mswjs/interceptors` and its own HAR 1.2 writer, creator `langchain-net-mocks`)
recording `ChatAnthropic` calling Anthropic's Messages API.

Every expectation is made here from the raw capture with plain `json`, never by the loader: the
entries that post to a provider path, the messages each request sends, the text blocks each
response answers with, and the tool calls and results those bodies hold (none).
"""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from tests.conftest import SAMPLES
from tests.core.test_otel import check_gate_golden
from tests.core.test_real_sources_har_providers import (
    answer,
    calls_made,
    document,
    sent,
    texts,
)

HAR = SAMPLES / "sessions" / "har"
NET_MOCKS = HAR / "anthropic-langchain-net-mocks.har"
RECORDINGS = [NET_MOCKS]


def block_texts(content: Any) -> list[str]:
    """An Anthropic message's text: a string, or its text blocks in order."""
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text"]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_one_conversation_per_call_with_the_messages_sent_and_answered(path):
    made = calls_made(path)
    every = document(path)["log"]["entries"]
    transcripts = load_conversations(path)
    assert made and [t.conversation for t in transcripts] == [
        f"entry {every.index(e)}" for e in made
    ]
    for entry, transcript in zip(made, transcripts, strict=True):
        turns = sent(entry)["messages"]
        body = answer(entry)
        expected = [(m["role"], block_texts(m["content"])) for m in turns]
        expected.append((body["role"], block_texts(body["content"])))
        messages = [i for i in transcript.items if i.type == "message"]
        assert [(i.raw["role"], texts(i)) for i in messages] == expected
        calls = sum(b.get("type") == "tool_use" for b in body["content"])
        results = sum(
            b.get("type") == "tool_result"
            for m in turns
            if isinstance(m["content"], list)
            for b in m["content"]
        )
        assert sum(i.type == "function_call" for i in transcript.items) == calls == 0
        assert sum(i.type == "function_call_output" for i in transcript.items) == results == 0


def test_the_second_call_resends_the_first_answer_as_a_string_turn():
    first, second = calls_made(NET_MOCKS)
    (said,) = block_texts(answer(first)["content"])
    asked = sent(second)["messages"]
    # LangChain sends an earlier answer back as plain string content, not as blocks.
    assert asked[:2] == [sent(first)["messages"][0], {"role": "assistant", "content": said}]
    _, transcript = load_conversations(NET_MOCKS)
    assert [texts(i) for i in transcript.items[:2]] == [["wassup"], [said]]
    assert {v.verdict for v in gate_transcript(transcript, {}).verdicts} == {"not_function_call"}


def test_the_recorder_is_named_and_its_key_header_redacted():
    log = document(NET_MOCKS)["log"]
    assert log["creator"] == {"name": "langchain-net-mocks", "version": "2025-06-23"}
    headers = [
        {h["name"].lower(): h["value"] for h in e["request"]["headers"]}
        for e in calls_made(NET_MOCKS)
    ]
    assert {h["x-api-key"] for h in headers} == {"<redacted>"}
    assert not any("authorization" in h or "cookie" in h for h in headers)


GOLDEN = [("sessions-har-langchain-net-mocks", NET_MOCKS)]


@pytest.mark.parametrize(("name", "path"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, path, golden):
    check_gate_golden(name, path, golden)
