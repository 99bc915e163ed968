"""Lean loading: items read straight from a file's bytes, their values parsed only on demand.

The plain loader parses every record into Python objects and keeps them all: a large log is
held several times over. Here msgspec decodes, for each item, only the members the gate, the
findings and the diff ask for constantly (`type`, `id`, `call_id`, `name`, `role`, `status`)
and skips the rest; the item keeps where its JSON lies in the file's bytes (`JsonRun`) and
parses its whole value when asked (`Item.raw`). What is lean:

* a JSON Lines record that is a plain Open Responses item (the bulk of a large log);
* the item arrays of a request (`input`) or response (`output`), as a whole document or as one
  JSON Lines record, and a document that is an array of items.

Anything else, and any file whose bytes could read differently here than in the plain loader,
goes the plain way. The plain loader reads JSON with orjson, and with the standard library
where orjson refuses (see `jsonio`); msgspec accepts less than both except in three places,
each settled before an item is made lean, so every lean item's value is exactly the plain
loader's and nothing can fail later when it is parsed:

* invalid UTF-8 in a member msgspec skips: the file's bytes are checked once (`utf8_length`);
* integers of 19 digits or more, which orjson reads as floats: a file that holds a run of 19
  digits anywhere is not read lean (`Risks`, as `jsonio.has_long_digits`);
* numbers beyond a double's range in a skipped member (orjson refuses them, the standard
  library reads them as infinities, and then checks the nesting depth): in a file that may
  hold one (`Risks`), a record with more brackets than that depth limit is parsed at once to
  see (`depth_safe`). The same check covers nesting msgspec would read past orjson's limit,
  should the interpreter's recursion limit be raised that far.
"""

from __future__ import annotations

import codecs
import io
import sys
from array import array
from collections.abc import Callable
from typing import Any, Literal, get_args

import msgspec
import orjson

from inspector.core.jsonio import MAX_DEPTH, depth_exceeds, load_json, orjson_has_headroom
from inspector.core.model import (
    HAS_TYPE,
    ITEM_STATUSES,
    LEAN,
    PORTABLE_CORE,
    Envelope,
    Item,
    LazySource,
    LeanItem,
    Origin,
    join_pointer,
    shorthand_type,
    unclaimed_object,
    unrecognised_item,
)

_UNSET = msgspec.UNSET
_OPEN = Envelope.OPEN_RESPONSES


class _Hot(msgspec.Struct, gc=False):
    """The members a lean item keeps, as the item does (`type` and `HOT_MEMBERS`, in order);
    absent ones read as None (see `Item.get`)."""

    type: Any = None
    id: Any = None
    call_id: Any = None
    name: Any = None
    role: Any = None
    status: Any = None


class _Line(_Hot, gc=False):
    """A JSON Lines record: with the two members that say it is not a plain item."""

    stop_reason: Any = _UNSET
    object: Any = _UNSET


_PLAIN_TYPES = Literal[
    "message", "function_call", "function_call_output", "reasoning", "item_reference", "compaction"
]
_ROLES = Literal["user", "assistant", "system", "developer"]
_STATUSES = Literal["in_progress", "completed", "incomplete"]


class _PlainLine(msgspec.Struct, gc=False):
    """A JSON Lines record that is a plain item with the usual hot members, and only such a
    record (msgspec refuses any other, which `_Line` then reads): a type of the portable
    core, a text or no name, a usual role and status, no `stop_reason` nor `object`. Each
    Literal member is decoded as the one string msgspec holds for it: shared, not looked up.
    """

    type: _PLAIN_TYPES
    id: Any = None
    call_id: Any = None
    name: str | None = None
    role: _ROLES | None = None
    status: _STATUSES | None = None
    stop_reason: msgspec.UnsetType = _UNSET
    object: msgspec.UnsetType = _UNSET


class _Shorthand(msgspec.Struct, gc=False):
    """What the shorthands look at: whether `type`, `role` and `id` are there at all."""

    type: Any = _UNSET
    role: Any = _UNSET
    id: Any = _UNSET


class _Arguments(msgspec.Struct, gc=False):
    arguments: Any = _UNSET


#: What msgspec raises for bytes it will not read (malformed, out of range, nested too deep).
_REFUSED = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)
_HOT = msgspec.json.Decoder(_Hot)
_LINE = msgspec.json.Decoder(_Line)
_PLAIN_LINE = msgspec.json.Decoder(_PlainLine)
_SHORTHAND = msgspec.json.Decoder(_Shorthand)
_ARGUMENTS = msgspec.json.Decoder(_Arguments)
_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])

#: Item types that mark a record as an item at once, the bulk of a large log: the portable
#: core's. (A `message` with a `stop_reason` is an Anthropic response, so that one is scored.)
PLAIN_ITEM_TYPES = PORTABLE_CORE
# The strict decoder takes only records the loose one's checks would take (`jsonl_items`).
assert frozenset(get_args(_PLAIN_TYPES)) == PLAIN_ITEM_TYPES
assert frozenset(get_args(_STATUSES)) <= ITEM_STATUSES
#: Record kinds whose item arrays are read lean, and the member holding each one's items.
LEAN_KINDS = {"request": "input", "response": "output", "compaction": "output"}
_ARRAY_MEMBERS = frozenset(LEAN_KINDS.values())
#: Bytes looked at a time when a file is scanned (a scan holds one window's copy at most).
_WINDOW = 1 << 20
#: Largest item kept lean. A lean item's JSON is parsed whenever `raw` is asked for, on
#: whichever thread asks (the window's included): a bigger one is parsed once, the plain way,
#: by the loader on its worker.
LEAN_ITEM_LIMIT = 1 << 20
# Digits → "0" and "E" → "e", so a substring search finds a number's shape (as
# jsonio.has_long_digits does).
_SHAPES = bytes.maketrans(b"123456789E", b"000000000e")
#: Deleted as the shapes are made, so that one search finds both exponent forms. Each match
#: of the bytes with them left in is still a match, and joining digits a "+" kept apart can
#: only add matches: a file is then read the plain way, or its records checked, for nothing.
_PLUS = b"+"
#: A run of 19 digits: an integer orjson may not keep exact.
_LONG_DIGITS = b"0" * 19
#: An exponent of three digits or more after a digit (`0e000`, `0e+000` with the plus
#: deleted): a number that may be beyond a double.
_BIG_EXPONENT = b"0e000"
#: The deepest nesting orjson reads.
_ORJSON_DEPTH = 1024


class Risks:
    """What a file's bytes may hold that sends it, or some of its records, the plain way."""

    __slots__ = ("deep", "length", "long_digits")

    def __init__(self, data: bytes, begin: int = 0, stop: int | None = None) -> None:
        # `begin`, `stop`: the risks of `data[begin:stop]` alone (a share of a file's lines),
        # read window by window like the whole data, never copied out whole.
        stop = len(data) if stop is None else stop
        #: Characters the bytes decode to as UTF-8 (None: they are not UTF-8).
        self.length = _utf8_length(data, begin, stop)
        #: A run of 19 digits (see `jsonio.has_long_digits`): the file is read the plain way.
        self.long_digits = False
        #: Whether a record with many brackets must be checked (see `depth_safe`): the file may
        #: hold a number beyond a double, or msgspec may nest deeper than orjson's 1024 levels
        #: (it stops at the interpreter's recursion limit, 1000 unless raised).
        self.deep = sys.getrecursionlimit() > _ORJSON_DEPTH
        # In windows overlapping by the longest pattern less one, so none is cut in two.
        for start in range(begin, max(stop, begin + 1), _WINDOW):
            end = min(start + _WINDOW, stop)
            window = data[max(start - 18, begin) : end]
            # Deleting is the slower loop of `translate`: done only where a plus is there.
            window = (
                window.translate(_SHAPES, _PLUS) if _PLUS in window else window.translate(_SHAPES)
            )
            self.long_digits = self.long_digits or _LONG_DIGITS in window
            if not self.deep:
                self.deep = _BIG_EXPONENT in window
            if self.long_digits:
                break

    @property
    def lean(self) -> bool:
        """Whether records of the file may be read lean."""
        return self.length is not None and not self.long_digits


def _utf8_length(data: bytes, begin: int = 0, stop: int | None = None) -> int | None:
    """The number of characters `data[begin:stop]` decodes to as UTF-8, or None when it is
    not UTF-8."""
    stop = len(data) if stop is None else stop
    if begin == 0 and stop == len(data):
        if data.isascii():
            return len(data)
    elif all(
        data[start : min(start + _WINDOW, stop)].isascii() for start in range(begin, stop, _WINDOW)
    ):
        return stop - begin
    decoder = codecs.getincrementaldecoder("utf-8")()
    length = 0
    try:
        for start in range(begin, stop, _WINDOW):
            length += len(decoder.decode(data[start : min(start + _WINDOW, stop)]))
        length += len(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        return None
    return length


def parse_value(view: bytes | memoryview, path: str | None, line: int | None) -> Any:
    """Parse one record or element as the plain loader does: orjson, else the standard library.

    orjson only with headroom: it can crash on its error path when memory runs out.
    """
    if orjson_has_headroom(memoryview(view).nbytes):
        try:
            return orjson.loads(view)
        except orjson.JSONDecodeError:
            pass
    text = bytes(view).decode("utf-8")
    return load_json(text, path, (line or 1) - 1, long_digits=False)


def _brackets(view: bytes | memoryview) -> int:
    data = view if isinstance(view, bytes) else bytes(view)
    return data.count(b"[") + data.count(b"{")


def depth_safe(view: bytes | memoryview) -> bool:
    """Whether the plain loader reads this JSON Lines record as msgspec does.

    It reads a record with orjson, which checks no depth below its own limit, unless orjson
    refuses it (a number beyond a double, nesting past 1024 levels): then the standard library
    reads it and the depth is checked. A record with no more brackets than that check allows
    cannot fail it; a record with more is parsed to see whether orjson takes it.
    """
    if _brackets(view) <= MAX_DEPTH:
        return True
    if not orjson_has_headroom(memoryview(view).nbytes):
        return False  # the plain way decides, without orjson
    try:
        orjson.loads(view)
    except orjson.JSONDecodeError:
        return False
    return True


class JsonRun(LazySource):
    """Consecutive lean items and where each one's JSON lies in the file's bytes."""

    __slots__ = ("base", "data", "ends", "first", "lines", "path", "position", "starts")

    def __init__(
        self, data: bytes, path: str | None, first: int, base: str, position: int | None
    ) -> None:
        self.data = data
        self.path = path
        #: Index of the run's first item in the transcript.
        self.first = first
        #: The JSON Pointer of a JSON Lines record, or of the array the items are elements of.
        self.base = base
        #: The array position of the run's first item (None: each item is a whole record).
        self.position = position
        # Four bytes an offset while they fit (files are read whole, so nearly always).
        code = "I" if len(data) < 1 << 32 else "q"
        self.starts = array(code)
        self.ends = array(code)
        #: Each item's line (0 when not known).
        self.lines = array(code)

    def _view(self, index: int) -> memoryview:
        k = index - self.first
        return memoryview(self.data)[self.starts[k] : self.ends[k]]

    def _line(self, index: int) -> int | None:
        return self.lines[index - self.first] or None

    def value(self, index: int) -> Any:
        """The item's JSON value, parsed afresh."""
        return parse_value(self._view(index), self.path, self._line(index))

    def field(self, index: int, key: str, default: Any) -> Any:
        """One member of the item's object: `arguments` is decoded alone, the rest by parsing."""
        if key == "arguments":
            k = index - self.first  # the gate asks this of every call: a copy of the line
            try:  # costs less than a view of it
                found = _ARGUMENTS.decode(self.data[self.starts[k] : self.ends[k]]).arguments
            except _REFUSED:
                pass  # e.g. a number beyond a double: the plain parse decides
            else:
                return default if found is _UNSET else found
        value = self.value(index)
        return value.get(key, default)

    def origin(self, index: int) -> Origin:
        """Where the item is in its file."""
        if self.position is None:
            pointer = self.base
        else:
            pointer = join_pointer(self.base, self.position + index - self.first)
        return Origin(self.path, self._line(index), pointer)

    def text(self, index: int) -> bytes:
        """The item's JSON exactly as the file has it."""
        return bytes(self._view(index))

    def place(self, index: int) -> tuple[int | None, str]:
        """The item's line and JSON Pointer, as `origin` has them."""
        k = index - self.first
        if self.position is None:
            return self.lines[k] or None, self.base
        return self.lines[k] or None, join_pointer(self.base, self.position + k)

    def records(self) -> tuple[int, array[int], str] | None:
        """Each item a whole JSON Lines record (see `LazySource.records`), or None."""
        return (self.first, self.lines, self.base) if self.position is None else None


def _too_big(elements: list[msgspec.Raw]) -> bool:
    """Whether an element is over LEAN_ITEM_LIMIT (the array is then read the plain way)."""
    return any(memoryview(element).nbytes > LEAN_ITEM_LIMIT for element in elements)


class LeanArray(list[Any]):
    """An item array left in the file's bytes: its elements, each as msgspec.Raw.

    It stands in a record's `input` or `output` so the plain loader reads the record as usual
    (groups, settings, notes); `add_items` hands it back here to make the items.
    """

    def __init__(self, elements: list[msgspec.Raw], reader: Reader, at: int, line: int | None):
        super().__init__(elements)
        self.reader = reader
        #: Where the array's `[` is in the file's bytes.
        self.at = at
        #: The line of every element when lines are not located (a JSON Lines record).
        self.line = line


class Reader:
    """Reads records of one file's bytes lean, or says they must go the plain way."""

    def __init__(
        self,
        data: bytes,
        path: str | None,
        risks: Risks,
        *,
        locate: bool,
        item_group: Any = None,
        first: int = 0,
    ) -> None:
        self.data = data
        self.path = path
        self.risks = risks
        #: Whether array elements get their own lines (a whole document small enough to locate).
        self.locate = locate
        #: Types, statuses, roles and tool names, each held once.
        self.strings: dict[str, str] = {}
        #: The run JSON Lines items are being added to.
        self.run: JsonRun | None = None
        #: `item_group(b, line)`: the group a bare item joins (open_responses.item_group).
        self.item_group = item_group
        #: The whole file's index of the first item added (a run of a file's lines: see
        #: formats.load_jsonl_run): items are numbered from it.
        self.first = first
        #: Whether `jsonl_items` reads its first line the loose way (`_Line`) at once.
        self._loose_first = False
        #: A reader of the bytes' lines (`jsonl_items`), made when first needed.
        self._lines: io.BytesIO | None = None

    def item(
        self,
        items: list[Item],
        hot: _Hot,
        run: JsonRun,
        group: int,
        envelope: Envelope,
        view: bytes | memoryview,
    ) -> None:
        """Append a lean item with the hot members decoded from its JSON."""
        t, status, role, name = hot.type, hot.status, hot.role, hot.name
        strings = self.strings
        if t is None:
            # No type, or a null one: the shorthands decide, by what the object holds; the raw
            # `type` is then read from the JSON when asked for (see `Item.get`).
            found = _SHORTHAND.decode(view)
            mask = LEAN
            t = shorthand_type(None, found.role is not _UNSET, found.id is not _UNSET)
        else:
            mask = LEAN | HAS_TYPE
            if type(t) is str:
                t = strings.setdefault(t, t)
        # The few distinct types, statuses, roles and names are shared, not held per item.
        if type(status) is str:
            status = strings.setdefault(status, status)
        if type(role) is str:
            role = strings.setdefault(role, role)
        if type(name) is str:
            name = strings.setdefault(name, name)
        items.append(
            LeanItem(
                self.first + len(items),
                run,
                None,
                group,
                envelope,
                None,
                t,
                hot.id,
                hot.call_id,
                name,
                role,
                status,
                mask,
            )
        )

    def jsonl_items(
        self, b: Any, position: int, number: int, check: Callable[[int], None] | None = None
    ) -> tuple[int, int, int]:
        """Add the JSON Lines records from `position` on that are plain Open Responses items.

        Stops at the first line that is not one (it may still have lean arrays: see `shell`).
        Returns where that line starts, how many lines were passed, and how many items added.
        `check(end)` is called with the end of each line it takes (cancel and progress).
        """
        data, items = self.data, b.items
        size, decode, strict = len(data), _LINE.decode, _PLAIN_LINE.decode
        # Lines read by a BytesIO over the bytes (which it shares, not copies): one C call a
        # line, where `find` and a slice were two, `find`'s parsing of its arguments the
        # larger part of both.
        lines_io = self._lines
        if lines_io is None:
            lines_io = self._lines = io.BytesIO(data)
        lines_io.seek(position)
        readline = lines_io.readline
        # The last line's end when the bytes do not end with a newline.
        open_end = size if data[-1:] != b"\n" else -1
        deep, plain, unset = self.risks.deep, PLAIN_ITEM_TYPES, _UNSET
        run = self.run
        group = b.open_item_group
        added = 0
        # `item`, inlined for the bulk of a large log: a typed item of the portable core.
        shared, append, envelope, typed = (
            self.strings.setdefault,
            items.append,
            _OPEN,
            LEAN | HAS_TYPE,
        )
        hot: _PlainLine | _Line
        # The first line is read the loose way at once when the last call stopped at its first
        # line: in a log of requests and responses, a line the strict decoder would refuse.
        loose_first = self._loose_first
        t: Any
        status: Any
        role: Any
        while position < size:
            line = readline()  # with its newline, which msgspec reads as trailing space
            stop = position + len(line)
            if stop != open_end:
                stop -= 1
            loose = loose_first
            if not loose:
                try:
                    # The bulk of a large log: a plain item, its type, role and status shared
                    # strings already, nothing left to check but its size and depth.
                    hot = strict(line)
                except _REFUSED:
                    loose = True
                else:
                    t, status, role, name = hot.type, hot.status, hot.role, hot.name
                    if name is not None:
                        name = shared(name, name)
            if loose:
                loose_first = False
                try:
                    hot = decode(line)
                except _REFUSED:
                    if line.strip():
                        break
                    # A blank line, in which msgspec reads no value: passed, as the plain
                    # loader passes it (looked for only here, not on every line).
                    if check is not None:
                        check(stop)
                    position, number = stop + 1, number + 1
                    continue
                t = hot.type
                if (
                    type(t) is not str
                    or t not in plain
                    or hot.stop_reason is not unset
                    or hot.object is not unset
                ):
                    break
                # The few distinct types, statuses, roles and names are shared, not held per
                # item.
                t = shared(t, t)
                status, role, name = hot.status, hot.role, hot.name
                if type(status) is str:
                    status = shared(status, status)
                if type(role) is str:
                    role = shared(role, role)
                if type(name) is str:
                    name = shared(name, name)
            if stop - position > LEAN_ITEM_LIMIT or (deep and not depth_safe(line)):
                break
            if check is not None:
                check(stop)
            number += 1
            if not added:
                # The first item of this call: it joins the run, or begins one (the rest follow).
                index = self.first + len(items)
                if group is None:
                    # Consecutive bare items form one group, as in the plain loader.
                    group = b.open_item_group = self.item_group(b, number)
                if run is None or run.first + len(run.starts) != index:
                    run = self.run = JsonRun(data, self.path, index, "", None)
                starts, ends, lines = run.starts.append, run.ends.append, run.lines.append
            starts(position)
            ends(stop)
            lines(number)
            append(
                LeanItem(
                    index,
                    run,
                    None,
                    group,
                    envelope,
                    None,
                    t,
                    hot.id,
                    hot.call_id,
                    name,
                    role,
                    status,
                    typed,
                )
            )
            added += 1
            index += 1
            position = stop + 1
        if position < size:
            self._loose_first = not added
        return position, number, added

    def shell(self, start: int, stop: int, line: int | None) -> dict[str, Any] | None:
        """A record with its item arrays left lean (`LeanArray`), or None to read it plainly.

        Every other member is parsed as the plain loader would. None when the record is not
        an object with an `input` or `output` array, or when its arrays cannot be located.
        """
        data = self.data
        try:
            members = _MEMBERS.decode(memoryview(data)[start:stop])
        except _REFUSED:
            return None
        arrays = [
            key for key in _ARRAY_MEMBERS if key in members and memoryview(members[key])[:1] == b"["
        ]
        if not arrays:
            return None
        shell: dict[str, Any] = {}
        for key, raw in members.items():
            member = memoryview(raw)
            if key in arrays:
                at = data.find(member, start, stop)
                # Located by its bytes: they must occur once, or the lines could be another's.
                if at < 0 or data.find(member, at + 1, stop) >= 0:
                    return None
                elements = _ELEMENTS.decode(member)
                if _too_big(elements):
                    return None
                shell[key] = LeanArray(elements, self, at, line)
            else:
                shell[key] = parse_value(member, self.path, line)
        return shell

    def array(self, start: int, stop: int, line: int | None) -> LeanArray | None:
        """A document that is one array, its elements left lean; None to read it plainly."""
        try:
            elements = _ELEMENTS.decode(memoryview(self.data)[start:stop])
        except _REFUSED:
            return None
        if _too_big(elements):
            return None
        return LeanArray(elements, self, start, line)

    def depth_safe(self, shell: dict[str, Any] | LeanArray) -> bool:
        """Whether a whole document read lean passes the plain loader's nesting check.

        The plain loader checks the depth of a whole document it parsed; the members parsed
        here are checked the same way, and each lean element by its brackets (enough to be
        safe; a deeper element sends the document the plain way).
        """
        if isinstance(shell, LeanArray):
            arrays, element_limit = [shell], MAX_DEPTH - 1
        else:
            arrays = [v for v in shell.values() if isinstance(v, LeanArray)]
            element_limit = MAX_DEPTH - 2
            for value in shell.values():
                if not isinstance(value, LeanArray) and depth_exceeds([value], MAX_DEPTH):
                    return False
        return all(_brackets(memoryview(e)) <= element_limit for a in arrays for e in a)


def add_lean_array(
    items: list[Item], array_: LeanArray, pointer: str, group: int, envelope: Envelope, add: Any
) -> None:
    """Add the elements of a lean item array: objects as lean items, anything else parsed.

    `add(value, origin, group, envelope)` adds an element that is not an object.
    """
    reader = array_.reader
    data = reader.data
    counted = array_.at
    position = counted + 1
    line = data.count(b"\n", 0, counted) + 1 if reader.locate else array_.line
    run: JsonRun | None = None
    for k, element in enumerate(array_):
        view = memoryview(element)
        # The first occurrence from the end of the previous element is this one: only
        # whitespace and a comma lie between, and an element starts with neither.
        start = data.find(view, position)
        position = start + len(view)
        if reader.locate:
            line += data.count(b"\n", counted, start)  # type: ignore[operator]
            counted = start
        try:
            hot = _HOT.decode(view)
        except _REFUSED:
            # Not an object (or a member msgspec reads otherwise): the value itself.
            value = parse_value(view, reader.path, line)
            add(value, Origin(reader.path, line, join_pointer(pointer, k)), group, envelope)
            run = None
            continue
        if hot.type is None and hot.role is None:
            # Untyped: the shorthands need the member names (rare, so read only here).
            keys = _MEMBERS.decode(view).keys()
            if unclaimed_object(None, keys):
                raise unrecognised_item(keys, Origin(reader.path, line, join_pointer(pointer, k)))
        if run is None:
            run = JsonRun(data, reader.path, reader.first + len(items), pointer, k)
        run.starts.append(start)
        run.ends.append(position)
        run.lines.append(line or 0)
        reader.item(items, hot, run, group, envelope, view)
