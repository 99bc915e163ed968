"""The shared block assembler of foreign streams: start, delta, stop, finish, where it breaks."""

from __future__ import annotations

import pytest

from inspector.core.formats import load_stream
from inspector.core.formats._blocks import Blocks
from inspector.core.model import LoadError
from inspector.core.stream.events import StreamEvent


def ev(index: int) -> StreamEvent:
    return StreamEvent(index, index + 3, None, {}, "{}")


def test_blocks_start_grow_stop_and_finish_in_index_order() -> None:
    blocks = Blocks("s.sse")
    blocks.start(ev(0), 1, {"type": "tool_use"})
    blocks.start(ev(1), 0, {"type": "text"})
    blocks.delta(ev(2), 0).append("text", "Hel")
    blocks.delta(ev(3), 1).append("partial_json", '{"q"')
    blocks.delta(ev(4), 0).append("text", "lo")
    blocks.delta(ev(5), 0).append("text", None)  # not text: ignored
    blocks.stop(ev(6), 0)
    assert len(blocks) == 2
    built = blocks.finish(lambda b: (b.value["type"], b.joined("text"), b.last.index))
    assert built == [("text", "Hello", 6), ("tool_use", None, 3)]


@pytest.mark.parametrize(
    ("steps", "message", "event"),
    [
        (["start 0", "start 0"], "content block 0 started twice", 1),
        (["delta 2"], "delta for content block 2 before its start", 0),
        (["start 0", "stop 0", "delta 0"], "delta for content block 0, which is not open", 2),
        (["stop 4"], "stop for content block 4 before its start", 0),
        (["start 0", "stop 0", "stop 0"], "stop for content block 0, which is not open", 2),
    ],
)
def test_lifecycle_errors_name_the_event(steps: list[str], message: str, event: int) -> None:
    blocks = Blocks("s.sse")
    with pytest.raises(LoadError) as caught:
        for n, step in enumerate(steps):
            action, index = step.split()
            if action == "start":
                blocks.start(ev(n), int(index), {})
            elif action == "delta":
                blocks.delta(ev(n), int(index))
            else:
                blocks.stop(ev(n), int(index))
    error = caught.value
    assert error.message == message
    assert (error.path, error.event_index, error.line) == ("s.sse", event, event + 3)


def test_a_delta_may_open_a_block_where_the_api_streams_no_start() -> None:
    calls = Blocks(None, "tool call", opens_on_delta=True)
    calls.delta(ev(0), 0, lambda: {"id": "c1"}).append("arguments", "{}")
    again = calls.delta(ev(1), 0, lambda: {"id": "other"})
    assert again.value == {"id": "c1"} and again.joined("arguments") == "{}"
    with pytest.raises(LoadError, match="tool call 0 started twice"):
        calls.start(ev(2), 0, {})
    calls.stop(ev(3), 0)
    with pytest.raises(LoadError, match="delta for tool call 0, which is not open"):
        calls.delta(ev(4), 0)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [
                '{"messageStart": {"role": "assistant"}}',
                '{"contentBlockStop": {"contentBlockIndex": 0}}',
            ],
            "stop for content block 0 before its start",
        ),
        (
            [
                '{"type": "message_start", "message": {"id": "m", "content": []}}',
                '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}}',
            ],
            "delta for content block 0 before its start",
        ),
    ],
    ids=["bedrock", "anthropic"],
)
def test_foreign_streams_say_lifecycle_errors_the_one_way(lines: list[str], message: str) -> None:
    with pytest.raises(LoadError) as caught:
        load_stream("\n".join(lines).encode(), "s.jsonl")
    assert caught.value.message == message
    assert (caught.value.line, caught.value.event_index) == (2, 1)
