"""Content keys: what alignment compares items by, computed once for each side."""

from __future__ import annotations

import heapq
import json
from array import array
from collections.abc import Callable, Hashable, Iterator, Sequence
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


def _digests(items: Sequence[Item], start: int, stop: int) -> Iterator[bytes]:
    """`content_key` of items[start:stop]; a lean item's value is parsed straight from its run
    of the file's bytes (the generic path costs about 2 µs an item in calls) and, held by no
    one else, loses its ids in place."""
    loads, decode_error, encode = orjson.loads, orjson.JSONDecodeError, _CANONICAL.encode
    for index in range(start, stop):
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


#: Items read between two progress reports of `_Side.of`.
_KEY_CHUNK = 4096


@dataclass(slots=True)
class _Side:
    """What alignment needs of one transcript, computed in one pass over the items."""

    items: Sequence[Item]
    keys: array[int]
    call_ids: list[Any]
    calls: array[int]  # indexes of the calls and outputs that have a call_id
    # Compare mode asks these many times; replay mode never does, so they are computed lazily.
    _typed: dict[str, list[int]] | None = None
    _answers: dict[int, int] | None = None

    @classmethod
    def of(
        cls,
        items: Sequence[Item],
        shared: dict[bytes, int] | None = None,
        *,
        done: Callable[[int], None] | None = None,
    ) -> _Side:
        """The side of `items`; its keys are numbers, equal for equal content across the sides
        given one `shared` (a key's digest → its number).

        `done` hears how many items have been read, after each chunk of them.
        """
        # Each item's value is read once, for its key, and not kept: a lean item's parse
        # would otherwise be a second copy of the transcript. A key is a machine integer, its
        # digest held only while the keys are made.
        shared = {} if shared is None else shared
        keys = array("i")
        for start in range(0, len(items), _KEY_CHUNK):
            stop = min(start + _KEY_CHUNK, len(items))
            keys.extend(shared.setdefault(k, len(shared)) for k in _digests(items, start, stop))
            if done is not None:
                done(stop)
        call_ids: list[Any] = [item.call_id for item in items]
        calls = array(
            "i",
            (
                index
                for index, item in enumerate(items)
                # Shorthand items (no type) are messages or references, never calls.
                if isinstance(call_ids[index], str) and _is_call_type(item.type)
            ),
        )
        return cls(items, keys, call_ids, calls)

    def call(self, index: int) -> tuple[str, str]:
        """The type and call_id of one of `calls`."""
        return self.items[index].type, self.call_ids[index]

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
                call_id = self.call_ids[index]
                if not isinstance(call_id, str):
                    continue
                if self.items[index].type == "function_call":
                    latest[call_id] = index
                elif call_id in latest:
                    answers[index] = latest[call_id]
            self._answers = answers
        return self._answers


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
