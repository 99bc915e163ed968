"""Property tests: arbitrary input never raises anything but the project's own typed errors.

Targets: the loaders, the gate, the SSE decoder, the reducer and the diff.

The normal suite runs a modest number of examples; `pytest -m slow` runs 10,000 per target.
"""

from __future__ import annotations

import io
import json
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.diff import diff_results
from inspector.core.formats import load_bytes
from inspector.core.gate import ToolSet, Verdict, gate_item, gate_transcript
from inspector.core.model import ArgumentsError, InspectorError, Tool
from inspector.core.stream import (
    SPEC_EVENT_TYPES,
    events_from_json_lines,
    events_from_sse,
    reduce_stream,
)
from inspector.core.stream.sse import decode_sse

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
        from inspector.core.jsonio import parse_arguments

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


# --- the SSE decoder, the reducer and the diff -------------------------------------------------

event_types = st.one_of(
    st.sampled_from(sorted(SPEC_EVENT_TYPES)),
    st.sampled_from(["error", "acme:ping", "response.web_search_call.searching", "bogus"]),
    field_values,
)
event_objects = st.one_of(
    st.fixed_dictionaries(
        {"type": event_types},
        optional={
            "sequence_number": st.one_of(st.integers(-2, 40), field_values),
            "item_id": st.sampled_from(["msg_1", "fc_1", "x"]) | field_values,
            "output_index": st.integers(-1, 3) | field_values,
            "content_index": st.integers(-1, 2) | field_values,
            "summary_index": st.integers(-1, 2),
            "delta": field_values,
            "text": field_values,
            "arguments": field_values,
            "item": items | json_values,
            "part": json_values,
            "response": st.fixed_dictionaries(
                {"id": st.just("resp_1")},
                optional={"status": field_values, "output": st.lists(items, max_size=3)},
            )
            | json_values,
            "error": json_values,
        },
    ),
    json_values,
)
sse_bytes = st.one_of(
    st.binary(max_size=400),
    st.lists(
        st.tuples(
            st.sampled_from(["event: ", "data: ", ": ", "id: ", "retry: ", ""]),
            st.text(max_size=30),
        ),
        max_size=12,
    ).map(
        lambda fields: "".join(
            f"{k}{v}\n" + ("\n" if i % 2 else "") for i, (k, v) in enumerate(fields)
        ).encode("utf-8", "surrogatepass")
    ),
)


def check_sse(data: bytes) -> None:
    events = decode_sse(data)
    assert [e.index for e in events] == list(range(len(events)))
    reduce_stream(events_from_sse(events))


def check_reducer(objects: list) -> None:
    for strict in (False, True):
        result = reduce_stream(events_from_json_lines(enumerate(objects, start=1)), strict=strict)
        assert result.status in (
            "completed",
            "incomplete",
            "failed",
            "none",
            "in_progress",
            "queued",
        )
        assert all(v.severity in ("error", "warning", "info") for v in result.violations)


def check_diff(left_data: bytes, right_data: bytes) -> None:
    try:
        left = load_bytes(left_data, "left.json")
        right = load_bytes(right_data, "right.json")
    except InspectorError:
        return
    result = diff_results(gate_transcript(left), gate_transcript(right))
    lefts = sorted(p.left for p in result.pairs if p.left is not None)
    rights = sorted(p.right for p in result.pairs if p.right is not None)
    assert lefts == list(range(len(left.items)))
    assert rights == list(range(len(right.items)))
    assert result.replay_safe == (not result.reasons)


event_lists = st.lists(event_objects, max_size=12)

test_sse_decoder_on_arbitrary_bytes = FAST(given(sse_bytes)(check_sse))
test_reducer_on_arbitrary_events = FAST(given(event_lists)(check_reducer))
test_diff_on_arbitrary_transcripts = FAST(given(documents, documents)(check_diff))

test_sse_decoder_slow = pytest.mark.slow(SLOW(given(sse_bytes)(check_sse)))
test_reducer_slow = pytest.mark.slow(SLOW(given(event_lists)(check_reducer)))
test_diff_slow = pytest.mark.slow(SLOW(given(documents, documents)(check_diff)))


# --- streams reduced as they are read, their renderings, huge-text syntax errors -------------


def _framed(objects: list, ending: str, named: bool) -> bytes:
    frames = []
    for value in objects:
        name = value.get("type") if named and isinstance(value, dict) else None
        head = f"event: {name}{ending}" if isinstance(name, str) and "\n" not in name else ""
        data = json.dumps(value, allow_nan=True)
        frames.append(f"{head}data: {data}{ending}{ending}")
    return "".join(frames).encode("utf-8", "surrogatepass")


def check_windowed_stream(objects: list, ending: str, named: bool, window: int) -> None:
    """Reduced window by window, any stream is what it is loaded whole; its renderings hold."""
    import tempfile
    from pathlib import Path

    from inspector.commands import events as events_command
    from inspector.commands.common import Style, safe_text, write_json
    from inspector.core import formats

    data = _framed(objects, ending, named)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stream.sse"
        path.write_bytes(data)
        saved = formats.STREAM_WINDOW
        formats.STREAM_WINDOW = window
        try:
            whole = formats.load_stream_path(path)
            read = formats.reduce_stream_path(path)
        except InspectorError:
            return
        finally:
            formats.STREAM_WINDOW = saved
    assert read.stream.to_json() == whole.stream.to_json()
    saved_lines = events_command.LINES_SHOWN
    events_command.LINES_SHOWN = 2
    try:
        lines = events_command.render_text("s.sse", read.stream, Style(False))
    finally:
        events_command.LINES_SHOWN = saved_lines
    assert all(safe_text(line) == line for line in lines)
    shown = [line for line in lines if line.startswith("  event ")]
    assert len(shown) == min(len(read.stream.violations), 2)
    out = io.StringIO()
    write_json(events_command.json_document("s.sse", read.stream), out)
    assert len(json.loads(out.getvalue())["violations"]) == len(read.stream.violations)


test_streams_reduced_in_any_windows = settings(FAST, max_examples=50)(
    given(
        st.lists(event_objects, min_size=1, max_size=10),
        st.sampled_from(["\n", "\r\n", "\r"]),
        st.booleans(),
        st.integers(min_value=1, max_value=64),
    )(check_windowed_stream)
)

json_texts = st.one_of(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5)),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=8,
    ).map(lambda v: json.dumps(v, indent=1)),
    st.text(alphabet='[]{}",:0123456789.eE-+ \n\ttruefalsnNaIiy\\u', max_size=40),
)


def check_syntax_error(text: str, cut: int) -> None:
    """An error msgspec's walk names is one the parser finds too, at the same line."""
    from inspector.core.jsonio import JSONError, parse, syntax_error

    text = text[: cut % (len(text) + 1)] + text[cut % (len(text) + 1) :]
    for value in (text, text.encode("utf-8", "surrogatepass")):
        found = syntax_error(value)
        if found is None:
            continue
        with pytest.raises(JSONError):
            parse(text)
        assert found.line == text.count("\n", 0, found.offset) + 1
        assert found.column is not None and found.column >= 1


test_syntax_errors_found_by_walking = FAST(
    given(json_texts, st.integers(min_value=0, max_value=60))(check_syntax_error)
)
