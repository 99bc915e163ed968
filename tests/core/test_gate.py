"""Per-item verdicts on real items: the article's samples and one item per verdict."""

from __future__ import annotations

import json
import socket
from types import MappingProxyType

import pytest

from inspector.core.formats import load_path, load_tools
from inspector.core.gate import (
    ArgumentsError,
    ToolSet,
    Verdict,
    gate_item,
    gate_transcript,
    parse_arguments,
)
from inspector.core.model import Tool


@pytest.fixture
def article(samples):
    transcript = load_path(samples / "article" / "items.json")
    tools = load_tools(samples / "article" / "region-schema.tools.json")
    return gate_transcript(transcript, tools)


def by_id(result, item_id):
    for item, verdict in zip(result.transcript.items, result.verdicts, strict=True):
        if item.id == item_id or (item_id.startswith("call_") and item.call_id == item_id):
            return item, verdict
    raise KeyError(item_id)


def test_article_verdicts(article):
    assert by_id(article, "fc_001")[1].verdict == Verdict.OK
    _item, verdict = by_id(article, "fc_009")
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    assert [(e.path, e.keyword) for e in verdict.errors] == [("/region", "enum")]
    assert verdict.errors[0].schema_path == "/properties/region/enum"
    assert by_id(article, "ws_001")[1].verdict == Verdict.NAMESPACED
    outputs = [
        v
        for i, v in zip(article.transcript.items, article.verdicts, strict=True)
        if i.type == "function_call_output"
    ]
    assert [v.verdict for v in outputs] == [Verdict.NOT_FUNCTION_CALL]


@pytest.fixture
def verdicts(samples):
    transcript = load_path(samples / "findings" / "verdicts.json")
    tools = load_tools(samples / "findings" / "verdicts.tools.json")
    result = gate_transcript(transcript, tools)
    return {
        item.id or item.role: v
        for item, v in zip(result.transcript.items, result.verdicts, strict=True)
    }


@pytest.mark.parametrize(
    ("key", "verdict", "detail_part"),
    [
        ("fc_v0", Verdict.NAMESPACED, "not a string"),
        ("fc_v1", Verdict.ARGUMENTS_TYPE, "JSON object, not a string"),
        ("fc_v2", Verdict.ARGUMENTS_PARSE, "NaN"),
        ("fc_v3", Verdict.ARGUMENTS_PARSE, "duplicate key 'order_id'"),
        ("fc_v4", Verdict.UNKNOWN_TOOL, "cancel_order"),
        ("fc_v5", Verdict.ARGUMENTS_SCHEMA, "pattern"),
        ("fc_v6", Verdict.STATUS, "status is null"),
        ("fc_v7", Verdict.ARGUMENTS_PARSE, "line 1 column"),
        ("user", Verdict.NOT_FUNCTION_CALL, "message"),
        ("msg_ref_1", Verdict.NOT_FUNCTION_CALL, "item_reference"),
        ("fc_v8", Verdict.OK, "lookup_order"),
    ],
)
def test_each_verdict_on_a_real_item(verdicts, key, verdict, detail_part):
    assert verdicts[key].verdict == verdict
    assert detail_part in verdicts[key].detail
    assert "\n" not in verdicts[key].detail


def toolset(schema, allowed=None):
    return ToolSet(MappingProxyType({"t": Tool("t", schema)}), allowed)


def call(arguments, status="completed", name="t", kind="function_call"):
    return {"type": kind, "name": name, "call_id": "c1", "status": status, "arguments": arguments}


def test_order_first_failing_check_wins():
    # Namespaced beats everything, status beats a bad arguments type, and so on down the table.
    tools = toolset({"type": "object"})
    assert gate_item(call({"x": 1}, status="in_progress", kind="acme:call"), tools).verdict == (
        Verdict.NAMESPACED
    )
    assert gate_item(call({"x": 1}, status="in_progress"), tools).verdict == Verdict.STATUS
    assert gate_item(call("{bad", name="nope"), tools).verdict == Verdict.ARGUMENTS_PARSE
    assert gate_item(call("[1]", name="nope"), tools).verdict == Verdict.UNKNOWN_TOOL
    assert gate_item(call("[1]"), tools).verdict == Verdict.ARGUMENTS_SCHEMA


@pytest.mark.parametrize("status", [None, "in_progress", "incomplete", "failed"])
def test_status_must_be_completed(status):
    assert gate_item(call("{}", status=status), toolset(True)).verdict == Verdict.STATUS
    raw = call("{}")
    del raw["status"]
    assert "missing" in gate_item(raw, toolset(True)).detail


def test_allowed_tools_limits_names():
    tools = toolset({"type": "object"}, allowed=frozenset({"other"}))
    verdict = gate_item(call("{}"), tools)
    assert verdict.verdict == Verdict.UNKNOWN_TOOL
    assert "allowed_tools" in verdict.detail


def test_strict_json_arguments():
    for text in ("NaN", "[Infinity]", '{"a": -Infinity}'):
        with pytest.raises(ArgumentsError):
            parse_arguments(text)
    with pytest.raises(ArgumentsError, match="duplicate key"):
        parse_arguments('{"a": {"b": 1, "b": 2}}')
    big = "1" + "0" * 5000
    assert parse_arguments(f'{{"n": {big}}}')["n"] == 10**5000
    assert parse_arguments("18446744073709551617") == 2**64 + 1
    with pytest.raises(ArgumentsError) as info:
        parse_arguments('{\n "a": }')
    assert (info.value.line, info.value.column) == (2, 7)


def test_huge_integer_validates_against_integer_schema():
    tools = toolset({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert gate_item(call('{"n": 123456789012345678901234567890}'), tools).verdict == Verdict.OK


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "properties": {"a": {"pattern": "(unclosed"}}}, "regex"),
        ({"type": "no-such-type"}, "invalid"),
        ({"minimum": "ten"}, "invalid"),
        ([1, 2], "object or a boolean"),
    ],
)
def test_broken_schema_blocks_without_crashing(schema, reason):
    verdict = gate_item(call('{"a": "x"}'), toolset(schema))
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    assert "broken" in verdict.detail and reason in verdict.detail


def test_remote_ref_is_never_fetched(monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    schema = {"$ref": "https://example.com/schemas/order.json"}
    verdict = gate_item(call("{}"), toolset(schema))
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    assert "not fetched" in verdict.detail
    assert attempts == []


def test_recursive_ref_terminates():
    schema = {
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
        "$ref": "#/$defs/node",
    }
    deep = {"next": {"next": {"next": {"next": 5}}}}
    verdict = gate_item(call(json.dumps(deep)), toolset(schema))
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    assert verdict.errors[0].path == "/next/next/next/next"


def test_errors_ranked_with_best_match_first():
    schema = {
        "type": "object",
        "required": ["to", "body"],
        "properties": {"to": {"type": "string"}, "cc": {"type": "array", "maxItems": 1}},
    }
    verdict = gate_item(call('{"to": 5, "cc": [1, 2]}'), toolset(schema))
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    keywords = {e.keyword for e in verdict.errors}
    assert {"required", "type", "maxItems"} <= keywords
    assert len(verdict.errors) == 3
    assert "(+2 more)" in verdict.detail


def test_dialect_from_schema_keyword():
    # Draft 4 treats exclusiveMaximum as a boolean modifier; 2020-12 as a number.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    assert gate_item(call("5"), toolset(draft4)).verdict == Verdict.ARGUMENTS_SCHEMA
    assert gate_item(call("4"), toolset(draft4)).verdict == Verdict.OK


def test_format_is_an_annotation_only():
    schema = {"type": "string", "format": "email"}
    assert gate_item(call('"not an email"'), toolset(schema)).verdict == Verdict.OK


def test_tool_without_parameters_is_unknown():
    tools = ToolSet(MappingProxyType({"t": Tool("t", None)}))
    verdict = gate_item(call("{}"), tools)
    assert verdict.verdict == Verdict.UNKNOWN_TOOL
    assert "no parameters schema" in verdict.detail


def test_catastrophic_pattern_stops_at_the_backtrack_limit(monkeypatch):
    from inspector.core import schema as schemas

    # A budget clock that never moves: the backtrack limit, not the time budget, stops it.
    monkeypatch.setattr(schemas, "budget_clock", lambda: 0.0)
    # The lookahead makes fancy-regex backtrack; without it the pattern runs in linear time.
    schema = {"type": "object", "properties": {"s": {"pattern": "^(a|aa)+(?!b)$"}}}
    verdict = gate_item(call(json.dumps({"s": "a" * 5000 + "!"})), toolset(schema))
    assert verdict.verdict == Verdict.ARGUMENTS_SCHEMA
    assert verdict.errors[0].keyword == "budget"
    assert "backtrack limit" in verdict.detail and "'^(a|aa)+(?!b)$'" in verdict.detail


def test_catastrophic_pattern_property_is_bounded_too():
    schema = {"patternProperties": {"^(a|aa)+(?!b)$": {}}, "additionalProperties": False}
    verdict = gate_item(call(json.dumps({"a" * 5000 + "!": 1})), toolset(schema))
    assert verdict.errors[0].keyword == "budget"
    assert "'^(a|aa)+(?!b)$'" in verdict.detail


def test_validation_can_be_cancelled():
    import threading

    cancel = threading.Event()
    cancel.set()
    schema = {"type": "object", "properties": {"s": {"pattern": "^a+$"}}}
    verdict = gate_item(call('{"s": "aaa"}'), toolset(schema), cancel=cancel)
    assert verdict.errors[0].keyword == "budget" and "cancelled" in verdict.detail


def test_unicode_property_classes_in_patterns():
    schema = {"type": "string", "pattern": "^\\p{Letter}+$"}
    assert gate_item(call('"héllo"'), toolset(schema)).verdict == Verdict.OK
    assert gate_item(call('"h3llo"'), toolset(schema)).verdict == Verdict.ARGUMENTS_SCHEMA
