"""Input formats: detect what a file is and load it as a Transcript with the origin of every item.

**Adding a format is one module plus one line.** The module (say `acme.py`) holds the format's
detection and loading and ends with its declaration:

    ENVELOPE = Envelope("acme", "Acme Chat", finding="acme_envelope", wording="an Acme Chat")
    API = Api(ENVELOPE, "acme", STOP_REASONS, "stop_reason")   # if it converts (`_convert`)
    ...
    FORMAT = FormatSpec(
        name="acme", envelope=ENVELOPE, kinds=KINDS, detect=detect, load=load,
        detect_stream=detect_stream, assemble_stream=assemble_stream,  # streams of its own
        is_event=is_event, array_stream_kind="acme_stream",            # optional
    )

and the line is its name, `"acme"`, in `FORMAT_MODULES` below. `detect(obj)` scores a parsed
value, `(0–100, kind)` or None; `load(builder, record, kind)` adds it (converting another API's
records through `_convert.Converter`, so ids, pairing, arguments and status follow one set of
rules); `kinds` maps each record kind to the transcript's format name. Records that are not
Open Responses carry the format's `Envelope`, which names the gate finding they get (and its
wording): the gate reads it from the transcript, so a foreign format cannot be added without
one — `Envelope` and `FormatSpec` refuse it at import, `register` refuses duplicates, and
tests/core/test_format_contract.py checks every foreign format has a sample and a golden. (Its
finding code, like every code, is also listed in `core/codes.py` and the README's code table.)
Everything else is derived from the registry: the display labels, the "expected …" text of
an unrecognised record, the envelope findings, the stream formats and the kind maps.

Detection is scored: every format scores a record and the best match takes it, so a record two
formats could claim goes to the one it fits better.

Framing is decided here, once for every format: `sniff(data)` reads the first line (or an
array's first element) and says which `Framing` the file has (one JSON document, JSON Lines
with each line classified on its own, SSE, JSONL of stream events, or a JSON array of them),
and loading dispatches on it. Streams are decoded once and kept on the transcript.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import itertools
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from msgspec import Struct

from inspector.core.formats import _lean, open_responses
from inspector.core.formats._records import (
    CERTAIN,
    Builder,
    Record,
    describe,
    tools_from_list,
)
from inspector.core.formats.spec import FormatSpec
from inspector.core.jsonio import (
    CHUNK_BYTES,
    GZIP_MAGIC,
    MAX_FILE_BYTES,
    decode_text,
    display_name,
    element_lines,
    first_non_space,
    has_long_digits,
    is_wide,
    load_json,
    orjson_has_headroom,
    read_at,
    read_bytes,
    refuse_binary,
    strip_utf8_bom,
    syntax_error,
    utf8_error,
)
from inspector.core.model import (
    Cancelled,
    LoadError,
    Origin,
    Severity,
    Tool,
    Transcript,
    join_pointer,
    paused_gc,
)

if TYPE_CHECKING:
    from inspector.core.stream import StreamEvent

# The stream modules (the reducer, the SSE decoder) are imported where a stream is read: a
# transcript's load does not need them.


def register(*specs: FormatSpec) -> tuple[FormatSpec, ...]:
    """Check formats for a registry (each a FormatSpec; names, kinds, findings unique)."""
    seen: dict[str, str] = {}
    for spec in specs:
        if not isinstance(spec, FormatSpec):
            raise TypeError(f"{spec!r} is not a FormatSpec (a format module ends with FORMAT)")
        claims = [f"format {spec.name}", *(f"record kind {k}" for k in spec.kinds)]
        if spec.envelope is not None:
            claims.append(f"envelope finding {spec.envelope.finding}")
        for claim in claims:
            if claim in seen:
                raise TypeError(f"{claim} is declared by {seen[claim]!r} and {spec.name!r}")
            seen[claim] = spec.name
    return specs


#: The kind `classify` gives a record no format detects.
UNKNOWN = "unknown"
#: Stands for "any record" where detection is asked for formats without a record in hand.
_ANY: Any = object()


def _may_be(obj: Any, sniff: frozenset[str]) -> bool:
    """Whether a record shows one of a format's sniff tokens (see `SNIFFS`)."""
    if isinstance(obj, dict):
        return not sniff.isdisjoint(obj) or ("{1}" in sniff and len(obj) == 1)
    return isinstance(obj, list) and "[" in sniff


class Registry:
    """The registered formats and what is derived from them (labels, kinds, streams, texts).

    Made from specs, or from the names of format modules (`Registry.of_modules`): then a module
    is imported only when detection offers it a record (formats are tried in order, a certain
    match ends the search, and a format's sniff, when it has one, offers it only the records
    that show one of its members) or when something derived from every format is asked for.
    Loading an Open Responses file imports no other format's module.
    """

    def __init__(
        self,
        specs: Iterable[FormatSpec],
        modules: Sequence[str] = (),
        sniffs: Sequence[frozenset[str] | None] = (),
    ) -> None:
        given = register(*specs)
        #: Per format in detection order: its spec once imported, its module, its sniff.
        self._specs: list[FormatSpec | None] = [*given, *(None for _ in modules)]
        self._modules: list[str | None] = [*(None for _ in given), *modules]
        self._sniffs: list[frozenset[str] | None] = [
            *(None for _ in given),
            *(sniffs or [None] * len(modules)),
        ]
        self._of_kind = {k: f for f in given for k in f.kinds}
        # Reentrant: a format module imported under it may ask the registry (it should not).
        self._lock = threading.RLock()

    @classmethod
    def of_modules(
        cls, package: str, names: Sequence[str], sniffs: Mapping[str, Iterable[str]] | None = None
    ) -> Registry:
        """A registry of the format modules `names` of `package`, each imported when needed;
        `sniffs`: a format's sniff tokens by its name (see `SNIFFS`)."""
        found = sniffs or {}
        return cls(
            (),
            [f"{package}.{name}" for name in names],
            [frozenset(found[name]) if name in found else None for name in names],
        )

    def _spec(self, index: int) -> FormatSpec:
        """The format at `index`, its module imported if this is its first use."""
        spec = self._specs[index]
        if spec is None:
            with self._lock:
                spec = self._specs[index]
                if spec is None:
                    module = self._modules[index]
                    assert module is not None
                    spec = importlib.import_module(module).FORMAT
                    self._of_kind.update((k, spec) for k in spec.kinds)
                    self._specs[index] = spec
        return spec

    def detecting(self, obj: Any = _ANY) -> Iterator[FormatSpec]:
        """The formats, in detection order, that may detect `obj` (every one when no record is
        given), each module imported when the search reaches it."""
        # An imported spec is taken without a call: every record of a file is classified.
        specs = self._specs
        for index, sniff in enumerate(self._sniffs):
            # Whether imported or not: detection gives the same answer either way.
            if sniff is None or obj is _ANY or _may_be(obj, sniff):
                spec = specs[index]
                yield self._spec(index) if spec is None else spec

    def spec_of(self, kind: str) -> FormatSpec | None:
        """The format that declares a record kind (a kind detection gave is already imported)."""
        spec = self._of_kind.get(kind)
        if spec is None and kind != UNKNOWN and None in self._specs:
            spec = self.spec_of_kind.get(kind)
        return spec

    def format_of(self, kind: str) -> str:
        """The transcript format of a record kind (a KeyError for a kind no format declares)."""
        spec = self.spec_of(kind)
        if spec is None:
            raise KeyError(kind)
        return spec.kinds[kind]

    def array_stream(self, kind: str) -> FormatSpec | None:
        """The format whose whole stream, recorded as one JSON array, is of this kind."""
        spec = self.spec_of(kind)
        return spec if spec is not None and spec.array_stream_kind == kind else None

    @functools.cached_property
    def formats(self) -> tuple[FormatSpec, ...]:
        """The formats, in the order that breaks a tie in detection scores (all imported)."""
        return register(*(self._spec(index) for index in range(len(self._specs))))

    @functools.cached_property
    def labels(self) -> Mapping[str, str]:
        """Format name → its one display name."""
        return MappingProxyType({f.name: f.label for f in self.formats})

    @functools.cached_property
    def envelope_findings(self) -> Mapping[str, str]:
        """Envelope finding code → how its text names the record ("a Chat Completions")."""
        return MappingProxyType(
            {
                f.envelope.finding: f.envelope.wording
                for f in self.formats
                if f.envelope is not None and f.envelope.finding and f.envelope.wording
            }
        )

    @functools.cached_property
    def stream_formats(self) -> tuple[FormatSpec, ...]:
        """Formats with streams of their own (others' events are reduced as Open Responses')."""
        return tuple(f for f in self.formats if f.has_stream)

    @functools.cached_property
    def array_streams(self) -> dict[str, FormatSpec]:
        """Record kinds that are a whole stream recorded as one JSON array of events or chunks."""
        return {f.array_stream_kind: f for f in self.stream_formats if f.array_stream_kind}

    @functools.cached_property
    def format_of_kind(self) -> dict[str, str]:
        """Record kind → the transcript format of its records."""
        return {k: v for f in self.formats for k, v in f.kinds.items()}

    @functools.cached_property
    def spec_of_kind(self) -> dict[str, FormatSpec]:
        """Record kind → the format that declares it."""
        return {k: f for f in self.formats for k in f.kinds}

    @functools.cached_property
    def expected(self) -> str:
        """What the loader accepts, for the "unrecognised record" error."""
        return _expected(self.formats)


def _expected(specs: Sequence[FormatSpec]) -> str:
    """Say what the loader accepts: each format's own words, the plain foreign ones together."""
    parts: list[str] = []
    plain: list[FormatSpec] = []
    for spec in specs:
        if spec.accepts is not None:
            parts.append(spec.accepts)
        elif not plain:
            plain.append(spec)
            parts.append("")  # the place of the foreign formats' phrase
        else:
            plain.append(spec)
    if plain:
        labels = [s.label for s in plain]
        named = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]
        article = "an" if named[:1].lower() in "aeiou" else "a"
        things = "record or stream" if any(s.has_stream for s in plain) else "record"
        parts[parts.index("")] = f"{article} {named} {things}"
    return ", ".join(parts[:-1]) + ", or " + parts[-1] if len(parts) > 1 else parts[0]


#: The format modules, in the order that breaks a tie in detection scores. A new format is its
#: module and its name here.
FORMAT_MODULES = (
    "open_responses",
    "chat_completions",
    "anthropic",
    "gemini",
    "bedrock",
    "cohere",
    "errors",
    "codex",
    "claude_code",
    "inspect_log",
    "otel",
    "har",
)
#: For a format, the tokens one of which every record it detects shows: a top-level member's
#: name, `[` (a JSON array) or `{1}` (an object of one member, a Bedrock stream event as SDKs
#: record it). A record that shows none is not offered to the format, so a file of other formats'
#: records does not import its module. A format without a line here is offered every record;
#: tests/core/test_startup.py checks that every record of the samples and the corpus a format
#: detects shows one of its tokens.
SNIFFS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "chat_completions": ("object", "choices", "messages", "role"),
        "anthropic": ("type", "messages", "role"),
        "gemini": (
            "[",
            "contents",
            "candidates",
            "promptFeedback",
            "prompt_feedback",
            "usageMetadata",
            "parts",
        ),
        "bedrock": ("[", "{1}", "output", "messages", "role"),
        "cohere": ("type", "message", "messages"),
        "errors": ("error",),
        "codex": ("payload",),
        "claude_code": ("uuid", "parentUuid", "sessionId", "isSidechain", "leafUuid", "userType"),
        "inspect_log": ("messages",),
        "otel": ("result", "trace", "resourceSpans", "batches", "resourceLogs", "data", "traceID"),
        "har": ("log",),
    }
)
REGISTRY = Registry.of_modules(__name__, FORMAT_MODULES, SNIFFS)
#: Formats whose files are whole sessions, each with the byte markers its files show early: a
#: file whose head shows one is asked of its module (`matches(data, first)`), which reads it
#: with its own loader (`load_file(data, path, source, check) -> list[Transcript]`); a file may
#: hold several conversations (see `load_conversations`). Only such a file imports the module.
SESSION_MARKERS: Mapping[str, tuple[bytes, ...]] = MappingProxyType(
    {
        # Every rollout's first line is a typed, payload-carrying line.
        "codex": (b'"payload"',),
        # A Claude Code session file or web export, near its start.
        "claude_code": (
            b'"sessionId"',
            b'"parentUuid"',
            b'"leafUuid"',
            b'"messageId"',
            b'"loglines"',
        ),
        # An Inspect log: a zip archive, or a document opening with its version.
        "inspect_log": (b"PK\x03\x04", b'"version"'),
        # An OTLP JSON export (or a Jaeger trace), near its start.
        "otel": (b'"resourceSpans"', b'"resourceLogs"', b'"batches"', b'"traceID"'),
        # A HAR file, at its start.
        "har": (b'"log"',),
    }
)


def session_candidates(head: bytes) -> list[ModuleType]:
    """The session formats whose markers the first 4 KiB of a file show, their modules imported."""
    head = head[:4096]
    return [
        importlib.import_module(f"{__name__}.{name}")
        for name, markers in SESSION_MARKERS.items()
        if any(mark in head for mark in markers)
    ]


def session_formats() -> tuple[ModuleType, ...]:
    """Every session format's module (each imported)."""
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in SESSION_MARKERS)


if TYPE_CHECKING:
    #: The registered formats (see `REGISTRY` for what is derived from them).
    FORMATS: tuple[FormatSpec, ...]
    STREAM_FORMATS: tuple[FormatSpec, ...]
    #: Format name → display label, and what the loader accepts (derived from `FORMATS`).
    FORMAT_LABELS: Mapping[str, str]
    EXPECTED: str

#: Module attributes derived from every format: each imports them all, so is made when asked.
_DERIVED = {
    "FORMATS": "formats",
    "STREAM_FORMATS": "stream_formats",
    "FORMAT_LABELS": "labels",
    "EXPECTED": "expected",
}


def __getattr__(name: str) -> Any:
    derived = _DERIVED.get(name)
    if derived is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(REGISTRY, derived)


#: Below this size a JSON document's item lines are located exactly; above it, lazily skipped.
LOCATE_LIMIT = 64 * 1024**2

__all__ = [
    "EXPECTED",
    "FORMATS",
    "FORMAT_LABELS",
    "REGISTRY",
    "STREAM_FORMATS",
    "FormatSpec",
    "Framing",
    "Registry",
    "classify",
    "detect_stream_dialect",
    "load_bytes",
    "load_conversations",
    "load_path",
    "load_stream",
    "load_stream_path",
    "load_text",
    "load_tools",
    "reduce_stream_path",
    "register",
    "sniff",
    "tools_from_document",
    "tools_from_list",
    "transcript_from_record",
]


# --------------------------------------------------------------------------------------------
# Detection and dispatch


def classify(obj: Any) -> str:
    """Name the kind of one JSON record (the best-scoring format's), or 'unknown'."""
    best_score, best_kind = 0, UNKNOWN
    for spec in REGISTRY.detecting(obj):
        found = spec.detect(obj)
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
    registry = REGISTRY
    spec = registry.spec_of(kind)
    if spec is not None and spec.array_stream_kind == kind:
        # A whole stream recorded as one JSON array is a file of its own, never a record
        # among others (a line of a JSONL log, a Batch body).
        raise LoadError(
            f"{spec.envelope_wording} stream recorded as a JSON array "
            "must be a file of its own, not one record among others",
            path=b.path,
            line=record.line,
        )
    if spec is None:
        raise LoadError(
            f"unrecognised record: found {describe(record.obj)}; expected {registry.expected}",
            path=b.path,
            line=record.line,
        )
    spec.load(b, record, kind)
    return kind


def _builder(path: str | None) -> Builder:
    return Builder(path, _add_record)


def transcript_from_record(
    obj: Any,
    path: str | None = None,
    line: int | None = 1,
    fmt: str | None = None,
    *,
    kind: str | None = None,
) -> Transcript:
    """Build a transcript from one parsed record (request, response, chat or Anthropic message),
    read as `kind` when the caller knows it (a HAR entry's URL names its API)."""
    b = _builder(path)
    kind = _add_record(b, Record(obj, line, ""), kind)
    return b.transcript(fmt or REGISTRY.format_of(kind))


# --------------------------------------------------------------------------------------------
# Framing: decided once per file


class Framing(StrEnum):
    """How a file lays out its records, decided once from its first bytes (see `sniff`)."""

    #: Nothing but whitespace (and a byte-order mark).
    EMPTY = "empty"
    #: One JSON value, over any number of lines: a record, an array of items, one event.
    DOCUMENT = "document"
    #: JSON Lines: one record per line.
    JSONL = "jsonl"
    #: Server-sent events.
    SSE = "sse"
    #: JSON Lines of stream events (an SDK's recording, one event per line).
    EVENT_JSONL = "event_jsonl"
    #: One JSON array of another API's stream events or chunks.
    EVENT_ARRAY = "event_array"


#: An SSE field line (`event:`, `data:`, `id:`, `retry:`) or comment (`:`), per WHATWG.
_SSE_FIELD = re.compile(rb"(event|data|id|retry)\s*:|:")
_SSE_LINE = re.compile(rb"^[ \t]*(event|data|id|retry)[ \t]*:", re.MULTILINE)
_NON_BLANK = re.compile(rb"\S")
#: How much of a file's head is looked at for SSE fields below a first line that is not one.
_HEAD = 1 << 16
#: Past this size an array's first element is not a stream event or chunk (the document's
#: loader still finds an array of big chunks by its kind, once it has parsed it).
_ELEMENT_LIMIT = 1 << 20
#: Not a whole JSON value.
_NOT_JSON: Any = object()
_SCANNER = json.JSONDecoder()


def sniff(data: bytes) -> Framing:
    """Decide how a file is framed, once, from its first line (or an array's first element).

    After a byte-order mark and blank lines: a first line that is an SSE field (`event:`,
    `data:`, `id:`, `retry:`, a `:` comment) is SSE; a first line that is a whole JSON value
    with more lines after it is JSON Lines, of events when that value is a stream event; a file
    that starts with no JSON but has SSE fields in its head is SSE; an array whose first element
    is another API's stream event or chunk is an event array; anything else is one document.
    Lines end at LF, CRLF or a lone CR. Bad UTF-16/32 data is a LoadError.
    """
    return _sniff(_utf8_body(data, None))


def _utf8_body(data: bytes, path: str | None) -> bytes:
    """The data as UTF-8 without a byte-order mark (UTF-16/32 is decoded first)."""
    if is_wide(data):
        return decode_text(data, path).encode("utf-8", "surrogatepass")
    return strip_utf8_bom(data)


def _first_non_blank(body: bytes, start: int = 0) -> int | None:
    """The offset of the first non-whitespace byte at or after `start` (no copy of the body)."""
    found = _NON_BLANK.search(body, start)
    return None if found is None else found.start()


def _line(body: bytes, start: int) -> tuple[int, int | None]:
    """Where the line at `start` ends, and where the next begins (None: it is the last).

    Lines end at LF, CRLF or a lone CR; found with `find`, not a regular expression, so that a
    file of one long line costs a scan of memory rather than a pass of the regex engine.
    """
    lf = body.find(b"\n", start)
    cr = body.find(b"\r", start, lf if lf >= 0 else len(body))
    if cr >= 0:
        return cr, cr + 2 if body[cr + 1 : cr + 2] == b"\n" else cr + 1
    if lf >= 0:
        return lf, lf + 1
    return len(body), None


def _sniff(body: bytes) -> Framing:
    start = _first_non_blank(body)
    if start is None:
        return Framing.EMPTY
    end, after = _line(body, start)
    head = body[start : min(end, start + 256)]
    json_start = head[:1] in (b"{", b"[")
    if not json_start and _SSE_FIELD.match(head):
        return Framing.SSE
    if after is not None and _first_non_blank(body, after) is not None:
        value = _whole_value(body[start:end])
        if value is not _NOT_JSON:
            return Framing.EVENT_JSONL if classify(value) == "stream_event" else Framing.JSONL
        if not json_start and _SSE_LINE.search(body, start, start + _HEAD):
            return Framing.SSE  # a first line the decoder ignores (a status line, a header)
    if head[:1] == b"[" and REGISTRY.array_stream(classify([_first_element(body, start)])):
        return Framing.EVENT_ARRAY
    return Framing.DOCUMENT


def _whole_value(line: bytes) -> Any:
    """The JSON value a line holds by itself, or _NOT_JSON."""
    if not orjson_has_headroom(len(line)):
        # orjson can crash on its error path when memory runs out (see orjson_has_headroom).
        if syntax_error(line) is not None:
            return _NOT_JSON
    else:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    try:
        return load_json(line.decode("utf-8"))  # big integers and what else orjson refuses
    except (LoadError, UnicodeDecodeError):
        return _NOT_JSON


def _first_value(body: bytes) -> Any:
    """The value of a body's first non-blank line, or _NOT_JSON."""
    start = _first_non_blank(body) or 0
    return _whole_value(body[start : _line(body, start)[0]])


def _first_element(body: bytes, start: int) -> Any:
    """The first element of the JSON array at `start`, read from as little of it as will do."""
    size = _HEAD
    while True:
        # A character cut at the window's end is dropped: the element then reads as cut off.
        text = body[start + 1 : start + 1 + size].decode("utf-8", "ignore")
        at = first_non_space(text)
        if at is not None and text[at] != "]":
            try:
                return _SCANNER.raw_decode(text, at)[0]
            except RecursionError:
                return _NOT_JSON  # nested too deeply: the document's loader says so
            except ValueError:
                pass
        if start + 1 + size >= len(body) or size >= _ELEMENT_LIMIT:
            return _NOT_JSON
        size *= 4


# --------------------------------------------------------------------------------------------
# Streams


def load_stream(data: bytes, path: str | None = None, *, strict: bool = False) -> Transcript:
    """Load a file that must be a recorded stream (SSE, JSONL of events, an array of chunks).

    The events are decoded once and kept on the result. Open Responses streams are reduced by
    the checked reducer; another API's stream is assembled into its final record, converted
    like that record, and reported as the foreign envelope it is (one `foreign_stream`
    violation).
    """
    body = _utf8_body(data, path)
    return _load_stream(body, path, strict, _sniff(body))


def _load_stream(body: bytes, path: str | None, strict: bool, framing: Framing) -> Transcript:
    from inspector.core.stream import (
        decode_sse,
        events_from_json_lines,
        events_from_sse,
        reduce_stream,
        stream_transcript,
    )

    at = _first_non_blank(body) or 0
    # An array of chunks too big for sniff to look into is found by its kind once parsed.
    if framing is Framing.EVENT_ARRAY or (
        framing is Framing.DOCUMENT and body[at : at + 1] == b"["
    ):
        array = _load_array_stream(body, path, strict)
        if array is not None:
            return array
        framing = Framing.DOCUMENT  # an array of chunks and other things: not a stream
    if framing is Framing.EVENT_JSONL or (
        framing in (Framing.JSONL, Framing.DOCUMENT) and _names_an_event(_first_value(body))
    ):
        # A file that must be a stream takes a first line whose type names an event
        # (`response.*`, `error`, `slug:…`) as one; a transcript would take it as an item.
        events = events_from_json_lines(
            (n, line) for n, line in enumerate(body.splitlines(), start=1) if line.strip()
        )
    elif framing is Framing.SSE:
        events = events_from_sse(decode_sse(body))
    elif framing is Framing.EMPTY:
        raise LoadError("the file is empty; expected a recorded event stream", path=path)
    else:
        start = at
        blank = body[:start]
        first = blank.count(b"\n") + blank.count(b"\r") - blank.count(b"\r\n") + 1
        if body[start : start + 1] in (b"{", b"["):
            raise LoadError(
                "this is a JSON document, not a recorded event stream (try `inspector gate`)",
                path=path,
                line=first,
            )
        raise LoadError(
            "no server-sent events found (no `event:` or `data:` lines)", path=path, line=first
        )
    if not events:
        raise LoadError(
            "no server-sent events found (no `event:` or `data:` lines)", path=path, line=1
        )
    event_framing = events[0].framing
    spec = _stream_format(events)
    if spec is not None:
        return _foreign_stream(spec, events, path, event_framing, strict)
    fmt = "stream_jsonl" if event_framing == "jsonl" else "sse"
    result = reduce_stream(events, strict=strict)
    return dataclasses.replace(stream_transcript(result, path, fmt), events=tuple(events))


def _names_an_event(value: Any) -> bool:
    """Whether a value is a stream event, read leniently (its type names one)."""
    if value is _NOT_JSON:
        return False
    if classify(value) == "stream_event":
        return True
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (
        kind.startswith("response.") or kind == "error" or ":" in kind
    )


def _array_stream(
    spec: FormatSpec, document: list[Any], path: str | None, text: str, strict: bool
) -> Transcript:
    """A stream recorded as one JSON array of events (or chunks): one event per element."""
    from inspector.core.stream import events_from_json_lines

    lines = element_lines(text, ()) if len(text) <= LOCATE_LIMIT else []
    if len(lines) != len(document):
        start = first_non_space(text) or 0
        lines = [text.count("\n", 0, start) + 1] * len(document)
    events = events_from_json_lines(zip(lines, document, strict=True))
    return _foreign_stream(spec, events, path, "json_array", strict)


def _load_array_stream(data: bytes, path: str | None, strict: bool) -> Transcript | None:
    """A file that is one JSON array of another API's stream chunks, else None."""
    text = decode_text(data, path).removeprefix("\ufeff")
    try:
        document = load_json(text, path)
    except LoadError:
        return None
    spec = REGISTRY.array_stream(classify(document))
    return None if spec is None else _array_stream(spec, document, path, text, strict)


def _stream_format(events: Sequence[StreamEvent]) -> FormatSpec | None:
    """The format of a foreign stream, or None for an Open Responses stream."""
    return next(
        (s for s in REGISTRY.stream_formats if s.detect_stream and s.detect_stream(events)), None
    )


def detect_stream_dialect(events: Sequence[StreamEvent]) -> str:
    """Name the API a stream speaks: `open_responses` or a foreign format's name."""
    spec = _stream_format(events)
    return "open_responses" if spec is None else spec.name


def _foreign_stream(
    spec: FormatSpec,
    events: Sequence[StreamEvent],
    path: str | None,
    framing: str,
    strict: bool,
) -> Transcript:
    from inspector.core.stream import StreamResult, Violation

    assert spec.assemble_stream is not None
    record = spec.assemble_stream(events, path)
    transcript = transcript_from_record(record, path, events[0].line, spec.name)
    first = events[0]
    message = (
        f"this is {spec.envelope_wording} stream, not Open Responses: a foreign envelope blocks "
        "replay (convert the record before replaying it to an Open Responses provider)"
    )
    stream = StreamResult(
        responses=(),
        status="foreign",
        events=len(events),
        violations=(
            Violation("foreign_stream", Severity.ERROR, first.index, None, first.line, message),
        ),
        strict=strict,
        framing=framing,
        dialect=spec.name,
        assembled=record,
    )
    return dataclasses.replace(transcript, stream=stream, events=tuple(events))


# --------------------------------------------------------------------------------------------
# Whole files


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


def _load_text(
    text: str,
    path: str | None,
    data: bytes | None,
    strict: bool,
    framing: Framing | None = None,
) -> Transcript:
    if text.startswith("\ufeff"):
        text = text[1:]
    if framing is None:
        framing = _sniff(strip_utf8_bom(_utf8(text, data)))
    if framing is Framing.EMPTY:
        raise LoadError(f"file is empty; expected {REGISTRY.expected}", path=path)
    if framing in (Framing.SSE, Framing.EVENT_JSONL):
        return _load_stream(strip_utf8_bom(_utf8(text, data)), path, strict, framing)
    utf8 = data is not None and not is_wide(data)
    long_digits = has_long_digits(data if utf8 and data is not None else text)
    if framing is Framing.JSONL:
        return load_jsonl_lines(text.splitlines(), path, long_digits=long_digits)
    # One document (an event array is one too, until its elements say otherwise).
    document = load_json(text, path, long_digits=long_digits)
    lines_of: Callable[[tuple[str | int, ...]], list[int]] | None = None
    if len(text) <= LOCATE_LIMIT:

        def lines_of(target: tuple[str | int, ...]) -> list[int]:
            return element_lines(text, target)

    first_number = text.count("\n", 0, first_non_space(text) or 0) + 1
    kind = classify(document)
    if kind == "stream_event":
        # One event alone is a stream of one (read as a file that must be a stream is).
        return load_stream(_utf8(text, data), path, strict=strict)
    array = REGISTRY.array_stream(kind)
    if array is not None:
        return _array_stream(array, document, path, text, strict)
    b = _builder(path)
    kind = _add_record(b, Record(document, first_number, "", lines_of), kind)
    return b.transcript(REGISTRY.format_of(kind))


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

    loaded = _load_records(records(), path)
    assert loaded is not None
    return loaded


#: A JSON Lines record the lean reader has added itself (an item).
_ADDED: Any = object()


def _load_records(
    records: Iterable[tuple[int, Any]],
    path: str | None,
    b: Builder | None = None,
    *,
    items_only: bool = False,
) -> Transcript | None:
    """Build a transcript from parsed JSONL records, given with their line numbers.

    `items_only`: None as soon as a record is not a bare item (see `load_jsonl_run`).
    """
    b = b or _builder(path)
    kinds: set[str] = set()
    for number, obj in records:
        if obj is _ADDED:
            kinds.add("item")
            continue
        kind = classify(obj)
        if items_only and kind != "item":
            return None
        if kind == "stream_event":
            # The first record was not an event (a stream is detected by its first line).
            raise LoadError(
                "file mixes streaming events with other records; a stream must be on its own",
                path=path,
                line=number,
            )
        kinds.add(_add_record(b, Record(obj, number, ""), kind))
    if not b.groups and not items_only:  # a run of blank lines holds no records
        raise LoadError(f"file has no records; expected {REGISTRY.expected}", path=path)
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
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    *,
    run: tuple[_lean.Risks, int, int] | None = None,
) -> Transcript | None:
    """Load UTF-8 JSON Lines (framed so by `sniff`) straight from bytes.

    Big logs are JSONL: parsing each line's bytes avoids holding the file, its decoded text
    and its split lines at once; items are read lean where they can be (see `_lean`).
    `cancel` is checked, and `progress` told, between lines. `run`: the bytes are a run of a
    file's lines (`load_jsonl_run`): the whole file's risks, the lines and the items before
    the run; None when a record is not a bare item.
    """
    risks = _lean.Risks(data) if run is None else run[0]
    long_digits = risks.long_digits
    lines_before, items_before = (0, 0) if run is None else run[1:]
    reader = None
    if risks.lean:
        reader = _lean.Reader(
            data, path, risks, locate=False, item_group=_bare_item_group, first=items_before
        )
    b = _builder(path)
    b.first = items_before  # items get their index in the whole file

    check = _checkpoint(cancel, progress, len(data))

    def records() -> Iterator[tuple[int, Any]]:
        # One line at a time, rather than a list of every line beside the data itself.
        position, number = 0, lines_before
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
            roomy = orjson_has_headroom(stop - position)
            if not roomy:
                # Before the line is copied: a huge invalid one is refused from the file's bytes.
                refuse_invalid(data, path, position, stop, number - 1)
            line, begin, position = data[position:stop], position, stop + 1
            if not line.strip():
                continue
            if reader is not None:
                shell = _lean_shell(reader, line, begin, stop, number)
                if shell is not None:
                    yield number, shell
                    continue
            if not long_digits and roomy:
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

    return _load_records(records(), path, b, items_only=run is not None)


class JsonlRuns(Struct, frozen=True):
    """A JSON Lines file of bare Open Responses items cut into runs at line starts.

    Each run loads on its own (`load_jsonl_run`) into the items one load of the whole file
    makes of its lines (the same indexes, lines and values), given the lines and items of
    the runs before it (`run_lines`). Its bytes are `data`, or, when `fd` is a descriptor of
    the file (`jsonl_file_runs`), read from there a run at a time.
    """

    data: bytes
    path: str | None
    #: Each run's (start, stop) in the file.
    runs: tuple[tuple[int, int], ...]
    #: The file's descriptor its runs are read from (any process forked with it may read
    #: them: `os.pread` moves no shared offset), or -1: they are in `data`.
    fd: int = -1

    def span(self, number: int) -> tuple[bytes, int, int]:
        """Run `number`'s bytes: a buffer, and where in it the run begins and ends (its
        file's bytes when held whole, else the run read from the file); a LoadError when
        the file no longer holds them."""
        start, stop = self.runs[number]
        if self.fd < 0:
            return self.data, start, stop
        try:
            piece = read_at(self.fd, stop - start, start)
        except OSError as exc:
            raise LoadError(
                f"run {number} (bytes {start:,} to {stop:,}) could not be read again: "
                f"{exc.strerror or exc}",
                path=self.path,
            ) from None
        return piece, 0, len(piece)

    def piece(self, number: int) -> bytes:
        """Run `number`'s bytes alone (see `span`)."""
        data, start, stop = self.span(number)
        return data if start == 0 and stop == len(data) else data[start:stop]


#: The start of each blank line but a run's first: its newline's offset plus one.
_BLANK_LINE = re.compile(rb"\n[ \t\r\x0b\x0c]*(?=\n)")
_BLANK_FIRST = re.compile(rb"[ \t\r\x0b\x0c]*\n")


def jsonl_runs(
    data: bytes, path: str | None, run_bytes: int, last_bytes: int | None = None
) -> JsonlRuns | None:
    """The file's runs of about `run_bytes` each (of `last_bytes` in its last two times
    `run_bytes`: processes taking the last runs then end close together), or None unless the
    file is JSON Lines that `load_bytes` reads line by line (no other framing, session format,
    BOM or encoding).

    Only the cuts are made here: what a run holds (its lines, a lone CR, what sends lines to
    the plain reader: see `_lean.Risks`) lies within its lines, so each run looks at its own.
    """
    if is_wide(data) or strip_utf8_bom(data) is not data:
        return None
    if session_format(data) is not None or _sniff(data) is not Framing.JSONL:
        return None
    cuts = [0]
    last = run_bytes if last_bytes is None else last_bytes
    while cuts[-1] < len(data):
        size = run_bytes if len(data) - cuts[-1] > 2 * run_bytes else last
        end = data.find(b"\n", cuts[-1] + max(size, 1) - 1)
        cuts.append(len(data) if end < 0 else end + 1)
    return JsonlRuns(data, path, tuple(itertools.pairwise(cuts)))


#: What `jsonl_file_runs` answers when a file's first chunk cannot tell: read it whole.
READ_WHOLE: Final = "read whole"


def jsonl_file_runs(
    fd: int, size: int, path: str | None, run_bytes: int, last_bytes: int | None = None
) -> JsonlRuns | Literal["read whole"] | None:
    """`jsonl_runs` of a regular file of `size` bytes open at `fd`, told from its first chunk
    and cut by reading around each cut, so that the file is never held whole here: each run
    is read by the process that loads it (`JsonlRuns.span`).

    None where `jsonl_runs` of its bytes gives None, told from that chunk as from the whole
    file, and for a file `read_bytes` refuses (past the size limit; binary data, a
    LoadError); READ_WHOLE when the chunk cannot tell as the whole file would (gzip data,
    session markers, a first line and the start of the next it does not hold): the caller
    reads the file whole. A LoadError when it cannot be read.
    """
    name = path or "<file>"
    if size > MAX_FILE_BYTES:
        return None
    try:
        head = read_at(fd, min(size, CHUNK_BYTES), 0)
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or exc}", path=name) from None
    if head.startswith(GZIP_MAGIC) or session_candidates(head):
        return READ_WHOLE
    refuse_binary(head, name)
    if is_wide(head) or strip_utf8_bom(head) is not head:
        return None
    # What `_sniff` reads of the whole file, its first line and where the next non-blank
    # one begins, must be in the head for it to read the same there.
    start = _first_non_blank(head)
    after = None if start is None else _line(head, start)[1]
    if after is None or _first_non_blank(head, after) is None:
        return READ_WHOLE
    if _sniff(head) is not Framing.JSONL:
        return None
    cuts = [0]
    last = run_bytes if last_bytes is None else last_bytes
    try:
        while cuts[-1] < size:
            want = run_bytes if size - cuts[-1] > 2 * run_bytes else last
            end = _newline_from(fd, cuts[-1] + max(want, 1) - 1, size)
            cuts.append(size if end < 0 else end + 1)
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or exc}", path=name) from None
    return JsonlRuns(b"", path, tuple(itertools.pairwise(cuts)), fd)


def _newline_from(fd: int, offset: int, size: int) -> int:
    """The offset of the file's first newline at or after `offset` (before `size`), or -1."""
    while offset < size:
        window = read_at(fd, min(_CUT_WINDOW, size - offset), offset)
        found = window.find(b"\n")
        if found >= 0:
            return offset + found
        offset += len(window)
    return -1


#: Bytes read at a time to find the newline that ends a run.
_CUT_WINDOW = 1 << 14


def run_lines(runs: JsonlRuns, number: int) -> tuple[int, int]:
    """The lines of run `number` (its newlines) and the items they hold (those not blank):
    summed over the runs before a run, where its lines and items are numbered from."""
    data, start, stop = runs.span(number)
    lines = data.count(b"\n", start, stop)
    # A run begins at a line start and ends after a newline (or at the end of the file), so
    # its blank lines are its first if blank and those after its newlines but its last.
    blank = 1 if _BLANK_FIRST.match(data, start, stop) else 0
    blank += sum(1 for _ in _BLANK_LINE.finditer(data, start, stop))
    return lines, lines - blank


def load_jsonl_run(runs: JsonlRuns, number: int, before: tuple[int, int]) -> Transcript | None:
    """Load one run of a JSON Lines file (`jsonl_runs`), given the lines and items `before`
    it (`run_lines` of each run before), or None when a record of it is not a bare item (a
    request, a response, a stream event: the whole file is then read as usual).

    Its items, group and format are those the whole file's load gives them: every record a
    bare item, the file is one group of them, begun by the first run with an item (a run of
    blank lines has no group).
    """
    lines, items = before
    data = runs.piece(number)
    risks = _lean.Risks(data)
    # A line that sends the whole file the plain way, or a lone CR (the file is then split
    # at CR too): the whole file is read as usual.
    if not risks.lean or _lone_cr(data):
        return None
    with paused_gc():
        return _jsonl_bytes(data, runs.path, run=(risks, lines, items))


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
    return b.transcript(REGISTRY.format_of(kind))


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
    if is_wide(data):
        return load_text(decode_text(data, path), path, data=data, strict=strict)
    body = strip_utf8_bom(data)
    session = session_format(body)
    if session is not None:
        check = _checkpoint(cancel, progress, len(body))
        with paused_gc():
            return session.load_file(body, path, None, check)[0]
    framing = _sniff(body)
    if framing in (Framing.SSE, Framing.EVENT_JSONL):
        return _load_stream(body, path, strict, framing)
    loaded: Transcript | None = None
    with paused_gc():
        if framing is Framing.JSONL and not _lone_cr(body):
            loaded = _jsonl_bytes(body, path, cancel, progress)
        elif framing is Framing.DOCUMENT:
            loaded = _lean_document(body, path)
        if loaded is None:
            if framing is Framing.DOCUMENT and not orjson_has_headroom(len(body)):
                # Decoded and parsed whole it would not fit: an invalid one is refused first.
                refuse_invalid(body, path, 0, len(body))
            # The exact way: decoded text (its errors say where), or an event array.
            loaded = _load_text(decode_text(data, path), path, data, strict, framing)
    return loaded


def refuse_invalid(
    data: bytes, path: str | None, start: int, stop: int, line_offset: int = 0
) -> None:
    """Raise the LoadError of data[start:stop] when msgspec finds it invalid JSON.

    For texts too big for orjson's headroom, whose standard-library parse would build the
    value whole before reaching its error: the error is found without building anything.
    """
    found = syntax_error(data, start, stop)
    if found is not None:
        line = (found.line or 1) + line_offset
        raise LoadError(f"invalid JSON: {found.message}", path=path, line=line, column=found.column)


def _lone_cr(body: bytes) -> bool:
    """Whether lines end at a lone CR somewhere (the bytes reader splits at LF only)."""
    return b"\r" in body and body.count(b"\r") != body.count(b"\r\n")


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


def session_format(body: bytes) -> ModuleType | None:
    """The format of a file of whole sessions (Codex, Claude Code, Inspect), or None.

    Each format names byte markers its files show early (`SESSION_MARKERS`); only a file that shows
    one has its first line parsed, so a large document of another format is not parsed twice.
    """
    if body.lstrip()[:1] != b"{" and not body.startswith(b"PK"):
        return None
    candidates = session_candidates(body)
    if not candidates:
        return None
    from inspector.core.formats._sessions import first_record

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
    name = display_name(path)
    source = None if name == "<stdin>" else Path(path)
    return conversations_from_bytes(
        read_bytes(path, cancel=cancel), name, source, strict=strict, cancel=cancel
    )


def conversations_from_bytes(
    data: bytes,
    name: str | None,
    source: Path | None = None,
    *,
    strict: bool = False,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> list[Transcript]:
    """Every conversation in a file's bytes (`source`: the file, for a session's sidecars)."""
    body = strip_utf8_bom(data)
    session = session_format(body)
    if session is None:
        return [load_bytes(data, name, strict=strict, cancel=cancel, progress=progress)]
    with paused_gc():
        loaded: list[Transcript] = session.load_file(
            body, name, source, _checkpoint(cancel, progress, len(body))
        )
    return loaded


def load_stream_path(path: str | os.PathLike[str], *, strict: bool = False) -> Transcript:
    """Load a file that must be a recorded stream; anything else is a LoadError."""
    return load_stream(read_bytes(path), display_name(path), strict=strict)


#: Bytes of an SSE body decoded at a time when a stream is reduced as it is read.
STREAM_WINDOW = 1 << 20
#: Events looked at to tell an Open Responses stream from another API's.
_DIALECT_EVENTS = 64


def reduce_stream_path(path: str | os.PathLike[str], *, strict: bool = False) -> Transcript:
    """Load a file that must be a recorded stream for its reduction alone (`inspector events`).

    An SSE stream of Open Responses events is decoded STREAM_WINDOW bytes at a time and each
    event handed to the reducer as it is parsed: no event is held, so a stream of gigabytes
    needs little more memory than its bytes (the transcript has no `events`). Any other stream
    is loaded as `load_stream_path` loads it; the reduction is the same either way.
    """
    from inspector.core.stream import SSEDecoder, events_from_sse, reduce_stream, stream_transcript

    data = read_bytes(path)
    name = display_name(path)
    body = _utf8_body(data, name)
    if _sniff(body) is not Framing.SSE:
        return load_stream(data, name, strict=strict)
    decoder = SSEDecoder()

    def decoded() -> Iterator[StreamEvent]:
        for start in range(0, len(body), STREAM_WINDOW):
            yield from events_from_sse(decoder.feed(body[start : start + STREAM_WINDOW]))
        yield from events_from_sse(decoder.close())

    events = decoded()
    head = list(itertools.islice(events, _DIALECT_EVENTS))
    # Streamed only when its first typed event is a `response.*` one and no other API claims
    # it: a foreign stream is assembled from all of its events, and an odd one says why.
    first = next((e.data for e in head if isinstance(e.data, dict) and "type" in e.data), None)
    kind = first.get("type") if first is not None else None
    if not (isinstance(kind, str) and kind.startswith("response.")) or _stream_format(head):
        return load_stream(data, name, strict=strict)
    result = reduce_stream(itertools.chain(head, events), strict=strict)
    return stream_transcript(result, name, "sse")


# --------------------------------------------------------------------------------------------
# Tool files


def load_tools(path: str | os.PathLike[str]) -> dict[str, Tool]:
    """Load tool schemas from a tools array, a request body, or a {name: schema} object."""
    name = display_name(path)
    text = decode_text(read_bytes(path), name)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise LoadError(
            "tools file is empty; expected a tools array, a request body with tools, or an "
            "object mapping tool names to JSON Schemas",
            path=name,
        )
    return tools_from_document(load_json(text, name), name)


def tools_from_document(document: Any, source: str) -> dict[str, Tool]:
    """Read tool schemas from a parsed tools document (see load_tools)."""
    spec = REGISTRY.spec_of(classify(document)) if isinstance(document, dict) else None
    if spec is not None and spec.declares_tools:
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
    found: dict[str, Tool] = {}
    for tool in tools_from_list(listed, source=source, file=source, pointer=base):
        earlier = found.get(tool.name)
        if earlier is not None and (earlier.parameters, earlier.kind) != (
            tool.parameters,
            tool.kind,
        ):
            # Which definition a provider would use is not knowable: refuse rather than guess.
            first, second = (t.origin.pointer if t.origin else "" for t in (earlier, tool))
            raise LoadError(
                f"tool {tool.name!r} is defined twice with different schemas "
                f"(at {first} and {second})",
                path=source,
                pointer=second,
            )
        found[tool.name] = tool
    if not found and listed:
        raise LoadError("no function tools found in the tools list", path=source)
    return found
