"""`_lean.Risks` finds every number shape that sends a file, or its records, the plain way."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.formats import _lean

_LONG = re.compile(rb"[0-9]{19}")
_BIG = re.compile(rb"[0-9][eE][0-9]{3}")
# Bytes that make and break number shapes, and a filler.
_ALPHABET = st.sampled_from([b"1", b"9", b"0", b"e", b"E", b"+", b"-", b".", b"x", b'"'])


def _expected(data: bytes) -> tuple[bool, bool]:
    """What the scan says: its shapes, searched with the pluses (which it deletes) left out."""
    joined = data.replace(b"+", b"")
    return bool(_LONG.search(joined)), bool(_BIG.search(joined))


@pytest.mark.parametrize(
    ("text", "long_digits", "deep"),
    [
        (b'{"a": 1e300}', False, True),
        (b'{"a": 1E+300}', False, True),
        (b'{"a": 1e-300}', False, False),  # small, not out of range
        (b'{"a": 1e+30, "b": 2E30}', False, False),
        (b'{"a": "x1e+3000"}', False, True),  # in a string: a harmless check, never a miss
        (b'{"a": 1234567890123456789}', True, False),
        (b'{"a": 123456789012345678}', False, False),
        (b'{"a": "+1 555 1234567890+123456789"}', True, False),  # joined across the plus
    ],
)
def test_shapes_are_found(text: bytes, long_digits: bool, deep: bool) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "getrecursionlimit", lambda: 1000)  # the default, whoever runs this
        risks = _lean.Risks(text)
    assert (risks.long_digits, risks.deep) == (long_digits, deep)
    assert risks.lean is not long_digits


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=60), st.integers(min_value=1, max_value=9))
def test_agrees_with_the_shapes_across_windows(parts: list[bytes], window: int) -> None:
    """Every shape is found, however the file's windows cut it (the plus included), and
    none is claimed that the bytes, their pluses left out, do not hold."""
    data = b"".join(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lean, "_WINDOW", window)
        risks = _lean.Risks(data)
    long_digits, big = _expected(data)
    # A run that only pluses join may be missed where a window's edge cuts it (its overlap
    # is 18 bytes): such text is not a JSON number, so only these two directions hold.
    assert risks.long_digits <= long_digits
    if not risks.long_digits:  # the scan stops at a long run: the exponents are not looked for
        # (Deep from the start when the interpreter may nest past orjson's limit.)
        assert risks.deep <= (big or sys.getrecursionlimit() > _lean._ORJSON_DEPTH)
    # Never a miss of either form the plain loader reads differently.
    assert risks.long_digits or not _LONG.search(data)
    assert risks.long_digits or risks.deep or not re.search(rb"[0-9][eE]\+?[0-9]{3}", data)


def test_a_run_joined_only_by_pluses_across_a_window_edge_may_be_missed() -> None:
    """What the test above allows, shown: no JSON number holds a plus between digits."""
    data = b"+1234567890+123456789"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lean, "_WINDOW", 10)  # an edge after "+1234567890"
        assert not _lean.Risks(data).long_digits
    assert _lean.Risks(data).long_digits  # in one window the pluses are deleted and it joins


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*_ALPHABET.elements, "é".encode(), b"\xff"]), max_size=60),
    st.integers(min_value=1, max_value=9),
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=0, max_value=60),
)
def test_the_risks_of_a_share_are_those_of_its_bytes_alone(
    parts: list[bytes], window: int, begin: int, length: int
) -> None:
    """A share's risks, read in place, are those of a copy of its bytes (a shape across its
    edges is not in it), however the windows cut it."""
    data = b"".join(parts)
    begin = min(begin, len(data))
    stop = min(begin + length, len(data))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lean, "_WINDOW", window)
        alone, share = _lean.Risks(data[begin:stop]), _lean.Risks(data, begin, stop)
    assert (share.length, share.long_digits, share.deep) == (
        alone.length,
        alone.long_digits,
        alone.deep,
    )


@pytest.mark.parametrize("window", [1, 2, 5, 18, 19, 1 << 20])
def test_a_shape_across_a_shares_edge_is_not_the_shares(window: int) -> None:
    # 20 digits, then an exponent, then a character of two bytes: cut everywhere.
    data = b"x12345678901234567890y1e300z\xc3\xa9!"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_lean, "_WINDOW", window)
        for begin in range(len(data) + 1):
            for stop in range(begin, len(data) + 1):
                alone, share = _lean.Risks(data[begin:stop]), _lean.Risks(data, begin, stop)
                found = (share.length, share.long_digits, share.deep)
                assert found == (alone.length, alone.long_digits, alone.deep), (begin, stop)
