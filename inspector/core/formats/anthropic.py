"""Anthropic Messages records: requests, responses and streams, converted to Open Responses items.

An Anthropic record is a foreign envelope for an Open Responses provider; its text, tool_use and
tool_result blocks are converted so they can be gated, and the envelope is reported by the gate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from inspector.core.formats._records import Builder, Detection, Record, add_converted
from inspector.core.jsonio import parse_event
from inspector.core.model import Envelope, LoadError, Origin, join_pointer
from inspector.core.stream.events import (
    StreamEvent,
    append_text,
    event_error,
    event_field,
    event_object,
)

KINDS = {"anthropic_request": "anthropic", "anthropic_response": "anthropic"}
LABEL = "Anthropic Messages"

_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})

#: Event types of the Anthropic Messages stream (`error` is shared with Open Responses).
EVENT_TYPES: frozenset[str] = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as an Anthropic Messages request or response, or None."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("messages"), list) and _looks_anthropic_request(obj):
        return 72, "anthropic_request"
    if (
        obj.get("type") == "message"
        and "stop_reason" in obj
        and isinstance(obj.get("content"), list)
    ):
        return 65, "anthropic_response"
    return None


def detect_stream(events: Sequence[StreamEvent]) -> bool | None:
    """Whether the stream is Anthropic Messages (True), another API (False) or cannot tell."""
    for ev in events:
        data = ev.data
        if isinstance(data, dict):
            if "choices" in data:
                return False
            kind = data.get("type")
            if isinstance(kind, str):
                return kind in EVENT_TYPES
        elif ev.name in EVENT_TYPES:
            return True
    return None


def _looks_anthropic_request(obj: dict[str, Any]) -> bool:
    if "system" in obj and not any(
        isinstance(m, dict) and m.get("role") == "system" for m in obj["messages"]
    ):
        return True
    tools = obj.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    for message in obj["messages"]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in _BLOCKS for b in content
        ):
            return True
    return False


def _anthropic_items(role: Any, content: Any, pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    if not isinstance(content, list):
        yield {"type": "message", "role": role, "content": content}, pointer
        return
    text_blocks: list[Any] = []
    for j, block in enumerate(content):
        here = join_pointer(pointer, "content", j)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in _BLOCKS and text_blocks:
            # Keep the record's order: text written before a tool call comes before it.
            yield {"type": "message", "role": role, "content": text_blocks}, pointer
            text_blocks = []
        if kind == "tool_use":
            yield (
                {
                    "type": "function_call",
                    "call_id": block.get("id"),
                    "name": block.get("name"),
                    # Anthropic stores an object; the Open Responses form is its JSON text.
                    "arguments": json.dumps(block.get("input"), ensure_ascii=False),
                },
                here,
            )
        elif kind == "tool_result":
            yield (
                {
                    "type": "function_call_output",
                    "call_id": block.get("tool_use_id"),
                    "output": block.get("content"),
                },
                here,
            )
        elif kind in ("thinking", "redacted_thinking"):
            yield {"type": "reasoning", "summary": [], "anthropic": block}, here
        else:
            text_blocks.append(block)
    if text_blocks:
        yield {"type": "message", "role": role, "content": text_blocks}, pointer


def load(b: Builder, record: Record, kind: str) -> None:
    """Add an Anthropic Messages request or response as converted items."""
    obj = record.obj
    response = kind == "anthropic_response"
    group = b.group(kind, Origin(b.path, record.line, record.base), envelope=Envelope.ANTHROPIC)
    b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
    pairs: list[tuple[dict[str, Any], str]] = []
    if response:
        pairs.extend(
            _anthropic_items(obj.get("role", "assistant"), obj.get("content"), record.base)
        )
    else:
        system = obj.get("system")
        if system is not None:
            pairs.append(
                (
                    {"type": "message", "role": "system", "content": system},
                    join_pointer(record.base, "system"),
                )
            )
        for i, message in enumerate(obj.get("messages") or []):
            if isinstance(message, dict):
                pairs.extend(
                    _anthropic_items(
                        message.get("role"),
                        message.get("content"),
                        join_pointer(record.base, "messages", i),
                    )
                )
    add_converted(b, record, group, pairs, Envelope.ANTHROPIC)


# --------------------------------------------------------------------------------------------
# Streams (`message_start` … `message_stop`)


_BLOCK_DELTAS = {
    "text_delta": ("text", "text"),
    "input_json_delta": ("partial_json", "partial_json"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "signature"),
}


def assemble_stream(events: Sequence[StreamEvent], path: str | None = None) -> dict[str, Any]:
    """Rebuild the Anthropic `message` a Messages stream delivered."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    texts: dict[int, dict[str, list[str]]] = {}
    last: dict[int, StreamEvent] = {}  # the latest event of each block, to say where it broke
    stopped: set[int] = set()
    for ev in events:
        if ev.done:
            continue
        data = event_object(ev, path)
        kind = data.get("type")
        if kind == "ping":
            continue
        if kind == "error":
            if message is None:
                message = {"type": "message", "content": []}
            message["error"] = data.get("error")
            continue
        if kind == "message_start":
            if message is not None:
                raise event_error(ev, "a second message_start", path)
            message = dict(event_field(ev, data, "message", dict, "message_start", path))
            continue
        if message is None:
            raise event_error(ev, f"{kind!r} before message_start", path)
        if kind == "content_block_start":
            index = event_field(ev, data, "index", int, kind, path)
            if index in blocks:
                raise event_error(ev, f"content block {index} started twice", path)
            blocks[index] = dict(event_field(ev, data, "content_block", dict, kind, path))
            texts[index] = {}
            last[index] = ev
        elif kind == "content_block_delta":
            index = event_field(ev, data, "index", int, kind, path)
            if index not in blocks or index in stopped:
                raise event_error(ev, f"delta for content block {index}, which is not open", path)
            delta = event_field(ev, data, "delta", dict, kind, path)
            last[index] = ev
            delta_type = delta.get("type")
            target = _BLOCK_DELTAS.get(delta_type) if isinstance(delta_type, str) else None
            if target is not None:
                append_text(texts[index], target[1], delta.get(target[0]))
            elif delta_type == "citations_delta":
                blocks[index].setdefault("citations", []).append(delta.get("citation"))
        elif kind == "content_block_stop":
            index = event_field(ev, data, "index", int, kind, path)
            if index not in blocks or index in stopped:
                raise event_error(ev, f"stop for content block {index}, which is not open", path)
            stopped.add(index)
            last[index] = ev
        elif kind == "message_delta":
            delta = data.get("delta")
            if isinstance(delta, dict):
                for key in ("stop_reason", "stop_sequence"):
                    if key in delta:
                        message[key] = delta[key]
            if isinstance(data.get("usage"), dict):
                usage = dict(message.get("usage") or {})
                usage.update(data["usage"])
                message["usage"] = usage
        # message_stop and event types added later carry nothing to assemble.
    if message is None:
        raise LoadError("no message_start in the stream", path=path)
    message["content"] = [_finish_block(last[i], blocks[i], texts[i], path) for i in sorted(blocks)]
    return message


def _finish_block(
    ev: StreamEvent, block: dict[str, Any], texts: dict[str, list[str]], path: str | None
) -> dict[str, Any]:
    for key in ("text", "thinking", "signature"):
        if key in texts:
            block[key] = block.get(key, "") + "".join(texts[key])
    if "partial_json" in texts:
        raw = "".join(texts["partial_json"])
        if raw.strip():
            value, error = parse_event(raw)
            if error is not None:
                raise event_error(
                    ev, f"tool_use {block.get('id')!r} input is not JSON: {error}", path
                )
            block["input"] = value
    return block
