"""Chat Completions records: requests, responses and streams, converted to Open Responses items.

A Chat Completions record is a foreign envelope for an Open Responses provider; its messages and
tool calls are converted so they can be gated, and the envelope is reported by the gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from inspector.core.formats._blocks import Blocks
from inspector.core.formats._convert import (
    ABSENT,
    COMPLETED,
    INCOMPLETE,
    PARTS_CONVERTED,
    Api,
    Converter,
    choose,
    prefixed,
    start,
    text_part,
)
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Derivation, Envelope, LoadError, join_pointer
from inspector.core.stream.events import (
    StreamEvent,
    append_text,
    event_error,
    event_field,
    event_object,
)

KINDS = {
    "chat_request": "chat_completions",
    "chat_response": "chat_completions",
    "chat_message": "chat_completions",
}
SLUG = "openai"

#: `finish_reason` → what it says of the last item of the choice. Source:
#: https://platform.openai.com/docs/api-reference/chat/object (choices[].finish_reason: "stop" a
#: natural stop or a stop sequence, "length" the max tokens, "content_filter" omitted content,
#: "tool_calls" / "function_call" the model called a tool).
FINISH_REASONS = MappingProxyType(
    {
        "stop": COMPLETED,
        "tool_calls": COMPLETED,
        "function_call": COMPLETED,
        "length": INCOMPLETE,
        "content_filter": INCOMPLETE,
    }
)

#: The envelope of its records: the format's one display name and the gate finding it gets.
ENVELOPE = Envelope(
    "chat_completions",
    "Chat Completions",
    finding="chat_completions_envelope",
    wording="a Chat Completions",
)
API = Api(ENVELOPE, SLUG, FINISH_REASONS, "finish_reason")

_REFUSAL_PART = Derivation("content", "converted", "the refusal field as a refusal part")
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "function_call", "refusal"})
_RESULT_KEYS = frozenset({"role", "content", "tool_call_id"})


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a Chat Completions request, response or message, or None."""
    if not isinstance(obj, dict):
        return None
    if is_event(obj):
        return 95, "stream_event"
    if obj.get("object") == "chat.completion" or (
        isinstance(obj.get("choices"), list) and "messages" not in obj
    ):
        return 85, "chat_response"
    if isinstance(obj.get("messages"), list):
        return 70, "chat_request"
    if "type" not in obj and is_chat_message(obj):
        # Beats the Open Responses message shorthand: these carry calls or results.
        return 60, "chat_message"
    return None


def is_event(obj: Any) -> bool:
    """Whether a value is one streamed `chat.completion.chunk` (as SDKs record them, per line)."""
    return isinstance(obj, dict) and obj.get("object") == "chat.completion.chunk"


def is_chat_message(obj: dict[str, Any]) -> bool:
    """Whether a lone object is a Chat Completions message with a tool call or result."""
    role = obj.get("role")
    if role == "tool" or (role == "function" and "name" in obj):
        return True
    return role == "assistant" and (
        isinstance(obj.get("tool_calls"), list) or isinstance(obj.get("function_call"), dict)
    )


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


def load(b: Builder, record: Record, kind: str) -> None:
    """Add a Chat Completions request, response or message as converted items."""
    obj = record.obj
    if kind == "chat_message":
        conv = start(b, record, kind, API)
        _message(conv, obj, record.base, record.line)
    elif kind == "chat_request":
        conv = start(b, record, kind, API)
        _add_settings(b, record)
        conv.turns("messages", lambda m, p, line: _message(conv, m, p, line))
    else:
        chosen, count = choose(obj.get("choices"), lambda c: c.get("index"))
        reason = chosen[1].get("finish_reason") if chosen is not None else None
        conv = start(
            b, record, kind, API, reason=reason, error=obj.get("error"), response_id=obj.get("id")
        )
        _add_settings(b, record)
        conv.alternatives(count, "choices")
        message = chosen[1].get("message") if chosen is not None else None
        if chosen is not None and isinstance(message, dict):
            where = join_pointer(record.base, "choices", chosen[0], "message")
            _message(conv, message, where, record.line)
    conv.finish()


def _add_settings(b: Builder, record: Record) -> None:
    """Take the request's tools (and legacy `functions`) and an allowed-tools choice."""
    obj = record.obj
    b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
    functions = obj.get("functions")
    if isinstance(functions, list):
        for i, function in enumerate(functions):
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                pointer = join_pointer(record.base, "functions", i)
                b.add_tool(function["name"], function.get("parameters"), pointer, record.line)
    choice = obj.get("tool_choice")
    allowed = choice.get("allowed_tools") if isinstance(choice, dict) else None
    if isinstance(allowed, dict) and isinstance(allowed.get("tools"), list):
        # The Chat form nests each name under "function"; the gate reads the Responses form.
        names = [
            t["function"]["name"]
            for t in allowed["tools"]
            if isinstance(t, dict)
            and isinstance(t.get("function"), dict)
            and isinstance(t["function"].get("name"), str)
        ]
        b.tool_choice = {
            "type": "allowed_tools",
            "mode": allowed.get("mode"),
            "tools": [{"type": "function", "name": n} for n in names],
        }
    elif choice is not None:
        b.tool_choice = choice


def _message(conv: Converter, message: dict[str, Any], pointer: str, line: int | None) -> None:
    """Convert one Chat Completions message: its text, refusal, tool calls or tool result."""
    role = message.get("role")
    if role in ("tool", "function"):
        output = message.get("content")
        marks = []
        if isinstance(output, list):
            output = [_part(role, p) for p in output]
            marks.append(Derivation("output", "converted", "content parts as Open Responses parts"))
        conv.output(
            call_id=message.get("tool_call_id") if role == "tool" else None,
            name=message.get("name"),
            output=output,
            pointer=pointer,
            native=message,
            line=line,
            fields=prefixed(message, _RESULT_KEYS, SLUG),
            derived=marks,
        )
        return
    conv.begin(role, pointer, message, line, prefixed(message, _MESSAGE_KEYS, SLUG))
    content = message.get("content")
    refusal = message.get("refusal")
    calls = message.get("tool_calls")
    legacy = message.get("function_call")
    if isinstance(content, list):
        for part in content:
            conv.part(_part(role, part), PARTS_CONVERTED)
    elif isinstance(content, str) and content:
        if isinstance(refusal, str):
            conv.part(text_part(role, content), _REFUSAL_PART)
        else:
            conv.content(content)
    if isinstance(refusal, str):
        conv.part({"type": "refusal", "refusal": refusal}, _REFUSAL_PART)
    add_tool_calls(conv, calls, pointer, line, SLUG)
    if isinstance(legacy, dict):
        conv.call(
            name=legacy.get("name"),
            call_id=None,
            arguments=legacy.get("arguments", ABSENT),
            pointer=join_pointer(pointer, "function_call"),
            native=legacy,
            line=line,
            fields=prefixed(legacy, ("name", "arguments"), SLUG),
        )
    # A message that gave no item (no text, no call) is kept with its content as it was.
    conv.end(content)


def add_tool_calls(conv: Converter, calls: Any, pointer: str, line: int | None, slug: str) -> None:
    """Convert a message's `tool_calls` (`{id, type, function: {name, arguments}}` each).

    Cohere v2 chat sends its calls in this shape too; their other fields keep `slug`.
    """
    if not isinstance(calls, list):
        return
    for j, call in enumerate(calls):
        here = join_pointer(pointer, "tool_calls", j)
        if not isinstance(call, dict):
            conv.extra("tool_call", {"value": call}, here, call, line)
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        conv.call(
            name=function.get("name"),
            call_id=call.get("id"),
            arguments=function.get("arguments", ABSENT),
            pointer=here,
            native=call,
            line=line,
            fields={
                **prefixed(call, ("id", "type", "function"), slug),
                **prefixed(function, ("name", "arguments"), slug),
            },
        )


def _part(role: Any, part: Any) -> Any:
    """A Chat Completions content part as an Open Responses part (others keep the prefix)."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind == "text":
        return {**text_part(role, part.get("text")), **prefixed(part, ("type", "text"), SLUG)}
    if kind == "image_url" and isinstance(part.get("image_url"), dict):
        image = part["image_url"]
        converted = {"type": "input_image", "image_url": image.get("url")}
        if "detail" in image:
            converted["detail"] = image["detail"]
        return {**converted, **prefixed(image, ("url", "detail"), SLUG)}
    if kind == "file" and isinstance(part.get("file"), dict):
        return {"type": "input_file", **part["file"]}
    if kind == "refusal":
        return part
    return {**part, "type": f"{SLUG}:{kind}" if isinstance(kind, str) else f"{SLUG}:part"}


# --------------------------------------------------------------------------------------------
# Streams (`chat.completion.chunk` frames)


class _Choice:
    __slots__ = ("by_id", "finish_reason", "function_call", "role", "text", "tool_calls")

    def __init__(self, path: str | None) -> None:
        self.role: Any = None
        self.text: dict[str, list[str]] = {}
        # A tool call has no start event: its first delta opens it.
        self.tool_calls = Blocks(path, "tool call", opens_on_delta=True)
        #: The calls streamed without `index`, by their `id`.
        self.by_id: dict[str, int] = {}
        #: The legacy single call (`functions`): its name and its streamed arguments.
        self.function_call: dict[str, Any] | None = None
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
            msg["tool_calls"] = self.tool_calls.finish(
                lambda call: {
                    "id": call.value["id"],
                    "type": call.value["type"],
                    "function": _function(call.value["name"], call.joined("arguments") or ""),
                }
            )
        if self.function_call is not None:
            msg["function_call"] = _function(
                self.function_call["name"], "".join(self.function_call["arguments"])
            )
        return msg


def _function(name: Any, arguments: str) -> dict[str, Any]:
    """A streamed call's function; no streamed arguments leaves `arguments` out.

    A no-argument call streams `"arguments": ""` (or nothing); the same call from the same
    model in any other format is `{}`, so the converter gives it `{}`, marked as derived.
    """
    return {"name": name, "arguments": arguments} if arguments else {"name": name}


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
            index = event_field(ev, raw, "index", int, "choice", path)
            choice = choices.get(index)
            if choice is None:
                choice = choices[index] = _Choice(path)
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
            legacy = delta.get("function_call")
            if isinstance(legacy, dict):
                state = choice.function_call or {"name": None, "arguments": []}
                choice.function_call = state
                if legacy.get("name"):
                    state["name"] = legacy["name"]
                if isinstance(legacy.get("arguments"), str):
                    state["arguments"].append(legacy["arguments"])
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
    index = _call_index(ev, choice, call, path)
    streamed = choice.tool_calls.delta(ev, index, _new_call)
    state = streamed.value
    # Continuation chunks of OpenAI-compatible servers (GLM, Qwen) repeat `"id": ""` and
    # `"name": ""`: an empty string never overwrites what was received.
    if call.get("id"):
        state["id"] = call["id"]
    if call.get("type"):
        state["type"] = call["type"]
    function = call.get("function") or {}
    if not isinstance(function, dict):
        raise event_error(ev, "tool call function is not an object", path)
    if function.get("name"):
        state["name"] = function["name"]
    # Every call has its arguments, if only empty ones.
    streamed.append("arguments", function.get("arguments"))
    streamed.texts.setdefault("arguments", [])


def _call_index(ev: StreamEvent, choice: _Choice, call: dict[str, Any], path: str | None) -> int:
    """The call a `tool_calls` entry adds to: its `index`, or else the call with its `id`.

    Without `index` (Mistral sends each call whole so), a new id opens the next call and an
    entry with no id continues the last one (or opens the first).
    """
    if call.get("index") is not None:
        return event_field(ev, call, "index", int, "tool call", path)
    used = [index for index, _ in choice.tool_calls]
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        return max(used, default=0)
    known = choice.by_id.get(call_id)
    if known is None:
        known = choice.by_id[call_id] = max(used, default=-1) + 1
    return known


def _new_call() -> dict[str, Any]:
    return {"id": None, "type": "function", "name": None}


FORMAT = FormatSpec(
    name="chat_completions",
    envelope=ENVELOPE,
    kinds=KINDS,
    detect=detect,
    load=load,
    detect_stream=detect_stream,
    assemble_stream=assemble_stream,
    is_event=is_event,
)
