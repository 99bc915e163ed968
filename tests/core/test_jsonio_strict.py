"""jsonio's strict `arguments` parse: its shortcuts are taken where they may be, and agree with
the standard library where they are."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core import jsonio


class _Repeated(ValueError):
    """What the oracle refuses."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _value in pairs}) != len(pairs):
        raise _Repeated
    return dict(pairs)


def _oracle(text: str) -> tuple[str, Any]:
    """The strict parse by the standard library: no repeated key, no NaN or infinity."""

    def refuse(_name: str) -> Any:
        raise _Repeated

    def finite(number: str) -> float:
        if math.isinf(float(number)):  # 1e400: valid text, but no JSON number is infinite
            raise _Repeated
        return float(number)

    try:
        value = json.loads(
            text, object_pairs_hook=_unique, parse_constant=refuse, parse_float=finite
        )
        return "value", value
    except ValueError:
        return "refused", None


def _answer(text: str) -> tuple[str, Any]:
    try:
        return "value", jsonio.parse_arguments(text)
    except jsonio.ArgumentsError:
        return "refused", None


def _typed(value: Any) -> Any:
    # 1, 1.0 and True compare equal in Python; the parsers must agree on the type too.
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return type(value).__name__, value


def _dumps_counted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Count jsonio's serialisations (the repeated-key check of a nested value makes one)."""
    made: list[Any] = []
    dumps = orjson.dumps

    def counted(value: Any, *args: Any, **kwargs: Any) -> bytes:
        made.append(value)
        return dumps(value, *args, **kwargs)

    monkeypatch.setattr(jsonio.orjson, "dumps", counted)
    return made


@pytest.mark.parametrize(
    ("text", "flat"),
    [
        ('{"region": "apac", "quarter": "2026-Q1"}', True),
        ('{"a": [1, 2, [3]], "b": null, "c": 1.5}', True),  # arrays hold no members
        ('{"a": {"b": 1}, "c": 2}', False),  # an object inside: its members are not `len`
        ('{"a": "x:y", "b": 1}', False),  # a colon in a string: more colons than members
        ('{"a": "{", "b": 1}', False),  # a brace in a string reads as an object inside
        (' {"a": 1, "b": 2}', False),  # the first `{` is not the first byte
        ('[{"a": 1}, {"b": 2}]', False),  # not an object
    ],
)
def test_a_flat_object_is_checked_for_repeated_keys_without_writing_it(
    text: str, flat: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _dumps_counted(monkeypatch)
    value, writable = jsonio.parse_arguments_checked(text)
    assert value == json.loads(text) and writable
    assert bool(made) is not flat


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"a": 1, "b": 2, "a": 3}',
        '{"a": "x:", "a": 1}',
        '{"a:b": 1, "a:b": 2}',
        '{"a": 1, "\\u0061": 2}',
        '{"a": [1, {"b": 1, "b": 2}]}',
        '{"a": {"b": 1}, "a": 2}',
        '{"a": 1, "b": "c", "d": [1, 2], "b": "e"}',
        '{"a": NaN, "b": 1}',
        '{"a": 1e400, "b": 1}',
        '{"a": "\ud800", "b": 1}',  # a lone surrogate in the text itself
        '{"a": "\\ud800", "b": 1}',  # and as an escape
        '{"n": 12345678901234567890123, "m": 1}',
    ],
)
def test_the_strict_parse_agrees_with_the_standard_library_on_tricky_objects(text: str) -> None:
    kind, value = _oracle(text)
    fast_kind, fast_value = _answer(text)
    assert fast_kind == kind
    if kind == "value":
        assert _typed(fast_value) == _typed(value)


_keys = st.sampled_from(["a", "b", "a:b", "\\u003a", "\\u0061", "{", 'x\\"y'])
_leaves = st.sampled_from(
    ['"s"', '":"', '"{"', '"\\u003a"', "true", "null", "1", "-0", "1.5", "[1, 2]", "[]", "NaN"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_keys, _leaves), max_size=5), st.sampled_from([", ", ",", " , "]))
def test_flat_objects_parse_as_the_standard_library_does(
    members: list[tuple[str, str]], comma: str
) -> None:
    text = "{" + comma.join(f'"{key}": {value}' for key, value in members) + "}"
    kind, value = _oracle(text)
    fast_kind, fast_value = _answer(text)
    assert fast_kind == kind, text
    if kind == "value":
        assert _typed(fast_value) == _typed(value), text
