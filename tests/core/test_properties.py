"""Property tests: arbitrary bytes, JSON and items never raise anything but the project's errors.

The normal suite runs a modest number of examples; `pytest -m slow` runs 10,000 per target.
"""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.gate import ArgumentsError, ToolSet, Verdict, gate_item, gate_transcript
from inspector.core.load import load_bytes
from inspector.core.model import InspectorError, Tool

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(max_size=8), children, max_size=5),
    ),
    max_leaves=25,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(
        [
            "function_call",
            "function_call_output",
            "message",
            "acme:x",
            "reasoning",
            "completed",
            "in_progress",
            "incomplete",
            "t",
            "call_1",
            "user",
            '{"a": 1}',
            "{",
            "NaN",
        ]
    ),
)
items = st.dictionaries(
    st.sampled_from(
        [
            "type",
            "id",
            "call_id",
            "name",
            "status",
            "arguments",
            "role",
            "output",
            "content",
            "x:ext",
        ]
    ),
    field_values,
    max_size=7,
)
records = st.one_of(
    st.lists(items, max_size=6),
    st.fixed_dictionaries(
        {"input": st.lists(items, max_size=5)},
        optional={
            "tools": json_values,
            "tool_choice": json_values,
            "previous_response_id": field_values,
        },
    ),
    st.fixed_dictionaries(
        {"object": st.just("response"), "output": st.lists(items, max_size=5)},
        optional={"status": field_values, "error": json_values, "incomplete_details": json_values},
    ),
    st.fixed_dictionaries({"messages": st.lists(json_values, max_size=4)}),
    json_values,
)
documents = st.one_of(
    records.map(lambda r: json.dumps(r).encode()),
    st.lists(records, min_size=1, max_size=4).map(
        lambda rs: "\n".join(json.dumps(r) for r in rs).encode()
    ),
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


def check_bytes(data: bytes) -> None:
    try:
        transcript = load_bytes(data, "fuzz.json")
    except InspectorError:
        return
    result = gate_transcript(transcript)
    assert len(result.verdicts) == len(transcript.items)
    for finding in result.findings:
        assert all(0 <= i < len(transcript.items) for i in finding.items)


TOOLS = ToolSet(MappingProxyType({"t": Tool("t", {"type": "object", "required": ["a"]})}))


def check_item(raw: dict) -> None:
    verdict = gate_item(raw, TOOLS)
    assert verdict.verdict in Verdict
    assert isinstance(verdict.detail, str) and verdict.detail


def check_arguments_text(text: str) -> None:
    raw = {
        "type": "function_call",
        "name": "t",
        "call_id": "c",
        "status": "completed",
        "arguments": text,
    }
    try:
        from inspector.core.gate import parse_arguments

        parse_arguments(text)
    except ArgumentsError:
        assert gate_item(raw, TOOLS).verdict == Verdict.ARGUMENTS_PARSE
    else:
        assert gate_item(raw, TOOLS).verdict in (Verdict.OK, Verdict.ARGUMENTS_SCHEMA)


arguments_texts = st.one_of(st.text(max_size=60), json_values.map(json.dumps))

test_loaders_and_gate_on_arbitrary_input = FAST(given(documents)(check_bytes))
test_gate_on_arbitrary_items = FAST(given(items)(check_item))
test_arguments_on_arbitrary_text = FAST(given(arguments_texts)(check_arguments_text))

test_loaders_and_gate_slow = pytest.mark.slow(SLOW(given(documents)(check_bytes)))
test_gate_items_slow = pytest.mark.slow(SLOW(given(items)(check_item)))
test_arguments_slow = pytest.mark.slow(SLOW(given(arguments_texts)(check_arguments_text)))
