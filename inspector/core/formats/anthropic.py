"""Anthropic Messages records: requests, responses and streams, converted to Open Responses items.

An Anthropic record is a foreign envelope for an Open Responses provider; its text, tool_use and
tool_result blocks are converted so they can be gated, and the envelope is reported by the gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any, TypeGuard

from inspector.core.formats._blocks import Block, Blocks
from inspector.core.formats._convert import (
    ABSENT,
    COMPLETED,
    INCOMPLETE,
    PARTS_CONVERTED,
    Api,
    Converter,
    prefixed,
    start,
    text_part,
)
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import parse_event
from inspector.core.model import Derivation, Envelope, LoadError, join_pointer
from inspector.core.stream.events import (
    StreamEvent,
    event_error,
    event_field,
    event_object,
)

KINDS = {
    "anthropic_request": "anthropic",
    "anthropic_response": "anthropic",
    "anthropic_message": "anthropic",
}
SLUG = "anthropic"

#: `stop_reason` → what it says of the last block of the message. Source:
#: https://docs.claude.com/en/api/messages (stop_reason) and
#: https://docs.claude.com/en/docs/build-with-claude/handling-stop-reasons: "end_turn",
#: "tool_use", "stop_sequence" and "pause_turn" end a turn whole; "max_tokens" and
#: "model_context_window_exceeded" cut it off; "refusal" stops it for safety reasons.
STOP_REASONS = MappingProxyType(
    {
        "end_turn": COMPLETED,
        "tool_use": COMPLETED,
        "stop_sequence": COMPLETED,
        "pause_turn": COMPLETED,
        "max_tokens": INCOMPLETE,
        "model_context_window_exceeded": INCOMPLETE,
        "refusal": INCOMPLETE,
    }
)

#: The envelope of its records: the format's one display name and the gate finding it gets.
ENVELOPE = Envelope(
    "anthropic", "Anthropic Messages", finding="anthropic_envelope", wording="an Anthropic Messages"
)
API = Api(ENVELOPE, SLUG, STOP_REASONS, "stop_reason")

#: Blocks that are turns of their own rather than content: thinking, and server-side tools
#: (`server_tool_use`, `web_search_tool_result`, `mcp_tool_use`, …) whose names end so.
_OWN_ITEM_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_CALL_BLOCKS = frozenset({"tool_use", "tool_result"})
_REQUEST_KEYS = frozenset({"anthropic_version", "stop_sequences", "top_k", "thinking"})

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


def _is_turn_block(kind: Any) -> TypeGuard[str]:
    """Whether a block type is an item of its own (thinking, a server tool's use or result)."""
    return isinstance(kind, str) and (
        kind in _OWN_ITEM_BLOCKS or kind.endswith(("tool_use", "tool_result"))
    )


def _has_turn_blocks(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and _is_turn_block(b.get("type")) for b in content
    )


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as an Anthropic Messages request, response or message, or None."""
    if not isinstance(obj, dict):
        return None
    if is_event(obj):
        return 95, "stream_event"
    if isinstance(obj.get("messages"), list) and _looks_anthropic_request(obj):
        return 72, "anthropic_request"
    if (
        obj.get("type") == "message"
        and "stop_reason" in obj
        and isinstance(obj.get("content"), list)
    ):
        return 65, "anthropic_response"
    if "type" not in obj and "role" in obj and _has_turn_blocks(obj.get("content")):
        # A logged message with tool_use / tool_result / thinking blocks: not an item shorthand.
        return 60, "anthropic_message"
    return None


def is_event(obj: Any) -> bool:
    """Whether a value is one Messages stream event (as SDKs record them, one per line)."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    return isinstance(kind, str) and kind in EVENT_TYPES


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
    if _REQUEST_KEYS & obj.keys():
        return True
    if "system" in obj and not any(
        isinstance(m, dict) and m.get("role") == "system" for m in obj["messages"]
    ):
        return True
    tools = obj.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    return any(isinstance(m, dict) and _has_turn_blocks(m.get("content")) for m in obj["messages"])


def load(b: Builder, record: Record, kind: str) -> None:
    """Add an Anthropic Messages request, response or message as converted items."""
    obj = record.obj
    if kind == "anthropic_response":
        conv = start(
            b,
            record,
            kind,
            API,
            reason=obj.get("stop_reason"),
            error=obj.get("error"),
            response_id=obj.get("id"),
        )
        _message(conv, obj, record.base, record.line, role=obj.get("role", "assistant"))
    elif kind == "anthropic_message":
        conv = start(b, record, kind, API)
        _message(conv, obj, record.base, record.line)
    else:
        conv = start(b, record, kind, API)
        b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
        if "tool_choice" in obj:
            b.tool_choice = obj["tool_choice"]
        system = obj.get("system")
        if system is not None:
            pointer = join_pointer(record.base, "system")
            conv.begin("system", pointer, system, record.line)
            convert_content(conv, "system", system, pointer, record.line)
            conv.end(system)
        conv.turns("messages", lambda m, p, line: _message(conv, m, p, line))
    conv.finish()


_MESSAGE_KEYS = frozenset({"role", "content"})
#: The fields of a block that its item holds (the rest stay, under the provider's prefix).
CALL_KEYS = frozenset({"type", "id", "name", "input"})
RESULT_KEYS = frozenset({"type", "tool_use_id", "content"})
TEXT_KEYS = frozenset({"type", "text"})
#: The mark of a tool result whose content blocks became parts.
OUTPUT_PARTS = Derivation("output", "converted", "content blocks as parts")
#: A response's own fields, which describe the response rather than its message.
_RESPONSE_KEYS = frozenset(
    {"id", "type", "role", "content", "model", "stop_reason", "stop_sequence", "usage", "error"}
)


def _message(
    conv: Converter, message: dict[str, Any], pointer: str, line: int | None, role: Any = None
) -> None:
    """Convert one message (or a response's message) block by block."""
    if role is None:
        role = message.get("role")
        fields = prefixed(message, _MESSAGE_KEYS, SLUG)
    else:
        fields = prefixed(message, _RESPONSE_KEYS, SLUG)
    content = message.get("content")
    conv.begin(role, pointer, message, line, fields)
    convert_content(conv, role, content, join_pointer(pointer, "content"), line)
    conv.end(content)


def convert_content(
    conv: Converter, role: Any, content: Any, pointer: str, line: int | None
) -> None:
    """Convert an Anthropic content value (at `pointer`, on `line`) into the open message of
    `conv`: a string as it is, a block list block by block (text parts, tool_use calls,
    tool_result outputs, thinking and server-tool blocks as prefixed items). Every source that
    keeps Anthropic content blocks (a Messages record, a Claude Code session) converts here."""
    if isinstance(content, str):
        conv.content(content)
        return
    if not isinstance(content, list):
        return
    for j, block in enumerate(content):
        here = join_pointer(pointer, j)
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict):
            conv.part(block)
        elif kind == "tool_use":
            conv.call(
                name=block.get("name"),
                call_id=block.get("id"),
                arguments=block.get("input", ABSENT),
                pointer=here,
                native=block,
                line=line,
                fields=prefixed(block, CALL_KEYS, SLUG),
            )
        elif kind == "tool_result":
            output = block.get("content")
            marks = []
            if isinstance(output, list):
                output = [as_part("user", p) for p in output]
                marks.append(OUTPUT_PARTS)
            conv.output(
                call_id=block.get("tool_use_id"),
                name=None,
                output=output,
                pointer=here,
                native=block,
                line=line,
                fields=prefixed(block, RESULT_KEYS, SLUG),
                derived=marks,
            )
        elif _is_turn_block(kind):
            conv.extra(kind, {k: v for k, v in block.items() if k != "type"}, here, block, line)
        else:
            conv.part(as_part(role, block), PARTS_CONVERTED)


def as_part(role: Any, block: Any) -> Any:
    """A content block as an Open Responses part: text converted, others keep the prefix."""
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "text":
        return {**text_part(role, block.get("text")), **prefixed(block, TEXT_KEYS, SLUG)}
    return {**block, "type": f"{SLUG}:{kind}" if isinstance(kind, str) else f"{SLUG}:block"}


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
    blocks = Blocks(path)
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
            blocks.start(ev, index, dict(event_field(ev, data, "content_block", dict, kind, path)))
        elif kind == "content_block_delta":
            block = blocks.delta(ev, event_field(ev, data, "index", int, kind, path))
            delta = event_field(ev, data, "delta", dict, kind, path)
            delta_type = delta.get("type")
            target = _BLOCK_DELTAS.get(delta_type) if isinstance(delta_type, str) else None
            if target is not None:
                block.append(target[1], delta.get(target[0]))
            elif delta_type == "citations_delta":
                block.value.setdefault("citations", []).append(delta.get("citation"))
        elif kind == "content_block_stop":
            blocks.stop(ev, event_field(ev, data, "index", int, kind, path))
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
    message["content"] = blocks.finish(lambda block: _finish_block(block, path))
    return message


def _finish_block(streamed: Block, path: str | None) -> dict[str, Any]:
    block = streamed.value
    for key in ("text", "thinking", "signature"):
        text = streamed.joined(key)
        if text is not None:
            block[key] = block.get(key, "") + text
    raw = streamed.joined("partial_json")
    if raw is not None and raw.strip():
        value, error = parse_event(raw)
        if error is not None:
            raise event_error(
                streamed.last, f"tool_use {block.get('id')!r} input is not JSON: {error}", path
            )
        block["input"] = value
    return block


FORMAT = FormatSpec(
    name="anthropic",
    envelope=ENVELOPE,
    kinds=KINDS,
    detect=detect,
    load=load,
    detect_stream=detect_stream,
    assemble_stream=assemble_stream,
    is_event=is_event,
)
