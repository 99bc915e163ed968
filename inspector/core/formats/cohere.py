"""Cohere v2 chat records: requests, responses and streams, converted to Open Responses items.

A Cohere record is a foreign envelope for an Open Responses provider; its messages, tool calls
(`message.tool_calls`) and tool results are converted so they can be gated, and the envelope
is reported by the gate. Shapes: https://docs.cohere.com/reference/chat (request, response),
https://docs.cohere.com/reference/chat-stream and
https://docs.cohere.com/docs/tool-use-streaming (the typed event stream).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from inspector.core.formats._blocks import Block, Blocks
from inspector.core.formats._convert import (
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
from inspector.core.formats.chat_completions import add_tool_calls
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Envelope, LoadError, join_pointer
from inspector.core.stream.events import StreamEvent, event_error, event_field, event_object

KINDS = {"cohere_request": "cohere", "cohere_response": "cohere"}
SLUG = "cohere"

#: `finish_reason` → what it says of the last item. Source: https://docs.cohere.com/reference/chat
#: (finish_reason: "COMPLETE" the model finished, "STOP_SEQUENCE" a stop sequence, "TOOL_CALL"
#: it called tools, "MAX_TOKENS" the limit cut it off, "ERROR" / "TIMEOUT" it failed).
FINISH_REASONS = MappingProxyType(
    {
        "COMPLETE": COMPLETED,
        "STOP_SEQUENCE": COMPLETED,
        "TOOL_CALL": COMPLETED,
        "MAX_TOKENS": INCOMPLETE,
        "ERROR": INCOMPLETE,
        "TIMEOUT": INCOMPLETE,
    }
)

#: The envelope of its records: the format's one display name and the gate finding it gets.
ENVELOPE = Envelope("cohere", "Cohere Chat", finding="cohere_envelope", wording="a Cohere Chat")
API = Api(ENVELOPE, SLUG, FINISH_REASONS, "finish_reason")

_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_plan"})
_RESULT_KEYS = frozenset({"role", "content", "tool_call_id"})
#: Request members only Cohere's chat has (Chat Completions has none of them).
_REQUEST_KEYS = frozenset(
    {"documents", "citation_options", "safety_mode", "strict_tools", "k", "p"}
)

#: Event types of the v2 chat stream.
EVENT_TYPES: frozenset[str] = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
        "debug",
    }
)


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a Cohere v2 chat request, response or stream event, or None."""
    if not isinstance(obj, dict):
        return None
    if is_event(obj):
        return 95, "stream_event"
    message = obj.get("message")
    if (
        isinstance(message, dict)
        and "finish_reason" in obj
        and "choices" not in obj
        and "candidates" not in obj
    ):
        return 85, "cohere_response"
    messages = obj.get("messages")
    if isinstance(messages, list) and (
        _REQUEST_KEYS & obj.keys()
        or any(isinstance(m, dict) and "tool_plan" in m for m in messages)
    ):
        # Beats the Chat Completions request (70): the same messages, with Cohere's members.
        return 75, "cohere_request"
    return None


def is_event(obj: Any) -> bool:
    """Whether a value is one v2 chat stream event (as SDKs record them, per line)."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    return isinstance(kind, str) and kind in EVENT_TYPES


def detect_stream(events: Sequence[StreamEvent]) -> bool | None:
    """Whether the stream is Cohere v2 chat (True), another API (False) or cannot tell (None)."""
    for ev in events:
        if isinstance(ev.data, dict):
            return is_event(ev.data)
        if ev.name in EVENT_TYPES:
            return True
    return None


def load(b: Builder, record: Record, kind: str) -> None:
    """Add a Cohere v2 chat request or response as converted items."""
    obj = record.obj
    if kind == "cohere_request":
        conv = start(b, record, kind, API)
        b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
        conv.turns("messages", lambda m, p, line: _message(conv, m, p, line))
    else:
        conv = start(
            b,
            record,
            kind,
            API,
            reason=obj.get("finish_reason"),
            error=obj.get("error_message") if obj.get("finish_reason") == "ERROR" else None,
            response_id=obj.get("id"),
        )
        _message(conv, obj["message"], join_pointer(record.base, "message"), record.line)
    conv.finish()


def _message(conv: Converter, message: dict[str, Any], pointer: str, line: int | None) -> None:
    """Convert one message: its text, tool plan, tool calls or tool result."""
    role = message.get("role")
    if role == "tool":
        output = message.get("content")
        conv.output(
            call_id=message.get("tool_call_id"),
            name=None,
            output=output,
            pointer=pointer,
            native=message,
            line=line,
            fields=prefixed(message, _RESULT_KEYS, SLUG),
        )
        return
    conv.begin(role, pointer, message, line, prefixed(message, _MESSAGE_KEYS, SLUG))
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            conv.part(_part(role, part), PARTS_CONVERTED)
    elif isinstance(content, str) and content:
        conv.content(content)
    plan = message.get("tool_plan")
    if isinstance(plan, str) and plan:
        # The model's plan before its calls: reasoning with no portable equivalent.
        conv.extra("tool_plan", {"tool_plan": plan}, join_pointer(pointer, "tool_plan"), plan, line)
    add_tool_calls(conv, message.get("tool_calls"), pointer, line, SLUG)
    conv.end(content)


def _part(role: Any, part: Any) -> Any:
    """A content part as an Open Responses part (text converted, others keep the prefix)."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind == "text":
        return {**text_part(role, part.get("text")), **prefixed(part, ("type", "text"), SLUG)}
    return {**part, "type": f"{SLUG}:{kind}" if isinstance(kind, str) else f"{SLUG}:part"}


# --------------------------------------------------------------------------------------------
# Streams (`message-start` … `message-end`)


def _delta_message(ev: StreamEvent, data: dict[str, Any], path: str | None) -> dict[str, Any]:
    delta = data.get("delta") or {}
    message = delta.get("message") if isinstance(delta, dict) else None
    if message is None:
        return {}
    if not isinstance(message, dict):
        raise event_error(ev, "delta.message is not an object", path)
    return message


def assemble_stream(events: Sequence[StreamEvent], path: str | None = None) -> dict[str, Any]:
    """Rebuild the chat response a Cohere v2 stream delivered."""
    response: dict[str, Any] | None = None
    contents = Blocks(path)
    calls = Blocks(path, "tool call")
    plan: list[str] = []
    for ev in events:
        if ev.done:
            continue
        data = event_object(ev, path)
        kind = data.get("type")
        if kind == "message-start":
            if response is not None:
                raise event_error(ev, "a second message-start", path)
            started = _delta_message(ev, data, path)
            response = {"id": data.get("id"), "role": started.get("role", "assistant")}
            continue
        if response is None:
            raise event_error(ev, f"{kind!r} before message-start", path)
        message = _delta_message(ev, data, path)
        if kind in ("content-start", "tool-call-start"):
            index = event_field(ev, data, "index", int, kind, path)
            key = "content" if kind == "content-start" else "tool_calls"
            value = message.get(key)
            value = dict(value) if isinstance(value, dict) else {}
            block = (contents if key == "content" else calls).start(ev, index, value)
            if key == "tool_calls":
                function = value.get("function")
                if isinstance(function, dict):
                    block.append("arguments", function.get("arguments"))
        elif kind == "content-delta":
            block = contents.delta(ev, event_field(ev, data, "index", int, kind, path))
            content = message.get("content") or {}
            block.append("text", content.get("text") if isinstance(content, dict) else None)
        elif kind == "tool-call-delta":
            block = calls.delta(ev, event_field(ev, data, "index", int, kind, path))
            call = message.get("tool_calls") or {}
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                block.append("arguments", function.get("arguments"))
        elif kind in ("content-end", "tool-call-end"):
            (contents if kind == "content-end" else calls).stop(
                ev, event_field(ev, data, "index", int, kind, path)
            )
        elif kind == "tool-plan-delta":
            text = message.get("tool_plan")
            if isinstance(text, str):
                plan.append(text)
        elif kind == "message-end":
            delta = data.get("delta") or {}
            if isinstance(delta, dict):
                for key in ("finish_reason", "usage", "error"):
                    if key in delta:
                        response[key] = delta[key]
        # citation and debug events carry nothing the transcript holds.
    if response is None:
        raise LoadError("no message-start in the stream", path=path)
    message = {"role": response.pop("role")}
    if plan:
        message["tool_plan"] = "".join(plan)
    message["content"] = contents.finish(_finish_content)
    if calls:
        message["tool_calls"] = calls.finish(_finish_call)
    response["message"] = message
    response.setdefault("finish_reason", None)
    return response


def _finish_content(block: Block) -> dict[str, Any]:
    value = dict(block.value)
    streamed = block.joined("text")
    if streamed is not None:
        first = value.get("text")
        value["text"] = (first if isinstance(first, str) else "") + streamed
    return value


def _finish_call(block: Block) -> dict[str, Any]:
    value = dict(block.value)
    function = value.get("function")
    function = dict(function) if isinstance(function, dict) else {}
    function["arguments"] = block.joined("arguments") or ""
    if not function["arguments"]:
        # As with every native stream: no streamed arguments is `{}`, marked derived.
        del function["arguments"]
    value["function"] = function
    return value


FORMAT = FormatSpec(
    name="cohere",
    envelope=ENVELOPE,
    kinds=KINDS,
    detect=detect,
    load=load,
    detect_stream=detect_stream,
    assemble_stream=assemble_stream,
    is_event=is_event,
)
