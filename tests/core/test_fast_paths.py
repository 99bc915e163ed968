"""The fast paths (verdict memo, orjson) give the plain paths' answers."""

from __future__ import annotations

import json
import math

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core import formats, jsonio
from inspector.core.formats import load_text, tools_from_document
from inspector.core.gate import gate_item, gate_transcript, make_toolset
from tests.benchmarks import synthetic


@pytest.fixture(scope="module")
def corpus():
    items = list(synthetic.items(4000, seed=11))
    text = "\n".join(json.dumps(item) for item in items)
    return load_text(text, "synthetic.jsonl"), tools_from_document(synthetic.tools(), "tools")


def _answers(result):
    return [(v.verdict, v.detail, v.errors) for v in result.verdicts]


def test_the_corpus_has_every_verdict(corpus):
    transcript, tools = corpus
    kinds = {v.verdict for v in gate_transcript(transcript, tools).verdicts}
    assert {
        "ok",
        "arguments_schema",
        "arguments_parse",
        "status",
        "unknown_tool",
        "arguments_type",
        "namespaced",
        "not_function_call",
    } <= kinds


def test_memoised_verdicts_match_item_by_item(corpus):
    transcript, tools = corpus
    toolset, _ = make_toolset(transcript, tools)
    memo = gate_transcript(transcript, tools)
    single = [gate_item(item.raw, toolset) for item in transcript.items]
    assert [(v.verdict, v.detail, v.errors) for v in single] == _answers(memo)


def test_orjson_loading_matches_the_standard_library(corpus, monkeypatch):
    transcript, _ = corpus
    text = "\n".join(json.dumps(item.raw) for item in transcript.items)
    fast = load_text(text, "synthetic.jsonl")

    class NoOrjson:
        JSONDecodeError = orjson.JSONDecodeError

        @staticmethod
        def loads(_text):
            raise orjson.JSONDecodeError("forced", "", 0)

    monkeypatch.setattr(jsonio, "orjson", NoOrjson)
    monkeypatch.setattr(formats, "orjson", NoOrjson)
    plain = load_text(text, "synthetic.jsonl")
    assert [i.raw for i in fast.items] == [i.raw for i in plain.items]
    assert [i.origin for i in fast.items] == [i.origin for i in plain.items]


# Strict `arguments` parsing: orjson first, the strict parser only where a byte count says a
# repeated key or a long integer can matter.


class _Refused(ValueError):
    pass


def _refuse(*_args):
    raise _Refused


def _pairs(pairs):
    if len({key for key, _value in pairs}) != len(pairs):
        raise _Refused
    return dict(pairs)


def _finite(text):
    value = float(text)
    if math.isinf(value):  # 1e400: valid text, but no JSON number holds infinity
        raise _Refused
    return value


def _strict_oracle(text):
    """RFC 8259 by the standard library alone: exact integers, finite numbers, no repeated key."""
    try:
        value = json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_refuse, parse_float=_finite
        )
        return ("value", value)
    except (ValueError, RecursionError):
        return ("refused", None)


def _fast_answer(text):
    try:
        return ("value", jsonio.parse_arguments(text))
    except jsonio.ArgumentsError:
        return ("refused", None)


def _typed(value):
    # 1 and 1.0 and True compare equal in Python; the parsers must agree on the type too.
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


_keys = st.sampled_from(["a", "b", "a:b", "\\u003a", "\\u0061", 'x\\"y'])
_numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "0.1", "-0", "18446744073709551616"]),
)
_leaves = st.one_of(_numbers, st.sampled_from(['"s"', '":"', '"\\u003a"', "true", "null"]))


@st.composite
def _texts(draw, depth=0):
    """JSON-ish texts with repeated keys, colons and escapes in strings, and long numbers."""
    if depth > 2 or draw(st.booleans()):
        return draw(_leaves)
    if draw(st.booleans()):
        parts = draw(st.lists(_texts(depth + 1), max_size=3))
        return "[" + ",".join(parts) + "]"
    members = draw(st.lists(st.tuples(_keys, _texts(depth + 1)), max_size=4))
    return "{" + ", ".join(f'"{key}": {value}' for key, value in members) + "}"


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_strict_arguments_fast_path_matches_the_standard_library(text):
    kind, value = _strict_oracle(text)
    fast_kind, fast_value = _fast_answer(text)
    assert fast_kind == kind, text
    if kind == "value":
        assert _typed(fast_value) == _typed(value), text


@pytest.mark.parametrize(
    ("text", "full"),
    [
        ('{"region": "apac", "quarter": "2026-Q1"}', False),
        ('{"a": [1, 2, {"b": null}]}', False),
        ('{"region": "apac", "region": "emea"}', True),  # a repeated key
        ('{"a": 1, "\\u0061": 2}', True),  # an escape may spell a repeated key
        ('{"n": 12345678901234567890123}', True),  # past 64 bits
        ('{"n": NaN}', True),  # orjson refuses; the strict parser says why
    ],
)
def test_strict_arguments_use_the_full_parser_only_when_a_check_can_matter(text, full, monkeypatch):
    calls = []
    full_parse = jsonio.parse
    monkeypatch.setattr(jsonio, "parse", lambda *a, **k: calls.append(a) or full_parse(*a, **k))
    kind, value = _fast_answer(text)
    assert kind == _strict_oracle(text)[0]
    assert _typed(value) == _typed(_strict_oracle(text)[1])
    assert bool(calls) == full
