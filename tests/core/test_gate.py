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


def _ready_log(path):
    """A JSON Lines log of calls that take every way `item_verdicts` has for a call."""
    region = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
        "required": ["n"],
    }
    tools = {
        "t": Tool("t", region),  # jsonschema-rs runs it: the ready check
        "slow": Tool("slow", {"properties": {"s": {"pattern": "^(a|aa)+(?!b)$"}}}),  # the fallback
        "outside": Tool("outside", region),  # not in allowed_tools
        "bare": Tool("bare", None),  # no schema
    }
    texts = [
        '{"n": 1}',
        '{"n": 1}',  # the memo's
        '{"n": "x"}',  # invalid
        '{"s": "a"}',  # a required member missing
        "{",  # not JSON
        '{"n": 1, "n": 2}',  # a repeated key
        '{"n": 12345678901234567890123}',  # past 64 bits: not written back by orjson
        '{"n": NaN}',
        "[" * 300 + "]" * 300,  # more brackets than orjson writes back
        '{"n": 2, "s": "\\u0041"}',
    ]
    lines = []
    for k, name in enumerate(["t", "slow", "outside", "bare", "unknown"] * 2):
        for n, text in enumerate(texts):
            lines.append(
                {
                    "type": "function_call",
                    "call_id": f"c{k}_{n}",
                    "name": name,
                    "status": "completed",
                    "arguments": text,
                }
            )
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    allowed = frozenset({"t", "slow", "bare", "unknown"})
    return ToolSet(MappingProxyType(tools), allowed)


def _compared(verdict):
    error = verdict.parse_error
    where = None if error is None else (error.describe(), error.line, error.column)
    return (verdict.verdict, verdict.detail, verdict.errors, verdict.tool, where)


def test_calls_the_ready_check_judges_get_the_whole_way_s_verdicts(tmp_path, monkeypatch):
    # Valid calls to a tool jsonschema-rs runs are ok after its is_valid alone; every other
    # call takes the whole way. Each verdict is the one gate_item gives the item's value.
    from inspector.core import gate as gate_module
    from inspector.core.gate import item_verdicts

    log = tmp_path / "calls.jsonl"
    tools = _ready_log(log)
    transcript = load_path(log)
    whole = []
    check_arguments = gate_module._check_arguments

    def counted(name, *rest):
        whole.append(name)
        return check_arguments(name, *rest)

    monkeypatch.setattr(gate_module, "_check_arguments", counted)
    verdicts = item_verdicts(transcript.items, tools)
    taken = list(whole)
    for item, verdict in zip(transcript.items, verdicts, strict=True):
        expected = gate_item(item.raw, tools)
        assert _compared(verdict) == _compared(expected), item.raw
        assert verdict.parsed == expected.parsed
    ok = [v for i, v in zip(transcript.items, verdicts, strict=True) if i.name == "t"]
    # Twice over: '{"n": 1}' twice, the escape, the integer past 64 bits.
    assert sum(v.verdict == Verdict.OK for v in ok) == 2 * 4
    # Of the distinct calls to `t` (the memo judges each once), only those the ready check
    # cannot settle took the whole way: the two invalid ones, the array, and the long integer
    # (the strict parser read it: not known to be written back by orjson); every call to the
    # other tools did. The escape is in an object holding no other: its members are counted
    # by `len`, so orjson alone reads it.
    assert taken.count("t") == 4 and {"slow", "outside", "bare", "unknown"} <= set(taken)


def test_the_ready_check_keeps_the_file_budget_and_cancel(tmp_path, monkeypatch):
    # With the file's budget spent, or the gate cancelled mid-file, a call the ready check
    # would judge gets what validate says then, as the whole way gives it.
    from inspector.core import gate as gate_module
    from inspector.core import schema as schema_module
    from inspector.core.gate import item_verdicts

    log = tmp_path / "calls.jsonl"
    tools = _ready_log(log)
    transcript = load_path(log)
    now = [0.0]
    monkeypatch.setattr(schema_module, "budget_clock", lambda: now[0])

    def judged(ready: bool) -> list:
        if not ready:
            monkeypatch.setattr(gate_module, "_ready_check", lambda name, tools: None)
        with schema_module.file_budget(schema_module.FileBudget(seconds=30)):
            now[0] = 100.0  # the file's 30 s are spent from the first call on
            return [_compared(v) for v in item_verdicts(transcript.items, tools)]

    now[0] = 0.0
    ready = judged(True)
    assert any("total budget of 30 s" in detail for _, detail, *_ in ready)
    now[0] = 0.0
    assert ready == judged(False)

    class Cancel:
        def is_set(self) -> bool:
            return True

    monkeypatch.undo()
    first = gate_module._call_verdict("completed", '{"n": 1}', "t", tools, 1.0, Cancel(), None)
    item = next(i for i in transcript.items if i.name == "t")
    spent = gate_module._ready_verdict(
        gate_module._ready_check("t", tools), '{"n": 1}', "t", tools, 1.0, Cancel(), item, None
    )
    assert _compared(spent) == _compared(first)
    assert first.errors[0].message == "validation was cancelled"


def test_items_of_any_type_get_the_verdict_gate_item_gives(tmp_path):
    # A type met before shares its verdict (one object for every message); a new one, or a
    # type that is no string (a number, null, an array, an object: no key of the shared
    # verdicts), goes the whole way.
    from inspector.core.gate import item_verdicts, make_toolset

    kinds = ["message", "reasoning", "message", "acme:thing", 5, None, [1], {"a": 1}, "odd"]
    lines = [{"type": kind, "role": "user", "content": []} for kind in kinds * 2]
    log = tmp_path / "kinds.jsonl"
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    transcript = load_path(log)
    toolset, _ = make_toolset(transcript)
    verdicts = item_verdicts(transcript.items, toolset)
    for item, verdict in zip(transcript.items, verdicts, strict=True):
        assert verdict == gate_item(item.raw, toolset), item.raw
    assert verdicts[0] is verdicts[2] is verdicts[9]  # each message's verdict is one object
    # A null type with a role is a message (the shorthand); the others are no portable type.
    namespaced, message = Verdict.NAMESPACED, Verdict.NOT_FUNCTION_CALL
    assert [v.verdict for v in verdicts[4:8]] == [namespaced, message, namespaced, namespaced]
