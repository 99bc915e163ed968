"""Input formats: detect what a file is and load it as a Transcript with the origin of every item.

Each module of this package is one format, with `detect(obj) -> (score, kind) | None`,
`load(builder, record, kind)` and `KINDS` (record kind → the transcript's format name); formats
that have streams of their own add `detect_stream(events)`, `assemble_stream(events, path)` and
`LABEL`, and may add `is_event(obj)` (one event of an SDK recording, one per JSONL line) and
`ARRAY_STREAM_KIND` (the kind `detect` gives a stream recorded as one JSON array). Adding a
format means adding a module and one entry in `FORMATS` (and `STREAM_FORMATS`). Detection is
scored: every format scores a record and the best match takes it, so a record two formats could
claim goes to the one it fits better.

Framing is handled here, once for every format: one JSON document, JSON Lines (each line
classified on its own), and recorded streams (SSE, JSONL of event objects, or a JSON array of
them), which are decoded once and kept on the transcript. Another API's records convert through
`_convert.Converter`, so ids, pairing, arguments and status follow one set of rules.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from inspector.core.formats import (
    _lean,
    anthropic,
    bedrock,
    chat_completions,
    claude_code,
    codex,
    errors,
    gemini,
    inspect_log,
    open_responses,
)
from inspector.core.formats._records import (
    CERTAIN,
    EXPECTED,
    Builder,
    Record,
    describe,
    tools_from_list,
)
from inspector.core.formats._sessions import first_record
from inspector.core.jsonio import (
    decode_text,
    display_name,
    element_lines,
    first_non_space,
    has_long_digits,
    is_wide,
    load_json,
    parse_event,
    read_bytes,
    strip_utf8_bom,
    utf8_error,
)
from inspector.core.model import (
    Cancelled,
    LoadError,
    Origin,
    Tool,
    Transcript,
    join_pointer,
    paused_gc,
)
from inspector.core.stream import (
    StreamEvent,
    StreamResult,
    Violation,
    events_from_bytes,
    events_from_json_lines,
    reduce_stream,
    stream_transcript,
)

#: The formats, in the order that breaks a tie in detection scores.
FORMATS: tuple[ModuleType, ...] = (
    open_responses,
    chat_completions,
    anthropic,
    gemini,
    bedrock,
    errors,
    codex,
    claude_code,
    inspect_log,
)
#: Formats whose files are whole sessions, read by their own loader (`MARKERS`, `matches(data,
#: first)`, `load_file(data, path, source) -> list[Transcript]`): a file may hold several
#: conversations (see `load_conversations`).
SESSION_FORMATS: tuple[ModuleType, ...] = (codex, claude_code, inspect_log)
#: Formats with streams of their own (others' events are reduced as Open Responses events).
STREAM_FORMATS: tuple[ModuleType, ...] = (chat_completions, anthropic, gemini, bedrock)
#: Record kinds that are a whole stream recorded as one JSON array of events or chunks.
_ARRAY_STREAMS: dict[str, ModuleType] = {
    m.ARRAY_STREAM_KIND: m for m in STREAM_FORMATS if hasattr(m, "ARRAY_STREAM_KIND")
}

_FORMAT_OF_KIND: dict[str, str] = {k: v for m in FORMATS for k, v in m.KINDS.items()}
_MODULE_OF_KIND: dict[str, ModuleType] = {k: m for m in FORMATS for k in m.KINDS}
#: Below this size a JSON document's item lines are located exactly; above it, lazily skipped.
LOCATE_LIMIT = 64 * 1024**2

__all__ = [
    "EXPECTED",
    "FORMATS",
    "classify",
    "detect_stream_dialect",
    "load_bytes",
    "load_conversations",
    "load_path",
    "load_stream",
    "load_stream_path",
    "load_text",
    "load_tools",
    "tools_from_document",
    "tools_from_list",
    "transcript_from_record",
]


# --------------------------------------------------------------------------------------------
# Detection and dispatch


def classify(obj: Any) -> str:
    """Name the kind of one JSON record (the best-scoring format's), or 'unknown'."""
    best_score, best_kind = 0, "unknown"
    for module in FORMATS:
        found = module.detect(obj)
        if found is None:
            continue
        score, kind = found
        if score >= CERTAIN:
            return kind
        if score > best_score:
            best_score, best_kind = score, kind
    return best_kind


def _add_record(b: Builder, record: Record, kind: str | None = None) -> str:
    kind = kind or classify(record.obj)
    if kind in _ARRAY_STREAMS:
        # A whole stream recorded as one JSON array is a file of its own, never a record
        # among others (a line of a JSONL log, a Batch body).
        raise LoadError(
            f"a {_ARRAY_STREAMS[kind].LABEL} stream recorded as a JSON array must be a file of "
            "its own, not one record among others",
            path=b.path,
            line=record.line,
        )
    module = _MODULE_OF_KIND.get(kind)
    if module is None:
        raise LoadError(
            f"unrecognised record: found {describe(record.obj)}; expected {EXPECTED}",
            path=b.path,
            line=record.line,
        )
    module.load(b, record, kind)
    return kind


def _builder(path: str | None) -> Builder:
    return Builder(path, _add_record)


def transcript_from_record(
    obj: Any, path: str | None = None, line: int | None = 1, fmt: str | None = None
) -> Transcript:
    """Build a transcript from one parsed record (request, response, chat or Anthropic message)."""
    b = _builder(path)
    kind = _add_record(b, Record(obj, line, ""))
    return b.transcript(fmt or _FORMAT_OF_KIND[kind])


# --------------------------------------------------------------------------------------------
# Streams


def load_stream(data: bytes, path: str | None = None, *, strict: bool = False) -> Transcript:
    """Load a recorded stream (SSE, or JSONL of event objects): decoded once, kept on the result.

    Open Responses streams are reduced by the checked reducer; another API's stream is
    assembled into its final record, converted like that record, and reported as the foreign
    envelope it is (one `foreign_stream` violation).
    """
    array = _load_array_stream(data, path, strict)
    if array is not None:
        return array
    events = _foreign_jsonl_events(data) or events_from_bytes(data, path)
    if not events:
        raise LoadError("the stream has no events", path=path)
    framing = events[0].framing
    module = _stream_format(events)
    if module is not None:
        return _foreign_stream(module, events, path, framing, strict)
    fmt = "stream_jsonl" if framing == "jsonl" else "sse"
    result = reduce_stream(events, strict=strict)
    return dataclasses.replace(stream_transcript(result, path, fmt), events=tuple(events))


def _foreign_jsonl_events(data: bytes) -> list[StreamEvent] | None:
    """Events of JSON Lines whose first line is another API's stream event, else None.

    Open Responses event lines are recognised by the stream decoder itself; SDK recordings of
    other APIs' streams (a ConverseStream event per line, `chat.completion.chunk` objects,
    Anthropic events) are recognised by their formats.
    """
    body = strip_utf8_bom(data)
    if body.lstrip()[:1] != b"{":
        return None
    lines = [(n, line) for n, line in enumerate(body.splitlines(), start=1) if line.strip()]
    if not all(line.lstrip()[:1] == b"{" for _, line in lines):
        return None
    first, error = parse_event(lines[0][1])
    if error is not None or not any(_is_event(m, first) for m in STREAM_FORMATS):
        return None
    return events_from_json_lines(lines)


def _is_event(module: ModuleType, obj: Any) -> bool:
    is_event = getattr(module, "is_event", None)
    return bool(is_event is not None and is_event(obj))


def _array_stream(
    module: ModuleType, document: list[Any], path: str | None, text: str, strict: bool
) -> Transcript:
    """A stream recorded as one JSON array of events (or chunks): one event per element."""
    lines = element_lines(text, ()) if len(text) <= LOCATE_LIMIT else []
    if len(lines) != len(document):
        start = first_non_space(text) or 0
        lines = [text.count("\n", 0, start) + 1] * len(document)
    events = events_from_json_lines(zip(lines, document, strict=True))
    return _foreign_stream(module, events, path, "json_array", strict)


def _load_array_stream(data: bytes, path: str | None, strict: bool) -> Transcript | None:
    """A file that is one JSON array of another API's stream chunks, else None."""
    if strip_utf8_bom(data).lstrip()[:1] != b"[":
        return None
    text = decode_text(data, path).removeprefix("\ufeff")
    try:
        document = load_json(text, path)
    except LoadError:
        return None
    module = _ARRAY_STREAMS.get(classify(document))
    return None if module is None else _array_stream(module, document, path, text, strict)


def _stream_format(events: Sequence[StreamEvent]) -> ModuleType | None:
    """The format module of a foreign stream, or None for an Open Responses stream."""
    return next((m for m in STREAM_FORMATS if m.detect_stream(events)), None)


def detect_stream_dialect(events: Sequence[StreamEvent]) -> str:
    """Name the API a stream speaks: `open_responses` or a foreign format's module name."""
    module = _stream_format(events)
    return "open_responses" if module is None else _format_name(module)


def _format_name(module: ModuleType) -> str:
    """The transcript format a module's records load as (`chat_completions`, `gemini`, …)."""
    return str(next(iter(module.KINDS.values())))


def _foreign_stream(
    module: ModuleType,
    events: Sequence[StreamEvent],
    path: str | None,
    framing: str,
    strict: bool,
) -> Transcript:
    record = module.assemble_stream(events, path)
    transcript = transcript_from_record(record, path, events[0].line, _format_name(module))
    first = events[0]
    message = (
        f"this is a {module.LABEL} stream, not Open Responses: a foreign envelope blocks replay "
        "(convert the record before replaying it to an Open Responses provider)"
    )
    stream = StreamResult(
        responses=(),
        status="foreign",
        events=len(events),
        violations=(Violation("foreign_stream", "error", first.index, None, first.line, message),),
        strict=strict,
        framing=framing,
        dialect=_format_name(module),
        assembled=record,
    )
    return dataclasses.replace(transcript, stream=stream, events=tuple(events))


# --------------------------------------------------------------------------------------------
# Whole files


_SSE_FIELD = re.compile(r"(event|data|id|retry)\s*:|:")


def _looks_like_sse(first_line: str) -> bool:
    return _SSE_FIELD.match(first_line) is not None and not first_line.startswith(("{", "["))


def load_text(
    text: str, path: str | None = None, *, data: bytes | None = None, strict: bool = False
) -> Transcript:
    """Load a transcript from text (one JSON document, JSONL, or an SSE stream)."""
    with paused_gc():
        return _load_text(text, path, data, strict)


def _utf8(text: str, data: bytes | None) -> bytes:
    """The UTF-8 bytes of the text: the file's own bytes when they are UTF-8 already."""
    if data is not None and not is_wide(data):
        return data
    return text.encode("utf-8", "surrogatepass")


def _load_text(text: str, path: str | None, data: bytes | None, strict: bool) -> Transcript:
    if text.startswith("\ufeff"):
        text = text[1:]
    start = first_non_space(text)
    if start is None:
        raise LoadError(f"file is empty; expected {EXPECTED}", path=path)
    end = text.find("\n", start)
    first_line = text[start : end if end >= 0 else len(text)]
    if _looks_like_sse(first_line):
        return load_stream(_utf8(text, data), path, strict=strict)
    utf8 = data is not None and not is_wide(data)
    long_digits = has_long_digits(data if utf8 and data is not None else text)
    document_error: LoadError | None = None
    try:
        document = load_json(text, path, long_digits=long_digits)
    except LoadError as exc:
        document_error = exc
    else:
        lines_of: Callable[[tuple[str | int, ...]], list[int]] | None = None
        if len(text) <= LOCATE_LIMIT:

            def lines_of(target: tuple[str | int, ...]) -> list[int]:
                return element_lines(text, target)

        first_number = text.count("\n", 0, start) + 1
        kind = classify(document)
        if kind == "stream_event":
            return load_stream(_utf8(text, data), path, strict=strict)
        if kind in _ARRAY_STREAMS:
            return _array_stream(_ARRAY_STREAMS[kind], document, path, text, strict)
        b = _builder(path)
        kind = _add_record(b, Record(document, first_number, "", lines_of), kind)
        return b.transcript(_FORMAT_OF_KIND[kind])
    # Not one document: JSON Lines if the first line is a whole value by itself.
    if end >= 0:
        try:
            first = load_json(first_line, path, text.count("\n", 0, start))
        except LoadError:
            pass
        else:
            if classify(first) == "stream_event":
                return load_stream(_utf8(text, data), path, strict=strict)
            return load_jsonl_lines(text.splitlines(), path, long_digits=long_digits)
    assert document_error is not None
    raise document_error


def load_jsonl_lines(
    lines: Iterable[str], path: str | None = None, *, long_digits: bool | None = None
) -> Transcript:
    """Load JSON Lines: each line an item, request, response, batch line or other record."""
    if not isinstance(lines, list):
        lines = list(lines)
    if long_digits is None:
        # One scan of the whole text is far cheaper than one per line.
        long_digits = has_long_digits("\n".join(lines))
    check = None if long_digits else False

    def records() -> Iterator[tuple[int, Any]]:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                yield number, load_json(line, path, number - 1, long_digits=check)

    return _load_records(records(), path)


#: A JSON Lines record the lean reader has added itself (an item).
_ADDED: Any = object()


def _load_records(
    records: Iterable[tuple[int, Any]], path: str | None, b: Builder | None = None
) -> Transcript:
    """Build a transcript from parsed JSONL records, given with their line numbers."""
    b = b or _builder(path)
    kinds: set[str] = set()
    for number, obj in records:
        if obj is _ADDED:
            kinds.add("item")
            continue
        kind = classify(obj)
        if kind == "stream_event":
            # The first record was not an event (a stream is detected by its first line).
            raise LoadError(
                "file mixes streaming events with other records; a stream must be on its own",
                path=path,
                line=number,
            )
        kinds.add(_add_record(b, Record(obj, number, ""), kind))
    if not b.groups:
        raise LoadError(f"file has no records; expected {EXPECTED}", path=path)
    fmt = "batch" if kinds == {"batch"} else "jsonl"
    return b.transcript(fmt)


#: Reports how far a load has got: (bytes parsed, bytes in all).
Progress = Callable[[int, int], None]


def _checkpoint(
    cancel: threading.Event | None, progress: Progress | None, total: int
) -> Callable[[int], None] | None:
    """A call made between records: raises Cancelled once `cancel` is set, reports progress."""
    if cancel is None and progress is None:
        return None
    # Every 1% (and at least every MiB): enough for a progress bar, cheap for the loader.
    step = max(total // 100, 1 << 20)
    due = 0

    def check(done: int) -> None:
        nonlocal due
        if cancel is not None and cancel.is_set():
            raise Cancelled("the load was cancelled")
        if progress is not None and done >= due:
            progress(done, total)
            due = done + step

    return check


def _jsonl_bytes(
    data: bytes,
    path: str | None,
    strict: bool,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Transcript | None:
    """Load UTF-8 JSON Lines straight from bytes, or None when the data is not JSON Lines.

    Big logs are JSONL: parsing each line's bytes avoids holding the file, its decoded text
    and its split lines at once; items are read lean where they can be (see `_lean`).
    `cancel` is checked, and `progress` told, between lines.
    """
    start = len(data) - len(data.lstrip())
    if start >= len(data) or data[start] not in b"{[":
        return None
    end = data.find(b"\n", start)
    if end < 0 or not data[end:].strip():
        return None  # one line: a single JSON document, read the ordinary way
    try:
        first = orjson.loads(data[start:end])
    except orjson.JSONDecodeError:
        return None  # the first line is not a whole value: a multi-line document (or broken)
    if classify(first) == "stream_event":
        return load_stream(data, path, strict=strict)
    risks = _lean.Risks(data)
    long_digits = risks.long_digits
    reader = None
    if risks.lean:
        reader = _lean.Reader(data, path, risks, locate=False, item_group=_bare_item_group)
    b = _builder(path)

    check = _checkpoint(cancel, progress, len(data))

    def records() -> Iterator[tuple[int, Any]]:
        # One line at a time, rather than a list of every line beside the data itself.
        position = number = 0
        while position < len(data):
            if reader is not None:
                # Runs of plain items go at once; the line that ends a run comes here.
                position, number, added = reader.jsonl_items(b, position, number, check)
                if added:
                    yield number, _ADDED
                if position >= len(data):
                    return
            stop = data.find(b"\n", position)
            if stop < 0:
                stop = len(data)
            if check is not None:
                check(stop)
            number += 1
            line, begin, position = data[position:stop], position, stop + 1
            if not line.strip():
                continue
            if reader is not None:
                shell = _lean_shell(reader, line, begin, stop, number)
                if shell is not None:
                    yield number, shell
                    continue
            if not long_digits:
                try:
                    yield number, orjson.loads(line)
                    continue
                except orjson.JSONDecodeError:
                    pass
            # The exact answer, or the exact error with its position, from the slow path.
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise utf8_error(line, exc, path, number) from None
            yield number, load_json(text, path, number - 1, long_digits=long_digits)

    return _load_records(records(), path, b)


def _bare_item_group(b: Builder, line: int) -> int:
    return open_responses.item_group(b, line, "")


def _lean_shell(
    reader: _lean.Reader, line: bytes, start: int, stop: int, number: int
) -> dict[str, Any] | None:
    """A JSONL request or response with its item arrays left lean, or None to read it plainly."""
    if reader.risks.deep and not _lean.depth_safe(line):
        return None
    shell = reader.shell(start, stop, number)
    if shell is None or classify(shell) not in _lean.LEAN_KINDS:
        return None
    return shell


def _lean_document(data: bytes, path: str | None) -> Transcript | None:
    """Load a JSON document of items, a request or a response lean, or None to read it plainly."""
    start = len(data) - len(data.lstrip())
    if start >= len(data) or data[start] not in b"{[":
        return None
    risks = _lean.Risks(data)
    if not risks.lean or risks.length is None:
        return None
    # As the plain loader: items get their own lines only in a document small enough to locate.
    reader = _lean.Reader(data, path, risks, locate=risks.length <= LOCATE_LIMIT)
    first_number = data.count(b"\n", 0, start) + 1
    shell: Any
    if data[start] == ord("["):
        shell = reader.array(start, len(data), first_number)
        # An array of stream events or chunks is one only if every element is one: if the
        # first element alone makes an item array, so does the whole.
        if not shell or classify([_lean.parse_value(memoryview(shell[0]), path, None)]) != "items":
            return None
        kind = "items"
    else:
        shell = reader.shell(start, len(data), first_number)
        if shell is None:
            return None
        kind = classify(shell)
        if kind not in _lean.LEAN_KINDS:
            return None
    if not reader.depth_safe(shell):
        return None
    b = _builder(path)
    kind = _add_record(b, Record(shell, first_number, ""), kind)
    return b.transcript(_FORMAT_OF_KIND[kind])


def load_bytes(
    data: bytes,
    path: str | None = None,
    *,
    strict: bool = False,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Transcript:
    """Load a transcript from the bytes of a file (`strict` applies to a stream's reducer).

    JSON Lines check `cancel` between lines (raising Cancelled once it is set) and report
    `progress` as bytes parsed.
    """
    body = strip_utf8_bom(data)
    session = _session_format(body)
    if session is not None:
        check = _checkpoint(cancel, progress, len(body))
        with paused_gc():
            return session.load_file(body, path, None, check)[0]
    if not is_wide(body):
        with paused_gc():
            loaded = _jsonl_bytes(body, path, strict, cancel, progress)
            loaded = loaded or _lean_document(body, path)
        if loaded is not None:
            return loaded
    return load_text(decode_text(data, path), path, data=data, strict=strict)


def load_path(
    path: str | os.PathLike[str], *, strict: bool = False, cancel: threading.Event | None = None
) -> Transcript:
    """Load a transcript file (`-` is standard input, gzip is read through); never modifies it.

    `cancel` stops the read between chunks and the load between records.
    """
    data = read_bytes(path, cancel=cancel)
    return load_bytes(data, display_name(path), strict=strict, cancel=cancel)


# --------------------------------------------------------------------------------------------
# Files of several conversations


def _session_format(body: bytes) -> ModuleType | None:
    """The format of a file of whole sessions (Codex, Claude Code, Inspect), or None.

    Each format names byte markers its files show early (`MARKERS`); only a file that shows
    one has its first line parsed, so a large document of another format is not parsed twice.
    """
    if body.lstrip()[:1] != b"{" and not body.startswith(b"PK"):
        return None
    head = body[:4096]
    candidates = [m for m in SESSION_FORMATS if any(mark in head for mark in m.MARKERS)]
    if not candidates:
        return None
    first = first_record(body)
    return next((m for m in candidates if m.matches(body, first)), None)


def load_conversations(
    path: str | os.PathLike[str], *, strict: bool = False, cancel: threading.Event | None = None
) -> list[Transcript]:
    """Every conversation in a file, or in the session files of a folder (in name order).

    A session with subagents, a trace, an eval log or a capture gives one transcript per
    conversation (each with its `conversation` id); any other file gives its one transcript.
    """
    if os.path.isdir(path):
        found: list[Transcript] = []
        for child in sorted(Path(path).rglob("*.jsonl")):
            if child.parent.name == "subagents":
                continue  # read with the session they belong to
            found += load_conversations(child, strict=strict, cancel=cancel)
        if not found:
            raise LoadError("the folder holds no .jsonl session files", path=display_name(path))
        return found
    data = read_bytes(path, cancel=cancel)
    name = display_name(path)
    body = strip_utf8_bom(data)
    session = _session_format(body)
    if session is None:
        return [load_bytes(data, name, strict=strict, cancel=cancel)]
    source = None if name == "<stdin>" else Path(path)
    with paused_gc():
        return session.load_file(body, name, source, _checkpoint(cancel, None, len(body)))


def load_stream_path(path: str | os.PathLike[str], *, strict: bool = False) -> Transcript:
    """Load a file that must be a recorded stream; anything else is a LoadError."""
    return load_stream(read_bytes(path), display_name(path), strict=strict)


# --------------------------------------------------------------------------------------------
# Tool files


def load_tools(path: str | os.PathLike[str]) -> dict[str, Tool]:
    """Load tool schemas from a tools array, a request body, or a {name: schema} object."""
    name = display_name(path)
    text = decode_text(read_bytes(path), name)
    if text.startswith("\ufeff"):
        text = text[1:]
    return tools_from_document(load_json(text, name), name)


def tools_from_document(document: Any, source: str) -> dict[str, Tool]:
    """Read tool schemas from a parsed tools document (see load_tools)."""
    if isinstance(document, dict) and _MODULE_OF_KIND.get(classify(document)) in (gemini, bedrock):
        # Their requests nest declarations (`functionDeclarations`, `toolConfig.tools`).
        declared = transcript_from_record(document, source).tools.values()
        if not declared:
            raise LoadError("no function tools found in the request", path=source)
        return {t.name: dataclasses.replace(t, source=source) for t in declared}
    if isinstance(document, dict) and isinstance(document.get("tools"), list):
        listed = document["tools"]
        base = "/tools"
    elif isinstance(document, list):
        listed, base = document, ""
    elif isinstance(document, dict) and (
        document.get("type") == "function" or "input_schema" in document
    ):
        listed, base = [document], ""
    elif isinstance(document, dict):
        tools: dict[str, Tool] = {}
        for key, schema in document.items():
            if not isinstance(schema, dict | bool):
                raise LoadError(
                    f"tool {key!r}: a schema must be an object or a boolean, "
                    f"not {describe(schema)}",
                    path=source,
                )
            tools[key] = Tool(
                key, schema, "function", source, Origin(source, None, join_pointer("", key))
            )
        return tools
    else:
        raise LoadError(
            "expected a tools array, a request body with tools, or an object mapping tool "
            f"names to JSON Schemas; found {describe(document)}",
            path=source,
        )
    found = {t.name: t for t in tools_from_list(listed, source=source, file=source, pointer=base)}
    if not found and listed:
        raise LoadError("no function tools found in the tools list", path=source)
    return found
