"""Hostile inputs through the CLI and core: each has a defined, tested outcome."""

from __future__ import annotations

import hashlib
import io
import json

import pytest

from inspector.cli import run
from inspector.core.formats import load_text
from inspector.core.jsonio import parse_arguments
from inspector.core.model import ArgumentsError, LoadError


def gate(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", *args], out, err)
    return status, out.getvalue(), err.getvalue()


def call(arguments, name="t"):
    return {
        "type": "function_call",
        "name": name,
        "call_id": "c1",
        "status": "completed",
        "arguments": arguments,
    }


def test_deeply_nested_arguments_are_a_parse_verdict():
    with pytest.raises(ArgumentsError, match="nested too deeply"):
        parse_arguments("[" * 100_000 + "]" * 100_000)


def test_deeply_nested_file_is_a_clear_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"input": ' + "[" * 100_000 + "]" * 100_000 + "}")
    status, _, err = gate(str(deep))
    assert status == 2
    assert "nested" in err and str(deep) in err


def test_large_single_string_loads_whole():
    big = "x" * 20_000_000
    transcript = load_text(json.dumps([{"type": "message", "role": "user", "content": big}]))
    assert len(transcript.items[0].raw["content"]) == 20_000_000


@pytest.mark.slow
def test_200_mb_single_string_loads_whole():
    big = "y" * 200_000_000
    transcript = load_text(json.dumps([{"type": "message", "role": "user", "content": big}]))
    assert len(transcript.items[0].raw["content"]) == 200_000_000


def test_lone_surrogates_in_text_and_json_output(tmp_path):
    path = tmp_path / "surrogates.json"
    path.write_text(
        '[{"type": "function_call", "name": "t\\ud800", "call_id": "c\\udfff",'
        ' "status": "completed", "arguments": "{\\"a\\": \\"\\\\ud83d\\"}"}]'
    )
    status, out, _ = gate(str(path))
    assert status == 1
    assert "t\\ud800" in out and "c\\udfff" in out
    status, out, _ = gate(str(path), "--format", "json")
    item = json.loads(out)["files"][0]["items"][0]
    assert item["name"] == "t\ud800"


def test_catastrophic_pattern_is_reported_by_the_cli(tmp_path):
    items = tmp_path / "items.json"
    items.write_text(json.dumps([call(json.dumps({"s": "a" * 3000 + "!"}))]))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"t": {"properties": {"s": {"pattern": "^(a|aa)+(?!b)$"}}}}))
    status, out, _ = gate(
        str(items), "--tools", str(tools), "--item-budget", "0.2", "--format", "json"
    )
    assert status == 1
    item = json.loads(out)["files"][0]["items"][0]
    assert item["verdict"] == "arguments_schema"
    assert item["errors"][0]["keyword"] == "budget"
    assert "backtrack limit" in item["detail"] and "'^(a|aa)+(?!b)$'" in item["detail"]


def test_bad_item_budget_is_usage_error():
    assert gate("x.json", "--item-budget", "-1")[0] == 2
    assert gate("x.json", "--item-budget", "soon")[0] == 2


def test_ansi_escape_in_finding_messages_is_escaped(tmp_path):
    path = tmp_path / "ansi.json"
    path.write_text(json.dumps({"error": {"message": "\x1b[31mred\x1b[0m alert\x07", "type": "x"}}))
    status, out, _ = gate(str(path))
    assert status == 1
    assert "\x1b" not in out and "\\x1b[31mred" in out


def test_gate_never_modifies_its_inputs(samples, tmp_path):
    files = [
        samples / "providers" / "provider-a.json",
        samples / "logs" / "agent-session.jsonl",
        samples / "article" / "region-schema.tools.json",
    ]
    before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    gate(str(files[0]), str(files[1]), "--tools", str(files[2]), "--format", "json")
    after = [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    assert before == after


@pytest.mark.parametrize(
    "text",
    [
        '{"input": [1, 2, 3]}',
        '{"object": "response", "output": "nope"}',
        '{"input": {"type": "message"}}',
        "[[[]]]",
    ],
)
def test_odd_shapes_load_or_fail_clearly(text):
    try:
        transcript = load_text(text, "odd.json")
    except LoadError as exc:
        assert exc.path == "odd.json" and exc.message
    else:
        assert transcript.items
