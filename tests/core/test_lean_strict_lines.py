"""JSON Lines items read by the strict decoder (`_lean._PlainLine`) load exactly as the plain
loader reads them, and the lines it refuses are read the loose way (`_lean._Line`) as before."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.formats import _lean, load_bytes
from inspector.core.gate import gate_transcript
from inspector.core.model import LEAN, Transcript
from tests.benchmarks import synthetic
from tests.core.test_lean import _both, assert_same_gate, assert_same_load


class _Counted:
    """The strict decoder, counting the lines it takes and those it refuses."""

    def __init__(self) -> None:
        self.taken = 0
        self.refused = 0

    def decode(self, line: bytes) -> Any:
        try:
            hot = _PLAIN.decode(line)
        except msgspec.DecodeError:
            self.refused += 1
            raise
        self.taken += 1
        return hot


_PLAIN = _lean._PLAIN_LINE


@contextmanager
def _counted() -> Iterator[_Counted]:
    counted = _Counted()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lean, "_PLAIN_LINE", counted)
        yield counted


def _jsonl(records: list[Any]) -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in records)


def test_a_generated_log_is_read_mostly_by_the_strict_decoder() -> None:
    data = _jsonl(list(synthetic.items(2000)))
    with _counted() as counted:
        lean, plain = _both(data, "log.jsonl")
    assert_same_load(lean, plain)
    assert isinstance(lean, Transcript)
    lean_items = sum(1 for i in lean.items if i._mask & LEAN)
    # Every lean item but those of unusual members came through the strict decoder.
    assert counted.taken > 0.9 * len(lean.items)
    assert counted.taken <= lean_items
    assert counted.taken + counted.refused == len(data.splitlines())


#: Lines the strict decoder refuses, yet plain items (read lean the loose way), or no plain
#: items at all (read the plain way): each loads as the plain loader reads it.
_REFUSED = {
    "a status outside the specification's": {"type": "message", "status": "failed"},
    "a tool role": {"type": "message", "role": "tool", "content": "x"},
    "a number for a name": {"type": "function_call", "name": 7, "call_id": "c"},
    "an object for a status": {"type": "message", "status": {"a": 1}},
    "a boolean role": {"type": "message", "role": True},
}
#: Lines that are no plain item, read the plain way.
_NOT_ITEMS = {
    "a null stop_reason": {"type": "message", "stop_reason": None},
    "an object member": {"type": "message", "object": "response"},
    "a namespaced type": {"type": "openai:web_search_call", "id": "ws"},
    "a null type": {"type": None, "role": "user"},
    "no type": {"role": "user", "content": "hi"},
    "a number type": {"type": 5},
}
_TAKEN = {
    "usual members": {"type": "message", "role": "user", "status": "completed", "id": "m"},
    "non-ASCII text": {"type": "function_call", "name": "résumé✓", "call_id": "é", "id": "𝄞"},
    "a null name, role and status": {"type": "message", "name": None, "role": None},
    "odd ids": {"type": "function_call_output", "id": [1, {"a": 2}], "call_id": 1.5},
    "a float beyond an integer": {"type": "reasoning", "id": 1e300},
    "an empty name": {"type": "function_call", "name": ""},
}


@pytest.mark.parametrize(
    ("name", "kind"),
    [(n, "taken") for n in _TAKEN]
    + [(n, "refused") for n in _REFUSED]
    + [(n, "no item") for n in _NOT_ITEMS],
)
def test_each_kind_of_line_loads_the_same(name: str, kind: str) -> None:
    record = {"taken": _TAKEN, "refused": _REFUSED, "no item": _NOT_ITEMS}[kind][name]
    line = _jsonl([record])
    data = line + b'{"type":"message","role":"user","content":"after"}\n' + line
    with _counted() as counted:
        lean, plain = _both(data, "log.jsonl")
    assert_same_load(lean, plain)
    assert isinstance(lean, Transcript) and isinstance(plain, Transcript)
    assert_same_gate(gate_transcript(lean), gate_transcript(plain))
    # The middle line strictly unless it follows a line that stopped a call at once (then
    # it is read the loose way first), and the record's two lines when it takes them.
    expected = {"taken": (3, 0), "refused": (1, 2), "no item": (0, 2)}[kind]
    assert (counted.taken, counted.refused) == expected


@pytest.mark.parametrize(
    "data",
    [
        # The same key twice: the decoders keep the last, as orjson does.
        b'{"type":"openai:x","type":"message","role":"user"}\n',
        b'{"type":"message","type":"openai:x"}\n',
        b'{"type":"message","status":"completed","status":3}\n',
        b'{"type":"message","status":3,"status":"completed"}\n',
        # Escapes the strict decoder reads into its literals.
        b'{"type":"mes\\u0073age","role":"\\u0075ser","status":"completed"}\n',
        b'{"type":"message","name":"a\\"b\\\\c\\n"}\n',
        # Blank lines, CRLF, no newline at the end, an empty object.
        b'\n{"type":"message"}\r\n\r\n  \n{"type":"reasoning"}',
        b'{}\n{"type":"message"}\n',
        b'{"type":"message"}\n[1]\n',
    ],
)
def test_edge_lines_load_the_same(data: bytes) -> None:
    assert_same_load(*_both(data, "edge.jsonl"))


def test_a_log_of_requests_tries_the_strict_decoder_once() -> None:
    """A call of `jsonl_items` stopped at its first line reads the next call's first line
    the loose way at once: a request is never decoded twice over, but for the first."""
    item = {"type": "message", "role": "user", "content": "hi"}
    request = {"model": "m", "input": [item, item]}
    data = _jsonl([request] * 20 + [item] * 5 + [request] + [item] * 5)
    with _counted() as counted:
        lean, plain = _both(data, "log.jsonl")
    assert_same_load(lean, plain)
    # The first request; the first item after the requests is read loosely, the next four
    # strictly; then the request that stops them, and the five items after it strictly
    # again (that call stopped after items, not at its first line).
    assert (counted.taken, counted.refused) == (4 + 5, 2)


def test_a_file_with_a_long_number_is_never_read_strictly() -> None:
    data = _jsonl([{"type": "message", "id": 10**30}, {"type": "message"}])
    with _counted() as counted:
        assert_same_load(*_both(data, "log.jsonl"))
    assert (counted.taken, counted.refused) == (0, 0)


_STRINGS = st.sampled_from(
    ["message", "function_call", "reasoning", "completed", "failed", "user", "tool", "é", ""]
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**25), max_value=10**25),
    st.floats(allow_nan=False, allow_infinity=False),
    _STRINGS,
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "type"]), st.integers(), max_size=2),
)
_KEYS = st.sampled_from(
    ["type", "id", "call_id", "name", "role", "status", "stop_reason", "object", "content"]
)


@st.composite
def _record(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if draw(st.booleans()):
        record["type"] = draw(st.sampled_from(sorted(_lean.PLAIN_ITEM_TYPES)))
    record.update(draw(st.dictionaries(_KEYS, _VALUES, max_size=4)))
    return record


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_record(), min_size=1, max_size=8))
def test_generated_lines_load_the_same(records: list[dict[str, Any]]) -> None:
    data = _jsonl(records)
    lean, plain = _both(data, "log.jsonl")
    assert_same_load(lean, plain)


def test_strict_items_share_their_strings_with_the_loose_ones() -> None:
    """A name read strictly is the one string the reader holds for it (as a loose one's)."""
    data = _jsonl(
        [
            {"type": "function_call", "name": "tool_a", "call_id": "1"},
            {"type": "function_call", "name": "tool_a", "call_id": "2", "status": "odd"},
            {"type": "function_call", "name": "tool_a", "call_id": "3"},
        ]
    )
    items = load_bytes(data, "log.jsonl").items
    assert all(i._mask & LEAN for i in items)
    assert items[0].name is items[1].name is items[2].name
    assert items[1].status == "odd"


def _always_deleting(data: bytes, window: int) -> tuple[bool, bool]:
    """The scan as it was: every window translated with its pluses deleted."""
    long_digits, deep = False, sys.getrecursionlimit() > 1024
    for start in range(0, max(len(data), 1), window):
        shapes = data[max(start - 18, 0) : start + window].translate(_lean._SHAPES, b"+")
        long_digits = long_digits or _lean._LONG_DIGITS in shapes
        deep = deep or _lean._BIG_EXPONENT in shapes
        if long_digits:
            break
    return long_digits, deep


@pytest.mark.parametrize("window", [4, 7, 1 << 20])
def test_risks_agree_whether_or_not_a_window_holds_a_plus(window: int) -> None:
    """The scan deletes pluses only in a window that holds one: the windows without (the bulk
    of a file) are translated by the faster loop, and the answer is the same."""
    shapes = [b"1e300", b"1E+300", b"1234567890+123456789", b"1e+30", b"x" * 9, b"+", b"9" * 19]
    for first in shapes:
        for second in shapes:
            data = first + b" " + second
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(_lean, "_WINDOW", window)
                risks = _lean.Risks(data)
            assert (risks.long_digits, risks.deep) == _always_deleting(data, window), data
