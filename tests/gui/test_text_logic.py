"""The Qt-free helpers behind the panels: pointer spans, previews, filters, alignment steps."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.diff import diff_results
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.core.model import join_pointer
from inspector.gui.alignment import Alignment
from inspector.gui.filtering import Choice, ItemFilter, matching_rows
from inspector.gui.json_text import locate, pointer_tokens, pretty, preview
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS

DOC = {"a": [1, {"b~c": "x", "d/e": [True, None]}], "s": '{"q": 1}', "": 2}


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        ("", DOC),
        ("/a", DOC["a"]),
        ("/a/1/b~0c", "x"),
        ("/a/1/d~1e/1", None),
        ("/s", DOC["s"]),
        ("/", 2),
    ],
)
@pytest.mark.parametrize("indent", [None, 2])
def test_locate_finds_the_value_text(pointer, value, indent):
    text = json.dumps(DOC, indent=indent)
    span = locate(text, pointer)
    assert span is not None
    assert json.loads(text[span[0] : span[1]]) == value


def test_locate_misses_return_none():
    text = json.dumps(DOC)
    assert locate(text, "/nope") is None
    assert locate(text, "/a/7") is None
    assert locate('{"a": ', "/a") is None
    assert locate(text, "/s/0") is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def _pointers(value, base=""):
    yield base, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _pointers(child, join_pointer(base, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _pointers(child, join_pointer(base, i))


@settings(max_examples=60, deadline=None)
@given(json_values)
def test_locate_agrees_with_json_for_every_pointer(value):
    text = pretty(value)
    for pointer, expected in _pointers(value):
        span = locate(text, pointer)
        assert span is not None
        assert json.loads(text[span[0] : span[1]]) == expected
        assert join_pointer("", *pointer_tokens(pointer)) == pointer


def test_preview_is_one_short_line():
    assert preview("a\nb") == '"a\\nb"'
    assert preview({"a": 1, "b": 2}) == "{…} 2 keys"
    assert preview([1]) == "[…] 1 item"
    assert len(preview("x" * 1000)) == 160


def test_pretty_keeps_arguments_a_literal_string():
    assert '"arguments": "{\\"region\\":\\"global\\"}"' in pretty(
        {"arguments": '{"region":"global"}'}
    )


@pytest.fixture(scope="module")
def pair():
    tools = load_tools(SALES_TOOLS)
    return gate_transcript(load_path(PROVIDER_A), tools), gate_transcript(
        load_path(PROVIDER_B), tools
    )


def test_filter_terms(pair):
    left, _right = pair

    def rows(query, choice=Choice.ALL):
        return sorted(matching_rows(left, None, ItemFilter.parse(query, choice), lambda i: False))

    assert rows("verdict:ok") == [3, 5, 9]
    assert rows("type:function_call_output") == [4, 6]
    assert rows("name:search") == [5]
    assert rows("call_id:call_12") == [3, 4, 5, 6, 7]
    assert rows("OK send") == [9]
    assert rows("text:dana@example.com") == [9]
    assert rows("", Choice.PROBLEMS) == [7]
    assert rows("", "arguments_schema") == [7]
    assert rows("nothing-matches-this") == []
    assert not ItemFilter.parse("").active
    assert ItemFilter.parse("", Choice.CHANGED).active


def test_alignment_steps_between_changed_pairs(pair):
    alignment = Alignment(diff_results(*pair))
    changed = alignment.changed
    assert changed == [n for n, p in enumerate(alignment.diff.pairs) if p.changed]
    assert alignment.next_changed(None) == changed[0]
    assert alignment.next_changed(changed[0]) == changed[1]
    assert alignment.next_changed(changed[-1]) == changed[0]
    assert alignment.previous_changed(changed[0]) == changed[-1]
    assert alignment.previous_changed(None) == changed[-1]
    assert alignment.position("left", 7) == alignment.position("right", 6)
    assert alignment.counterpart("left", 7) == 6
    assert alignment.counterpart("left", 6) is None
    assert alignment.position("left", 99) is None
