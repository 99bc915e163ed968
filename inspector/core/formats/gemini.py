"""Gemini `generateContent` records: requests, responses and streams, converted to items.

A request holds `contents` (turns of `role` and `parts`), `systemInstruction`, `tools`
(`functionDeclarations`) and `toolConfig`; a response holds `candidates` (each a `content` and a
`finishReason`), `usageMetadata` and `promptFeedback`. `streamGenerateContent` sends the same
response objects as chunks: as server-sent events with `?alt=sse`, or else as one JSON array.

The REST API writes lowerCamelCase; its JSON parser also takes snake_case, and the Python SDK
writes snake_case when it dumps a record, so both spellings are read. Prefixed fields are
written in snake_case (`google:thought_signature`) whatever the file used, so both spellings
give the same items.

Sources: https://ai.google.dev/api/generate-content (GenerateContentRequest,
GenerateContentResponse, Candidate, FinishReason), https://ai.google.dev/api/caching#Content
(Content, Part, FunctionCall, FunctionResponse, Tool, FunctionDeclaration, Schema, ToolConfig),
https://ai.google.dev/gemini-api/docs/function-calling (function calls may have no `id`; results
answer them by `name`) and https://ai.google.dev/gemini-api/docs/thought-signatures (a signature
may arrive on any part, or alone on an empty text part at the end of a stream).
"""

from __future__ import annotations

import re
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
    serialise,
    start,
    text_part,
)
from inspector.core.formats._records import Builder, Detection, Record
from inspector.core.formats.spec import FormatSpec
from inspector.core.model import Derivation, Envelope, LoadError, join_pointer
from inspector.core.stream.events import StreamEvent, event_error, event_object

KINDS = {
    "gemini_request": "gemini",
    "gemini_response": "gemini",
    "gemini_content": "gemini",
    "gemini_stream": "gemini",
}
SLUG = "google"
#: The kind `detect` gives a JSON array of streamed chunks (`streamGenerateContent` without SSE).
ARRAY_STREAM_KIND = "gemini_stream"

#: `finishReason` → what it says of the last part. Source: https://ai.google.dev/api/generate-content
#: #FinishReason ("STOP: natural stop point of the model or provided stop sequence";
#: "MAX_TOKENS: the maximum number of tokens as specified in the request was reached"; every
#: other value — SAFETY, RECITATION, LANGUAGE, BLOCKLIST, PROHIBITED_CONTENT, SPII,
#: MALFORMED_FUNCTION_CALL, IMAGE_*, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, OTHER — stops the
#: output short, and unknown values count as such).
FINISH_REASONS = MappingProxyType({"STOP": COMPLETED, "MAX_TOKENS": INCOMPLETE})

#: The envelope of its records: the format's one display name and the gate finding it gets.
ENVELOPE = Envelope(
    "gemini",
    "Gemini generateContent",
    finding="gemini_envelope",
    wording="a Gemini generateContent",
)
API = Api(ENVELOPE, SLUG, FINISH_REASONS, "finishReason")

#: Roles of `Content.role`: "user" or "model" (older records use "function" for results).
_ROLES = MappingProxyType({"model": "assistant", "user": "user", "function": "user"})

#: Part fields read into the item itself; the rest stay on it as `google:` fields.
_PART_KEYS = frozenset(
    {"text", "thought", "functionCall", "function_call", "functionResponse", "function_response"}
)
#: Parts that are turns of their own rather than content (code the model ran, and its result).
_OWN_ITEM_PARTS = frozenset({"executable_code", "code_execution_result"})
#: Candidate fields that carry content with no item equivalent (citations, grounding sources).
_CANDIDATE_ITEMS: tuple[str, ...] = (
    "citation_metadata",
    "grounding_metadata",
    "grounding_attributions",
)
_CANDIDATE_ITEMS += ("url_context_metadata",)
_REQUEST_SIGNS = frozenset(
    {"systemInstruction", "system_instruction", "toolConfig", "tool_config", "generationConfig"}
    | {"generation_config", "safetySettings", "safety_settings", "cachedContent"}
)
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(key: str) -> str:
    """`thoughtSignature` → `thought_signature` (snake_case keys stay as they are)."""
    return _CAMEL.sub("_", key).lower()


def _get(obj: Any, camel: str, default: Any = None) -> Any:
    """A field in either spelling (lowerCamelCase first)."""
    if not isinstance(obj, dict):
        return default
    if camel in obj:
        return obj[camel]
    return obj.get(snake(camel), default)


def _key(obj: dict[str, Any], camel: str) -> str:
    """The spelling of a field this record uses (for pointers)."""
    return camel if camel in obj else snake(camel)


def _kept(native: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The fields outside `known`, prefixed and in snake_case."""
    return {f"{SLUG}:{snake(k)}": v for k, v in native.items() if k not in known}


def _is_chunk(obj: Any) -> bool:
    """Whether a value is a GenerateContentResponse (a response, or one streamed chunk)."""
    return (
        isinstance(obj, dict)
        and "type" not in obj
        and (
            isinstance(obj.get("candidates"), list)
            or ("promptFeedback" in obj or "prompt_feedback" in obj)
            or ("usageMetadata" in obj and ("modelVersion" in obj or "responseId" in obj))
        )
    )


def is_event(obj: Any) -> bool:
    """Whether a value is a streamed chunk that is not the last: no candidate has finished yet.

    A whole response always names its `finishReason`; SDKs that save a stream one chunk per
    line (or the REST API without `alt=sse`) write the chunks before it without one.
    """
    if not _is_chunk(obj):
        return False
    candidates = obj.get("candidates")
    # The key, not its value: an assembled stream that was cut off says `finishReason: null`.
    return bool(candidates) and all(
        isinstance(c, dict) and "finishReason" not in c and "finish_reason" not in c
        for c in candidates
    )


def _is_content(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("parts"), list) and "type" not in obj


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as a Gemini request, response, content turn or chunk array."""
    if isinstance(obj, list):
        if obj and all(_is_chunk(x) for x in obj):
            return 90, ARRAY_STREAM_KIND
        return None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("contents"), list):
        return 90, "gemini_request"
    if is_event(obj):
        return 95, "stream_event"
    if _is_chunk(obj):
        return 90, "gemini_response"
    if _is_content(obj) and ("role" in obj or _REQUEST_SIGNS & obj.keys()):
        return 60, "gemini_content"
    return None


def detect_stream(events: Sequence[StreamEvent]) -> bool | None:
    """Whether the stream is Gemini's (True), another API's (False) or cannot tell (None)."""
    for ev in events:
        data = ev.data
        if isinstance(data, dict):
            if _is_chunk(data):
                return True
            if "type" in data or "choices" in data:
                return False
    return None


# --------------------------------------------------------------------------------------------
# Records


def load(b: Builder, record: Record, kind: str) -> None:
    """Add a Gemini request, response or content turn as converted items."""
    obj = record.obj
    if kind == "gemini_response":
        _load_response(b, record)
        return
    conv = start(b, record, kind, API)
    if kind == "gemini_content":
        _content(conv, obj, record.base, record.line)
    else:
        _add_settings(b, record)
        system = _get(obj, "systemInstruction")
        if system is not None:
            pointer = join_pointer(record.base, _key(obj, "systemInstruction"))
            # The system prompt whatever `role` it carries (the Google SDKs write "user").
            _content(conv, system, pointer, record.line, role="system", forced=True)
        conv.turns("contents", lambda c, p, line: _content(conv, c, p, line))
    conv.finish()


def _load_response(b: Builder, record: Record) -> None:
    obj = record.obj
    chosen, count = choose(obj.get("candidates"), lambda c: _get(c, "index", 0))
    reason = _get(chosen[1], "finishReason") if chosen is not None else None
    feedback = _get(obj, "promptFeedback")
    blocked = _get(feedback, "blockReason")
    error = obj.get("error")
    if error is None and chosen is None and blocked is not None:
        error = {"message": f"the prompt was blocked ({blocked})", **feedback}
    response_id = _get(obj, "responseId")
    conv = start(
        b, record, "gemini_response", API, reason=reason, error=error, response_id=response_id
    )
    conv.alternatives(count, "candidates")
    if chosen is not None:
        index, candidate = chosen
        where = join_pointer(record.base, "candidates", index)
        content = candidate.get("content")
        if isinstance(content, dict):
            _content(conv, content, join_pointer(where, "content"), record.line, role="model")
        for key in candidate:
            name = snake(key)
            if name in _CANDIDATE_ITEMS:
                value = candidate[key]
                conv.extra(name, {"value": value}, join_pointer(where, key), value, record.line)
    conv.finish()


def _add_settings(b: Builder, record: Record) -> None:
    """Take the request's function declarations and its allowed function names."""
    obj = record.obj
    tools = _get(obj, "tools")
    if isinstance(tools, list):
        for i, tool in enumerate(tools):
            declarations = _get(tool, "functionDeclarations")
            if not isinstance(declarations, list):
                continue
            dkey = _key(tool, "functionDeclarations")
            for j, declaration in enumerate(declarations):
                name = _get(declaration, "name")
                if not isinstance(name, str):
                    continue
                pointer = join_pointer(record.base, "tools", i, dkey, j)
                schema = _get(declaration, "parametersJsonSchema", ABSENT)
                if schema is ABSENT:
                    parameters = _get(declaration, "parameters")
                    schema = None if parameters is None else json_schema(parameters)
                    member = _key(declaration, "parameters") if parameters is not None else None
                else:
                    member = _key(declaration, "parametersJsonSchema")
                # The origin names the member: target rules differ for `parameters` (an
                # OpenAPI subset) and `parametersJsonSchema` (JSON Schema).
                if member is not None:
                    pointer = join_pointer(pointer, member)
                b.add_tool(name, schema, pointer, record.line)
    config = _get(_get(obj, "toolConfig"), "functionCallingConfig")
    names = _get(config, "allowedFunctionNames")
    if isinstance(names, list):
        # The gate reads the Open Responses form of "only these tools".
        b.tool_choice = {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": n} for n in names if isinstance(n, str)],
        }


#: Schema fields whose int64 values protobuf JSON writes as strings.
_INT64_FIELDS = frozenset(
    {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}
)


def json_schema(schema: Any) -> Any:
    """A Gemini `Schema` (an OpenAPI 3.0 subset) as the JSON Schema it means.

    Types are written in capitals (`OBJECT`), `nullable: true` adds `null`, and int64 bounds may
    be strings; everything else is JSON Schema already. Source:
    https://ai.google.dev/api/caching#Schema.
    """
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        camel = key if "_" not in key else re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)
        if camel == "type" and isinstance(value, str):
            out["type"] = value.lower()
        elif camel in ("properties",) and isinstance(value, dict):
            out[camel] = {k: json_schema(v) for k, v in value.items()}
        elif camel in ("items", "anyOf"):
            out[camel] = json_schema(value)
        elif camel in _INT64_FIELDS and isinstance(value, str) and value.isdigit():
            out[camel] = int(value)
        elif camel != "nullable":
            out[camel] = value
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _content(
    conv: Converter,
    content: dict[str, Any],
    pointer: str,
    line: int | None,
    role: Any = None,
    forced: bool = False,
) -> None:
    """Convert one Content (a turn): its parts, split around calls, results and thoughts.

    `forced`: `role` is the turn's role whatever the content says (`systemInstruction`).
    """
    if not isinstance(content, dict):
        content = {"parts": [{"text": content}]} if isinstance(content, str) else {}
    native_role = role if forced else content.get("role", role)
    role = _ROLES.get(native_role, native_role) if isinstance(native_role, str) else native_role
    fields = _kept(content, frozenset({"role", "parts"}))
    conv.begin(role, pointer, content, line, fields)
    if role != native_role:
        conv.note(Derivation("role", "converted", f"Gemini's {native_role!r} role"))
    parts = content.get("parts")
    for j, part in enumerate(parts if isinstance(parts, list) else ()):
        _part(conv, role, part, join_pointer(pointer, "parts", j), line)
    conv.end(parts if isinstance(parts, list) else [])


def _part(conv: Converter, role: Any, part: Any, here: str, line: int | None) -> None:
    """Convert one Part: a call, a result, a thought, or a content part of a message."""
    if not isinstance(part, dict):
        conv.part(part)
        return
    extras = _kept(part, _PART_KEYS)
    call = _get(part, "functionCall")
    result = _get(part, "functionResponse")
    if isinstance(call, dict):
        conv.call(
            name=call.get("name"),
            call_id=call.get("id"),
            arguments=call.get("args", ABSENT),
            pointer=here,
            native=part,
            line=line,
            fields={**_kept(call, frozenset({"id", "name", "args"})), **extras},
        )
        return
    if isinstance(result, dict):
        output = result.get("response")
        marks = []
        text = None if isinstance(output, str) or output is None else serialise(output)
        if text is not None:
            output = text
            marks.append(Derivation("output", "serialised", "the native response is an object"))
        conv.output(
            call_id=result.get("id"),
            name=result.get("name"),
            output=output,
            pointer=here,
            native=part,
            line=line,
            fields={**_kept(result, frozenset({"id", "name", "response"})), **extras},
            derived=marks,
        )
        return
    text = part.get("text")
    if _get(part, "thought") is True:
        conv.extra("thought", {"text": text, **_unprefixed(extras)}, here, part, line)
        return
    if isinstance(text, str):
        if not text and f"{SLUG}:thought_signature" in extras and len(part) == 2:
            # A signature alone (the end of a stream): kept as an item of its own.
            conv.extra("thought_signature", _unprefixed(extras), here, part, line)
            return
        conv.part({**text_part(role, text), **extras}, PARTS_CONVERTED)
        return
    kind = next((snake(k) for k in part if snake(k) not in ("thought_signature",)), "part")
    fields = _unprefixed(extras)
    if kind in _OWN_ITEM_PARTS:
        conv.extra(kind, fields, here, part, line)
    else:
        conv.part({"type": f"{SLUG}:{kind}", **fields}, PARTS_CONVERTED)


def _unprefixed(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields of a prefixed item are its own: no prefix on each."""
    return {k.split(":", 1)[1]: v for k, v in fields.items()}


# --------------------------------------------------------------------------------------------
# Streams (`streamGenerateContent`: chunks that are partial responses)


def assemble_stream(events: Sequence[StreamEvent], path: str | None = None) -> dict[str, Any]:
    """Rebuild the GenerateContentResponse a stream of chunks delivered."""
    result: dict[str, Any] = {}
    # Candidates have no start event: the first chunk that names one opens it.
    candidates = Blocks(path, "candidate", opens_on_delta=True)
    seen = False
    for ev in events:
        if ev.done:
            continue
        chunk = event_object(ev, path)
        if "error" in chunk and not _is_chunk(chunk):
            result["error"] = chunk["error"]
            continue
        if not _is_chunk(chunk):
            raise event_error(ev, "not a GenerateContentResponse chunk (no candidates)", path)
        seen = True
        for key, value in chunk.items():
            if key != "candidates":
                result[key] = value  # usage, model version, feedback: the latest wins
        for raw in chunk.get("candidates") or ():
            if not isinstance(raw, dict):
                raise event_error(ev, "a candidate is not an object", path)
            index = _get(raw, "index", 0)
            if not isinstance(index, int):
                raise event_error(ev, "candidate index is not an integer", path)
            _merge_candidate(ev, candidates.delta(ev, index).value, raw, path)
    if not seen:
        if "error" in result:
            return result
        raise LoadError("no GenerateContentResponse chunk in the stream", path=path)
    for _, candidate in candidates:
        for part in (candidate.value.get("content") or {}).get("parts") or ():
            if isinstance(part, dict) and _BUILDING in part:
                # The stream ended inside a call: the arguments seen so far, never completed.
                built = part.pop(_BUILDING)
                call = part[_key(part, "functionCall")]
                call.setdefault("args", built)
                call["willContinue"] = True
    result["candidates"] = [
        {"finishReason": None, **c.value, "index": i}
        if _get(c.value, "finishReason") is None
        else {**c.value, "index": i}
        for i, c in candidates
    ]
    return result


def _merge_candidate(
    ev: StreamEvent, into: dict[str, Any], raw: dict[str, Any], path: str | None
) -> None:
    for key, value in raw.items():
        if key == "index":
            continue
        if key != "content":
            into[key] = value
            continue
        if not isinstance(value, dict):
            raise event_error(ev, "candidate content is not an object", path)
        content = into.setdefault("content", {"parts": []})
        if "role" in value:
            content["role"] = value["role"]
        parts = value.get("parts") or []
        if not isinstance(parts, list):
            raise event_error(ev, "content parts is not an array", path)
        for part in parts:
            _merge_part(ev, content["parts"], part, path)


def _merge_part(ev: StreamEvent, parts: list[Any], part: Any, path: str | None) -> None:
    """Append a streamed part, joining text to the text before it (a thought to a thought)."""
    last = parts[-1] if parts else None
    if isinstance(last, dict) and _continues_call(last, part):
        _add_partial_call(ev, last, part, path)
        return
    if (
        isinstance(part, dict)
        and isinstance(part.get("text"), str)
        and isinstance(last, dict)
        and isinstance(last.get("text"), str)
        and bool(_get(last, "thought")) == bool(_get(part, "thought"))
        and _get(last, "thoughtSignature") is None
        and set(part) <= {"text", "thought", "thoughtSignature", "thought_signature"}
    ):
        last["text"] += part["text"]
        signature = _get(part, "thoughtSignature")
        if signature is not None:
            last["thoughtSignature"] = signature
        return
    parts.append(dict(part) if isinstance(part, dict) else part)
    call = _get(part, "functionCall")
    if isinstance(call, dict) and ("partialArgs" in call or "willContinue" in call):
        parts[-1] = {**part, _key(part, "functionCall"): {}}
        _add_partial_call(ev, parts[-1], part, path)


# Vertex AI streams a call's arguments (`streamFunctionCallArguments`): a `functionCall` part
# with `willContinue: true` is continued by the next ones, each adding `partialArgs` (a JSON
# Path, RFC 9535, and a string, number, bool or null value; string pieces of one path join).
# Source: https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content
# (FunctionCall.partialArgs, willContinue; PartialArg).
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue")
_PATH_STEP = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")
#: The arguments being built on a call part still streaming (taken off when it ends).
_BUILDING = "\x00partial_args"


def _continues_call(last: Any, part: Any) -> bool:
    return (
        isinstance(last, dict)
        and _BUILDING in last
        and isinstance(part, dict)
        and isinstance(_get(part, "functionCall"), dict)
    )


def _add_partial_call(ev: StreamEvent, into: dict[str, Any], part: Any, path: str | None) -> None:
    """Add one streamed piece of a call to the call part `into` (its args built by path)."""
    key = _key(into, "functionCall")
    call = into[key]
    piece = _get(part, "functionCall")
    args = into.setdefault(_BUILDING, {})
    for name, value in piece.items():
        if snake(name) not in ("partial_args", "will_continue"):
            call[name] = value
    for signature in ("thoughtSignature", "thought_signature"):
        if signature in part:
            into[signature] = part[signature]
    partial = _get(piece, "partialArgs") or []
    if not isinstance(partial, list):
        raise event_error(ev, "functionCall.partialArgs is not an array", path)
    for arg in partial:
        _set_partial(ev, args, arg, path)
    if _get(piece, "willContinue") is not True:
        built = into.pop(_BUILDING)
        if "args" not in call and built:
            call["args"] = built


def _set_partial(ev: StreamEvent, args: dict[str, Any], arg: Any, path: str | None) -> None:
    where = _get(arg, "jsonPath")
    if not isinstance(where, str) or not where.startswith("$"):
        raise event_error(ev, "a partialArgs entry has no JSON Path (`jsonPath`)", path)
    steps: list[str | int] = []
    at = 1
    while at < len(where):
        found = _PATH_STEP.match(where, at)
        if found is None:
            raise event_error(ev, f"partialArgs jsonPath {where!r} is not a simple path", path)
        name, index, quoted, dquoted = found.groups()
        steps.append(int(index) if index is not None else name or quoted or dquoted or "")
        at = found.end()
    if not steps:
        raise event_error(ev, f"partialArgs jsonPath {where!r} names no argument", path)
    value: Any = None
    for key in _VALUE_KEYS:
        if key in arg or snake(key) in arg:
            value = None if key == "nullValue" else _get(arg, key)
            break
    node: Any = args
    container: Any
    for step, following in zip(steps, [*steps[1:], None], strict=True):
        last = following is None
        if isinstance(step, int):
            if not isinstance(node, list):
                raise event_error(ev, f"partialArgs jsonPath {where!r} indexes a non-array", path)
            while len(node) <= step:
                node.append(None)
            slot_get, container = node[step], node
        else:
            if not isinstance(node, dict):
                raise event_error(
                    ev, f"partialArgs jsonPath {where!r} names into a non-object", path
                )
            slot_get, container = node.get(step), node
        if last:
            joined = isinstance(slot_get, str) and isinstance(value, str)
            container[step] = slot_get + value if joined else value
        else:
            if slot_get is None:
                slot_get = [] if isinstance(following, int) else {}
                container[step] = slot_get
            node = slot_get


FORMAT = FormatSpec(
    name="gemini",
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
