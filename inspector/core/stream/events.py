"""Recorded stream events: SSE frames or JSONL lines → parsed events with their positions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from msgspec import Struct

from inspector.core.jsonio import parse_event
from inspector.core.model import LoadError
from inspector.core.stream.sse import SSEEvent, decode_sse

#: Terminal event type → response status.
TERMINAL_EVENTS: Mapping[str, str] = MappingProxyType(
    {
        "response.completed": "completed",
        "response.incomplete": "incomplete",
        "response.failed": "failed",
    }
)

#: The 24 event types of the 2026-04-24 `text/event-stream` catalogue.
SPEC_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.completed",
        "response.failed",
        "response.incomplete",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning.delta",
        "response.reasoning.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "error",
    }
)

# --------------------------------------------------------------------------------------------
# Events


class StreamEvent(Struct, frozen=True):
    """One streaming event: where it was, its `event:` name, parsed data and raw text."""

    index: int
    line: int | None
    name: str | None
    data: Any
    raw: str | None
    parse_error: str | None = None
    done: bool = False
    invalid_utf8: bool = False
    framing: Literal["sse", "jsonl"] = "sse"


def events_from_sse(events: Iterable[SSEEvent]) -> list[StreamEvent]:
    """Parse the data of decoded server-sent events."""
    out: list[StreamEvent] = []
    append = out.append
    for ev in events:
        if ev.done:
            append(StreamEvent(ev.index, ev.line, ev.event, None, ev.data, None, True, False))
            continue
        data, error = parse_event(ev.data) if ev.data else (None, "the event has no data")
        append(
            StreamEvent(ev.index, ev.line, ev.event, data, ev.data, error, False, ev.invalid_utf8)
        )
    return out


def events_from_json_lines(lines: Iterable[tuple[int, Any]]) -> list[StreamEvent]:
    """Build events from JSONL: (line number, parsed object or raw line text/bytes) pairs."""
    out: list[StreamEvent] = []
    for index, (line_no, obj) in enumerate(lines):
        if not isinstance(obj, str | bytes):
            out.append(StreamEvent(index, line_no, None, obj, None, framing="jsonl"))
            continue
        bad = False
        if isinstance(obj, bytes):
            try:
                obj = obj.decode("utf-8")
            except UnicodeDecodeError:
                obj, bad = obj.decode("utf-8", errors="replace"), True
        data, error = parse_event(obj)
        out.append(StreamEvent(index, line_no, None, data, obj, error, False, bad, "jsonl"))
    return out


def _is_event_line(line: bytes) -> bool:
    """Whether a JSONL line is a streaming event object."""
    data, error = parse_event(line)
    kind = data.get("type") if error is None and isinstance(data, dict) else None
    return isinstance(kind, str) and (
        kind.startswith("response.") or kind == "error" or ":" in kind
    )


def events_from_bytes(data: bytes, path: str | None = None) -> list[StreamEvent]:
    """Read a recorded stream: SSE, or JSONL whose lines are streaming event objects.

    JSONL is recognised when no line is an SSE field line (every non-blank line starts with
    `{`) and the first line is an event object; a later line that fails to parse is kept as a
    malformed event rather than making the whole file unreadable.
    """
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    text = body.lstrip()
    if not text:
        raise LoadError("the file is empty; expected a recorded event stream", path=path)
    if text[:1] == b"{":
        lines = [(n, line) for n, line in enumerate(body.splitlines(), start=1) if line.strip()]
        if all(line.lstrip()[:1] == b"{" for _, line in lines) and _is_event_line(lines[0][1]):
            return events_from_json_lines(lines)
    events = decode_sse(data)
    if events:
        return events_from_sse(events)
    blank = body[: len(body) - len(text)]
    first = blank.count(b"\n") + blank.count(b"\r") - blank.count(b"\r\n") + 1
    if text[:1] in (b"{", b"["):
        raise LoadError(
            "this is a JSON document, not a recorded event stream (try `inspector gate`)",
            path=path,
            line=first,
        )
    raise LoadError(
        "no server-sent events found (no `event:` or `data:` lines)", path=path, line=first
    )


# --------------------------------------------------------------------------------------------
# Results


# --------------------------------------------------------------------------------------------
# Reading event payloads (for the assemblers of other APIs' streams)


def event_error(ev: StreamEvent, message: str, path: str | None) -> LoadError:
    """Return a LoadError at the event's line and number."""
    return LoadError(message, path=path, line=ev.line, event_index=ev.index)


def event_object(ev: StreamEvent, path: str | None) -> dict[str, Any]:
    """Return the event's data as an object, or raise a LoadError saying what it is instead."""
    if isinstance(ev.data, dict):
        return ev.data
    if ev.parse_error is not None:
        raise event_error(ev, f"data is not JSON: {ev.parse_error}", path)
    raise event_error(ev, f"data is a JSON {type(ev.data).__name__}, not an object", path)


#: The JSON words for the Python types an event's fields are checked against.
_JSON_KINDS = {int: "an integer", str: "a string", dict: "an object", list: "an array"}


def event_field(
    ev: StreamEvent, obj: dict[str, Any], key: str, kind: type, what: str, path: str | None
) -> Any:
    """Return obj[key] when it has the JSON kind, else raise a LoadError naming the event."""
    value = obj.get(key)
    if type(value) is not kind:
        wanted = _JSON_KINDS.get(kind, kind.__name__)
        raise event_error(ev, f"{what}: `{key}` is missing or not {wanted}", path)
    return value


def append_text(parts: dict[str, list[str]], key: str, value: Any) -> None:
    """Collect a streamed text chunk under `key` (non-strings are ignored)."""
    if isinstance(value, str):
        parts.setdefault(key, []).append(value)
