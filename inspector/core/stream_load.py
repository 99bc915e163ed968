"""Recorded streams as transcripts: SSE bytes or JSONL event lines → reduced, gateable items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.core.foreign_streams import (
    assemble_anthropic_message,
    assemble_chat_completion,
    detect_stream_dialect,
)
from inspector.core.model import LoadError, Transcript
from inspector.core.sse import decode_sse
from inspector.core.stream import (
    StreamEvent,
    events_from_json_lines,
    events_from_sse,
    reduce_stream,
    stream_transcript,
)


def _with_path(error: LoadError, path: str | None) -> LoadError:
    if error.path is None:
        error.path = path
    return error


def transcript_from_events(
    events: Sequence[StreamEvent], path: str | None, fmt: str, *, strict: bool = False
) -> Transcript:
    """Reduce decoded events; Chat Completions and Anthropic streams load as their record."""
    if not events:
        raise LoadError("the stream has no events", path=path)
    from inspector.core.load import transcript_from_record

    try:
        dialect = detect_stream_dialect(events)
        if dialect == "chat_completions":
            record: Any = assemble_chat_completion(events)
            return transcript_from_record(record, path, events[0].line, fmt)
        if dialect == "anthropic":
            record = assemble_anthropic_message(events)
            return transcript_from_record(record, path, events[0].line, fmt)
    except LoadError as exc:
        raise _with_path(exc, path) from None
    return stream_transcript(reduce_stream(events, strict=strict), path, fmt)


def load_sse(data: bytes, path: str | None = None, *, strict: bool = False) -> Transcript:
    """Load a recorded text/event-stream body."""
    return transcript_from_events(events_from_sse(decode_sse(data)), path, "sse", strict=strict)


def load_event_objects(
    lines: Sequence[tuple[int, Any]], path: str | None = None, *, strict: bool = False
) -> Transcript:
    """Load JSONL whose lines are streaming event objects (as some SDKs record streams)."""
    return transcript_from_events(
        events_from_json_lines(lines), path, "stream_jsonl", strict=strict
    )
