"""Bedrock Converse records: requests, responses and ConverseStream events, converted to items.

A request holds `modelId`, `messages` (each `role` and `content`, a list of single-key blocks:
`text`, `toolUse`, `toolResult`, `reasoningContent`, `cachePoint`, `image`, …), `system` and
`toolConfig`; a response holds `output.message`, `stopReason`, `usage` and `metrics`. The SDKs
hand a ConverseStream to the program as one object per event (`{"messageStart": {...}}`,
`{"contentBlockDelta": {...}}`, …); recorded as JSON Lines or a JSON array, those are read here.
(The wire format, `application/vnd.amazon.eventstream`, is binary and not read.)

Sources: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html and
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_MessageStopEvent.html; the
botocore service model `bedrock-runtime/2023-09-30/service-2.json` (ContentBlock,
ContentBlockDelta, ContentBlockStart and the ConverseStreamOutput event union).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from inspector.core.formats._blocks import Block, Blocks
from inspector.core.formats._convert import (
    ABSENT,
    COMPLETED,
    INCOMPLETE,
    PARTS_CONVERTED,
    Api,
    Converter,
    serialise,
    start,
    text_part,
)
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import parse_event
from inspector.core.model import Derivation, Envelope, LoadError, join_pointer
from inspector.core.stream.events import StreamEvent, event_error, event_object

KINDS = {
    "bedrock_request": "bedrock_converse",
    "bedrock_response": "bedrock_converse",
    "bedrock_message": "bedrock_converse",
    "bedrock_stream": "bedrock_converse",
}
SLUG = "bedrock"
#: The kind `detect` gives a JSON array of ConverseStream events.
ARRAY_STREAM_KIND = "bedrock_stream"

#: `stopReason` → what it says of the last block. Source: the MessageStopEvent and Converse
#: pages above ("end_turn | tool_use | max_tokens | stop_sequence | guardrail_intervened |
#: content_filtered | malformed_model_output | malformed_tool_use |
#: model_context_window_exceeded"): the first three end a turn whole; the rest cut it off.
STOP_REASONS = MappingProxyType(
    {
        "end_turn": COMPLETED,
        "tool_use": COMPLETED,
        "stop_sequence": COMPLETED,
        "max_tokens": INCOMPLETE,
        "model_context_window_exceeded": INCOMPLETE,
        "guardrail_intervened": INCOMPLETE,
        "content_filtered": INCOMPLETE,
        "malformed_model_output": INCOMPLETE,
        "malformed_tool_use": INCOMPLETE,
    }
)

#: The envelope of its records: the format's one display name and the gate finding it gets.
ENVELOPE = Envelope(
    "bedrock_converse", "Bedrock Converse", finding="bedrock_envelope", wording="a Bedrock Converse"
)
API = Api(ENVELOPE, SLUG, STOP_REASONS, "stopReason")

#: Members of the ContentBlock union (one per block).
BLOCK_KEYS = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
        "searchResult",
    }
)
#: Blocks that are turns of their own rather than content.
_OWN_ITEM_BLOCKS = frozenset({"reasoningContent"})
#: Members of the ConverseStreamOutput event union (one per event).
EVENT_KEYS = frozenset(
    {
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)
_REQUEST_SIGNS = frozenset({"modelId", "toolConfig", "inferenceConfig", "guardrailConfig"})


def _is_block(obj: Any) -> bool:
    """Whether a value is a Converse content block: one union member, no `type`."""
    return (
        isinstance(obj, dict) and "type" not in obj and len(obj) == 1 and obj.keys() <= BLOCK_KEYS
    )


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def is_event(obj: Any) -> bool:
    """Whether a value is one ConverseStream event as the SDKs give it."""
    return isinstance(obj, dict) and len(obj) == 1 and next(iter(obj)) in EVENT_KEYS


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a Converse request, response, message or event (array)."""
    if isinstance(obj, list):
        if obj and all(is_event(x) for x in obj):
            return 95, ARRAY_STREAM_KIND
        return None
    if not isinstance(obj, dict):
        return None
    if is_event(obj):
        return 95, "stream_event"
    output = obj.get("output")
    if isinstance(output, dict) and isinstance(output.get("message"), dict):
        return (95 if "stopReason" in obj else 85), "bedrock_response"
    messages = obj.get("messages")
    if isinstance(messages, list):
        system = obj.get("system")
        if (
            _REQUEST_SIGNS & obj.keys()
            or any(_is_block(b) for m in messages for b in _blocks(m))
            or (isinstance(system, list) and any(_is_block(b) for b in system))
        ):
            # Above Chat Completions and Anthropic, which read `messages` too.
            return 90, "bedrock_request"
        return None
    blocks = _blocks(obj)
    if "type" not in obj and "role" in obj and blocks and all(_is_block(b) for b in blocks):
        return 60, "bedrock_message"
    return None


def detect_stream(events: Sequence[StreamEvent]) -> bool | None:
    """Whether the stream is a ConverseStream (True), another API's (False) or cannot tell."""
    for ev in events:
        if isinstance(ev.data, dict):
            return is_event(ev.data)
    return None


# --------------------------------------------------------------------------------------------
# Records


def load(b: Builder, record: Record, kind: str) -> None:
    """Add a Converse request, response or message as converted items."""
    obj = record.obj
    server = _server_tool_ids(obj)
    if kind == "bedrock_response":
        reason = obj.get("stopReason")
        conv = start(b, record, kind, API, reason=reason, error=obj.get("error"))
        pointer = join_pointer(record.base, "output", "message")
        _message(conv, obj["output"]["message"], pointer, record.line, server)
    elif kind == "bedrock_message":
        conv = start(b, record, kind, API)
        _message(conv, obj, record.base, record.line, server)
    else:
        conv = start(b, record, kind, API)
        _add_settings(b, record)
        system = obj.get("system")
        if system is not None:
            pointer = join_pointer(record.base, "system")
            conv.begin("system", pointer, system, record.line)
            _blocks_into(conv, "system", system, pointer, record.line)
            conv.end(system)
        conv.turns("messages", lambda m, p, line: _message(conv, m, p, line, server))
    conv.finish()


#: A `toolUse` Bedrock runs itself (a system tool such as the Nova code interpreter) says so.
#: Source: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html
#: (`type`: "server_tool_use").
SERVER_TOOL_USE = "server_tool_use"


def _server_tool_ids(obj: Any) -> frozenset[Any]:
    """The ids of the record's server tool uses: their results are Bedrock's, not a client's."""
    found: set[Any] = set()
    messages = obj.get("messages") if isinstance(obj.get("messages"), list) else None
    if messages is None:
        output = obj.get("output")
        message = output.get("message") if isinstance(output, dict) else obj
        messages = [message]
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            use = block.get("toolUse") if isinstance(block, dict) else None
            if isinstance(use, dict) and use.get("type") == SERVER_TOOL_USE:
                found.add(use.get("toolUseId"))
    return frozenset(found)


def _add_settings(b: Builder, record: Record) -> None:
    """Take the request's tool specs and its tool choice."""
    config = record.obj.get("toolConfig")
    if not isinstance(config, dict):
        return
    tools = config.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else ()):
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            schema = spec.get("inputSchema")
            parameters = schema.get("json") if isinstance(schema, dict) else None
            pointer = join_pointer(record.base, "toolConfig", "tools", i, "toolSpec")
            b.add_tool(spec["name"], parameters, pointer, record.line)
    choice = config.get("toolChoice")
    if isinstance(choice, dict):
        named = choice.get("tool")
        if isinstance(named, dict) and isinstance(named.get("name"), str):
            b.tool_choice = {"type": "function", "name": named["name"]}
        elif "any" in choice:
            b.tool_choice = "required"
        elif "auto" in choice:
            b.tool_choice = "auto"


def _message(
    conv: Converter,
    message: dict[str, Any],
    pointer: str,
    line: int | None,
    server: frozenset[Any] = frozenset(),
) -> None:
    role = message.get("role")
    fields = {f"{SLUG}:{k}": v for k, v in message.items() if k not in ("role", "content")}
    conv.begin(role, pointer, message, line, fields)
    content = message.get("content")
    _blocks_into(conv, role, content, join_pointer(pointer, "content"), line, server)
    conv.end(content)


def _blocks_into(
    conv: Converter,
    role: Any,
    blocks: Any,
    pointer: str,
    line: int | None,
    server: frozenset[Any] = frozenset(),
) -> None:
    """Convert a block list (at `pointer`): text to parts; calls, results, reasoning to items.

    A server tool's use and result (`server`: their ids) become provider-prefixed items, as
    Anthropic's do: a replay must not ask a client to run Bedrock's own sandbox.
    """
    if isinstance(blocks, str):
        conv.content(blocks)
        return
    for j, block in enumerate(blocks if isinstance(blocks, list) else ()):
        here = join_pointer(pointer, j)
        if not isinstance(block, dict):
            conv.part(block)
            continue
        use = block.get("toolUse")
        result = block.get("toolResult")
        if isinstance(use, dict) and use.get("type") == SERVER_TOOL_USE:
            fields = {k: v for k, v in use.items() if k != "type"}
            conv.extra(SERVER_TOOL_USE, fields, here, block, line)
        elif isinstance(result, dict) and result.get("toolUseId") in server:
            # Its own `type` (e.g. "nova_code_interpreter_result") is kept as `result_type`.
            fields = {("result_type" if k == "type" else k): v for k, v in result.items()}
            conv.extra("server_tool_result", fields, here, block, line)
        elif isinstance(use, dict):
            conv.call(
                name=use.get("name"),
                call_id=use.get("toolUseId"),
                arguments=use.get("input", ABSENT),
                pointer=here,
                native=block,
                line=line,
                fields=_kept(use, ("toolUseId", "name", "input"), block, "toolUse"),
            )
        elif isinstance(result, dict):
            output, marks = _result_output(result.get("content"))
            conv.output(
                call_id=result.get("toolUseId"),
                name=None,
                output=output,
                pointer=here,
                native=block,
                line=line,
                fields=_kept(result, ("toolUseId", "content"), block, "toolResult"),
                derived=marks,
            )
        elif len(block) == 1 and next(iter(block)) in _OWN_ITEM_BLOCKS:
            key = next(iter(block))
            conv.extra(_snake(key), {"value": block[key]}, here, block, line)
        elif isinstance(block.get("text"), str) and len(block) == 1:
            conv.part(text_part(role, block["text"]), PARTS_CONVERTED)
        else:
            key = next(iter(block), "block")
            conv.part({"type": f"{SLUG}:{_snake(key)}", **block}, PARTS_CONVERTED)


def _kept(
    inner: dict[str, Any], known: tuple[str, ...], block: dict[str, Any], key: str
) -> dict[str, Any]:
    """Fields of a call or result block with no item field, prefixed (and the block's others)."""
    fields = {f"{SLUG}:{k}": v for k, v in inner.items() if k not in known}
    fields.update({f"{SLUG}:{k}": v for k, v in block.items() if k != key})
    return fields


def _result_output(content: Any) -> tuple[Any, list[Derivation]]:
    """A toolResult's content as an output: one text as it is, one JSON value serialised."""
    if not isinstance(content, list):
        return content, []
    if len(content) == 1 and isinstance(content[0], dict) and len(content[0]) == 1:
        ((key, value),) = content[0].items()
        if key == "text" and isinstance(value, str):
            return value, [Derivation("output", "converted", "the result's one text block")]
        if key == "json":
            text = serialise(value)
            if text is not None:
                return text, [Derivation("output", "serialised", "the result's one json block")]
    parts: list[Any] = []
    for entry in content:
        if isinstance(entry, dict) and isinstance(entry.get("text"), str) and len(entry) == 1:
            parts.append({"type": "input_text", "text": entry["text"]})
        elif isinstance(entry, dict) and len(entry) == 1 and "json" in entry:
            parts.append({"type": "input_text", "text": serialise(entry["json"])})
        elif isinstance(entry, dict) and entry:
            parts.append({"type": f"{SLUG}:{_snake(next(iter(entry)))}", **entry})
        else:
            parts.append(entry)
    return parts, [Derivation("output", "converted", "the result's blocks as parts")]


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


# --------------------------------------------------------------------------------------------
# Streams (ConverseStream events as the SDKs give them)


def assemble_stream(events: Sequence[StreamEvent], path: str | None = None) -> dict[str, Any]:
    """Rebuild the Converse response a ConverseStream delivered."""
    role: Any = None
    # Text blocks have no contentBlockStart: their first delta opens them.
    blocks = Blocks(path, opens_on_delta=True)
    result: dict[str, Any] = {}
    started = False
    for ev in events:
        if ev.done:
            continue
        data = event_object(ev, path)
        if not is_event(data):
            raise event_error(ev, "not a ConverseStream event (one of " + _names() + ")", path)
        ((kind, body),) = data.items()
        if kind.endswith("Exception"):
            result["error"] = {"type": kind, **(body if isinstance(body, dict) else {})}
            continue
        if not isinstance(body, dict):
            raise event_error(ev, f"{kind} is not an object", path)
        if kind == "messageStart":
            if started:
                raise event_error(ev, "a second messageStart", path)
            started = True
            role = body.get("role")
            continue
        if kind == "messageStop":
            result["stopReason"] = body.get("stopReason")
            for key, value in body.items():
                if key != "stopReason":
                    result[key] = value
            continue
        if kind == "metadata":
            result.update(body)
            continue
        index = body.get("contentBlockIndex")
        if type(index) is not int:
            raise event_error(ev, f"{kind}: `contentBlockIndex` is missing or not an int", path)
        if kind == "contentBlockStart":
            start = body.get("start")
            blocks.start(ev, index, _started(start) if isinstance(start, dict) else {})
        elif kind == "contentBlockDelta":
            delta = body.get("delta")
            block = blocks.delta(ev, index)
            if not isinstance(delta, dict):
                raise event_error(
                    ev, "contentBlockDelta: `delta` is missing or not an object", path
                )
            _delta(block, delta)
        else:
            blocks.stop(ev, index)
    if not started and not blocks:
        if "error" in result:
            return {"output": {"message": {"role": "assistant", "content": []}}, **result}
        raise LoadError("no messageStart in the stream", path=path)
    content = blocks.finish(_finish_block)
    message = {"role": role if role is not None else "assistant", "content": content}
    return {"output": {"message": message}, **result}


def _names() -> str:
    return ", ".join(sorted(EVENT_KEYS))


def _started(start: dict[str, Any]) -> dict[str, Any]:
    """The block a contentBlockStart opens (a tool use gets its id and name here)."""
    use = start.get("toolUse")
    if isinstance(use, dict):
        return {"toolUse": dict(use)}
    return {k: dict(v) if isinstance(v, dict) else v for k, v in start.items()}


def _delta(streamed: Block, delta: dict[str, Any]) -> None:
    block = streamed.value
    for key, value in delta.items():
        if key == "text" and isinstance(value, str):
            streamed.append("text", value)
        elif key == "toolUse" and isinstance(value, dict):
            block.setdefault("toolUse", {})
            streamed.append("input", value.get("input"))
        elif key == "reasoningContent" and isinstance(value, dict):
            block.setdefault("reasoningContent", {})
            for part in ("text", "signature"):
                streamed.append(f"reasoning_{part}", value.get(part))
            if "redactedContent" in value:
                block["reasoningContent"]["redactedContent"] = value["redactedContent"]
        elif key == "citation":
            block.setdefault("citations", []).append(value)
        else:
            # A delta kind added later (tool results, images): kept as it came.
            block.setdefault(key, value)


def _finish_block(streamed: Block) -> dict[str, Any]:
    block, texts = streamed.value, streamed.texts
    if "input" in texts or "toolUse" in block:
        use = block.setdefault("toolUse", {})
        raw = "".join(texts.get("input", ()))
        if raw.strip():
            value, error = parse_event(raw)
            # Input cut off mid-way stays the text it was, so the gate reports it as it is.
            use["input"] = raw if error is not None else value
        else:
            use.setdefault("input", {})
    if "reasoning_text" in texts or "reasoning_signature" in texts:
        reasoning = block.setdefault("reasoningContent", {})
        reasoning["reasoningText"] = {
            "text": "".join(texts.get("reasoning_text", ())),
            **(
                {"signature": "".join(texts["reasoning_signature"])}
                if "reasoning_signature" in texts
                else {}
            ),
        }
    if "text" in texts:
        text = "".join(texts["text"])
        citations = block.pop("citations", None)
        if citations is not None:
            block["citationsContent"] = {"content": [{"text": text}], "citations": citations}
        else:
            block["text"] = text
    return block


FORMAT = FormatSpec(
    name="bedrock_converse",
    envelope=ENVELOPE,
    kinds=KINDS,
    detect=detect,
    load=load,
    detect_stream=detect_stream,
    assemble_stream=assemble_stream,
    is_event=is_event,
    array_stream_kind=ARRAY_STREAM_KIND,
    declares_tools=True,
)
