"""OpenTelemetry GenAI traces as files: OTLP JSON spans and logs, one conversation per trace.

Read from an OTLP JSON export (`resourceSpans` / `scopeSpans`, or the older `batches` /
`instrumentationLibrarySpans` some exporters still write), from the collector's file exporter
(one export request per line), from OTLP logs (`resourceLogs` / `scopeLogs`), from the same
document as trace backends' APIs wrap it (Jaeger's `/api/v3` `{"result": …}`, Tempo's
`/api/traces/ID` `{"batches": …}` and `/api/v2/traces/ID` `{"trace": …}`), or from Jaeger's own
JSON (`/api/traces/ID` and the UI's trace JSON: `{"data": [trace]}` or one trace, spans with
`tags` and `logs`). `kind` may be a number or a `SPAN_KIND_*` name; attribute values are OTLP
`AnyValue`s or plain JSON.

An inference is a span, a span event or a log record carrying the GenAI conventions' content:
`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions` and
`gen_ai.tool.definitions` (structured values or JSON strings), the same on the
`gen_ai.client.inference.operation.details` event, or the older flattened
`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes, or the older conventions'
per-message events (`gen_ai.user.message`, …, `gen_ai.choice`: span events, or log records
joined by their span). Inferences group into one
conversation per `gen_ai.conversation.id`, else per trace, in time order. Each chat span
repeats the whole history it sent: a message already read at the same position, and a tool call
or result whose id was already read, is not added again. Tool definitions become the transcript's
tools. The conventions keep a call's `arguments` as an object: it is serialised and marked so
(the trace cannot prove the model's exact text). A trace of GenAI spans with no content (capture
off, the conventions' default) is a `content_not_captured` finding, not an empty success.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

import orjson

from inspector.core.formats._convert import (
    ABSENT,
    COMPLETED,
    HISTORY_STATUS,
    Api,
    Converter,
    conversion_of,
    held,
    outcome,
    prefixed,
    serialise,
    text_part,
)
from inspector.core.formats._records import CERTAIN, Builder, Detection, Record, tools_from_list
from inspector.core.formats._sessions import (
    builder,
    conversation_group,
    finish,
    finish_lossy,
    first_line,
    lines_of,
    several_note,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import load_json
from inspector.core.model import (
    Derivation,
    Envelope,
    LoadError,
    Note,
    Origin,
    Severity,
    Tool,
    Transcript,
    join_pointer,
)

KINDS = {"otel_export": "otel"}
LABEL = "OpenTelemetry GenAI trace"
SLUG = "otel"
_HEAD = re.compile(
    rb'\A\s*\{\s*(?:"(?:result|trace)"\s*:\s*\{\s*)?"(resourceSpans|resourceLogs|batches)"\s*:'
)
#: The keys every Jaeger span writes (jaeger-idl `model/json`): all three early in a file mark
#: a Jaeger trace whatever key its document starts with.
_JAEGER_KEYS = (b'"traceID"', b'"spanID"', b'"operationName"')
#: Backends' APIs that return the OTLP document inside one key: Jaeger's `/api/v3/traces`
#: (`result`) and Tempo's `/api/v2/traces` (`trace`).
_WRAPPERS = ("result", "trace")
#: The top-level arrays of an export, and the scope arrays and records each holds
#: (OTLP's current names first, then those of older exporters).
_RESOURCES = ("resourceSpans", "batches", "resourceLogs")
_SCOPES = ("scopeSpans", "instrumentationLibrarySpans", "scopeLogs", "instrumentationLibraryLogs")
_RECORDS = ("spans", "logRecords")
#: The GenAI conventions' content attributes.
INPUT = "gen_ai.input.messages"
OUTPUT = "gen_ai.output.messages"
SYSTEM = "gen_ai.system_instructions"
TOOLS = "gen_ai.tool.definitions"
CONVERSATION = "gen_ai.conversation.id"
OPERATION = "gen_ai.operation.name"
_RESPONSE_ID = "gen_ai.response.id"
#: Operations of an agent, not of a model call (the conventions' `gen_ai.operation.name`).
AGENT_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow", "create_agent"})
#: The event (and log record) that carries an inference's content off the span.
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
#: The older conventions' per-message events (semantic-conventions v1.28 to v1.36,
#: `docs/gen-ai/gen-ai-events.md`), still the default of instrumentations written then: the
#: role each one's body is a message of, and the event of a response choice.
LEGACY_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
CHOICE_EVENT = "gen_ai.choice"
#: Pydantic AI before its instrumentation version 2 (0.2.x) writes those events' bodies as one
#: span attribute, a JSON array, each with its `event.name`.
EVENTS_ATTRIBUTE = "events"
#: The conventions' first events (v1.26 and v1.27, `docs/gen-ai/gen-ai-spans.md`, still what
#: OpenLIT writes): the whole prompt or completion as one attribute, "RECOMMENDED" to be the
#: JSON text of Chat Completions messages; the side, attribute and default role of each.
CONTENT_EVENTS = {
    "gen_ai.content.prompt": ("input", "gen_ai.prompt", "user"),
    "gen_ai.content.completion": ("output", "gen_ai.completion", "assistant"),
}
#: `finish_reason` values of the conventions' output messages (gen-ai-output-messages.json,
#: open-telemetry/semantic-conventions-genai) and of instrumentations that pass the provider's
#: own through: what each means for the response.
REASONS = {
    "stop": "completed",
    "tool_call": "completed",
    "tool_calls": "completed",
    "end_turn": "completed",
    "length": "incomplete",
    "max_tokens": "incomplete",
    "content_filter": "incomplete",
    "error": "incomplete",
    # Gemini's own `FinishReason` (https://ai.google.dev/api/generate-content#FinishReason),
    # which google-genai's instrumentation and Google ADK pass through on `gen_ai.choice`.
    "STOP": "completed",
    "MAX_TOKENS": "incomplete",
}
API = Api(Envelope.OPEN_RESPONSES, SLUG, REASONS, "finish_reason")
LOSSY = Derivation(
    "arguments",
    "serialised",
    "the trace keeps a tool call's arguments as an object; the model's exact argument text is "
    "not in the file, so this is a serialisation of it",
)
_PLAIN_TEXT = Derivation(
    "content", "converted", "the attribute held plain text, not the conventions' message JSON"
)
_OUTPUT_OBJECT = Derivation(
    "output", "serialised", "the trace keeps the tool's result as an object; written as JSON"
)
#: Pydantic AI declares the tools of a model call only in its own span attribute, the JSON of
#: its `ModelRequestParameters` (pydantic_ai `models/__init__.py`): `function_tools` and
#: `output_tools` (the tool the model calls to give a structured result) are `ToolDefinition`s
#: (`name`, `description`, `parameters_json_schema`, `strict`), both sent to the provider as
#: function tools. `builtin_tools` are the provider's own (web search …), not function tools.
PYDANTIC_PARAMETERS = "model_request_parameters"
PYDANTIC_TOOL_LISTS = ("function_tools", "output_tools")
#: Attributes whose values' JSON Pointers are kept.
_POINTED = (INPUT, OUTPUT, SYSTEM, TOOLS, EVENTS_ATTRIBUTE, PYDANTIC_PARAMETERS)
_POINTED_KEYS = frozenset(_POINTED)
#: The fields of a message that its items take over (the others stay, prefixed).
_MESSAGE_KEYS = frozenset({"role", "parts", "finish_reason"})
#: Part types that go into a message's content as Open Responses parts.
_MEDIA = frozenset({"blob", "uri", "file"})
_FLAT = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.(.+)")
_FLAT_CALL = re.compile(r"tool_calls\.(\d+)\.(id|name|arguments)")
#: The legacy single `function_call` of Chat Completions (LiteLLM writes it so): no id.
_FLAT_FUNCTION = re.compile(r"function_call\.(name|arguments)")
_FLAT_TOOL = re.compile(r"llm\.request\.functions\.(\d+)\.(name|description|parameters)")


def _is_otlp(obj: Any) -> bool:
    return isinstance(obj, dict) and any(isinstance(obj.get(k), list) for k in _RESOURCES)


def _jaeger_traces(obj: Any) -> list[Any] | None:
    """The traces of a Jaeger JSON document (`{"data": [trace, …]}` or one trace), or None."""
    if not isinstance(obj, dict):
        return None
    data = obj.get("data")
    if isinstance(data, list) and data and all(_is_jaeger_trace(t) for t in data):
        return data
    return [obj] if _is_jaeger_trace(obj) else None


def _is_jaeger_trace(obj: Any) -> bool:
    return isinstance(obj, dict) and "traceID" in obj and isinstance(obj.get("spans"), list)


def _unwrapped(obj: Any) -> tuple[str, Any]:
    """The OTLP document inside a backend's wrapper key, with that key (else the value itself)."""
    if isinstance(obj, dict):
        for key in _WRAPPERS:
            if _is_otlp(obj.get(key)):
                return key, obj[key]
    return "", obj


def detect(obj: Any) -> Detection | None:
    """Score a parsed value as one OTLP JSON export request or Jaeger trace, or None."""
    if _is_otlp(_unwrapped(obj)[1]) or _jaeger_traces(obj) is not None:
        return CERTAIN, "otel_export"
    return None


def matches(data: bytes, first: Any) -> bool:
    """Whether a file is an OTLP JSON export (a document, or the file exporter's lines), or a
    Jaeger trace."""
    head = data[:4096]
    return (
        detect(first) is not None
        or _HEAD.match(data[:512]) is not None
        or all(key in head for key in _JAEGER_KEYS)
    )


# --------------------------------------------------------------------------------------------
# OTLP values


def value(any_value: Any) -> Any:
    """The plain value of an OTLP `AnyValue` (`{"stringValue": …}`, arrays, key-value lists)."""
    if not isinstance(any_value, dict) or len(any_value) != 1:
        return any_value
    ((kind, inner),) = any_value.items()
    if kind == "stringValue" or kind == "boolValue" or kind == "doubleValue":
        return inner
    if kind == "intValue":
        # OTLP JSON writes 64-bit integers as strings.
        try:
            return int(inner)
        except (TypeError, ValueError):
            return inner
    if kind == "arrayValue":
        values = inner.get("values") if isinstance(inner, dict) else None
        return [value(v) for v in values or ()]
    if kind == "kvlistValue":
        values = inner.get("values") if isinstance(inner, dict) else None
        return attributes(values)
    if kind == "bytesValue":
        return inner
    return any_value


def attributes(listed: Any) -> dict[str, Any]:
    """OTLP attributes (`[{key, value}]`, or a plain object some exporters write) as a dict."""
    if isinstance(listed, dict):
        return {str(k): value(v) for k, v in listed.items()}
    found: dict[str, Any] = {}
    for entry in listed if isinstance(listed, list) else ():
        if isinstance(entry, dict) and isinstance(key := entry.get("key"), str):
            raw = entry.get("value")
            # Nearly every attribute is a string: read here, without a call for it.
            if type(raw) is dict and len(raw) == 1 and "stringValue" in raw:
                found[key] = raw["stringValue"]
            else:
                found[key] = value(raw)
    return found


def _value_pointers(at: str, listed: Any, field_name: str = "attributes") -> dict[str, str]:
    """The JSON Pointer of each content attribute's value (of its elements, `/N` added, when
    they are JSON values; a JSON string is pointed at whole). `field_name` is the record's
    attribute list (`attributes`, or a Jaeger span's `tags` and a log's `fields`)."""
    where: dict[str, str] = {}
    if isinstance(listed, dict):
        for key in _POINTED:
            where[key] = join_pointer(at, field_name, key)
        return where
    pointed = _POINTED_KEYS
    for i, entry in enumerate(listed if isinstance(listed, list) else ()):
        name = entry.get("key") if isinstance(entry, dict) else None
        if isinstance(name, str) and name in pointed:
            key = name
            raw = entry.get("value")
            kind = next(iter(raw), "") if isinstance(raw, dict) and len(raw) == 1 else ""
            if kind == "stringValue" and field_name == "attributes":
                # Nearly every content attribute: its pointer needs no escaping.
                where[key] = f"{at}/attributes/{i}/value/stringValue"
                continue
            inner = ("value", kind, "values") if kind == "arrayValue" else ("value", kind)
            where[key] = join_pointer(at, field_name, i, *(inner if kind else ("value",)))
    return where


def _span_attributes(listed: Any, at: str) -> tuple[dict[str, Any], dict[str, str] | None] | None:
    """An OTLP span's attributes as `attributes` reads them, and their pointers as
    `_value_pointers` gives them (None when none is a `gen_ai.*` attribute: no inference); None
    for a span whose attributes are not a list or that holds Pydantic AI's `events` (read
    the usual way)."""
    if type(listed) is not list:
        return None
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    pointed = _POINTED_KEYS
    for i, entry in enumerate(listed):
        if type(entry) is not dict or type(key := entry.get("key")) is not str:
            if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                return None  # a subclass of str or dict: read the usual way
            continue
        raw: Any = entry.get("value")
        if type(raw) is dict and len(raw) == 1 and "stringValue" in raw:
            found[key] = raw["stringValue"]
            if key in pointed:
                where[key] = f"{at}/attributes/{i}/value/stringValue"
        else:
            found[key] = value(raw)
            if key in pointed:
                where[key] = _value_pointers(at, [*[None] * i, entry])[key]
    if EVENTS_ATTRIBUTE in found:
        return None
    # A pointed attribute other than Pydantic AI's parameters is a `gen_ai.*` one (nearly
    # every span with content): the other keys need not be looked at.
    genai = len(where) > (PYDANTIC_PARAMETERS in where) or _is_genai(found)
    return found, (where if genai else None)


def _element(where: str, raw: Any, index: int) -> str:
    """The pointer of one message of a content attribute: its own in a JSON value, the whole
    attribute's in a JSON string (a pointer cannot go into a string)."""
    return where if isinstance(raw, str) else join_pointer(where, index)


# --------------------------------------------------------------------------------------------
# Inferences: a span, span event or log record with GenAI content


@dataclass(slots=True)
class Inference:
    """One model call read from the trace: what it sent and got, and where it is in the file."""

    conversation: str
    time: int
    order: int
    kind: str
    line: int | None
    pointer: str
    attrs: dict[str, Any]
    #: Content attribute → its JSON Pointer.
    where: dict[str, str] = field(default_factory=dict)
    #: Content attribute → each message's JSON Pointer, when its messages were gathered from
    #: several places (the older per-message events).
    pointers: dict[str, list[str]] = field(default_factory=dict)
    #: A log record that is one older per-message event: its span, to be joined with the
    #: other events of that span (`_joined`).
    span: str | None = None
    #: The pointers of messages that were plain text, not message JSON.
    plain_at: set[str] = field(default_factory=set)
    #: Its trace, and whether `conversation` is its own `gen_ai.conversation.id`.
    trace: str = ""
    named: bool = False

    @property
    def has_content(self) -> bool:
        """Whether the inference recorded any messages (capture was on)."""
        attrs = self.attrs
        return (
            INPUT in attrs
            or OUTPUT in attrs
            or SYSTEM in attrs
            or any(k.startswith("gen_ai.") and _FLAT.match(k) for k in attrs)
        )


def _time(value_: Any) -> int:
    try:
        return int(value_)
    except (TypeError, ValueError):
        return 0


def _is_genai(attrs: dict[str, Any]) -> bool:
    return any(k.startswith("gen_ai.") for k in attrs)


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where a record keeps its fields: OTLP JSON's names, or Jaeger's."""

    attributes: str
    trace: str
    start: tuple[str, ...]
    #: The records' times × this = nanoseconds (Jaeger writes microseconds).
    scale: int
    events: str
    event_attributes: str
    event_time: str


_OTLP = _Layout(
    "attributes",
    "traceId",
    ("startTimeUnixNano", "timeUnixNano"),
    1,
    "events",
    "attributes",
    "timeUnixNano",
)
#: jaeger-idl `model/json`: a span's `tags`, and its `logs` (OTLP span events, the event's
#: name in the `event` field, as the collector's Jaeger translator writes them).
_JAEGER = _Layout("tags", "traceID", ("startTime",), 1000, "logs", "fields", "timestamp")


def _inferences(
    export: dict[str, Any], line: int | None, base: str, order: list[int]
) -> Iterator[Inference]:
    """The GenAI records of one export request (or Jaeger document), each with the attributes
    it inherits."""
    if _plain_export(export):
        yield from _otlp_records(export, line, base, order)
        return
    traces = _jaeger_traces(export)
    if traces is not None:
        # `{"data": [trace, …]}`, or the trace itself.
        listed = traces is export.get("data")
        for t, trace in enumerate(traces):
            at = join_pointer(base, "data", t) if listed else base
            for n, span in enumerate(trace["spans"]):
                if isinstance(span, dict):
                    pointer = join_pointer(at, "spans", n)
                    yield from _from_record(span, _JAEGER, "spans", line, pointer, order)
        return
    key, export = _unwrapped(export)
    if key:
        base = join_pointer(base, key)
    yield from _otlp_records(export, line, base, order)


def _plain_export(export: Any) -> bool:
    """Whether an export request is only its `resourceSpans` list (nearly every line of the
    file exporter): an OTLP export, neither wrapped nor a Jaeger trace."""
    return type(export) is dict and len(export) == 1 and type(export.get("resourceSpans")) is list


def _otlp_records(
    export: dict[str, Any], line: int | None, base: str, order: list[int]
) -> Iterator[Inference]:
    """The GenAI records of an OTLP export request (unwrapped)."""
    for resource_key in _RESOURCES:
        resources = export.get(resource_key)
        for r, resource in enumerate(resources if isinstance(resources, list) else ()):
            if not isinstance(resource, dict):
                continue
            for scope_key in _SCOPES:
                scopes = resource.get(scope_key)
                for s, scope in enumerate(scopes if isinstance(scopes, list) else ()):
                    if not isinstance(scope, dict):
                        continue
                    for record_key in _RECORDS:
                        records = scope.get(record_key)
                        if not isinstance(records, list):
                            continue
                        # The keys are the names above: nothing to escape.
                        at = f"{base}/{resource_key}/{r}/{scope_key}/{s}/{record_key}/"
                        spans = record_key == "spans"
                        for n, record in enumerate(records):
                            if not isinstance(record, dict):
                                continue
                            pointer = f"{at}{n}"
                            if spans and not record.get("events"):
                                # Nearly every span of an export, read in one pass.
                                span = _span(record, line, pointer, order)
                                if span is not _SLOW:
                                    if span is not None:
                                        yield span
                                    continue
                            yield from _from_record(record, _OTLP, record_key, line, pointer, order)


#: `_span`'s answer for a span it does not read: read the usual way (`_from_record`).
_SLOW: Any = object()


def _span(
    record: dict[str, Any], line: int | None, pointer: str, order: list[int]
) -> Inference | None:
    """An OTLP span without events as `_from_record` reads it (its attributes and their
    pointers in one pass): its inference, None when it is none, or _SLOW."""
    read = _span_attributes(record.get("attributes"), pointer)
    if read is None:
        return _SLOW
    attrs, where = read
    if where is None:
        return None
    trace = record.get("traceId") or ""
    own = attrs.get(CONVERSATION)
    start = record.get("startTimeUnixNano") or record.get("timeUnixNano") or None
    order[0] += 1
    # Its slots set directly: one is made for every span of a trace.
    span: Inference = _NEW(Inference)
    span.conversation = str(own or trace or "trace")
    span.time = _time(start)
    span.order = order[0]
    span.kind = "otel_span"
    span.line = line
    span.pointer = pointer
    span.attrs = attrs
    span.where = where
    span.pointers = {}
    span.span = None
    span.plain_at = set()
    span.trace = str(trace)
    span.named = bool(own)
    return span


def _from_record(
    record: dict[str, Any],
    layout: _Layout,
    record_key: str,
    line: int | None,
    pointer: str,
    order: list[int],
) -> Iterator[Inference]:
    attrs = attributes(record.get(layout.attributes))
    trace = record.get(layout.trace) or ""
    own = attrs.get(CONVERSATION)
    kind = "otel_span" if record_key == "spans" else "otel_log"
    start = next((record[k] for k in layout.start if record.get(k)), None)
    time = _time(start) * layout.scale

    def made(at: str, found: dict[str, Any], listed: Any, field_name: str, when: int) -> Inference:
        order[0] += 1
        named = found.get(CONVERSATION, own)
        conversation = named or trace or "trace"
        where = _value_pointers(at, listed, field_name)
        found_ = Inference(str(conversation), when, order[0], kind, line, at, found, where)
        found_.trace, found_.named = str(trace), bool(named)
        return found_

    if record_key == "logRecords":
        name = record.get("eventName") or attrs.get("event.name")
        message = _legacy_message(name, value(record.get("body")))
        if message is not None:
            # One message of a call: joined with its span's other events by `_joined`.
            single = made(pointer, attrs, record.get(layout.attributes), layout.attributes, time)
            single.span = f"{trace}/{record.get('spanId') or ''}"
            yield _with_messages(single, [(*message, join_pointer(pointer, "body"))])
            return
    details: list[Inference] = []
    legacy: list[tuple[str, dict[str, Any] | None, str]] = []
    plain_at: set[str] = set()
    events = record.get(layout.events)
    for e, event in enumerate(events if isinstance(events, list) else ()):
        if not isinstance(event, dict):
            continue
        listed = event.get(layout.event_attributes)
        found = attributes(listed)
        name = event.get("name") or found.get("event")
        at = join_pointer(pointer, layout.events, e)
        if name == DETAILS_EVENT:
            when = _time(event.get(layout.event_time)) * layout.scale or time
            details.append(made(at, found, listed, layout.event_attributes, when))
        elif (message := _legacy_message(name, found)) is not None:
            legacy.append((*message, at))
        elif name in CONTENT_EVENTS:
            side, key, role = CONTENT_EVENTS[name]
            messages, plain = _chat_messages(found.get(key), role)
            legacy += [(side, m, at) for m in messages]
            plain_at.update([at] if plain else [])
    genai = _is_genai(attrs)
    bodies = _parsed(attrs.get(EVENTS_ATTRIBUTE)) if genai else None
    if isinstance(bodies, list):
        at = _value_pointers(pointer, record.get(layout.attributes), layout.attributes).get(
            EVENTS_ATTRIBUTE, pointer
        )
        for body in bodies:
            name = body.get("event.name") if isinstance(body, dict) else None
            if (message := _legacy_message(name, body)) is not None:
                legacy.append((*message, at))
    if legacy:
        base = made(pointer, attrs, record.get(layout.attributes), layout.attributes, time)
        base.plain_at = plain_at
        yield _with_messages(base, legacy)
    elif genai:
        yield made(pointer, attrs, record.get(layout.attributes), layout.attributes, time)
    yield from details


# --------------------------------------------------------------------------------------------
# The older conventions' per-message events


def _legacy_message(name: Any, body: Any) -> tuple[str, dict[str, Any] | None] | None:
    """One older per-message event as the conventions' message, with the side it is on
    (`input`, or `output` for a choice); the message is None when the event kept no content
    (capture off). None: not such an event."""
    if name != CHOICE_EVENT and name not in LEGACY_EVENTS:
        return None
    body = _parsed(body)
    fields = body if isinstance(body, dict) else {"content": body}
    if name == CHOICE_EVENT:
        choice = _parsed(fields.get("message"))
        if choice is None and _is_gemini_content(fields.get("content")):
            # google-genai's instrumentation and Google ADK write the candidate itself.
            choice = fields
        choice = choice if isinstance(choice, dict) else {}
        built = _legacy_parts(choice.get("role") or "assistant", choice)
        if built is not None and "finish_reason" in fields:
            built["finish_reason"] = fields["finish_reason"]
        return "output", built
    role = LEGACY_EVENTS[name]
    if role == "tool":
        if fields.get("content") is None:
            return "input", None
        response = {"type": "tool_call_response", "id": fields.get("id")}
        return "input", {"role": "tool", "parts": [{**response, "response": fields["content"]}]}
    return "input", _legacy_parts(fields.get("role") or role, fields)


def _parsed(raw: Any) -> Any:
    """A body or field that some SDKs write as JSON text, parsed (plain text stays text)."""
    if isinstance(raw, str) and raw[:1] in ("{", "["):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw


def _legacy_parts(role: Any, fields: dict[str, Any]) -> dict[str, Any] | None:
    """A message of the older events' `content` and `tool_calls` (Chat Completions' shape:
    arguments as the model's text), or None when neither was kept."""
    parts: list[dict[str, Any]] = []
    content = fields.get("content")
    if _is_gemini_content(content):
        return _gemini_message(role, content)
    if isinstance(content, str) and content:
        parts.append({"type": "text", "content": content})
    elif isinstance(content, list) and all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in content
    ):
        # Chat Completions' content parts, each of them text.
        parts += [{"type": "text", "content": p["text"]} for p in content]
    elif content not in (None, "", []):
        # Kept in its message as an `otel:content` part (`_message` prefixes the kind).
        parts.append({"type": "content", "content": content})
    calls = _parsed(fields.get("tool_calls"))
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        # Without content capture a call keeps its id and name, not its arguments.
        if isinstance(function, dict) and "arguments" in function:
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function["arguments"],
                }
            )
    return {"role": role, "parts": parts} if parts else None


def _is_gemini_content(content: Any) -> TypeGuard[dict[str, Any]]:
    """Whether an event's `content` is a Gemini `Content` (its `parts` a list)."""
    return isinstance(content, dict) and isinstance(content.get("parts"), list)


def _gemini_message(role: Any, content: dict[str, Any]) -> dict[str, Any] | None:
    """A Gemini `Content` as the conventions' message: the body google-genai's instrumentation
    (opentelemetry-instrumentation-google-genai) and Google ADK write on the older events, the
    SDK's own dump (snake_case, every field of a part present and null when unset). The role
    `model` is the assistant's, whatever event carried it (ADK resends the model's turns as
    `gen_ai.user.message`); a call and its response carry no id there, only the tool's name."""
    native = content.get("role")
    role = "assistant" if native == "model" else (native if isinstance(native, str) else role)
    parts: list[dict[str, Any]] = []
    for part in content["parts"]:
        set_ = {k: v for k, v in part.items() if v is not None} if isinstance(part, dict) else {}
        call, result, text = (
            set_.get("function_call"),
            set_.get("function_response"),
            set_.get("text"),
        )
        if isinstance(call, dict):
            found = {"type": "tool_call", "id": call.get("id"), "name": call.get("name")}
            parts.append({**found, "arguments": call["args"]} if "args" in call else found)
        elif isinstance(result, dict):
            response = {"type": "tool_call_response", "id": result.get("id")}
            parts.append(
                {**response, "name": result.get("name"), "response": result.get("response")}
            )
        elif isinstance(text, str):
            parts.append(
                {"type": "reasoning" if set_.get("thought") is True else "text", "content": text}
            )
        elif set_:
            kind = next(iter(set_))
            parts.append({"type": kind, kind: set_[kind]})
    return {"role": role, "parts": parts} if parts else None


def _chat_messages(raw: Any, role: str) -> tuple[list[dict[str, Any] | None], bool]:
    """A `gen_ai.prompt` / `gen_ai.completion` value as messages (Chat Completions' JSON), and
    whether it was plain text instead (then it is one message of the default role)."""
    parsed = _parsed(raw)
    if isinstance(parsed, list):
        found: list[dict[str, Any] | None] = []
        for message in parsed:
            if not isinstance(message, dict):
                continue
            if message.get("role") == "tool":
                response = {"type": "tool_call_response", "id": message.get("tool_call_id")}
                part = {**response, "response": message.get("content")}
                found.append({"role": "tool", "parts": [part]})
            else:
                found.append(_legacy_parts(message.get("role") or role, message))
        return found, False
    if isinstance(raw, str) and raw:
        return [{"role": role, "parts": [{"type": "text", "content": raw}]}], True
    return [], False


def _with_messages(
    inference: Inference, messages: list[tuple[str, dict[str, Any] | None, str]]
) -> Inference:
    """The inference with the events' messages as its input and output messages."""
    attrs = dict(inference.attrs)
    for side, key in (("input", INPUT), ("output", OUTPUT)):
        kept = [(m, at) for s, m, at in messages if s == side and m is not None]
        if kept:
            attrs[key] = [*attrs.get(key, []), *(m for m, _ in kept)]
            inference.pointers[key] = [*inference.pointers.get(key, []), *(at for _, at in kept)]
    inference.attrs = attrs
    return inference


def _joined(inferences: list[Inference]) -> list[Inference]:
    """Log records that are one span's per-message events, joined into that span's one call."""
    joined: list[Inference] = []
    spans: dict[str, Inference] = {}
    for inference in inferences:
        if inference.span is None:
            joined.append(inference)
            continue
        first = spans.get(inference.span)
        if first is None:
            spans[inference.span] = inference
            joined.append(inference)
            continue
        for key in (INPUT, OUTPUT):
            if key in inference.attrs:
                first.attrs[key] = [*first.attrs.get(key, []), *inference.attrs[key]]
                first.pointers[key] = [*first.pointers.get(key, []), *inference.pointers[key]]
    return joined


# --------------------------------------------------------------------------------------------
# Messages: the conventions' JSON, or the older flattened attributes


def _decoded(raw: Any, role: str) -> tuple[list[Any], bool]:
    """A content attribute as a list (JSON text parsed), and whether it was plain text."""
    if isinstance(raw, str):
        try:
            raw = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return [{"role": role, "parts": [{"type": "text", "content": raw}]}], True
    if isinstance(raw, dict):
        raw = [raw]
    return (raw if isinstance(raw, list) else []), False


def _flattened(attrs: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Messages from the older `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes."""
    sides: dict[str, dict[int, dict[str, Any]]] = {"prompt": {}, "completion": {}}
    for key, val in attrs.items():
        found = _FLAT.fullmatch(key)
        if found is None:
            continue
        side, index, rest = found.group(1), int(found.group(2)), found.group(3)
        entry = sides[side].setdefault(index, {"calls": {}})
        call = _FLAT_CALL.fullmatch(rest)
        function = _FLAT_FUNCTION.fullmatch(rest)
        if call is not None:
            entry["calls"].setdefault(int(call.group(1)), {})[call.group(2)] = val
        elif function is not None:
            # Before any tool_calls.N: a message holds one or the other.
            entry["calls"].setdefault(-1, {})[function.group(1)] = val
        else:
            entry[rest] = val

    def message(entry: dict[str, Any], default_role: str) -> dict[str, Any]:
        role = entry.get("role") or default_role
        parts: list[Any] = []
        content = entry.get("content")
        if role == "tool":
            parts.append(
                {"type": "tool_call_response", "id": entry.get("tool_call_id"), "response": content}
            )
        elif content not in (None, ""):
            parts.append({"type": "text", "content": content})
        for _, call in sorted(entry["calls"].items()):
            parts.append({"type": "tool_call", **call})
        fields: dict[str, Any] = {"role": role, "parts": parts}
        if "finish_reason" in entry:
            fields["finish_reason"] = entry["finish_reason"]
        return fields

    return (
        [message(e, "user") for _, e in sorted(sides["prompt"].items())],
        [message(e, "assistant") for _, e in sorted(sides["completion"].items())],
    )


def _tool_definitions(b: Builder, inference: Inference) -> None:
    """The tools the model was offered: the conventions' definitions, or the flattened ones."""
    raw = inference.attrs.get(TOOLS)
    pointer = inference.where.get(TOOLS, inference.pointer)
    if isinstance(raw, str):
        # Every span of an agent repeats the same definitions: read once, shared (so the gate
        # also finds each schema compiled, by identity); each tool still points at this span.
        path, line, tools = b.path, inference.line, b.tools
        for name, parameters, kind, source, at, strict in _definitions(raw):
            where = _origin(path, line, pointer + at)
            tools[name] = _tool(name, parameters, kind, source, where, strict)
    elif isinstance(raw, list):
        b.add_tools(raw, pointer, inference.line)
    _pydantic_tools(b, inference)
    flat: dict[int, dict[str, Any]] = {}
    for key, val in inference.attrs.items():
        # The prefix first: a string test is much cheaper than the pattern, on every span.
        found = _FLAT_TOOL.fullmatch(key) if key.startswith("llm.") else None
        if found is not None:
            flat.setdefault(int(found.group(1)), {})[found.group(2)] = val
    for _, tool in sorted(flat.items()):
        if isinstance(tool.get("name"), str):
            parameters = tool.get("parameters")
            if isinstance(parameters, str):
                try:
                    parameters = orjson.loads(parameters)
                except orjson.JSONDecodeError:
                    parameters = None
            b.add_tool(tool["name"], parameters, inference.pointer, inference.line)


#: A tool read from a definitions text: its name, parameters, kind, source, JSON Pointer
#: within the attribute's value and strict flag (Tool's fields, the origin a pointer).
_Defined = tuple[str, Any, str, str, str, bool | None]


@functools.lru_cache(maxsize=64)
def _definitions(text: str) -> tuple[_Defined, ...]:
    """The function tools of a `gen_ai.tool.definitions` JSON string, each pointed at from
    the attribute's value (none when it does not parse)."""
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ()
    return tuple(
        (t.name, t.parameters, t.kind, t.source, t.origin.pointer if t.origin else "", t.strict)
        for t in tools_from_list(raw, source="transcript")
    )


def definitions_tools(text: str | None) -> dict[str, Tool]:
    """The tools of a `gen_ai.tool.definitions` text as a conversation's transcript has them,
    without their origins (which a verdict does not read); none for None."""
    tools: dict[str, Tool] = {}
    for name, parameters, kind, source, _, strict in _definitions(text) if text else ():
        tools[name] = _tool(name, parameters, kind, source, None, strict)
    return tools


# Origins and Tools made by setting their slots directly: a frozen dataclass's `__init__`
# sets each field through `object.__setattr__`, about twice the cost, and every conversation
# of a trace makes its eight tools and their origins (each pointed at its own span).
_NEW = object.__new__
_O_FILE, _O_LINE, _O_POINTER, _O_EVENT = (
    Origin.__dict__[f.name].__set__ for f in dataclasses.fields(Origin)
)
_T_NAME, _T_PARAMETERS, _T_KIND, _T_SOURCE, _T_ORIGIN, _T_STRICT = (
    Tool.__dict__[f.name].__set__ for f in dataclasses.fields(Tool)
)


def _origin(file: str | None, line: int | None, pointer: str) -> Origin:
    """`Origin(file, line, pointer)`."""
    made: Origin = _NEW(Origin)
    _O_FILE(made, file)
    _O_LINE(made, line)
    _O_POINTER(made, pointer)
    _O_EVENT(made, None)
    return made


def _tool(
    name: str, parameters: Any, kind: str, source: str, origin: Origin | None, strict: bool | None
) -> Tool:
    """`Tool(name, parameters, kind, source, origin, strict)`."""
    made: Tool = _NEW(Tool)
    _T_NAME(made, name)
    _T_PARAMETERS(made, parameters)
    _T_KIND(made, kind)
    _T_SOURCE(made, source)
    _T_ORIGIN(made, origin)
    _T_STRICT(made, strict)
    return made


def _pydantic_tools(b: Builder, inference: Inference) -> None:
    """The function and output tools of Pydantic AI's `model_request_parameters` attribute."""
    parameters = _parsed(inference.attrs.get(PYDANTIC_PARAMETERS))
    if not isinstance(parameters, dict):
        return
    origin = Origin(
        b.path, inference.line, inference.where.get(PYDANTIC_PARAMETERS, inference.pointer)
    )
    for key in PYDANTIC_TOOL_LISTS:
        listed = parameters.get(key)
        for tool in listed if isinstance(listed, list) else ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                strict = tool.get("strict")
                b.tools[tool["name"]] = Tool(
                    tool["name"],
                    tool.get("parameters_json_schema"),
                    "function",
                    "transcript",
                    origin,
                    strict if isinstance(strict, bool) else None,
                )


def _media_part(role: Any, part: dict[str, Any]) -> dict[str, Any] | None:
    """An Open Responses content part for a blob, uri or file part of a user's message."""
    if role == "assistant":
        return None
    kind, modality, mime = part.get("type"), part.get("modality"), part.get("mime_type")
    image = modality == "image" or (isinstance(mime, str) and mime.startswith("image/"))
    if kind == "blob" and isinstance(part.get("content"), str):
        url = f"data:{mime or 'application/octet-stream'};base64,{part['content']}"
        if image:
            return {"type": "input_image", "image_url": url}
        return {"type": "input_file", "file_data": url}
    if kind == "uri" and isinstance(part.get("uri"), str):
        if image:
            return {"type": "input_image", "image_url": part["uri"]}
        return {"type": "input_file", "file_url": part["uri"]}
    if kind == "file" and isinstance(part.get("file_id"), str):
        return {"type": "input_image" if image else "input_file", "file_id": part["file_id"]}
    return None


_MEDIA_MARK = Derivation(
    "content", "converted", "the trace's blob, uri and file parts written as Open Responses parts"
)


@dataclass(slots=True)
class _Seen:
    """What a conversation has read so far: message keys by position, call and result ids."""

    history: list[bytes] = field(default_factory=list)
    keys: set[bytes] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)
    repeated: int = 0


def _key(message: Any) -> bytes:
    if isinstance(message, dict) and "finish_reason" in message:
        # An output message comes back in the next call's input without its finish reason.
        message = {k: v for k, v in message.items() if k != "finish_reason"}
    try:
        return orjson.dumps(message, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(message).encode()


def _fresh(seen: _Seen, messages: list[Any], last: bool = False) -> list[bool]:
    """Which of an inference's messages are new to the conversation.

    A chat span resends its history: a message read before at the same position is a repeat.
    Once the positions disagree (the history was cut to a window, compacted or rewritten), a
    message read anywhere before is a repeat; before that, an equal message at a new position
    is new (a user may say the same thing twice). `last`: no later inference of the
    conversation is read, so what this one adds to `seen` is not kept.
    """
    flags: list[bool] = []
    history = seen.history
    diverged = False
    dumps, sort = orjson.dumps, orjson.OPT_SORT_KEYS
    for position, message in enumerate(messages):
        if last and not diverged and position >= len(history):
            # Past the history with no message differing: this and every later one are new,
            # and their keys would only be kept for a later inference.
            flags += [True] * (len(messages) - position)
            break
        if type(message) is dict and "finish_reason" not in message:
            # `_key` of nearly every message, without the call.
            try:
                key = dumps(message, option=sort)
            except TypeError:
                key = repr(message).encode()
        else:
            key = _key(message)
        if not diverged and position < len(history):
            if history[position] == key:
                flags.append(False)
                continue
            diverged = True
            del history[position:]
        flags.append(not (diverged and key in seen.keys))
        history.append(key)
        seen.keys.add(key)
    seen.repeated += flags.count(False)
    return flags


_LISTED_ID = Derivation(
    "call_id",
    "converted",
    "the trace wrote the id as a list (Microsoft Agent Framework's [run id, call id]); its "
    "last element is the call's id",
)


def _part_id(part: dict[str, Any]) -> Any:
    """A call or result part's id: a list of strings (Microsoft Agent Framework 1.0.0b251007
    wrote `[run id, call id]` for an Assistants API call) gives its last element, the id the
    provider gave the call, so a call and its result still pair."""
    found = part.get("id")
    if isinstance(found, list) and found and all(isinstance(e, str) for e in found):
        return found[-1]
    return found


def _id_marks(part: dict[str, Any]) -> list[Derivation]:
    return [_LISTED_ID] if isinstance(part.get("id"), list) and _part_id(part) is not None else []


def _read_before(ids: set[str], part: dict[str, Any]) -> bool:
    """Whether a call or result part's id was read already (then and only then it is skipped);
    a part without an id is always read."""
    call_id = _part_id(part)
    if not isinstance(call_id, str):
        return False
    if call_id in ids:
        return True
    ids.add(call_id)
    return False


def _message(conv: Converter, seen: _Seen, message: Any, pointer: str, plain: bool) -> None:
    if not isinstance(message, dict):
        conv.extra("message", {"value": message}, pointer, message)
        return
    role = message.get("role")
    parts = message.get("parts")
    if not isinstance(parts, list):
        # A message in a provider's own shape (`content`, as some instrumentations write).
        parts = [{"type": "text", "content": message.get("content")}]
    # Nearly every message holds only the known fields: nothing to keep beside them.
    fields = {} if message.keys() <= _MESSAGE_KEYS else prefixed(message, _MESSAGE_KEYS, SLUG)
    conv.begin(role, pointer, message, None, fields)
    if plain:
        conv.note(_PLAIN_TEXT)
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if not isinstance(part, dict):
            conv.part({"type": SLUG, "value": part})
        elif kind == "text":
            conv.part(text_part(role, part.get("content")))
        elif kind == "tool_call":
            if _read_before(seen.calls, part):
                continue
            conv.call(
                name=part.get("name"),
                call_id=_part_id(part),
                arguments=part.get("arguments", ABSENT),
                pointer=pointer,
                native=part,
            )
            conv.pending[-1].derived += _id_marks(part)
        elif kind == "tool_call_response":
            if _read_before(seen.results, part):
                continue
            output = part.get("response")
            marks = _id_marks(part)
            if not isinstance(output, str):
                output = serialise(output) or ""
                marks.append(_OUTPUT_OBJECT)
            conv.output(
                call_id=_part_id(part),
                # The conventions' part has no name; Gemini's response has it and no id.
                name=part.get("name"),
                output=output,
                pointer=pointer,
                native=part,
                derived=marks,
            )
        elif kind in _MEDIA and (media := _media_part(role, part)) is not None:
            conv.part(media, _MEDIA_MARK)
        elif kind in ("reasoning", "server_tool_call", "server_tool_call_response", "compaction"):
            # A server tool's call and its response share the call's id: it is their
            # `call_id`, not an item id (two items may not share one).
            extra = {("call_id" if k == "id" else k): v for k, v in part.items() if k != "type"}
            conv.extra(str(kind), extra, pointer, part)
        else:
            # A part with no Open Responses equivalent stays in the message, prefixed.
            conv.part({**part, "type": f"{SLUG}:{kind}" if isinstance(kind, str) else SLUG})
    conv.end()


#: One message of an inference: its value, its JSON Pointer and whether it was plain text.
_Sent = tuple[Any, str, bool]


_MISSING = object()


def _messages(inference: Inference) -> tuple[list[_Sent], list[_Sent]]:
    """What an inference sent (system instructions and input) and what it got (its output)."""
    attrs = inference.attrs
    sent: list[_Sent] = []
    got: list[_Sent] = []
    system = attrs.get(SYSTEM)
    if system is not None:
        parts, plain = _decoded(system, "system")
        if plain:
            parts = parts[0]["parts"]
        at = inference.where.get(SYSTEM, inference.pointer)
        sent.append(({"role": "system", "parts": parts}, at, plain))
    plain_at = inference.plain_at
    pointers = inference.pointers
    for key, role, into in ((INPUT, "user", sent), (OUTPUT, "assistant", got)):
        raw = attrs.get(key, _MISSING)
        if raw is _MISSING:
            continue
        at = inference.where.get(key, inference.pointer)
        if type(raw) is str and not plain_at and not pointers.get(key):
            # Nearly every attribute: JSON text, pointed at whole, none of it plain text
            # (`_decoded`, without the call).
            try:
                parsed = orjson.loads(raw)
            except orjson.JSONDecodeError:
                into.append(({"role": role, "parts": [{"type": "text", "content": raw}]}, at, True))
                continue
            if type(parsed) is list:
                into += [(m, at, False) for m in parsed]
            elif type(parsed) is dict:
                into.append((parsed, at, False))
            continue
        messages, plain = _decoded(raw, role)
        listed = pointers.get(key)
        for i, m in enumerate(messages):
            where = listed[i] if listed else _element(at, raw, i)
            into.append((m, where, plain or where in plain_at))
    if not sent and not got:
        prompts, completions = _flattened(attrs)
        sent = [(m, inference.pointer, False) for m in prompts]
        got = [(m, inference.pointer, False) for m in completions]
    else:
        for message, _, _ in got:
            if message.get("parts") == [] if type(message) is dict else _no_parts(message):
                return sent, _parts_from_flattened(got, _flattened(attrs)[1], inference.pointer)
    return sent, got


def _no_parts(message: Any) -> bool:
    return isinstance(message, dict) and message.get("parts") == []


def _parts_from_flattened(got: list[_Sent], completions: list[Any], span: str) -> list[_Sent]:
    """Output messages written with no parts take those of the flattened completion of the
    same index: LiteLLM 1.100 leaves a call out of `gen_ai.output.messages` and writes it only
    as `gen_ai.completion.N.function_call.*`."""
    filled: list[_Sent] = []
    for i, (message, pointer, plain) in enumerate(got):
        flat = completions[i]["parts"] if i < len(completions) else []
        if _no_parts(message) and flat:
            filled.append(({**message, "parts": flat}, span, False))
        else:
            filled.append((message, pointer, plain))
    return filled


class _AnsweredFrom:
    """The call ids that a tool_call_response answers in this inference or a later one."""

    # A plain class: one is made for every inference (a frozen dataclass costs twice as much).
    __slots__ = ("last", "position")

    def __init__(self, last: dict[str, int], position: int) -> None:
        #: Call id → the position of the last inference of the conversation that answers it.
        self.last = last
        self.position = position

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and self.last.get(call_id, -1) >= self.position


def _answers(read: list[tuple[_Sent, ...]]) -> dict[str, int]:
    """Call id → the position of the last of the inferences' messages that answers it."""
    last: dict[str, int] = {}
    for position, messages in enumerate(read):
        for message, _, _ in messages:
            parts = message.get("parts") if isinstance(message, dict) else None
            for part in parts if isinstance(parts, list) else ():
                if (
                    isinstance(part, dict)
                    and part.get("type") == "tool_call_response"
                    and isinstance(call_id := _part_id(part), str)
                ):
                    last[call_id] = position
    return last


def _response(attrs: dict[str, Any], got: list[_Sent]) -> tuple[Any, str | None, str | None]:
    """An inference's finish reason, and the status and response id of its group (None when
    it got no output)."""
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        # Jaeger's translator writes an array attribute as its JSON text.
        try:
            reasons = orjson.loads(reasons)
        except orjson.JSONDecodeError:
            reasons = [reasons]
    reason = None
    if got and isinstance(got[0][0], dict) and "finish_reason" in got[0][0]:
        reason = got[0][0]["finish_reason"]
    elif isinstance(reasons, list) and reasons:
        reason = reasons[0]
    if not got:
        return reason, None, None
    status = "completed" if isinstance(reason, str) and REASONS.get(reason) == "completed" else None
    response_id = attrs.get(_RESPONSE_ID)
    return reason, status, response_id if isinstance(response_id, str) else None


def _new_messages(
    seen: _Seen, sent: list[_Sent], got: list[_Sent], last: bool = False
) -> tuple[list[bool], list[_Sent], list[_Sent]]:
    """Which of an inference's messages are new (`_fresh`, `last` as it takes it), and the new
    ones it sent and got."""
    # Only the first output message continues the conversation (the others are choices).
    fresh = _fresh(seen, [m for m, _, _ in sent + got[:1]], last)
    new_sent = [m for m, new in zip(sent, fresh, strict=False) if new]
    new_got = [got[0]] if got and fresh[-1] else []
    return fresh, new_sent, new_got


def _add_inference(
    b: Builder,
    seen: _Seen,
    inference: Inference,
    messages: tuple[list[_Sent], list[_Sent]],
    answered: _AnsweredFrom,
    last: bool = False,
) -> None:
    """Add what one inference adds to its conversation: new history, then its response (a
    call of it that a later inference answers ran, whether or not a finish reason says so);
    `last`: the conversation's last inference."""
    _tool_definitions(b, inference)
    sent, got = messages
    reason, status, response_id = _response(inference.attrs, got)
    group = b.group(
        inference.kind,
        _origin(b.path, inference.line, inference.pointer),
        status=status,
        response_id=response_id,
    )
    fresh, new_sent, new_got = _new_messages(seen, sent, got, last)
    if len(got) <= 1 and _direct_ok(new_sent) and _direct_ok(new_got):
        line = inference.line
        _direct(b, seen, group, line, new_sent, ABSENT, answered)
        if got:
            _direct(b, seen, group, line, new_got, reason, answered)
        return
    record = Record(inference.attrs, inference.line, inference.pointer)
    history = Converter(b, record, group, API, ABSENT, hold=True)
    for (message, pointer, plain), new in zip(sent, fresh, strict=False):
        if new:
            _message(history, seen, message, pointer, plain)
    finish_lossy(history, LOSSY, (FORMAT.name, LABEL), objects_only=True)
    if got:
        response = Converter(b, record, group, API, reason, answered, hold=True)
        response.alternatives(len(got), "choices")
        message, pointer, plain = got[0]
        if fresh[-1]:
            _message(response, seen, message, pointer, plain)
        finish_lossy(response, LOSSY, (FORMAT.name, LABEL), objects_only=True)


#: The parts the direct conversion takes; a message with any other goes to the converter.
_DIRECT_PARTS = frozenset({"text", "tool_call", "tool_call_response"})


def _direct_ok(messages: list[_Sent]) -> bool:
    """Whether `_direct` converts these messages as the converter would: objects of only the
    known fields, not plain text, whose parts are text, calls and results with string ids."""
    for message, _, plain in messages:
        if plain or type(message) is not dict or not message.keys() <= _MESSAGE_KEYS:
            return False
        parts = message.get("parts")
        if type(parts) is not list:
            return False
        for part in parts:
            if type(part) is not dict:
                return False
            kind = part.get("type")
            if kind not in _DIRECT_PARTS:
                return False
            if kind != "text":
                call_id = part.get("id")
                if type(call_id) is not str or not call_id:
                    return False
    return True


def _direct(
    b: Builder,
    seen: _Seen,
    group: int,
    line: int | None,
    messages: list[_Sent],
    reason: Any,
    answered: _AnsweredFrom,
) -> None:
    """Convert an inference's new history (`reason` ABSENT) or its response straight into held
    items, as `_message` through a Converter and `finish_lossy` make them (messages that
    `_direct_ok` takes: `tests/core/test_otel_direct.py` compares the two)."""
    made = _direct_made(seen, b.answered, messages, reason, answered)
    if not made:
        return
    items = b.items
    run = held(b)
    for raw, pointer, native, derived in made:
        conversion = conversion_of(SLUG, native, tuple(derived), LABEL)
        run.add(items, raw, line, pointer, group, Envelope.OPEN_RESPONSES, conversion)


#: An item `_direct` makes: its value, JSON Pointer, native part or message, and marks.
_Made = tuple[dict[str, Any], str, Any, list[Derivation]]


def _direct_made(
    seen: _Seen,
    results_answered: set[str],
    messages: list[_Sent],
    reason: Any,
    answered: _AnsweredFrom,
) -> list[_Made]:
    """The items `_direct` makes of the messages, each call's status settled."""
    made: list[_Made] = []
    add = made.append
    calls, results = seen.calls, seen.results
    for message, pointer, _ in messages:
        role = message.get("role")
        text_type = "output_text" if role == "assistant" else "input_text"
        texts: list[dict[str, Any]] = []
        for part in message["parts"]:
            kind = part["type"]
            if kind == "text":
                texts.append({"type": text_type, "text": part.get("content")})
                continue
            call_id = part["id"]
            if kind == "tool_call":
                if call_id in calls:
                    continue
                calls.add(call_id)
            else:
                if call_id in results:
                    continue
                results.add(call_id)
            # A call or result splits the message's text around it.
            if texts:
                kept = [t for t in texts if t["text"] != ""]
                if kept:
                    add(({"type": "message", "role": role, "content": kept}, pointer, message, []))
                texts = []
            if kind == "tool_call":
                # Not listed by name as the converter lists calls: an OTel result is never
                # paired by name (the conventions' result part has none).
                name = part.get("name")
                arguments = part.get("arguments", ABSENT)
                derived: list[Derivation] = []
                if arguments is ABSENT:
                    arguments, derived = "{}", [LOSSY]
                elif not isinstance(arguments, str):
                    text = serialise(arguments)
                    if text is not None:
                        arguments, derived = text, [LOSSY]
                raw = {
                    "type": "function_call",
                    "status": None,
                    "call_id": call_id,
                    "name": name,
                    "arguments": arguments,
                }
                add((raw, pointer, part, derived))
            else:
                results_answered.add(call_id)
                output = part.get("response")
                marks: list[Derivation] = []
                if not isinstance(output, str):
                    output = serialise(output) or ""
                    marks.append(_OUTPUT_OBJECT)
                raw = {"type": "function_call_output", "call_id": call_id, "output": output}
                add((raw, pointer, part, marks))
        if texts and (kept := [t for t in texts if t["text"] != ""]):
            add(({"type": "message", "role": role, "content": kept}, pointer, message, []))
    last = len(made) - 1
    for position, (raw, _, _, derived) in enumerate(made):
        if raw["type"] == "function_call":
            raw["status"], why = _call_status(reason, position != last, raw["call_id"], answered)
            derived.append(why)
    return made


def _call_status(
    reason: Any, followed: bool, call_id: str, answered: _AnsweredFrom
) -> tuple[str, Derivation]:
    """A call's status and its mark, as `Converter.finish` settles them (`reason` ABSENT: a
    call of the history; `followed`: a later item of the response follows it)."""
    if reason is ABSENT:
        return COMPLETED, HISTORY_STATUS
    known = reason is None and call_id in answered
    if reason is not None and type(reason) is not str:
        return _settled(reason, followed, known)
    key = (reason, followed, known)
    found = _STATUSES.get(key)
    if found is None:
        found = _settled(reason, followed, known)
        if len(_STATUSES) < _MAX_STATUSES:
            _STATUSES[key] = found
    return found


#: `_settled`'s answers by finish reason (a string or None), `followed` and `known`: every
#: call of a trace asks for one of a few.
_STATUSES: dict[tuple[Any, bool, bool], tuple[str, Derivation]] = {}
_MAX_STATUSES = 1024


def _settled(reason: Any, followed: bool, known: bool) -> tuple[str, Derivation]:
    """A response's call's status and mark (`known`: no finish reason, and a later result
    answers the call)."""
    result = outcome(REASONS, reason)
    said = f"finish_reason {reason!r}" if reason is not None else "no finish_reason"
    if result != COMPLETED and followed:
        result, why = COMPLETED, f"{said}, but a later item follows the call, so it was not cut off"
    elif known:
        result = COMPLETED
        why = f"{said}, but a later result in the conversation answers it, so it ran"
    else:
        why = said
    return result, Derivation("status", "derived", why)


# --------------------------------------------------------------------------------------------
# Files


def _exports(data: bytes, path: str | None) -> Iterator[tuple[int | None, str, dict[str, Any]]]:
    """Each export request of the file: the one document, or one per line of the file exporter."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        document = None
    if isinstance(document, dict):
        if detect(document) is None:
            raise LoadError(
                "not an OTLP JSON export (resourceSpans, resourceLogs) nor a Jaeger trace "
                "(traceID, spans)",
                path=path,
            )
        yield None, "", document
        return
    if document is not None:
        raise LoadError("an OTLP JSON export must be an object", path=path)
    try:
        orjson.loads(first_line(data))
    except orjson.JSONDecodeError:
        # Not the file exporter's lines: one document that does not parse; say where.
        load_json(data.decode("utf-8", "replace"), path)
        raise LoadError("the OTLP JSON export does not parse", path=path) from None
    yield from _lines(data, path)


def _lines(
    data: bytes, path: str | None, first: int = 1, start: int = 0, stop: int | None = None
) -> Iterator[tuple[int | None, str, dict[str, Any]]]:
    """The export request of each line of the file exporter's lines in `data[start:stop]`
    (`first`: the number of its first line in its file)."""
    # One line at a time: the file is not held a second time as a list of its lines.
    for number, raw in enumerate(lines_of(data, start, stop), start=first):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise LoadError(f"not a JSON export request: {exc}", path=path, line=number) from None
        if not _plain_export(line) and (not isinstance(line, dict) or detect(line) is None):
            raise LoadError(
                "not an OTLP export request (no resourceSpans or resourceLogs)",
                path=path,
                line=number,
            )
        yield number, "", line


def _read(inferences: list[Inference]) -> list[Inference]:
    """The inferences whose messages a conversation is read from, in their order."""
    captured = [i for i in inferences if i.has_content]
    calls = [i for i in captured if i.attrs.get(OPERATION) not in AGENT_OPERATIONS]
    # An agent's span sums up the model calls under it (its output is the whole turn, not
    # choices): it is read only when the trace recorded none of those calls' content.
    return calls or captured


def _conversations(inferences: list[Inference]) -> dict[str, list[Inference]]:
    # Instrumentations often set `gen_ai.conversation.id` on some spans of a trace only (once
    # a stateful API gave one): the trace's other spans belong to that conversation too.
    by_trace: dict[str, str] = {}
    # Only the named ones sorted (a large trace has none): the first in time names its trace.
    named = [i for i in inferences if i.named and i.trace]
    for inference in sorted(named, key=lambda i: (i.time, i.order)):
        by_trace.setdefault(inference.trace, inference.conversation)
    grouped: dict[str, list[Inference]] = {}
    for inference in inferences:
        if not inference.named and inference.trace in by_trace:
            inference.conversation = by_trace[inference.trace]
        grouped.setdefault(inference.conversation, []).append(inference)
    for listed in grouped.values():
        listed.sort(key=lambda i: (i.time, i.order))
    return grouped


def _gather(
    exports: Iterator[tuple[int | None, str, dict[str, Any]]], check: Callable[[int], None] | None
) -> list[Inference]:
    order = [0]
    found: list[Inference] = []
    for line, base, export in exports:
        if check is not None:
            check(0)
        found += _inferences(export, line, base, order)
    return _joined(found)


def _add_read(b: Builder, read: list[Inference]) -> None:
    """Add a conversation's inferences in their order, each call settled knowing which later
    inferences answer it."""
    seen = _Seen()
    messages = [_messages(inference) for inference in read]
    last = _answers([(*sent, *got) for sent, got in messages])
    final = len(read) - 1
    for position, inference in enumerate(read):
        answered = _AnsweredFrom(last, position)
        _add_inference(b, seen, inference, messages[position], answered, position == final)


def build(
    path: str | None, conversation: str, inferences: list[Inference], notes: list[Note]
) -> Transcript:
    """One conversation's transcript from its inferences, in their order, with `notes`."""
    b = builder(path)
    captured = _read(inferences)
    _add_read(b, captured)
    for inference in inferences:
        if not inference.has_content:
            _tool_definitions(b, inference)
    if not b.groups:
        conversation_group(b, "otel_trace", None)
    if not captured:
        notes = [
            *notes,
            Note(
                "content_not_captured",
                Severity.WARNING,
                f"{path or '<input>'}: {len(inferences)} GenAI operation(s) of {conversation} "
                "recorded no messages (content capture was off): there is nothing to gate",
            ),
        ]
    return finish(b, "otel", conversation, notes)


#: Attributes only the usual build reads (a conversation id, Pydantic AI's events and tools,
#: the flattened messages and tools): a conversation with any of them is not a
#: `DirectConversation`.
_BUILD_ONLY = frozenset({CONVERSATION, EVENTS_ATTRIBUTE, PYDANTIC_PARAMETERS})
_BUILD_ONLY_PREFIXES = ("gen_ai.prompt.", "gen_ai.completion.", "llm.")


class DirectConversation(NamedTuple):
    """A conversation `build` converts whole by the direct path, as the compact values its
    transcript is made of: its gate report depends on nothing else (and on no message text)."""

    #: Each item: its group's index, value, JSON Pointer and marks.
    items: list[tuple[int, dict[str, Any], str, tuple[Derivation, ...]]]
    #: Each group (one span each, of kind `otel_span`): its line, status and response id.
    groups: list[tuple[int | None, str | None, str | None]]
    #: The `gen_ai.tool.definitions` text the conversation's tools come from (None: no tools).
    definitions: str | None


def direct_conversation(inferences: list[Inference]) -> DirectConversation | None:
    """What `build` makes of a conversation whose spans' messages all go the direct way
    (`_direct_ok`), with at most one tool definitions text and none of the attributes only the
    usual build reads; None for any other conversation (and one that recorded no messages)."""
    read = _read(inferences)
    if not read:
        return None
    chosen = {id(inference) for inference in read}
    definitions: str | None = None
    for inference in inferences:
        attrs = inference.attrs
        if (
            inference.kind != "otel_span"
            or inference.span is not None
            or inference.pointers
            or inference.plain_at
        ):
            return None
        for key in attrs:
            if key in _BUILD_ONLY or key.startswith(_BUILD_ONLY_PREFIXES):
                return None
        if id(inference) not in chosen:
            # Not read for messages (an agent's span beside its model calls' adds nothing; a
            # span without content, such as a tool's, only its tool definitions).
            if TOOLS in attrs and not inference.has_content:
                return None
            continue
        text = attrs.get(TOOLS)
        if text is not None:
            if type(text) is not str or (definitions is not None and text != definitions):
                return None
            definitions = text
    inferences = read
    # What `_add_read` and `_add_inference` do, with the items and groups kept as values.
    seen = _Seen()
    messages = [_messages(inference) for inference in inferences]
    last = _answers([(*sent, *got) for sent, got in messages])
    items: list[tuple[int, dict[str, Any], str, tuple[Derivation, ...]]] = []
    groups: list[tuple[int | None, str | None, str | None]] = []
    results: set[str] = set()
    final = len(inferences) - 1
    for position, inference in enumerate(inferences):
        sent, got = messages[position]
        reason, status, response_id = _response(inference.attrs, got)
        _, new_sent, new_got = _new_messages(seen, sent, got, position == final)
        if len(got) > 1 or not (_direct_ok(new_sent) and _direct_ok(new_got)):
            return None
        group = len(groups)
        groups.append((inference.line, status, response_id))
        answered = _AnsweredFrom(last, position)
        for raw, pointer, _, derived in _direct_made(seen, results, new_sent, ABSENT, answered):
            items.append((group, raw, pointer, tuple(derived)))
        if got:
            for raw, pointer, _, derived in _direct_made(seen, results, new_got, reason, answered):
                items.append((group, raw, pointer, tuple(derived)))
    return DirectConversation(items, groups, definitions)


def renamed(
    inferences: list[Inference],
    call_ids: Callable[[str], str],
    response_ids: Callable[[str], str],
    lines: Callable[[int | None], int | None],
) -> list[Inference]:
    """Copies of a conversation's inferences with the ids of its calls and results, its
    response ids and its lines replaced (each function gives the new for the old): the same
    conversation under other names. Its content attributes are JSON (a conversation
    `direct_conversation` takes); each is written again as JSON text if it was text."""
    copies = []
    for inference in inferences:
        attrs = dict(inference.attrs)
        for key in (INPUT, OUTPUT):
            raw = attrs.get(key)
            if raw is None:
                continue
            # A copy, even of a structured value: the inference's own is left as it is.
            messages = orjson.loads(raw if isinstance(raw, str) else orjson.dumps(raw))
            for message in messages if isinstance(messages, list) else (messages,):
                parts = message.get("parts") if isinstance(message, dict) else None
                for part in parts if isinstance(parts, list) else ():
                    if isinstance(part, dict) and isinstance(found := part.get("id"), str):
                        part["id"] = call_ids(found)
            attrs[key] = orjson.dumps(messages).decode() if isinstance(raw, str) else messages
        response_id = attrs.get(_RESPONSE_ID)
        if isinstance(response_id, str):
            attrs[_RESPONSE_ID] = response_ids(response_id)
        copies.append(dataclasses.replace(inference, attrs=attrs, line=lines(inference.line)))
    return copies


def load_file(
    data: bytes,
    path: str | None,
    source: Path | None = None,
    check: Callable[[int], None] | None = None,
) -> list[Transcript]:
    """One transcript per conversation of the trace (its `gen_ai.conversation.id`, else trace)."""
    inferences = _gather(_exports(data, path), check)
    if not inferences:
        raise LoadError(
            "the trace holds no GenAI spans or log records (no gen_ai.* attributes)", path=path
        )
    grouped = _conversations(inferences)
    ids = list(grouped)
    first = first_notes(path, ids)
    return [build(path, cid, grouped[cid], first if i == 0 else []) for i, cid in enumerate(ids)]


def first_notes(path: str | None, ids: list[str]) -> list[Note]:
    """The notes of a file's first conversation, given every conversation's id."""
    return [several_note(path, ids)] if len(ids) > 1 else []


# --------------------------------------------------------------------------------------------
# The file exporter's lines by runs: what lets a large file be read on every core

#: A run of the file exporter's lines: its first byte, and the byte after its last line's
#: newline (or the data's end).
Cut = tuple[int, int]
#: A run, and the number of its first line in the file.
LineRun = tuple[int, int, int]
#: What ties a run's inferences to others': their traces, and the spans whose log records
#: are joined into one call.
Link = tuple[str, str]
_NON_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def line_runs(data: bytes, size: int) -> list[Cut] | None:
    """The file's lines cut into runs of about `size` bytes, when the file is the collector's
    file exporter's lines and loading reads it as those (else None: a document, another
    format, a file whose first line is not an export request)."""
    from inspector.core.formats import session_format

    begun = _NON_BLANK.search(data)
    if begun is None:
        return None
    end = data.find(b"\n", begun.start())
    end = len(data) if end < 0 else end
    # All the registry reads of a file to choose its format: its first line and 4 KiB.
    if session_format(data[: max(end, 4096)]) is not sys.modules[__name__]:
        return None
    try:
        orjson.loads(data[begun.start() : end])
    except orjson.JSONDecodeError:
        return None
    cuts: list[Cut] = []
    start, end = 0, len(data)
    while start < end:
        cut = data.find(b"\n", min(start + size, end) - 1)
        stop = end if cut < 0 else cut + 1
        cuts.append((start, stop))
        start = stop
    # Two runs with lines: the file cannot be one document (`_exports` reads it as lines).
    if sum(1 for a, b in cuts if _NON_BLANK.search(data, a, b)) < 2:
        return None
    return cuts


def numbered(data: bytes, cuts: list[Cut]) -> Iterator[LineRun]:
    """Each run with the number of its first line, counted as they are asked for."""
    number = 1
    for start, stop in cuts:
        yield start, stop, number
        number += _newlines(data, start, stop)


#: Lines of a run found one by one before the run is copied to count them.
_FOUND_LINES = 4096


def _newlines(data: bytes, start: int, stop: int) -> int:
    """The newlines in `data[start:stop]`. An mmap has no count: a trace's lines are long (a
    call's spans are kilobytes), so they are found one by one without copying the run (or
    touching more than its pages); a run of many short lines is copied and counted."""
    count, find = 0, data.find
    at = find(b"\n", start, stop)
    while at >= 0:
        count += 1
        if count > _FOUND_LINES:
            return data[start:stop].count(b"\n")
        at = find(b"\n", at + 1, stop)
    return count


def run_conversations(
    data: bytes, run: LineRun, path: str | None
) -> tuple[dict[str, list[Inference]], set[Link]]:
    """A run's conversations as `load_file` groups them, and what ties them to other runs':
    the file's conversations are the runs' in order when no conversation id, trace or joined
    span is in two runs (the caller checks)."""
    start, stop, first = run
    # The run's lines are read from the mapped file one by one, not copied out as one piece.
    inferences = _gather(_lines(data, path, first, start, stop), None)
    links = {("trace", i.trace) for i in inferences if i.trace}
    links.update(("span", i.span) for i in inferences if i.span is not None)
    return _conversations(inferences), links


def load(b: Builder, record: Record, kind: str) -> None:
    """Add one export request met among other records (a line of a mixed log), as one trace."""
    order = [0]
    inferences = _joined(list(_inferences(record.obj, record.line, record.base, order)))
    _add_read(b, _read(sorted(inferences, key=lambda i: (i.time, i.order))))
    if not inferences:
        raise b.fail("an OTLP export with no GenAI spans or log records", record)


FORMAT = FormatSpec(
    name="otel",
    label=LABEL,
    kinds=KINDS,
    detect=detect,
    load=load,
    accepts="an OpenTelemetry GenAI trace (OTLP JSON spans or logs)",
)
