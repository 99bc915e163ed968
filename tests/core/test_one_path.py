"""One reading of a stream, one decision: `events`, `gate` and the loader agree on every stream."""

from __future__ import annotations

import io
import json

import pytest

from inspector.cli import run
from inspector.core.decision import decide_file as decide
from inspector.core.formats import classify, load_path
from inspector.core.gate import gate_transcript
from tests.conftest import SAMPLES

STREAMS = sorted((SAMPLES / "streams").glob("*.*"))


def _cli(*args: str) -> tuple[int, dict]:
    out, err = io.StringIO(), io.StringIO()
    status = run([*args, "--format", "json"], out, err)
    return status, json.loads(out.getvalue())


def _jsonl_stream(tmp_path, replace: tuple[str, str]) -> str:
    lines = (SAMPLES / "streams" / "two-responses.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace(*replace)
    assert replace[1] in lines[2]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _violations(document: dict) -> list[tuple]:
    return [(v["code"], v["severity"], v["event_index"]) for v in document["violations"]]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_events_and_gate_report_the_same_violations(path, strict):
    flags = ["--strict"] if strict else []
    events_status, events = _cli("events", str(path), *flags)
    gate_status, gate = _cli("gate", str(path), *flags)
    stream = gate["files"][0]["stream"]
    assert _violations(stream) == _violations(events)
    assert stream["counts"] == events["counts"]
    assert (events_status == 1) == any(v[1] == "error" for v in _violations(events)) or strict
    # A stream whose violations fail `events` blocks the replay in `gate` too.
    if events_status == 1:
        assert gate_status == 1


@pytest.mark.parametrize(
    "replace",
    [
        ('"sequence_number":2', '"sequence_number":NaN'),
        ('"sequence_number":2', '"sequence_number":2,"sequence_number":2'),
        ('"sequence_number":2', '"sequence_number":2,"n":123456789012345678901234567890'),
    ],
    ids=["nan", "duplicate-key", "huge-integer"],
)
def test_odd_json_in_an_event_is_judged_the_same_everywhere(tmp_path, replace):
    path = _jsonl_stream(tmp_path, replace)
    events_status, events = _cli("events", path)
    gate_status, gate = _cli("gate", path)
    assert _violations(gate["files"][0]["stream"]) == _violations(events)
    assert events_status == gate_status
    loaded = load_path(path)
    assert [(v.code, str(v.severity), v.event_index) for v in loaded.stream.violations] == (
        _violations(events)
    )
    # The window shows the events kept on the load result: one decode.
    assert len(loaded.events) == events["events"]


def test_nan_in_an_event_is_a_malformed_event():
    from inspector.core.jsonio import parse_event

    assert parse_event('{"a": NaN}')[1] is not None
    assert parse_event('{"a": 1, "a": 2}') == ({"a": 2}, None)
    assert parse_event('{"n": 123456789012345678901234567890}')[0] == {
        "n": 123456789012345678901234567890
    }


def test_the_stream_decision_blocks_in_gate_and_in_the_decision():
    path = SAMPLES / "streams" / "sequence-gap-duplicate.sse"
    status, _ = _cli("gate", str(path))
    decision = decide(gate_transcript(load_path(path)))
    assert status == 1 and decision.blocks and decision.exit_status == 1
    assert any(r.startswith("stream ") for r in decision.reason_lines())


def test_detection_is_scored_so_the_better_match_wins():
    # Both Chat Completions and Anthropic read `messages`; a top-level `system` string and
    # `input_schema` tools make it Anthropic.
    anthropic = {
        "model": "m",
        "system": "be brief",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "t", "input_schema": {"type": "object"}}],
    }
    chat = {"model": "m", "messages": [{"role": "system", "content": "be brief"}]}
    assert classify(anthropic) == "anthropic_request"
    assert classify(chat) == "chat_request"
    assert classify({"type": "function_call", "name": "x"}) == "item"
    assert classify({"object": "response", "output": []}) == "response"
    assert classify(42) == "unknown"


def test_unrecognised_record_keeps_its_clear_error(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text('{"weather": "sunny"}', encoding="utf-8")
    status, document = _cli("gate", str(path))
    assert status == 2
    assert document["files"][0]["error"]["message"].startswith("unrecognised record")
