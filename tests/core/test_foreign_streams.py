"""Chat Completions and Anthropic Messages streams: dialect detection and assembled messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.formats import detect_stream_dialect
from inspector.core.formats.anthropic import assemble_stream as assemble_anthropic_message
from inspector.core.formats.chat_completions import assemble_stream as assemble_chat_completion
from inspector.core.model import LoadError
from inspector.core.stream import StreamEvent, events_from_bytes

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"


def sse(*frames: Any, done: bool = False) -> list[StreamEvent]:
    """Events of an SSE body with one data frame per value (named when it has a type)."""
    body = ""
    for frame in frames:
        if isinstance(frame, dict) and "type" in frame:
            body += f"event: {frame['type']}\n"
        body += f"data: {frame if isinstance(frame, str) else json.dumps(frame)}\n\n"
    if done:
        body += "data: [DONE]\n\n"
    return events_from_bytes(body.encode())


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1766084439,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def tool_delta(index: int, **function: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": function}
    if "name" in function:
        call.update(id=f"call_{index}", type="function")
    return {"tool_calls": [call]}


CHAT = [
    chunk({"role": "assistant", "content": None}),
    chunk(tool_delta(0, name="lookup", arguments="")),
    chunk(tool_delta(0, arguments='{"pass')),
    chunk(tool_delta(1, name="lookup", arguments="")),
    chunk(tool_delta(0, arguments='word": "mellon"}')),
    chunk(tool_delta(1, arguments='{"password": "radiance"}')),
    chunk({}, "tool_calls"),
    {**chunk({}), "choices": [], "usage": {"prompt_tokens": 75, "completion_tokens": 53}},
]

ANTHROPIC = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 416, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "I'll "}},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "look."}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"password": '},
    },
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '"mellon"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 109},
    },
    {"type": "message_stop"},
]


def test_dialects() -> None:
    assert detect_stream_dialect(sse(*CHAT, done=True)) == "chat_completions"
    assert detect_stream_dialect(sse(*ANTHROPIC)) == "anthropic"
    sample = REPO / "samples" / "streams" / "text-deltas.sse"
    assert detect_stream_dialect(events_from_bytes(sample.read_bytes())) == "open_responses"
    assert detect_stream_dialect([]) == "open_responses"
    # Anthropic event names decide even when the data does not parse.
    assert detect_stream_dialect(events_from_bytes(b"event: message_start\ndata: {\n\n")) == (
        "anthropic"
    )


def test_chat_completion_is_assembled() -> None:
    record = assemble_chat_completion(sse(*CHAT, done=True))
    assert record["id"] == "chatcmpl-1" and record["object"] == "chat.completion"
    assert record["model"] == "gpt-4o-2024-08-06"
    (choice,) = record["choices"]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["role"] == "assistant" and message["content"] is None
    assert message["tool_calls"] == [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "lookup", "arguments": '{"password": "mellon"}'},
        },
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "lookup", "arguments": '{"password": "radiance"}'},
        },
    ]
    assert record["usage"] == {"prompt_tokens": 75, "completion_tokens": 53}


def test_chat_text_and_refusal_and_absent_usage() -> None:
    events = sse(
        chunk({"role": "assistant", "content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({"refusal": "No."}, "stop"),
        done=True,
    )
    record = assemble_chat_completion(events)
    message = record["choices"][0]["message"]
    assert message["content"] == "Hello" and message["refusal"] == "No."
    assert "usage" not in record and "tool_calls" not in message


def test_anthropic_message_is_assembled() -> None:
    record = assemble_anthropic_message(sse(*ANTHROPIC))
    assert (record["id"], record["role"], record["stop_reason"]) == (
        "msg_1",
        "assistant",
        "tool_use",
    )
    assert record["content"] == [
        {"type": "text", "text": "I'll look."},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"password": "mellon"}},
    ]
    assert record["usage"] == {"input_tokens": 416, "output_tokens": 109}


@pytest.mark.parametrize(
    ("frames", "event", "message"),
    [
        ([chunk({"content": "a"}), "[1, 2]"], 1, "not an object"),
        ([chunk({"content": "a"}), "{nope"], 1, "not JSON"),
        ([{**chunk({}), "object": "chat.completion"}], 0, "chat.completion.chunk"),
        ([chunk({"tool_calls": [{"index": "0", "function": {"arguments": "x"}}]})], 0, "index"),
        ([chunk({"tool_calls": 7})], 0, "not an array"),
        ([chunk("text")], 0, "delta is not an object"),  # type: ignore[arg-type]
        ([{**chunk({}), "choices": {"0": {}}}], 0, "choices"),
    ],
)
def test_bad_chat_stream_is_a_load_error_with_where(
    frames: list[Any], event: int, message: str
) -> None:
    events = sse(*frames)
    with pytest.raises(LoadError, match=message) as info:
        assemble_chat_completion(events)
    assert info.value.event_index == event
    assert info.value.line == events[event].line


def test_chat_stream_with_no_chunk() -> None:
    with pytest.raises(LoadError, match=r"no chat\.completion\.chunk"):
        assemble_chat_completion(sse(done=True))
    record = assemble_chat_completion(sse({"error": {"message": "quota"}}))
    assert record["error"] == {"message": "quota"} and record["choices"] == []


@pytest.mark.parametrize(
    ("mutate", "event", "message"),
    [
        (lambda f: f[1:], 0, "before message_start"),
        (lambda f: [f[0], f[0], *f[1:]], 1, "second message_start"),
        (
            lambda f: [
                *f[:6],
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "late"},
                },
                *f[6:],
            ],
            6,
            "not open",
        ),
        (lambda f: [*f[:2], {**f[1]}, *f[2:]], 2, "started twice"),
        (
            lambda f: [
                *f[:8],
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": ","},
                },
                *f[8:],
            ],
            10,
            "input is not JSON",
        ),
        (
            lambda f: [*f[:2], {"type": "content_block_delta", "index": "0", "delta": {}}],
            2,
            "index",
        ),
        (lambda f: [{"type": "message_start", "message": "hi"}], 0, "message"),
    ],
)
def test_bad_anthropic_stream_is_a_load_error_with_where(
    mutate: Any, event: int, message: str
) -> None:
    events = sse(*mutate(list(ANTHROPIC)))
    with pytest.raises(LoadError, match=message) as info:
        assemble_anthropic_message(events)
    assert info.value.event_index == event
    assert info.value.line == events[event].line


def test_anthropic_stream_without_message_start() -> None:
    with pytest.raises(LoadError, match="no message_start"):
        assemble_anthropic_message(sse({"type": "ping"}))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_keys = st.sampled_from(
    [
        "type",
        "index",
        "delta",
        "choices",
        "object",
        "message",
        "content_block",
        "tool_calls",
        "function",
        "partial_json",
        "text",
        "usage",
        "finish_reason",
    ]
)
_event = st.one_of(
    _json,
    st.dictionaries(_keys, _json, max_size=5),
    st.sampled_from(ANTHROPIC + CHAT),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_event, max_size=8))
def test_garbage_raises_only_load_error(frames: list[Any]) -> None:
    events = [StreamEvent(i, i * 3 + 1, None, f, None) for i, f in enumerate(frames)]
    for assemble in (assemble_chat_completion, assemble_anthropic_message):
        try:
            assemble(events)
        except LoadError as exc:
            assert exc.event_index is None or 0 <= exc.event_index < len(frames)
    detect_stream_dialect(events)


# --------------------------------------------------------------------------------------------
# Real recordings: the assembled message equals the non-streamed record of the same call


def _corpus(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip("../shared/corpus is not beside the repository")
    return path


@pytest.mark.parametrize(
    ("stream", "record"),
    [
        (
            "mirascope/chat_parallel_tools_stream.resp0.sse",
            "mirascope/chat_parallel_tools.resp0.json",
        ),
        ("simonw-llm/chat_tool_use_stream.resp0.sse", None),
    ],
)
def test_real_chat_streams(stream: str, record: str | None) -> None:
    events = events_from_bytes(_corpus(stream).read_bytes())
    assert detect_stream_dialect(events) == "chat_completions"
    built = assemble_chat_completion(events)
    calls = built["choices"][0]["message"]["tool_calls"]
    assert built["choices"][0]["finish_reason"] == "tool_calls"
    assert all(json.loads(c["function"]["arguments"]) for c in calls)
    assert "usage" in built
    if record is None:
        assert [c["function"]["name"] for c in calls] == ["multiply"]
        assert json.loads(calls[0]["function"]["arguments"]) == {"a": 1231, "b": 2331}
        return
    expected = json.loads(_corpus(record).read_text())["choices"][0]["message"]["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in expected
    ]


def test_real_anthropic_stream() -> None:
    events = events_from_bytes(
        _corpus("mirascope/anthropic_parallel_tools_stream.resp0.sse").read_bytes()
    )
    assert detect_stream_dialect(events) == "anthropic"
    built = assemble_anthropic_message(events)
    expected = json.loads(_corpus("mirascope/anthropic_parallel_tools.resp0.json").read_text())
    shape = [(b["type"], b.get("name"), b.get("input"), b.get("text")) for b in built["content"]]
    assert shape == [
        (b["type"], b.get("name"), b.get("input"), b.get("text")) for b in expected["content"]
    ]
    assert built["stop_reason"] == expected["stop_reason"] == "tool_use"
    assert built["usage"]["output_tokens"] == 109
