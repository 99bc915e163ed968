"""Chat Completions records: requests, responses and streams, converted to Open Responses items.

A Chat Completions record is a foreign envelope for an Open Responses provider; its messages and
tool calls are converted so they can be gated, and the envelope is reported by the gate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from inspector.core.formats._records import (
    Builder,
    Detection,
    Record,
    add_converted,
    has_text,
)
from inspector.core.model import Envelope, LoadError, Origin, join_pointer
from inspector.core.stream.events import (
    StreamEvent,
    append_text,
    event_error,
    event_field,
    event_object,
)

KINDS = {"chat_request": "chat_completions", "chat_response": "chat_completions"}
LABEL = "Chat Completions"


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a Chat Completions request or response, or None."""
    if not isinstance(obj, dict):
        return None
    if obj.get("object") == "chat.completion" or (
        isinstance(obj.get("choices"), list) and "messages" not in obj
    ):
        return 85, "chat_response"
    if isinstance(obj.get("messages"), list):
        return 70, "chat_request"
    return None


def detect_stream(events: Sequence[StreamEvent]) -> bool | None:
    """Whether the stream is Chat Completions (True), another API (False) or cannot tell (None)."""
    for ev in events:
        data = ev.data
        if isinstance(data, dict):
            if data.get("object") == "chat.completion.chunk" or (
                "choices" in data and "type" not in data
            ):
                return True
            if isinstance(data.get("type"), str):
                return False
    return None


def message_items(message: dict[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Convert one Chat Completions message into items, with the pointer each came from."""
    role = message.get("role")
    if role in ("tool", "function"):
        call_id = message.get("tool_call_id", message.get("name"))
        yield (
            {"type": "function_call_output", "call_id": call_id, "output": message.get("content")},
            pointer,
        )
        return
    content = message.get("content")
    refusal = message.get("refusal")
    calls = message.get("tool_calls")
    if has_text(content) or not calls:
        converted = {"type": "message", "role": role, "content": content}
        if isinstance(refusal, str):
            converted["refusal"] = refusal
        yield converted, pointer
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            yield (
                {
                    "type": "function_call",
                    "call_id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments"),
                },
                join_pointer(pointer, "tool_calls", j),
            )


def load(b: Builder, record: Record, kind: str) -> None:
    """Add a Chat Completions request or response as converted items."""
    obj = record.obj
    response = kind == "chat_response"
    group = b.group(
        kind, Origin(b.path, record.line, record.base), envelope=Envelope.CHAT_COMPLETIONS
    )
    b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
    if response:
        sources = [
            (c.get("message"), ("choices", i, "message"))
            for i, c in enumerate(obj.get("choices") or [])
            if isinstance(c, dict)
        ]
    else:
        sources = [(m, ("messages", i)) for i, m in enumerate(obj.get("messages") or [])]
    for message, target in sources:
        if isinstance(message, dict):
            pairs = message_items(message, join_pointer(record.base, *target))
            add_converted(b, record, group, pairs, Envelope.CHAT_COMPLETIONS)


# --------------------------------------------------------------------------------------------
# Streams (`chat.completion.chunk` frames)


class _Choice:
    __slots__ = ("finish_reason", "role", "text", "tool_calls")

    def __init__(self) -> None:
        self.role: Any = None
        self.text: dict[str, list[str]] = {}
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: Any = None

    def message(self) -> dict[str, Any]:
        """The assembled assistant message of this choice."""
        msg: dict[str, Any] = {
            "role": self.role or "assistant",
            "content": "".join(self.text["content"]) if "content" in self.text else None,
        }
        if "refusal" in self.text:
            msg["refusal"] = "".join(self.text["refusal"])
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": call["type"],
                    "function": {"name": call["name"], "arguments": "".join(call["arguments"])},
                }
                for _, call in sorted(self.tool_calls.items())
            ]
        return msg


def assemble_stream(events: Sequence[StreamEvent], path: str | None = None) -> dict[str, Any]:
    """Rebuild the `chat.completion` a Chat Completions stream delivered."""
    head: dict[str, Any] = {}
    choices: dict[int, _Choice] = {}
    usage: Any = None
    error: Any = None
    seen = False
    for ev in events:
        if ev.done:
            continue
        chunk = event_object(ev, path)
        if "error" in chunk and "choices" not in chunk:
            error = chunk["error"]
            continue
        if chunk.get("object", "chat.completion.chunk") != "chat.completion.chunk":
            raise event_error(
                ev, f"object is {chunk.get('object')!r}, not 'chat.completion.chunk'", path
            )
        seen = True
        for key in ("id", "created", "model", "system_fingerprint", "service_tier"):
            if head.get(key) is None and chunk.get(key) is not None:
                head[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            usage = chunk["usage"]
        for raw in event_field(ev, chunk, "choices", list, "chunk", path):
            if not isinstance(raw, dict):
                raise event_error(ev, "a choice is not an object", path)
            choice = choices.setdefault(
                event_field(ev, raw, "index", int, "choice", path), _Choice()
            )
            delta = raw.get("delta") or {}
            if not isinstance(delta, dict):
                raise event_error(ev, "choice delta is not an object", path)
            if delta.get("role") is not None:
                choice.role = delta["role"]
            append_text(choice.text, "content", delta.get("content"))
            append_text(choice.text, "refusal", delta.get("refusal"))
            calls = delta.get("tool_calls") or []
            if not isinstance(calls, list):
                raise event_error(ev, "delta tool_calls is not an array", path)
            for call in calls:
                _merge_tool_call(ev, choice, call, path)
            if raw.get("finish_reason") is not None:
                choice.finish_reason = raw["finish_reason"]
    if not seen:
        if error is not None:
            return {"object": "chat.completion", "choices": [], "error": error}
        raise LoadError("no chat.completion.chunk in the stream", path=path)
    result: dict[str, Any] = {
        "id": head.get("id"),
        "object": "chat.completion",
        "created": head.get("created"),
        "model": head.get("model"),
        "choices": [
            {"index": index, "message": c.message(), "finish_reason": c.finish_reason}
            for index, c in sorted(choices.items())
        ],
    }
    for key in ("system_fingerprint", "service_tier"):
        if key in head:
            result[key] = head[key]
    if usage is not None:
        result["usage"] = usage
    if error is not None:
        result["error"] = error
    return result


def _merge_tool_call(ev: StreamEvent, choice: _Choice, call: Any, path: str | None) -> None:
    if not isinstance(call, dict):
        raise event_error(ev, "a tool_calls entry is not an object", path)
    index = event_field(ev, call, "index", int, "tool call", path)
    state = choice.tool_calls.setdefault(
        index, {"id": None, "type": "function", "name": None, "arguments": []}
    )
    if call.get("id") is not None:
        state["id"] = call["id"]
    if call.get("type") is not None:
        state["type"] = call["type"]
    function = call.get("function") or {}
    if not isinstance(function, dict):
        raise event_error(ev, "tool call function is not an object", path)
    if function.get("name") is not None:
        state["name"] = function["name"]
    if isinstance(function.get("arguments"), str):
        state["arguments"].append(function["arguments"])
