"""Event streams of other APIs: which dialect a stream speaks, and its assembled message.

A Chat Completions stream (`chat.completion.chunk` frames) or an Anthropic Messages stream
(`message_start` … `message_stop`) is not an Open Responses stream; reducing it as one would
only report noise. These assemblers rebuild the final message the client saw, so a caller can
show it and say plainly which envelope the file is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from inspector.core.model import LoadError
from inspector.core.stream import StreamEvent, parse_json

Dialect = Literal["open_responses", "chat_completions", "anthropic"]

#: Event types of the Anthropic Messages stream (`error` is shared with Open Responses).
ANTHROPIC_EVENT_TYPES: frozenset[str] = frozenset(
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


def detect_stream_dialect(events: Sequence[StreamEvent]) -> Dialect:
    """Return the API a stream speaks, judged by its first event that tells."""
    for ev in events:
        data = ev.data
        if isinstance(data, dict):
            if data.get("object") == "chat.completion.chunk" or (
                "choices" in data and "type" not in data
            ):
                return "chat_completions"
            kind = data.get("type")
            if not isinstance(kind, str):
                continue
            if kind in ANTHROPIC_EVENT_TYPES:
                return "anthropic"
            if kind.startswith("response.") or ":" in kind:
                return "open_responses"
        elif ev.name in ANTHROPIC_EVENT_TYPES:
            return "anthropic"
    return "open_responses"


def _fail(ev: StreamEvent, message: str) -> LoadError:
    return LoadError(message, line=ev.line, event_index=ev.index)


def _object(ev: StreamEvent) -> dict[str, Any]:
    if isinstance(ev.data, dict):
        return ev.data
    if ev.parse_error is not None:
        raise _fail(ev, f"data is not JSON: {ev.parse_error}")
    raise _fail(ev, f"data is a JSON {type(ev.data).__name__}, not an object")


def _field(ev: StreamEvent, obj: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = obj.get(key)
    if type(value) is not kind:
        raise _fail(ev, f"{what}: `{key}` is missing or not a {kind.__name__}")
    return value


def _append_text(parts: dict[str, list[str]], key: str, value: Any) -> None:
    if isinstance(value, str):
        parts.setdefault(key, []).append(value)


# --------------------------------------------------------------------------------------------
# Chat Completions


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


def assemble_chat_completion(events: Sequence[StreamEvent]) -> dict[str, Any]:
    """Rebuild the `chat.completion` a Chat Completions stream delivered."""
    head: dict[str, Any] = {}
    choices: dict[int, _Choice] = {}
    usage: Any = None
    error: Any = None
    seen = False
    for ev in events:
        if ev.done:
            continue
        chunk = _object(ev)
        if "error" in chunk and "choices" not in chunk:
            error = chunk["error"]
            continue
        if chunk.get("object", "chat.completion.chunk") != "chat.completion.chunk":
            raise _fail(ev, f"object is {chunk.get('object')!r}, not 'chat.completion.chunk'")
        seen = True
        for key in ("id", "created", "model", "system_fingerprint", "service_tier"):
            if head.get(key) is None and chunk.get(key) is not None:
                head[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            usage = chunk["usage"]
        for raw in _field(ev, chunk, "choices", list, "chunk"):
            if not isinstance(raw, dict):
                raise _fail(ev, "a choice is not an object")
            choice = choices.setdefault(_field(ev, raw, "index", int, "choice"), _Choice())
            delta = raw.get("delta") or {}
            if not isinstance(delta, dict):
                raise _fail(ev, "choice delta is not an object")
            if delta.get("role") is not None:
                choice.role = delta["role"]
            _append_text(choice.text, "content", delta.get("content"))
            _append_text(choice.text, "refusal", delta.get("refusal"))
            calls = delta.get("tool_calls") or []
            if not isinstance(calls, list):
                raise _fail(ev, "delta tool_calls is not an array")
            for call in calls:
                _merge_tool_call(ev, choice, call)
            if raw.get("finish_reason") is not None:
                choice.finish_reason = raw["finish_reason"]
    if not seen:
        if error is not None:
            return {"object": "chat.completion", "choices": [], "error": error}
        raise LoadError("no chat.completion.chunk in the stream")
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


def _merge_tool_call(ev: StreamEvent, choice: _Choice, call: Any) -> None:
    if not isinstance(call, dict):
        raise _fail(ev, "a tool_calls entry is not an object")
    index = _field(ev, call, "index", int, "tool call")
    state = choice.tool_calls.setdefault(
        index, {"id": None, "type": "function", "name": None, "arguments": []}
    )
    if call.get("id") is not None:
        state["id"] = call["id"]
    if call.get("type") is not None:
        state["type"] = call["type"]
    function = call.get("function") or {}
    if not isinstance(function, dict):
        raise _fail(ev, "tool call function is not an object")
    if function.get("name") is not None:
        state["name"] = function["name"]
    if isinstance(function.get("arguments"), str):
        state["arguments"].append(function["arguments"])


# --------------------------------------------------------------------------------------------
# Anthropic Messages


_BLOCK_DELTAS = {
    "text_delta": ("text", "text"),
    "input_json_delta": ("partial_json", "partial_json"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "signature"),
}


def assemble_anthropic_message(events: Sequence[StreamEvent]) -> dict[str, Any]:
    """Rebuild the Anthropic `message` a Messages stream delivered."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    texts: dict[int, dict[str, list[str]]] = {}
    last: dict[int, StreamEvent] = {}  # the latest event of each block, to say where it broke
    stopped: set[int] = set()
    for ev in events:
        if ev.done:
            continue
        data = _object(ev)
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
                raise _fail(ev, "a second message_start")
            message = dict(_field(ev, data, "message", dict, "message_start"))
            continue
        if message is None:
            raise _fail(ev, f"{kind!r} before message_start")
        if kind == "content_block_start":
            index = _field(ev, data, "index", int, kind)
            if index in blocks:
                raise _fail(ev, f"content block {index} started twice")
            blocks[index] = dict(_field(ev, data, "content_block", dict, kind))
            texts[index] = {}
            last[index] = ev
        elif kind == "content_block_delta":
            index = _field(ev, data, "index", int, kind)
            if index not in blocks or index in stopped:
                raise _fail(ev, f"delta for content block {index}, which is not open")
            delta = _field(ev, data, "delta", dict, kind)
            last[index] = ev
            delta_type = delta.get("type")
            target = _BLOCK_DELTAS.get(delta_type) if isinstance(delta_type, str) else None
            if target is not None:
                _append_text(texts[index], target[1], delta.get(target[0]))
            elif delta_type == "citations_delta":
                blocks[index].setdefault("citations", []).append(delta.get("citation"))
        elif kind == "content_block_stop":
            index = _field(ev, data, "index", int, kind)
            if index not in blocks or index in stopped:
                raise _fail(ev, f"stop for content block {index}, which is not open")
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
        raise LoadError("no message_start in the stream")
    message["content"] = [_finish_block(last[i], blocks[i], texts[i]) for i in sorted(blocks)]
    return message


def _finish_block(
    ev: StreamEvent, block: dict[str, Any], texts: dict[str, list[str]]
) -> dict[str, Any]:
    for key in ("text", "thinking", "signature"):
        if key in texts:
            block[key] = block.get(key, "") + "".join(texts[key])
    if "partial_json" in texts:
        raw = "".join(texts["partial_json"])
        if raw.strip():
            value, error = parse_json(raw)
            if error is not None:
                raise _fail(ev, f"tool_use {block.get('id')!r} input is not JSON: {error}")
            block["input"] = value
    return block
