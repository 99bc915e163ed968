"""Content keys: what alignment compares items by, computed once for each side."""

from __future__ import annotations

import heapq
import json
from array import array
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import msgspec
import orjson

from inspector.core.diff.values import CALL_TYPES
from inspector.core.formats._lean import JsonRun
from inspector.core.jsonio import parse_arguments
from inspector.core.model import ArgumentsError, Item, effective_type

#: Canonical JSON (keys sorted, no whitespace) for content keys: equal for two values exactly
#: when orjson's text with sorted keys is (floats are spelled otherwise), but written into a
#: buffer of its own size (orjson allocates 4 KiB a call), integers beyond 64 bits included.
_CANONICAL = msgspec.json.Encoder(order="sorted")
#: Values msgspec cannot write (a lone surrogate): the standard library's text, marked so that
#: it can never equal msgspec's text of another value.
_FALLBACK = b"\x01"


def content_key(raw: Any) -> bytes:
    """Return a digest of an item's canonical JSON without `id` and `call_id` (equal items, equal
    keys)."""
    if isinstance(raw, dict) and ("id" in raw or "call_id" in raw):
        raw = raw.copy()  # a C-level copy and two pops beat a comprehension 3:1 here
        raw.pop("id", None)
        raw.pop("call_id", None)
    return _digest(raw)


def _digest(value: Any) -> bytes:
    """The digest of a value's canonical JSON (a value of its own: the pops are in place)."""
    # One key is kept per item for the whole alignment: a 16-byte digest rather than the JSON.
    try:
        text = _CANONICAL.encode(value)
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        text = _FALLBACK + json.dumps(value, sort_keys=True, default=repr).encode()
    return blake2b(text, digest_size=16).digest()


#: Larger lean items are read the plain way (`Item.read`), which checks orjson's headroom.
_DIRECT_LIMIT = 16 * 1024 * 1024
_UNREAD: Any = object()


def _digests(items: Sequence[Item], indexes: Iterable[int]) -> Iterator[bytes]:
    """`content_key` of the items at `indexes`; a lean item's value is parsed straight from its
    run of the file's bytes (the generic path costs about 2 µs an item in calls) and, held by
    no one else, loses its ids in place."""
    loads, decode_error, encode = orjson.loads, orjson.JSONDecodeError, _CANONICAL.encode
    for index in indexes:
        item = items[index]
        source = item.lean_source
        if source is None:
            yield content_key(item.read())  # the item's own value: copied before the pops
            continue
        value: Any = _UNREAD
        if type(source) is JsonRun:
            k = item.index - source.first
            begin, end = source.starts[k], source.ends[k]
            if end - begin < _DIRECT_LIMIT:
                try:
                    value = loads(memoryview(source.data)[begin:end])
                except decode_error:
                    value = _UNREAD  # what orjson refuses, the plain loader reads below
        if value is _UNREAD:
            value = item.read()  # parsed afresh: nobody else holds it
        if type(value) is dict:
            value.pop("id", None)
            value.pop("call_id", None)
        try:
            text = encode(value)
        except (TypeError, ValueError):
            yield _digest(value)  # the fallback text
            continue
        yield blake2b(text, digest_size=16).digest()


def canonical_json(value: Any) -> bytes:
    """Return canonical bytes of a JSON value: keys sorted, no whitespace."""
    try:
        # Copied: orjson hands out its whole write buffer (4 KiB at least), and compare mode
        # keeps such keys for every call and output of both sides.
        return bytes(memoryview(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)))
    except (orjson.JSONEncodeError, TypeError):
        # Integers beyond 64 bits need json. (orjson writes NaN as null, so the two share a
        # key; NaN is not JSON and reaches items only through the loader's lenient fallback.)
        return json.dumps(value, sort_keys=True, default=repr).encode()


#: The alignment signature of an item: (type, role, name).
Sig = tuple[Hashable, Hashable, Hashable]


def _hashable(value: Any) -> Hashable:
    return value if isinstance(value, str) or value is None else "\0" + repr(value)


def signature(raw: Any) -> Sig:
    """Return the alignment signature of a raw item: (type, role, name)."""
    if not isinstance(raw, dict):
        return (_hashable(effective_type(raw)), None, None)
    return (
        _hashable(effective_type(raw)),
        _hashable(raw.get("role")),
        _hashable(raw.get("name")),
    )


def _signature(item: Item) -> Sig:
    """`signature` of an item, from the members it keeps."""
    return (_hashable(item.type), _hashable(item.role), _hashable(item.name))


def _is_call_type(kind: Any) -> bool:
    # A garbage type may be a list or an object, which cannot be hashed for the set lookup.
    return isinstance(kind, str) and kind in CALL_TYPES


class _Keys(Sequence[int]):
    """Each item's content key as a number, equal for equal content across the sides that share
    one digest table, made when first asked for.

    Most items never need one: `_Alike` tells two items alike from their bytes, and only the
    items of a stretch that changed are counted by key. A key's digest is kept for the diff.
    """

    __slots__ = ("_items", "_numbers", "_shared")

    def __init__(self, items: Sequence[Item], shared: dict[bytes, int]) -> None:
        self._items = items
        self._shared = shared
        #: Each item's number (-1: not made yet); empty until the first key is made.
        self._numbers: array[int] = array("i")

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: int) -> int:  # type: ignore[override]  # no slices
        numbers = self._numbers
        if not numbers or numbers[index] < 0:
            self.fill((index,))
            numbers = self._numbers
        return numbers[index]

    def made(self) -> int:
        """How many keys have been made so far."""
        return len(self._numbers) - self._numbers.count(-1)

    def fill(self, indexes: Iterable[int]) -> None:
        """Make the keys of the items at `indexes` that have none yet, in one pass."""
        if not self._numbers:
            self._numbers = array("i", [-1]) * len(self._items)
        numbers, shared = self._numbers, self._shared
        todo = [index for index in indexes if numbers[index] < 0]
        for index, digest in zip(todo, _digests(self._items, todo), strict=True):
            numbers[index] = shared.setdefault(digest, len(shared))


@dataclass(slots=True)
class _Texts:
    """Where each lean item's JSON lies in its file's bytes, for a whole side: two offsets an
    item into one bytes object (found run by run rather than item by item)."""

    #: The file's bytes that every run read from here shares (b"" when there is none).
    data: bytes
    #: Each item's JSON is data[starts[k]:ends[k]]; ends[k] is 0 for an item that is not a lean
    #: item of a run over `data` (a JSON text is never empty).
    starts: array[int]
    ends: array[int]

    @classmethod
    def of(cls, items: Sequence[Item]) -> _Texts:
        """The texts of `items` (a transcript's: each item's index is its position)."""
        count = len(items)
        data: bytes | None = None
        starts = ends = array("I")
        k = 0
        while k < count:
            item = items[k]
            source = item.lean_source
            if type(source) is not JsonRun or item.index != k:
                k += 1
                continue
            if data is None:
                data = source.data
                # The runs' own offsets' type: four bytes an offset while they fit.
                starts = array(source.starts.typecode, [0]) * count
                ends = array(source.ends.typecode, [0]) * count
            elif source.data is not data or source.starts.typecode != starts.typecode:
                k += 1  # runs over other bytes (never met: one file is read whole): the keys
                continue
            stop = min(count, source.first + len(source.starts))
            last = items[stop - 1]
            if last.lean_source is not source or last.index != stop - 1:
                stop = k + 1  # not one stretch of the run: this item alone
            begin = k - source.first
            starts[k:stop] = source.starts[begin : begin + stop - k]
            ends[k:stop] = source.ends[begin : begin + stop - k]
            k = stop
        if data is None:
            return cls(b"", array("I", [0]) * count, array("I", [0]) * count)
        return cls(data, starts, ends)


@dataclass(slots=True)
class _Side:
    """What alignment needs of one transcript, computed in one pass over the items."""

    items: Sequence[Item]
    keys: _Keys
    calls: array[int]  # indexes of the calls and outputs that have a call_id
    call_kinds: list[str]  # the type of each of `calls`
    call_id_of: list[str]  # the call_id of each of `calls`
    texts: _Texts
    # Compare mode asks these many times; replay mode never does, so they are computed lazily.
    _typed: dict[str, list[int]] | None = None
    _answers: dict[int, int] | None = None

    @classmethod
    def of(cls, items: Sequence[Item], shared: dict[bytes, int] | None = None) -> _Side:
        """The side of `items`; its keys are numbers, equal for equal content across the sides
        given one `shared` (a key's digest → its number), made when asked for."""
        # Shorthand items (no type) are messages or references, never calls; a tuple, not
        # the set: a garbage type may be a list, which a set cannot hash.
        kinds = tuple(CALL_TYPES)
        calls = array(
            "i",
            [
                index
                for index, item in enumerate(items)
                if type(item.call_id) is str and item.type in kinds
            ],
        )
        call_kinds = [items[index].type for index in calls]
        call_id_of = [items[index].call_id for index in calls]
        keys = _Keys(items, {} if shared is None else shared)
        return cls(items, keys, calls, call_kinds, call_id_of, _Texts.of(items))

    def call_id(self, index: int) -> Any:
        """The call_id of an item (None when it has none)."""
        return self.items[index].call_id

    def typed(self, kind: str) -> list[int]:
        """Indexes of the items whose `type` is `kind` (function_call or its output)."""
        if self._typed is None:
            found: dict[str, list[int]] = {t: [] for t in CALL_TYPES}
            for index, item in enumerate(self.items):
                item_type = item.type
                if _is_call_type(item_type):
                    found[item_type].append(index)
            self._typed = found
        return self._typed[kind]

    def answers(self) -> dict[int, int]:
        """For each function_call_output: the latest earlier function_call with its call_id."""
        if self._answers is None:
            latest: dict[str, int] = {}
            answers: dict[int, int] = {}
            calls = self.typed("function_call")
            outputs = self.typed("function_call_output")
            for index in heapq.merge(calls, outputs):
                call_id = self.items[index].call_id
                if not isinstance(call_id, str):
                    continue
                if self.items[index].type == "function_call":
                    latest[call_id] = index
                elif call_id in latest:
                    answers[index] = latest[call_id]
            self._answers = answers
        return self._answers


class _Alike:
    """Whether a left and a right item have the same content (`id` and `call_id` aside), as
    their keys say, told from the bytes of two lean items where those say it at once.

    Two runs of a session mostly differ only in their ids: the left item's text with its `id`
    and `call_id` values replaced by the right item's is then the right item's text. That
    proves the same content (see `_same_text`); anything else is decided by the keys.
    """

    __slots__ = ("iota", "known", "left", "right", "same_bytes", "test")

    def __init__(self, left: _Side, right: _Side) -> None:
        self.left, self.right = left, right
        #: The right item each left item was found alike to (-1: none yet).
        self.known = array("i", [-1]) * len(left.items)
        #: 0, 1, 2, … past either side's last index: a run of indexes is a slice of it, copied
        #: as bytes (an array made from a range makes an integer object an element).
        self.iota = array("i", range(max(len(left.items), len(right.items)) + 1))
        #: test(i, j): whether left item i and right item j are alike (a closure over locals:
        #: it is called once an item).
        self.test = _alike(left, right, self.known)
        #: same_bytes(lo, hi, offset): the left items of lo..hi-1 whose text is not the text of
        #: right item i + offset but for the `id` (see `_same_bytes`).
        self.same_bytes = _same_bytes(left, right, self.known, self.iota)

    def prepare(self, a: Iterable[int], b: Iterable[int]) -> None:
        """Make the keys of these left and right items at once (they are about to be counted)."""
        self.left.keys.fill(a)
        self.right.keys.fill(b)


def _alike(left: _Side, right: _Side, known: array[int]) -> Callable[[int, int], bool]:
    """`_Alike`'s test of left item i and right item j."""
    litems, ritems, lkeys, rkeys = left.items, right.items, left.keys, right.keys
    ldata, lstarts, lends = left.texts.data, left.texts.starts, left.texts.ends
    rdata, rstarts, rends = right.texts.data, right.texts.starts, right.texts.ends
    id_member, call_id_member = _ID_MEMBER, _CALL_ID_MEMBER

    def alike(i: int, j: int) -> bool:
        if known[i] == j:
            return True
        lend, rend = lends[i], rends[j]
        if lend and rend:
            ltext, rtext = ldata[lstarts[i] : lend], rdata[rstarts[j] : rend]
            if ltext == rtext:
                known[i] = j
                return True
            # `_same_text`, inlined: it is called for most items of most diffs.
            litem, ritem = litems[i], ritems[j]
            lvalue, rvalue = litem.id, ritem.id
            if not (lvalue is rvalue or (type(lvalue) is str and lvalue == rvalue)):
                ltext = _swapped(ltext, id_member, lvalue, rvalue)
            lvalue, rvalue = litem.call_id, ritem.call_id
            if not (lvalue is rvalue or (type(lvalue) is str and lvalue == rvalue)):
                ltext = _swapped(ltext, call_id_member, lvalue, rvalue)
            if ltext == rtext:
                known[i] = j
                return True
        if lkeys[i] == rkeys[j]:
            known[i] = j
            return True
        return False

    return alike


def _same_bytes(
    left: _Side, right: _Side, known: array[int], iota: array[int]
) -> Callable[[int, int, int], list[int]]:
    """`_Alike.same_bytes`: a stretch of items tested at once, the stronger test of the two.

    Left item i and right item i + offset pass when both are lean and their texts are equal
    once the left's `id` is given the right's value, as `_same_text` replaces it (`known` is
    then set). So they are alike, and they differ in nothing but the `id` (which no change
    compares): the replaced bytes are one member whose name ends in `"id`, which `call_id`'s
    does not, so the call_id (the same value of the same kind), each other member and the
    verdict's inputs are the same bytes. The items that do not pass are returned; they may
    still be alike (another call_id, another spacing, equal keys): `test` decides those. One
    call a stretch, not one an item: the loop runs here, inlined.
    """
    litems, ritems = left.items, right.items
    ldata, lstarts, lends = left.texts.data, left.texts.starts, left.texts.ends
    rdata, rstarts, rends = right.texts.data, right.texts.starts, right.texts.ends
    member, spaced = _ID_MEMBER, _ID_MEMBER + b" "
    # Any JSON text of a string will do (see `_same_text`): msgspec's is made fastest.
    token = _TOKEN

    def same_bytes(lo: int, hi: int, offset: int) -> list[int]:
        failed: list[int] = []
        if lo >= hi:
            return failed
        rlo, rhi = lo + offset, hi + offset
        # Each item's members in one tuple a step, not an index each; `known` for all at once,
        # the failed ones' put back after.
        was = known[lo:hi]
        known[lo:hi] = iota[rlo:rhi]
        for i, lstart, lend, rstart, rend, litem, ritem in zip(
            range(lo, hi),
            lstarts[lo:hi],
            lends[lo:hi],
            rstarts[rlo:rhi],
            rends[rlo:rhi],
            litems[lo:hi],
            ritems[rlo:rhi],
            strict=True,
        ):
            if lend and rend:
                ltext, rtext = ldata[lstart:lend], rdata[rstart:rend]
                if ltext == rtext:
                    continue
                lvalue, rvalue = litem.id, ritem.id
                # The texts differ, so the ids must (else nothing is replaced): both strings,
                # as `_swapped` needs them.
                if type(lvalue) is str and type(rvalue) is str and lvalue != rvalue:
                    try:
                        old, new = token(lvalue), token(rvalue)
                    except ValueError:  # a lone surrogate
                        old = new = b""
                    if old:
                        replaced = ltext.replace(member + old, member + new, 1)
                        if replaced == rtext:
                            continue
                        # Not there: written as `json.dumps` writes it, with a space?
                        if (
                            replaced == ltext
                            and ltext.replace(spaced + old, spaced + new, 1) == rtext
                        ):
                            continue
            failed.append(i)
            known[i] = was[i - lo]
        return failed

    return same_bytes


def _text(item: Item) -> bytes | None:
    """A lean item's JSON exactly as its file has it (None for any other item)."""
    source = item.lean_source
    if type(source) is not JsonRun:
        return None
    k = item.index - source.first
    return source.data[source.starts[k] : source.ends[k]]


#: A JSON text of a string (UnicodeEncodeError, a ValueError, for a lone surrogate).
_TOKEN = msgspec.json.Encoder().encode
#: The JSON text of a member name and its colon, as a compact writer puts it before the value.
_ID_MEMBER, _CALL_ID_MEMBER = b'"id":', b'"call_id":'


def _same_text(ltext: bytes, rtext: bytes, left: Item, right: Item) -> bool:
    """Whether two lean items' texts prove the same content, `id` and `call_id` aside: equal
    once the left's `"id":"…"` (and `"call_id":"…"`; or `"id": "…"`, with the space of the
    standard library's writer) is replaced, first occurrence only, by the right's, where the
    two decoded values differ.

    Why that proves it: the bytes `"id":` open a member whose name ends in `id` (a quote just
    before `id` that is escaped belongs to a name ending in `"id`; an unescaped one opens the
    name), and the JSON string after the colon is one token, so a replacement changes one
    string member's value and nothing of the structure around it. If the member changed were
    not a top-level `id` (a nested one, or a name ending in `"id`), every top-level `id` would
    be the same bytes on both sides, and decode to the same value: but the values differ. So the
    texts differ only in the two members the key leaves out. False says nothing: the keys decide.
    """
    for member, lvalue, rvalue in (
        (_ID_MEMBER, left.id, right.id),
        (_CALL_ID_MEMBER, left.call_id, right.call_id),
    ):
        if lvalue is rvalue or (type(lvalue) is str and lvalue == rvalue):
            continue  # no replacement: these members must then be the same bytes
        ltext = _swapped(ltext, member, lvalue, rvalue)
    return ltext == rtext


def _swapped(text: bytes, member: bytes, was: Any, becomes: Any) -> bytes:
    """`text` with its first `member` of value `was` given the value `becomes` (`_same_text`);
    b"" when they are not both strings, or when orjson cannot write one (a lone surrogate),
    which no JSON text equals."""
    if type(was) is not str or type(becomes) is not str:
        return b""
    try:
        old, new = orjson.dumps(was), orjson.dumps(becomes)
    except orjson.JSONEncodeError:
        return b""
    replaced = text.replace(member + old, member + new, 1)
    if replaced == text:  # not there: written as `json.dumps` writes it, with a space?
        replaced = text.replace(member + b" " + old, member + b" " + new, 1)
    return replaced


#: Text part types whose `text` is the whole message in every format.
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
#: Part fields that carry no text: ignored when empty (annotations, citations, logprobs) or
#: always (Anthropic's cache_control, a caching hint).
_EMPTY_PART_FIELDS = frozenset({"annotations", "citations", "logprobs"})


def plain_text(value: Any) -> str | None:
    """The text of content written as a string or as plain text parts; None for anything else.

    Chat Completions writes `"content": "Hi"`, Anthropic `[{"type": "text", "text": "Hi"}]` and
    Open Responses `[{"type": "output_text", "text": "Hi", "annotations": []}]`: one text.
    """
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not value:
        return None
    texts = []
    for part in value:
        if (
            not isinstance(part, dict)
            or not isinstance(part.get("type"), str)
            or part["type"] not in _TEXT_PARTS
            or not isinstance(part.get("text"), str)
        ):
            return None
        for key, field_value in part.items():
            if key in _EMPTY_PART_FIELDS and field_value not in (None, []):
                return None
            if key not in _EMPTY_PART_FIELDS and key not in ("type", "text", "cache_control"):
                return None
        texts.append(part["text"])
    return "".join(texts)


def _output_key(item: Item) -> Hashable:
    output = item.get("output")
    text = plain_text(output)
    return ("text", text) if text is not None else ("value", canonical_json(output))


def _numbers_by_value(value: Any) -> Any:
    """The value with integral floats as integers, so that 1 and 1.0 give one key."""
    # Recursion is bounded: parsed arguments nest at most as deep as the strict parser allows.
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_numbers_by_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers_by_value(v) for k, v in value.items()}
    return value


def _arguments_key(value: Any) -> Hashable:
    """Arguments as compared in compare mode: parsed JSON when they parse, else the raw value."""
    if isinstance(value, str):
        try:
            # A key only steers pairing (changes use the strict parser), so orjson's speed
            # wins; it refuses what it cannot read exactly (integers beyond 64 bits).
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            try:
                parsed = parse_arguments(value)
            except ArgumentsError:
                return ("text", value)
        try:
            if any(mark in value for mark in ".eE"):  # only then can a float be integral
                parsed = _numbers_by_value(parsed)
            return canonical_json(parsed)
        except RecursionError:
            return ("text", value)
    return ("value", canonical_json(value))
