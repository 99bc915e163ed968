"""Frozen values over the raw JSON of a transcript: items, groups, tools and their origins."""

from __future__ import annotations

import copy
import gc
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, NoReturn

import msgspec

from inspector.core.codes import Severity as Severity  # re-exported: callers import it here
from inspector.core.display import show_number

# Re-exported for the callers that import them from here.
from inspector.core.errors import ArgumentsError, Cancelled, InspectorError, LoadError  # noqa: F401

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


class Envelope(msgspec.Struct, frozen=True, gc=False):
    """Which API's record shape an item or group was written in, and what the gate says of it.

    Each format declares its own (`formats.spec.FormatSpec.envelope`); the loader puts it on
    every group and item, so the gate reads the finding from the transcript, not a table.
    Open Responses records carry `Envelope.OPEN_RESPONSES`, which has no finding.
    """

    # The values of this module are msgspec Structs, made in C when the module is imported:
    # a frozen dataclass writes out and compiles its methods (about 6 M instructions each),
    # and every scan worker waits for this module. `msgspec.structs.replace` and `fields`
    # stand for the dataclasses functions; `__post_init__` runs on both ways of making one.

    #: The format name (`chat_completions`, `bedrock_converse`): also how JSON output says it.
    name: str
    #: The one display name of the format (`Anthropic Messages`).
    label: str
    #: The gate finding a record in this envelope gets (`anthropic_envelope`); None: replayable.
    finding: str | None = None
    #: How the finding's text names such a record, with its article (`an Anthropic Messages`).
    wording: str | None = None

    OPEN_RESPONSES: ClassVar[Envelope]

    def __post_init__(self) -> None:
        # A foreign envelope without a finding would pass the gate as replayable: refuse it
        # when it is made (at import of its format module), not when a record is judged.
        if not self.label:
            raise ValueError(f"envelope {self.name!r} has no label")
        if self.name != "open_responses" and not (self.finding and self.wording):
            raise ValueError(
                f"envelope {self.name!r} is not Open Responses and has no envelope finding "
                "(its code and wording): the gate would judge its records safe to replay"
            )

    def __str__(self) -> str:
        return self.name

    @property
    def value(self) -> str:
        """The name, as JSON output writes it."""
        return self.name


Envelope.OPEN_RESPONSES = Envelope("open_responses", "Open Responses")


def json_kind(value: Any, *, integers: bool = False) -> str:
    """Name a parsed value's JSON type (`integer` apart from `number` when asked)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer" if integers else "number"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def escape_pointer_token(token: str | int) -> str:
    """Escape one JSON Pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a JSON Pointer."""
    # Called for every converted block of a large session: most tokens need no escaping.
    for token in tokens:
        text = str(token)
        if "~" in text or "/" in text:
            text = escape_pointer_token(text)
        base += "/" + text
    return base


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value came from: file, 1-based line, JSON Pointer, and event number for streams."""

    file: str | None
    line: int | None
    pointer: str
    event_index: int | None = None

    def describe(self) -> str:
        """Return a short human-readable location (the file by its base name; reports and the
        window keep the full path in their file table or tooltip)."""
        where = os.path.basename(self.file) if self.file else "<input>"
        where = where or self.file or "<input>"
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


class Conversion(msgspec.Struct, frozen=True):
    """How a converted item was made from another API's record.

    The item's `origin` points at the native block; `native` is that block's JSON (shared with
    the parsed file, not copied), and `derived` lists what the native block did not say as it
    is. The gate and the diff look only at the item; reports and the window show the rest.
    """

    #: The format the item was converted from (`chat_completions`, `anthropic`, `gemini`, …).
    source: str
    native: Any
    derived: tuple[Derivation, ...] = ()
    #: The source format's display name (`Chat Completions`).
    label: str = ""

    def marks(self) -> dict[str, str]:
        """Map each derived field to how it was made."""
        return {d.field: d.how for d in self.derived}

    def describe(self) -> str:
        """One line for a note beside the item: where it came from and what was derived."""
        text = f"converted from {self.label or self.source}"
        if self.derived:
            text += ": " + "; ".join(f"{d.field} {d.how} ({d.detail})" for d in self.derived)
        return text

    def to_json(self) -> dict[str, Any]:
        """Return the conversion as a JSON object (without the native block, which is large)."""
        return {
            "from": self.source,
            "derived": [{"field": d.field, "how": d.how, "detail": d.detail} for d in self.derived],
        }


_MISSING: Any = object()


class LazySource:
    """Where lean items keep their JSON: the bytes of a file, read back one item on demand.

    A lean item holds only what the gate, the findings and the diff look at constantly (its
    type, id, call_id, name, role and status); its whole value is parsed from the source when
    asked for (`Item.raw`), so a large transcript is held about once, as the bytes it came in.
    """

    __slots__ = ()

    def value(self, index: int) -> Any:
        """The item's JSON value, parsed afresh."""
        raise NotImplementedError

    def field(self, index: int, key: str, default: Any) -> Any:
        """One member of the item's object (`default` when absent)."""
        value = self.value(index)
        return value.get(key, default) if isinstance(value, dict) else default

    def origin(self, index: int) -> Origin:
        """Where the item is in its file."""
        raise NotImplementedError

    def text(self, index: int) -> bytes:
        """The item's JSON exactly as the file has it."""
        raise NotImplementedError

    def place(self, index: int) -> tuple[int | None, str]:
        """The item's line and JSON Pointer (its `origin` without the Origin, for reports)."""
        origin = self.origin(index)
        return origin.line, origin.pointer

    def records(self) -> tuple[int, Sequence[int], str] | None:
        """When each of its items is a whole record at one JSON Pointer (a run of JSON Lines):
        the index of its first item, each item's line (0: not known) and that pointer; else
        None. Reports read the lines of a run of items from here, not one `place` call each."""
        return None


# Which of an item's hot members its object holds (bits of `Item._mask`).
HAS_TYPE = 1
TYPE_NULL = 2
HAS_ID = 4
HAS_CALL_ID = 8
HAS_NAME = 16
HAS_ROLE = 32
HAS_STATUS = 64
#: The item is lean: `raw` is read from a LazySource. A lean item keeps only HAS_TYPE (its
#: `type` is the raw one) beside this bit: a hot member's None may be null or absent.
LEAN = 128
#: Members kept beside a lean item (and any item), with their bits.
HOT_MEMBERS: Mapping[str, int] = MappingProxyType(
    {
        "id": HAS_ID,
        "call_id": HAS_CALL_ID,
        "name": HAS_NAME,
        "role": HAS_ROLE,
        "status": HAS_STATUS,
    }
)


def shorthand_type(t: Any, has_role: Any, has_id: Any) -> Any:
    """The effective type from the raw `type` (or _MISSING) and whether `role`, `id` are there.

    An item with no type (or a null one) but a `role` is a message, one with an `id` an
    item_reference.
    """
    if t is _MISSING or t is None:
        if has_role:
            return "message"
        if has_id:
            return "item_reference"
        return None
    return t


def unclaimed_object(kind: Any, keys: Iterable[str]) -> bool:
    """Whether an object met where an item belongs is no item: no type, no role, not only an id.

    Only `{"type": "item_reference", "id": …}` or an object with nothing but `id` is an
    item_reference; a manifest entry (`{"id": 1, "name": …}`) merely has an id. `kind` is the
    object's `type` (None when absent or null).
    """
    if kind is not None:
        return False
    names = set(keys)
    return "role" not in names and names - {"type"} != {"id"}


def unrecognised_item(keys: Iterable[str], origin: Origin) -> LoadError:
    """The error for an object of an item array that no format claims, naming where it is."""
    names = sorted(map(str, keys))
    found = f"an object with keys {', '.join(names[:8])}" if names else "an empty object"
    return LoadError(
        f"unrecognised record: found {found} where an item belongs (an item has a type or a "
        'role; an item_reference is {"type": "item_reference", "id": …} or an object with '
        "only an id)",
        path=origin.file,
        line=origin.line,
        pointer=origin.pointer,
    )


class _ItemFields(msgspec.Struct, frozen=True, gc=False):
    # The stored fields; `Item` shows `raw` and `origin` through properties, since a lean
    # item keeps a LazySource and no Origin. (gc=False: items never take part in a cycle.)
    index: int
    raw: Any
    origin: Origin | None
    group: int = 0
    envelope: Envelope = Envelope.OPEN_RESPONSES
    conversion: Conversion | None = None
    type: Any = None
    id: Any = None
    call_id: Any = None
    name: Any = None
    role: Any = None
    status: Any = None
    _mask: int = 0


_STORED_RAW = _ItemFields.__dict__["raw"]
#: An item's stored `raw` member, unparsed: a lean item's LazySource, any other item's value.
#: (One C call: a report looks at every item's source to find the runs of a JSON Lines file.)
stored_raw = _STORED_RAW.__get__
_STORED_ORIGIN = _ItemFields.__dict__["origin"]
_set = msgspec.structs.force_setattr
#: Values of lean items parsed lately, by their JSON text: a view asking for the same item
#: again and again parses it once.
_RECENT: dict[bytes, Any] = {}
_RECENT_SIZE = 128
_RECENT_LOCK = threading.Lock()


class Item(_ItemFields, frozen=True, gc=False):
    """One transcript item: its raw JSON value, position and origin.

    `type` is the effective type (the message and item_reference shorthands applied); `id`,
    `call_id`, `name`, `role` and `status` are the raw members (None when absent or when the
    item is not an object). A lean item (read by the loader straight from the file's bytes)
    parses its `raw` value on demand; everything else answers at once.
    """

    def __post_init__(self) -> None:
        if self._mask & LEAN:
            return
        raw = _STORED_RAW.__get__(self)
        if not isinstance(raw, dict):
            return
        # Each member read once, its presence told from the marker (a loop over HOT_MEMBERS
        # with a membership test and a get each cost more): every item not read lean is made
        # here.
        get, missing = raw.get, _MISSING
        t = get("type", missing)
        mask = 0 if t is missing else (HAS_TYPE | TYPE_NULL if t is None else HAS_TYPE)
        value = get("id", missing)
        if value is not missing:
            mask |= HAS_ID
            _set(self, "id", value)
        value = get("call_id", missing)
        if value is not missing:
            mask |= HAS_CALL_ID
            _set(self, "call_id", value)
        value = get("name", missing)
        if value is not missing:
            mask |= HAS_NAME
            _set(self, "name", value)
        value = get("role", missing)
        if value is not missing:
            mask |= HAS_ROLE
            _set(self, "role", value)
        value = get("status", missing)
        if value is not missing:
            mask |= HAS_STATUS
            _set(self, "status", value)
        _set(self, "type", shorthand_type(t, mask & HAS_ROLE, mask & HAS_ID))
        _set(self, "_mask", mask)

    def with_status(self, raw: dict[str, Any], conversion: Conversion | None) -> Item:
        """This item as `raw`, its value with a `status` member added (made as `conversion`
        says): its other members are the same, so they are not read from the value again."""
        made = copy.copy(self)  # a copy is not initialised again
        _STORED_RAW.__set__(made, raw)
        _set(made, "conversion", conversion)
        _set(made, "status", raw["status"])
        _set(made, "_mask", self._mask | HAS_STATUS)
        return made

    def has_fields(self) -> bool:
        """Whether the item's JSON value is a non-empty object or array (a lean item with a
        `type` member is one, and is answered without parsing it)."""
        if self._mask & LEAN and self._mask & HAS_TYPE:
            return True
        value = self.raw
        return isinstance(value, dict | list) and len(value) > 0

    @property  # type: ignore[misc]  # a msgspec field read through a property
    def raw(self) -> Any:
        """The item's JSON value (a lean item's is parsed from its file's bytes).

        The values of the last lean items asked for are kept, so a view asking for the same
        item again gets the same object; a pass over many items should use `read`.
        """
        stored = _STORED_RAW.__get__(self)
        if not self._mask & LEAN:
            return stored
        # Kept by the JSON text itself: the same text is the same value whatever item or
        # file it comes from, and a dropped transcript is never kept alive from here.
        text = stored.text(self.index)
        with _RECENT_LOCK:
            found = _RECENT.get(text, _MISSING)
        if found is not _MISSING:
            return found
        value = stored.value(self.index)
        with _RECENT_LOCK:
            _RECENT[text] = value
            while len(_RECENT) > _RECENT_SIZE:
                del _RECENT[next(iter(_RECENT))]
        return value

    @property  # type: ignore[misc]  # a msgspec field read through a property
    def origin(self) -> Origin:
        """Where the item is: file, line, JSON Pointer (and event number in a stream)."""
        stored = _STORED_ORIGIN.__get__(self)
        if stored is None:
            return _STORED_RAW.__get__(self).origin(self.index)
        return stored

    def read(self) -> Any:
        """The JSON value, for a pass over many items: a lean item's is parsed and not kept."""
        stored = _STORED_RAW.__get__(self)
        return stored.value(self.index) if self._mask & LEAN else stored

    @property
    def lean_source(self) -> LazySource | None:
        """The source a lean item is read from (None for an item held as a parsed value)."""
        return _STORED_RAW.__get__(self) if self._mask & LEAN else None

    def get(self, key: str, default: Any = None) -> Any:
        """Return a raw field, or default when the item is not an object or lacks it."""
        mask = self._mask
        bit = HOT_MEMBERS.get(key)
        if bit is not None:
            value = getattr(self, key)
            if value is not None:
                return value
            if not mask & LEAN:
                return None if mask & bit else default
            # A lean item keeps no presence bits: None may be null or absent, so read it.
        elif key == "type" and mask & HAS_TYPE:
            return None if mask & TYPE_NULL else self.type
        elif key == "type" and not mask & LEAN:
            return default
        stored = _STORED_RAW.__get__(self)
        if mask & LEAN:
            return stored.field(self.index, key, default)
        if isinstance(stored, dict):
            return stored.get(key, default)
        return default

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def _compared(self) -> tuple[Any, ...]:
        return (self.index, self.read(), self.origin, self.group, self.envelope)

    def __repr__(self) -> str:
        return (
            f"Item(index={self.index!r}, raw={self.raw!r}, origin={self.origin!r}, "
            f"group={self.group!r}, envelope={self.envelope!r}, conversion={self.conversion!r})"
        )

    @property
    def type_label(self) -> str:
        """The type as display text, whatever its JSON kind."""
        t = self.type
        return t if isinstance(t, str) else ("(no type)" if t is None else show_number(t))

    @property
    def namespaced(self) -> bool:
        """Whether the type is not a plain string (a provider extension or garbage)."""
        t = self.type
        return not isinstance(t, str) or ":" in t


class _Hidden:
    """A class attribute that reads as absent (an AttributeError): hides the one it overrides."""

    def __get__(self, instance: object, owner: type | None = None) -> NoReturn:
        raise AttributeError("not defined on this class")


class LeanItem(Item, frozen=True, gc=False):
    """A lean item (`LEAN` in its mask), made with the hot members its loader decoded.

    An `Item` in all but one way: making one runs no `__post_init__`, which for a lean item
    only looks at its mask and returns (about 800 instructions, a Python call, for every item
    of a large log). msgspec looks the hook up once, when it makes the class, by getattr: this
    class hides Item's. Loaders make their lean items as LeanItems, any other item as an Item.
    """

    __post_init__ = _Hidden()  # type: ignore[misc]


def effective_type(raw: Any) -> Any:
    """Return the item type, applying the message and item_reference shorthands."""
    if not isinstance(raw, dict):
        return None
    t = raw.get("type", _MISSING)
    if t is not _MISSING and t is not None:
        return t
    return shorthand_type(t, "role" in raw, "id" in raw)


class Note(msgspec.Struct, frozen=True, gc=False):
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
    #: For a file that holds several conversations (a session with subagents, a trace, an eval
    #: log, a capture): this conversation's id within it; None for a file of one conversation.
    conversation: str | None = None
