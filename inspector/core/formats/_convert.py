"""Converting another API's record into Open Responses items: one set of rules for every format.

- A native call id becomes `call_id`. Where a format has none (Gemini often), a deterministic id
  is synthesised, `<slug>_call_<n>` numbered in file order, and marked `synthesised`.
- A result without an id pairs with the nearest earlier unanswered call of the same name
  (marked `paired`); when one turn made several calls of that name, they are answered in the
  order they were made. A result with an id answers that call.
- `arguments` is the native string where there is one; a native object is serialised compactly
  (no spaces, keys in their order, non-ASCII kept) and marked `serialised`.
- `status` comes from the record's stop reason and is marked `derived`. A response that stopped
  normally gives `completed`; one stopped by a limit (max tokens, a filter) leaves its *last*
  item `incomplete`, since only that one can have been cut off; with no stop reason the last
  item is `in_progress`, unless a result later in the source answers the call (it ran:
  `completed`). A call sent back in a request's history had finished: `completed`.
- Native blocks with no item equivalent become provider-prefixed items (`anthropic:thinking`,
  `google:thought`, …), and native fields with no item field stay on the item under the
  provider's prefix (`anthropic:cache_control`, `google:thought_signature`, …): never dropped.
"""

from __future__ import annotations

import itertools
import json
from array import array
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any

import orjson
from msgspec import Struct, field
from msgspec.structs import force_setattr

from inspector.core.formats._records import Builder, Record, item_lines
from inspector.core.model import (
    HAS_TYPE,
    LEAN,
    Conversion,
    Derivation,
    Envelope,
    Item,
    LazySource,
    LeanItem,
    Note,
    Origin,
    Severity,
    join_pointer,
)

COMPLETED = "completed"
INCOMPLETE = "incomplete"
IN_PROGRESS = "in_progress"

#: Marks a native field that is not there at all (as opposed to null).
ABSENT: Any = object()


def outcome(reasons: Mapping[str, str], value: Any) -> str:
    """The response status a native stop reason means: unknown reasons count as cut off."""
    if value is None:
        return IN_PROGRESS
    return reasons.get(value, INCOMPLETE) if isinstance(value, str) else INCOMPLETE


#: Made once: `json.dumps` with options builds an encoder on every call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
#: orjson refuses, rather than writes its own way, what the standard library may write
#: otherwise: subclasses of str, int, dict and list, dataclasses and dates.
_ORJSON_PLAIN = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
#: A digit then an exponent, `0e` in the text with every digit made `0` and `E` made `e`:
#: orjson and the standard library write exponents differently (`1e16` and `1e+16`); without
#: one they write every float alike (shortest round trip). (A translation and a substring
#: search cost less than a regular expression's scan, which tests each byte in Python's
#: matcher.)
_EXPONENT_FOLD = bytes.maketrans(b"123456789E", b"000000000e")


def serialise(value: Any) -> str | None:
    """Compact JSON text of a native value (keys in their order, non-ASCII kept), or None when
    it cannot be written.

    The text is the standard library's (`separators=(",", ":")`, `ensure_ascii=False`).
    orjson writes it about 20 times faster and byte for byte the same, except where it
    refuses a value (an integer beyond 64 bits, a lone surrogate, a key that is not a string,
    nesting past 255 levels), writes `null` for NaN and the infinities, or writes an exponent
    its own way: then the standard library writes it.
    """
    try:
        text = orjson.dumps(value, option=_ORJSON_PLAIN)
    except TypeError:
        pass
    else:
        if b"null" not in text and b"0e" not in text.translate(_EXPONENT_FOLD):
            return text.decode()
    try:
        return _COMPACT.encode(value)
    except (TypeError, ValueError, RecursionError):
        return None


def prefixed(native: Mapping[str, Any], known: Iterable[str], slug: str) -> dict[str, Any]:
    """The native fields outside `known`, under the provider's prefix (kept, never dropped)."""
    skip = known if isinstance(known, frozenset) else frozenset(known)
    return {f"{slug}:{k}": v for k, v in native.items() if k not in skip}


#: The status mark of a call sent back in a request's history (one value, shared by all).
HISTORY_STATUS = Derivation(
    "status", "derived", "a call in the history sent back to the model had finished"
)
#: The mark of a message whose native content blocks were rewritten as Open Responses parts.
PARTS_CONVERTED = Derivation(
    "content", "converted", "native content blocks written as Open Responses parts"
)


def empty_text(part: Any) -> bool:
    """A converted text part with no text and nothing else."""
    return (
        isinstance(part, dict)
        and part.get("text") == ""
        and part.keys() == {"type", "text"}
        and part["type"] in ("input_text", "output_text")
    )


def _empty_content(content: Any) -> bool:
    """Native content that holds nothing: none given, an empty list, only empty text blocks."""
    if content is ABSENT:
        return True
    if not isinstance(content, list):
        return False
    return all(
        isinstance(b, dict) and b.get("text") == "" and set(b) <= {"type", "text"} for b in content
    )


def text_part(role: Any, text: Any) -> dict[str, Any]:
    """An Open Responses text content part for a message of this role."""
    return {"type": "output_text" if role == "assistant" else "input_text", "text": text}


#: How converted items' conversions are made (a source makes them by the hundred thousand):
#: Conversion is a msgspec Struct, whose constructor sets its fields in C.
conversion_of = Conversion

#: Numbers each `Held`, so the keys `Item.raw` keeps values by never meet another's.
_HELD = itertools.count()


def _copied(value: Any) -> Any:
    """A JSON value's containers copied (what a caller of `Item.read` may change in place)."""
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    if type(value) is list:
        return [_copied(v) for v in value]
    return value


class Held(LazySource):
    """Converted items kept as they were made, with each one's line and JSON Pointer.

    An item made from one (`add`) is a lean item: it needs no Origin and no pass over its
    value for its hot members, which its maker gives (a converted session's items are made by
    the hundred thousand). Its value is handed out as a copy, as a lean item's is parsed
    afresh: a caller may change it.
    """

    __slots__ = ("first", "key", "lines", "path", "pointer_text", "pointers", "values")

    def __init__(self, path: str | None, first: int) -> None:
        self.path = path
        #: Index of the first item in the transcript.
        self.first = first
        self.values: list[Any] = []
        #: Each item's line (0 when not known) and pointer.
        self.lines = array("q")
        self.pointers: list[str] = []
        #: One copy of each pointer text (a session's items share a few).
        self.pointer_text: dict[str, str] = {}
        self.key = b"held %d " % next(_HELD)

    def add(
        self,
        items: list[Item],
        raw: dict[str, Any],
        line: int | None,
        pointer: str,
        group: int,
        envelope: Envelope,
        conversion: Conversion,
        hot: tuple[Any, Any, Any, Any, Any, Any] | None = None,
    ) -> None:
        """Append an item of `raw` (an object with a string `type`) to `items`. `hot`: its
        hot members its maker knows already (type, id, call_id, name, role and status, each
        None when absent), then not read from it again, and a pointer the maker shares."""
        if hot is None:
            get = raw.get
            hot = (raw["type"], get("id"), get("call_id"), get("name"), get("role"), get("status"))
            pointer = self.pointer_text.setdefault(pointer, pointer)
        self.values.append(raw)
        self.lines.append(line or 0)
        self.pointers.append(pointer)
        items.append(
            LeanItem(len(items), self, None, group, envelope, conversion, *hot, LEAN | HAS_TYPE)
        )

    def value(self, index: int) -> Any:
        """A copy of the item's value."""
        return _copied(self.values[index - self.first])

    def field(self, index: int, key: str, default: Any) -> Any:
        """One member of the item's object (`default` when absent)."""
        return self.values[index - self.first].get(key, default)

    def origin(self, index: int) -> Origin:
        """Where the item is in its file."""
        k = index - self.first
        return Origin(self.path, self.lines[k] or None, self.pointers[k])

    def text(self, index: int) -> bytes:
        """A key of the item's value, its own (a converted item has no text in the file)."""
        return self.key + b"%d" % index

    def place(self, index: int) -> tuple[int | None, str]:
        """The item's line and JSON Pointer, as `origin` has them."""
        k = index - self.first
        return self.lines[k] or None, self.pointers[k]


def renumber(items: Sequence[Item], offset: int) -> None:
    """Number items made on their own, before anything else has seen them, from `offset` on:
    the whole file's index of a run of its records converted by another process."""
    number = force_setattr
    for item in items:
        number(item, "index", item.index + offset)
    # A run of held items, or of items read lean, is consecutive: one look at its first item
    # finds it.
    from inspector.core.formats._lean import JsonRun

    k = 0
    while k < len(items):
        source = items[k].lean_source
        if type(source) is Held:
            source.first += offset
            k += len(source.values)
        elif type(source) is JsonRun:
            source.first += offset
            k += len(source.starts)
        else:
            k += 1


def held(b: Builder) -> Held:
    """The run of held items the builder's next item joins: its last item's, unless that item
    is not held or items were taken away since (a snapshot's last turn converted again)."""
    items = b.items
    if items:
        run = items[-1].lean_source
        if type(run) is Held and run.first + len(run.values) == len(items):
            return run
    return Held(b.path, len(items))


class _Pending(Struct):
    raw: dict[str, Any]
    pointer: str
    line: int | None
    native: Any
    derived: list[Derivation]


class _Message(Struct):
    role: Any
    pointer: str
    line: int | None
    native: Any
    fields: dict[str, Any]
    parts: list[Any] = field(default_factory=list)
    #: What was derived for every item of the message (its role), and for the parts gathered.
    derived: list[Derivation] = field(default_factory=list)
    part_marks: list[Derivation] = field(default_factory=list)
    #: Whether the native message gave any item yet (an empty message still gives one).
    produced: bool = False


def choose(
    listed: Any, index_of: Callable[[dict[str, Any]], Any]
) -> tuple[tuple[int, dict[str, Any]] | None, int]:
    """The alternative a conversation continues with (`index` 0, else the first object) with
    its position, and how many alternatives there are (choices, candidates)."""
    alternatives = [
        (i, c)
        for i, c in enumerate(listed if isinstance(listed, list) else ())
        if isinstance(c, dict)
    ]
    chosen = next((a for a in alternatives if index_of(a[1]) == 0), None)
    return chosen or (alternatives[0] if alternatives else None), len(alternatives)


class Api(Struct, frozen=True):
    """What conversion needs to know of a format: its names and what its stop reasons mean."""

    #: The envelope of its records: its name is the transcript's format name (`gemini`) and
    #: the `Conversion.source` of its items.
    envelope: Envelope
    #: The provider prefix of items and fields with no Open Responses equivalent.
    slug: str
    #: Stop reason → `completed` or `incomplete` (anything else counts as cut off).
    reasons: Mapping[str, str]
    #: The native name of the stop reason field, for the marks.
    reason_field: str


def start(
    b: Builder,
    record: Record,
    kind: str,
    api: Api,
    *,
    reason: Any = ABSENT,
    error: Any = None,
    response_id: Any = None,
) -> Converter:
    """Open the record's group and a Converter for it.

    A response gives its stop `reason`: the group's status comes from it (`failed` when the
    record carries an error). A request or a lone message gives none: its calls are history.
    """
    origin = Origin(b.path, record.line, record.base)
    if reason is ABSENT:
        group = b.group(kind, origin, envelope=api.envelope)
    else:
        status = "failed" if error is not None else outcome(api.reasons, reason)
        group = b.group(
            kind,
            origin,
            envelope=api.envelope,
            status=status,
            incomplete_details={"reason": reason} if status == INCOMPLETE else None,
            error=error,
            response_id=response_id if isinstance(response_id, str) else None,
        )
    return Converter(b, record, group, api, reason)


class Converter:
    """Builds the converted items of one native record (a request, a response, a message)."""

    def __init__(
        self,
        b: Builder,
        record: Record,
        group: int,
        api: Api,
        reason: Any,
        answered: Container[str] = (),
        *,
        hold: bool = False,
    ) -> None:
        self.b = b
        #: Call ids that a result later in the source answers (a trace's later span): such a
        #: call ran, even when the response recorded no stop reason.
        self.answered = answered
        self.record = record
        self.group = group
        self.api = api
        self.slug = api.slug
        #: The response's stop reason, or ABSENT for history (a request, a lone message).
        self.reason = reason
        self.pending: list[_Pending] = []
        self.message: _Message | None = None
        #: The format name and label its items' conversions name (the envelope's, unless a
        #: source reads these records from a file of its own: a session, a trace).
        self.source = (api.envelope.name, api.envelope.label)
        #: Whether its items are kept as held items (`Held`): a source with many of them.
        self.hold = hold
        #: The run its last held items went to.
        self.held: Held | None = None
        #: Results without an id that were paired with an earlier call (`output`).
        self.paired = 0

    def turns(self, key: str, convert: Callable[[dict[str, Any], str, int | None], None]) -> None:
        """Convert each turn of the record's `key` array, on its own line; a turn that is not
        an object is kept as a prefixed item."""
        record = self.record
        turns = record.obj.get(key)
        if not isinstance(turns, list):
            return
        lines = item_lines(record, (key,), len(turns))
        for i, turn in enumerate(turns):
            pointer = join_pointer(record.base, key, i)
            if isinstance(turn, dict):
                convert(turn, pointer, lines[i])
            else:
                self.extra("turn", {"value": turn}, pointer, turn, lines[i])

    def alternatives(self, count: int, what: str) -> None:
        """Note that a response offered `count` alternatives (choices, candidates) and only the
        first was read: the others do not continue the conversation."""
        if count > 1:
            origin = self.b.groups[self.group].origin
            self.b.note(
                self.group,
                Note(
                    f"extra_{what}",
                    Severity.WARNING,
                    f"{origin.describe()}: {count} {what}; only the first is read, as the one a "
                    "conversation continues with; the others are not in the transcript",
                ),
            )

    # ---------------------------------------------------------------------------------------
    # Messages and their content parts

    def begin(
        self,
        role: Any,
        pointer: str,
        native: Any,
        line: int | None = None,
        fields: dict[str, Any] | None = None,
    ) -> None:
        """Start a native message; its content parts gather until a call or result splits them."""
        self.end()
        self.message = _Message(role, pointer, line, native, fields or {})

    def part(self, part: Any, mark: Derivation | None = None) -> None:
        """Add a content part to the open message, with what its conversion changed."""
        message = self.message
        if message is not None:
            message.parts.append(part)
            if mark is not None and mark not in message.part_marks:
                message.part_marks.append(mark)

    def note(self, derivation: Derivation) -> None:
        """Mark something derived about every message item of the open message."""
        if self.message is not None and derivation not in self.message.derived:
            self.message.derived.append(derivation)

    def content(self, value: Any) -> None:
        """Give the open message its native content as it is (a string, null, …)."""
        message = self.message
        if message is not None:
            self._flush()
            self._message_item(message, value)

    def _flush(self) -> None:
        message = self.message
        if message is None or not message.parts:
            return
        # Empty text parts (a trailing `{"text": ""}`) hold nothing: no message of them alone.
        parts = [p for p in message.parts if not empty_text(p)]
        if parts:
            self._message_item(message, parts, message.part_marks)
        message.parts.clear()
        message.part_marks = []

    def _message_item(
        self, message: _Message, content: Any, marks: list[Derivation] | None = None
    ) -> None:
        raw: dict[str, Any] = {"type": "message", "role": message.role, "content": content}
        raw.update(message.fields)
        derived = [*message.derived, *(marks or ())]
        self._push(raw, message.pointer, message.line, message.native, derived)
        message.produced = True

    def end(self, content: Any = ABSENT) -> None:
        """Close the open message; one that gave no item yet becomes one with `content`."""
        message = self.message
        if message is None:
            return
        self._flush()
        if not message.produced and not _empty_content(content):
            self._message_item(message, [] if content is ABSENT else content)
        self.message = None

    def _push(
        self,
        raw: dict[str, Any],
        pointer: str,
        line: int | None,
        native: Any,
        derived: list[Derivation] | None = None,
    ) -> None:
        if line is None and self.message is not None:
            line = self.message.line
        where = line if line is not None else self.record.line
        self.pending.append(_Pending(raw, pointer, where, native, list(derived or ())))

    def _item_from_block(self) -> None:
        """A call, result or prefixed item splits the open message's text around it."""
        self._flush()
        if self.message is not None:
            self.message.produced = True

    # ---------------------------------------------------------------------------------------
    # Calls, results and provider-prefixed items

    def synthesise(self) -> str:
        """A deterministic id for a call or result that has none: numbered in file order."""
        self.b.synthesised += 1
        return f"{self.slug}_call_{self.b.synthesised}"

    def call(
        self,
        *,
        name: Any,
        call_id: Any,
        arguments: Any,
        pointer: str,
        native: Any,
        line: int | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> None:
        """Add a function_call (its status is settled by `finish`)."""
        self._item_from_block()
        derived: list[Derivation] = []
        if not (isinstance(call_id, str) and call_id):
            call_id = self.synthesise()
            derived.append(
                Derivation("call_id", "synthesised", f"the native call has no id; named {call_id}")
            )
        if isinstance(name, str):
            turn = (self.group, self.message.pointer if self.message is not None else pointer)
            self.b.unanswered.setdefault(name, []).append((call_id, turn))
        if arguments is ABSENT:
            arguments = "{}"
            derived.append(
                Derivation("arguments", "serialised", "the native call has no arguments")
            )
        elif not isinstance(arguments, str):
            text = serialise(arguments)
            if text is not None:
                arguments = text
                derived.append(
                    Derivation("arguments", "serialised", "the native arguments are an object")
                )
        raw: dict[str, Any] = {
            "type": "function_call",
            "status": None,
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
        }
        raw.update(fields or {})
        self._push(raw, pointer, line, native, derived)

    def output(
        self,
        *,
        call_id: Any,
        name: Any,
        output: Any,
        pointer: str,
        native: Any,
        line: int | None = None,
        fields: Mapping[str, Any] | None = None,
        derived: Iterable[Derivation] = (),
    ) -> None:
        """Add a function_call_output, answering its call by id or else by name."""
        self._item_from_block()
        marks = list(derived)
        if isinstance(call_id, str) and call_id:
            self.b.answered.add(call_id)
        else:
            waiting = self._waiting(name)
            if waiting is not None:
                self.paired += 1
                call_id = waiting
                self.b.answered.add(call_id)
                marks.insert(
                    0,
                    Derivation(
                        "call_id",
                        "paired",
                        "the native result has no id; it answers the first unanswered call "
                        f"named {name!r} of the nearest earlier turn that made one",
                    ),
                )
            else:
                call_id = self.synthesise()
                marks.insert(
                    0,
                    Derivation(
                        "call_id",
                        "synthesised",
                        f"the native result has no id and no earlier call named {name!r} "
                        "is unanswered",
                    ),
                )
        raw: dict[str, Any] = {"type": "function_call_output", "call_id": call_id, "output": output}
        raw.update(fields or {})
        self._push(raw, pointer, line, native, marks)

    def _waiting(self, name: Any) -> str | None:
        """The call a result without an id answers: the nearest earlier unanswered call of its
        name. Parallel calls of one name in one turn are answered in the order they were made
        (as Gemini returns their responses), so within that turn the first unanswered one wins.
        """
        waiting = self.b.unanswered.get(name) if isinstance(name, str) else None
        answered = self.b.answered
        while waiting and waiting[-1][0] in answered:
            waiting.pop()
        if not waiting:
            return None
        turn = waiting[-1][1]
        start = len(waiting) - 1
        while start > 0 and waiting[start - 1][1] == turn:
            start -= 1
        for position in range(start, len(waiting)):
            call_id = waiting[position][0]
            if call_id not in answered:
                del waiting[position]
                return call_id
        return None

    def extra(
        self,
        kind: str,
        fields: Mapping[str, Any],
        pointer: str,
        native: Any,
        line: int | None = None,
    ) -> None:
        """Add a provider-prefixed item for a native block with no Open Responses equivalent."""
        self._item_from_block()
        self._push({"type": f"{self.slug}:{kind}", **fields}, pointer, line, native)

    # ---------------------------------------------------------------------------------------
    # Status, then the items go to the transcript

    def finish(self) -> None:
        """Settle each call's status from the stop reason (or as history) and add the items."""
        self.end()
        last = len(self.pending) - 1
        for position, pending in enumerate(self.pending):
            raw = pending.raw
            if raw.get("type") != "function_call":
                continue
            if self.reason is ABSENT:
                raw["status"] = COMPLETED
                pending.derived.append(HISTORY_STATUS)
                continue
            result = outcome(self.api.reasons, self.reason)
            field_name = self.api.reason_field
            reason = self.reason
            said = f"{field_name} {reason!r}" if reason is not None else f"no {field_name}"
            if result != COMPLETED and position != last:
                raw["status"] = COMPLETED
                why = f"{said}, but a later item follows the call, so it was not cut off"
            elif self.reason is None and raw.get("call_id") in self.answered:
                raw["status"] = COMPLETED
                why = f"{said}, but a later result in the conversation answers it, so it ran"
            else:
                raw["status"] = result
                why = said
            pending.derived.append(Derivation("status", "derived", why))
        name, label = self.source
        envelope, path, group, add = self.api.envelope, self.b.path, self.group, self.b.add_item
        hold, items = self.hold, self.b.items
        for pending in self.pending:
            conversion = conversion_of(name, pending.native, tuple(pending.derived), label)
            raw = pending.raw
            if hold and type(raw.get("type")) is str:
                run = self.held
                if run is None or run.first + len(run.values) != len(items):
                    run = self.held = held(self.b)
                run.add(items, raw, pending.line, pending.pointer, group, envelope, conversion)
            else:
                add(raw, Origin(path, pending.line, pending.pointer), group, envelope, conversion)
        self.pending = []
