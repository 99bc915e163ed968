"""Strict `arguments` parsing says a value is writable only when orjson writes it back, and
refused texts are worded by the full parser as before (`jsonio.strict_fast`)."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core import jsonio
from inspector.core.jsonio import ArgumentsError, parse_arguments_checked


def _writes_back(value: object) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


def _nested(depth: int, pad: int) -> str:
    """`depth` arrays one in another, the innermost holding a string of `pad` bytes."""
    return "[" * depth + json.dumps("x" * pad) + "]" * depth


@pytest.mark.parametrize("depth", [1, 200, 253, 254, 255, 256, 300])
@pytest.mark.parametrize("pad", [0, 1, 40, 600])
def test_the_writable_flag_is_true_only_for_values_orjson_writes_back(depth: int, pad: int) -> None:
    # Texts on both sides of the 509-byte bound below which the brackets are not counted.
    text = _nested(depth, pad)
    value, writable = parse_arguments_checked(text)
    assert value == json.loads(text)
    if writable:
        assert _writes_back(value)
    if depth <= 255 and len(text) <= jsonio._SHALLOW:
        assert writable  # the common case is known without counting


def test_the_shallow_bound_cannot_hold_a_value_orjson_refuses_to_write() -> None:
    # The deepest value of _SHALLOW bytes: each level takes two brackets.
    depth = jsonio._SHALLOW // 2
    text = "[" * depth + "]" * depth
    assert len(text) <= jsonio._SHALLOW
    value, writable = parse_arguments_checked(text)
    assert writable and _writes_back(value)
    deeper = "[" * (depth + 2) + "]" * (depth + 2)  # past the bound: counted, not writable
    assert len(deeper) > jsonio._SHALLOW
    assert parse_arguments_checked(deeper)[1] is _writes_back(json.loads(deeper))


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers(-5, 5) | st.text(max_size=3),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=2), c, max_size=3),
        max_leaves=30,
    )
)
def test_generated_values_parse_as_the_standard_library_reads_them(value: object) -> None:
    text = json.dumps(value)
    parsed, writable = parse_arguments_checked(text)
    assert parsed == json.loads(text)
    assert not writable or _writes_back(parsed)


@pytest.mark.parametrize(
    "text",
    ['{"a": 1,}', "[1 2]", '{"a": NaN}', '"\\ud800"', '{"a": 1, "a": 2}', "", "{", "01"],
)
def test_a_text_orjson_refuses_is_worded_as_the_full_parser_words_it(text: str) -> None:
    # orjson refused it (or it needs the full parser): the error is the strict parser's own.
    try:
        expected = jsonio.parse(text, strict=True, unique_keys=True, long_digits=True)
    except jsonio.JSONError as exc:
        with pytest.raises(ArgumentsError) as raised:
            parse_arguments_checked(text)
        assert raised.value.column == (exc.column if exc.column else None)
    else:
        assert parse_arguments_checked(text)[0] == expected


def test_a_text_orjson_refused_is_not_given_to_orjson_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[object] = []
    loads = orjson.loads

    class Counting:
        JSONDecodeError = orjson.JSONDecodeError
        JSONEncodeError = orjson.JSONEncodeError
        dumps = staticmethod(orjson.dumps)

        @staticmethod
        def loads(data: object) -> object:
            asked.append(data)
            return loads(data)  # type: ignore[arg-type]

    monkeypatch.setattr(jsonio, "orjson", Counting)
    with pytest.raises(ArgumentsError):
        parse_arguments_checked('{"a": 1,}')
    assert len(asked) == 1  # strict_fast's own parse, then the standard library's parser
    asked.clear()
    assert parse_arguments_checked('{"a": [1, 2]}') == ({"a": [1, 2]}, True)
    assert len(asked) == 1
