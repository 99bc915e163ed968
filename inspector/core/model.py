"""Frozen values over the raw JSON of a transcript: items, groups, tools and their origins."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple

#: Item types of the Open Responses portable core; anything else is provider-specific.
PORTABLE_CORE: frozenset[str] = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "item_reference",
        "compaction",
    }
)

#: Statuses an item may carry according to the specification.
ITEM_STATUSES: frozenset[str] = frozenset({"in_progress", "completed", "incomplete"})


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around bulk work on parsed JSON.

    Parsed JSON holds no reference cycles, yet building hundreds of thousands of dicts and
    items triggers full collections that rescan the whole growing heap (a third of a large
    load). Reference counting still frees everything; collection resumes afterwards for
    objects allocated from then on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # Everything allocated meanwhile sits in the youngest generation; the first
            # collection after re-enabling would scan it all at once (half a second for a
            # large log, a visible stall in the window). Freezing moves it out of the
            # collector's sight; reference counting still frees it when it is dropped.
            gc.freeze()
            gc.enable()


class Envelope(StrEnum):
    """Which API's record shape an item or group was written in."""

    OPEN_RESPONSES = "open_responses"
    CHAT_COMPLETIONS = "chat_completions"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    BEDROCK = "bedrock_converse"


class Severity(StrEnum):
    """How much a finding or violation matters for the replay decision."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class InspectorError(Exception):
    """Base of every error the project raises on purpose."""


class LoadError(InspectorError):
    """A file could not be read as a transcript; says where and what."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        event_index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.event_index = event_index

    def location(self) -> str:
        """Return 'file:line:column' (or the parts that are known)."""
        parts = [self.path or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        text = ":".join(parts)
        if self.event_index is not None:
            text += f" (event {self.event_index})"
        return text

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """Return the error as the CLI's JSON error object."""
        data: dict[str, Any] = {"message": self.message, "line": self.line, "column": self.column}
        if self.event_index is not None:
            data["event_index"] = self.event_index
        return data


class Cancelled(InspectorError):
    """Work stopped because its cancel flag was set (a load or gate the user no longer wants)."""


class ArgumentsError(InspectorError):
    """An `arguments` string is not strict JSON; carries line and column when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def describe(self) -> str:
        """Return the message with its position."""
        if self.line is None:
            return self.message
        return f"{self.message} at line {self.line} column {self.column}"


def escape_pointer_token(token: str | int) -> str:
    """Escape one JSON Pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a JSON Pointer."""
    return base + "".join("/" + escape_pointer_token(t) for t in tokens)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value came from: file, 1-based line, JSON Pointer, and event number for streams."""

    file: str | None
    line: int | None
    pointer: str
    event_index: int | None = None

    def describe(self) -> str:
        """Return a short human-readable location."""
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.pointer:
            where += f" {self.pointer}"
        if self.event_index is not None:
            where += f" (event {self.event_index})"
        return where


class Derivation(NamedTuple):
    """One field of a converted item that the native record did not hold as it is."""

    #: The item field: `call_id`, `status`, `arguments`, `output`, `content`.
    field: str
    #: How it was made: `synthesised`, `paired`, `derived`, `serialised` or `converted`.
    how: str
    #: Why, in words (the stop reason it came from, the call it was paired with, …).
    detail: str


@dataclass(frozen=True, slots=True)
class Conversion:
    """How a converted item was made from another API's record.

    The item's `origin` points at the native block; `native` is that block's JSON (shared with
    the parsed file, not copied), and `derived` lists what the native block did not say as it
    is. The gate and the diff look only at the item; reports and the window show the rest.
    """

    #: The format the item was converted from (`chat_completions`, `anthropic`, `gemini`, …).
    source: str
    native: Any
    derived: tuple[Derivation, ...] = ()

    def marks(self) -> dict[str, str]:
        """Map each derived field to how it was made."""
        return {d.field: d.how for d in self.derived}

    def describe(self) -> str:
        """One line for a note beside the item: where it came from and what was derived."""
        label = FORMAT_LABELS.get(self.source, self.source)
        text = f"converted from {label}"
        if self.derived:
            text += ": " + "; ".join(f"{d.field} {d.how} ({d.detail})" for d in self.derived)
        return text

    def to_json(self) -> dict[str, Any]:
        """Return the conversion as a JSON object (without the native block, which is large)."""
        return {
            "from": self.source,
            "derived": [{"field": d.field, "how": d.how, "detail": d.detail} for d in self.derived],
        }


#: Display names of the formats items can be converted from.
FORMAT_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "chat_completions": "Chat Completions",
        "anthropic": "Anthropic Messages",
        "gemini": "Gemini generateContent",
        "bedrock_converse": "Bedrock Converse",
    }
)


_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class Item:
    """One transcript item: its raw JSON value, position and origin."""

    index: int
    raw: Any
    origin: Origin
    group: int = 0
    envelope: Envelope = Envelope.OPEN_RESPONSES
    #: For an item converted from another API's record: how it was made (None otherwise).
    conversion: Conversion | None = field(default=None, compare=False)
    # The effective type is asked for constantly (gate, findings, models); work it out once.
    _type: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_type", effective_type(self.raw))

    def get(self, key: str, default: Any = None) -> Any:
        """Return a raw field, or default when the item is not an object or lacks it."""
        if isinstance(self.raw, dict):
            return self.raw.get(key, default)
        return default

    @property
    def type(self) -> Any:
        """The effective type: the raw `type`, or `message` / `item_reference` for shorthands."""
        return self._type

    @property
    def type_label(self) -> str:
        """The type as display text, whatever its JSON kind."""
        t = self.type
        return t if isinstance(t, str) else ("(no type)" if t is None else repr(t))

    @property
    def id(self) -> Any:
        """The raw item `id`."""
        raw = self.raw
        return raw.get("id") if type(raw) is dict else None

    @property
    def call_id(self) -> Any:
        """The raw `call_id`."""
        raw = self.raw
        return raw.get("call_id") if type(raw) is dict else None

    @property
    def name(self) -> Any:
        """The raw `name`."""
        raw = self.raw
        return raw.get("name") if type(raw) is dict else None

    @property
    def role(self) -> Any:
        """The raw `role`."""
        raw = self.raw
        return raw.get("role") if type(raw) is dict else None

    @property
    def status(self) -> Any:
        """The raw `status`."""
        raw = self.raw
        return raw.get("status") if type(raw) is dict else None

    @property
    def namespaced(self) -> bool:
        """Whether the type is not a plain string (a provider extension or garbage)."""
        t = self.type
        return not isinstance(t, str) or ":" in t


def effective_type(raw: Any) -> Any:
    """Return the item type, applying the message and item_reference shorthands."""
    if not isinstance(raw, dict):
        return None
    t = raw.get("type", _MISSING)
    if t is _MISSING or t is None:
        if "role" in raw:
            return "message"
        if "id" in raw:
            return "item_reference"
        return None
    return t


@dataclass(frozen=True, slots=True)
class Note:
    """Something the loader had to assume or leave out of a record; the gate reports it."""

    code: str
    severity: Severity
    message: str


@dataclass(frozen=True, slots=True)
class Group:
    """A record an item came from: a request, a response, an item list, a stream, an error body."""

    index: int
    kind: str
    origin: Origin
    envelope: Envelope = Envelope.OPEN_RESPONSES
    status: str | None = None
    incomplete_details: Any = None
    error: Any = None
    response_id: str | None = None
    previous_response_id: str | None = None
    #: What the loader assumed or left out while reading this record (reported as findings).
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool definition: name, JSON Schema for its arguments, and where it was defined."""

    name: str
    parameters: Any
    kind: str = "function"
    source: str = "transcript"
    origin: Origin | None = None
    #: The definition's own `strict` flag (None when absent); target profiles read it.
    strict: bool | None = None

    @property
    def has_schema(self) -> bool:
        """Whether a JSON Schema is known for the arguments."""
        return self.parameters is not None


@dataclass(frozen=True, slots=True)
class Transcript:
    """A loaded file: items in order, the records they came from, tools and tool_choice."""

    path: str | None
    format: str
    items: tuple[Item, ...]
    groups: tuple[Group, ...] = ()
    tools: Mapping[str, Tool] = field(default_factory=lambda: MappingProxyType({}))
    tool_choice: Any = None
    #: For a recorded stream: the reduced result (a `StreamResult`) and its decoded events.
    stream: Any = None
    events: tuple[Any, ...] = ()
