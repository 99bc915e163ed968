"""Every rule of every target profile: one input that breaks it, one that does not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.core.formats import load_text
from inspector.core.model import Tool
from inspector.core.targets import check_tool, check_transcript, load_profiles

S: dict[str, Any] = {"type": "string"}
N: dict[str, Any] = {"type": "number"}


def obj(**properties: Any) -> dict[str, Any]:
    """A closed object schema with every property required (strict-mode clean)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def nested(levels: int) -> dict[str, Any]:
    schema = obj(leaf=S)
    for _ in range(levels - 1):
        schema = obj(child=schema)
    return schema


NODE_DEFS = {
    "node": {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/node"}},
        "required": ["next"],
        "additionalProperties": False,
    }
}

# rule id -> (a schema that breaks it, one that does not); judged with strict: true, which only
# matters to profiles that have a strict mode.
SCHEMAS: dict[str, tuple[Any, Any]] = {
    "openai.strict.root_object": ({"type": "array", "items": S}, obj(a=S)),
    "openai.strict.root_anyof": (
        {"type": "object", "anyOf": [obj(a=S), obj(b=S)]},
        obj(a={"anyOf": [S, N]}),
    ),
    "openai.strict.closed_objects": (
        {"type": "object", "properties": {"a": S}, "required": ["a"]},
        obj(a=S),
    ),
    "openai.strict.open_objects": (
        obj(a={"type": "object", "properties": {"b": S}, "additionalProperties": True}),
        obj(a=obj(b=S)),
    ),
    "openai.strict.all_required": (
        {**obj(a=S, b=S), "required": ["a"]},
        obj(a=S, b={"type": ["string", "null"]}),
    ),
    "openai.strict.one_of": (obj(a={"oneOf": [S, N]}), obj(a={"anyOf": [S, N]})),
    "openai.strict.composition": (obj(a={"allOf": [S]}), obj(a=S)),
    "openai.strict.unsupported_keywords": (
        obj(a={"type": "string", "minLength": 1}),
        obj(a={"type": "string", "pattern": "^a"}),
    ),
    "openai.strict.default": (obj(a={"type": "string", "default": "x"}), obj(a=S)),
    "openai.strict.format": (
        obj(a={"type": "string", "format": "uri"}),
        obj(a={"type": "string", "format": "date-time"}),
    ),
    "openai.strict.pattern_lookaround": (
        obj(a={"type": "string", "pattern": "^(?!x)"}),
        obj(a={"type": "string", "pattern": "^x"}),
    ),
    "openai.strict.ref_siblings": (
        {**obj(a={"$ref": "#/$defs/s", "description": "d"}), "$defs": {"s": S}},
        {**obj(a={"$ref": "#/$defs/s"}), "$defs": {"s": S}},
    ),
    "openai.strict.typed_items": (obj(a={"type": "array"}), obj(a={"type": "array", "items": S})),
    "openai.strict.object_properties": (
        obj(a={"type": "object", "additionalProperties": False}),
        obj(a={"type": "object", "properties": {}, "additionalProperties": False}),
    ),
    "openai.strict.nesting": (nested(11), nested(10)),
    "openai.strict.property_count": (
        obj(**{f"p{i}": S for i in range(5001)}),
        obj(**{f"p{i}": S for i in range(5000)}),
    ),
    "openai.strict.enum_count": (
        obj(a={"type": "string", "enum": [f"v{i}" for i in range(1001)]}),
        obj(a={"type": "string", "enum": [f"v{i}" for i in range(1000)]}),
    ),
    "anthropic.strict.constraints": (obj(a={"type": "integer", "minimum": 1}), obj(a=N)),
    "anthropic.strict.min_items": (
        obj(a={"type": "array", "items": S, "minItems": 2}),
        obj(a={"type": "array", "items": S, "minItems": 1}),
    ),
    "anthropic.strict.default": (obj(a={"type": "string", "default": "x"}), obj(a=S)),
    "anthropic.strict.open_objects": (
        obj(a={"type": "object", "additionalProperties": S}),
        obj(a=obj(b=S)),
    ),
    "anthropic.strict.format": (
        obj(a={"type": "string", "format": "regex"}),
        obj(a={"type": "string", "format": "uri"}),
    ),
    "anthropic.strict.one_of": (obj(a={"oneOf": [S, N]}), obj(a={"anyOf": [S, N]})),
    "anthropic.strict.recursive_ref": (
        {**obj(a={"$ref": "#/$defs/node"}), "$defs": NODE_DEFS},
        {**obj(a={"$ref": "#/$defs/s"}), "$defs": {"s": S}},
    ),
    "anthropic.strict.enum_types": (
        obj(a={"enum": [{"k": 1}, "b"]}),
        obj(a={"enum": ["a", 1, None, True]}),
    ),
    "gemini.schema.additional_properties": (obj(a=S), {"type": "object", "properties": {"a": S}}),
    "gemini.schema.exclusive_bounds": (
        {"type": "object", "properties": {"a": {"type": "number", "exclusiveMinimum": 0}}},
        {"type": "object", "properties": {"a": {"type": "number", "minimum": 0}}},
    ),
    "gemini.schema.one_of": (
        {"type": "object", "properties": {"a": {"oneOf": [S, N]}}},
        {"type": "object", "properties": {"a": {"anyOf": [S, N]}}},
    ),
    "gemini.schema.const": (
        {"type": "object", "properties": {"a": {"type": "string", "const": "x"}}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}},
    ),
    "gemini.schema.refs": (
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": S}},
        {"type": "object", "properties": {"a": S}},
    ),
    "gemini.schema.type_array": (
        {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
        {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}},
    ),
    "gemini.schema.anyof_alone": (
        {"type": "object", "properties": {"a": {"anyOf": [S, N], "description": "d"}}},
        {"type": "object", "properties": {"a": {"anyOf": [S, N]}}},
    ),
    "gemini.schema.type_required": (
        {"type": "object", "properties": {"a": {"description": "anything"}}},
        {"type": "object", "properties": {"a": {"type": "string", "description": "text"}}},
    ),
    "gemini.schema.enum_strings": (
        {"type": "object", "properties": {"a": {"type": "integer", "enum": [1, 2]}}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": ["1", "2"]}}},
    ),
    "gemini.schema.format": (
        {"type": "object", "properties": {"a": {"type": "string", "format": "email"}}},
        {"type": "object", "properties": {"a": {"type": "string", "format": "date-time"}}},
    ),
    "gemini.schema.property_names": (
        {"type": "object", "properties": {"max-results": N}},
        {"type": "object", "properties": {"max_results": N}},
    ),
    "gemini.schema.default": (
        {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}},
        {"type": "object", "properties": {"a": S}},
    ),
    "gemini.schema.unknown_fields": (
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"a": S},
        },
        {"type": "object", "properties": {"a": S}, "title": "t", "propertyOrdering": ["a"]},
    ),
    "bedrock.schema.root_object": ({"type": "string"}, obj(a=S)),
    "bedrock.schema.refs": (
        {**obj(a={"$ref": "#/$defs/s"}), "$defs": {"s": S}},
        obj(a=S),
    ),
    "bedrock.strict.numeric": (
        obj(a={"type": "number", "maximum": 5}),
        obj(a={"type": "string", "maxLength": 5}),
    ),
    "bedrock.strict.max_items": (
        obj(a={"type": "array", "items": S, "maxItems": 3}),
        obj(a={"type": "array", "items": S}),
    ),
    "bedrock.strict.min_items": (
        obj(a={"type": "array", "items": S, "minItems": 2}),
        obj(a={"type": "array", "items": S, "minItems": 1}),
    ),
    "mistral.schema.draft7": (obj(a={"type": "strin"}), obj(a=S)),
    "groq.strict.closed_objects": (
        {"type": "object", "properties": {"a": S}, "required": ["a"]},
        obj(a=S),
    ),
    "groq.strict.all_required": ({**obj(a=S, b=S), "required": ["a"]}, obj(a=S, b=S)),
    "ollama.schema.root_fields": (
        {"type": "object", "properties": {"a": S}, "additionalProperties": False},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": S},
        },
    ),
    "ollama.schema.property_fields": (
        {"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}},
        {
            "type": "object",
            "properties": {"a": {"type": "string", "description": "d", "enum": ["x"]}},
        },
    ),
    "vllm.schema.length_with_pattern": (
        {
            "type": "object",
            "properties": {"a": {"type": "string", "pattern": "^a", "maxLength": 3}},
        },
        {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}},
    ),
}

# rule id -> (a tool name that breaks it, one that does not).
NAMES: dict[str, tuple[str, str]] = {
    "openai.name.pattern": ("files.read", "files_read"),
    "anthropic.name.pattern": ("t" * 129, "t" * 128),
    "gemini.name.pattern": ("1tool", "files.read:v2"),
    "bedrock.name.pattern": ("$READFILE", "read_file"),
    "mistral.name.pattern": ("a.b", "a_b"),
}

#: A call id as LiteLLM writes it for a Gemini call: the thought signature after `__thought__`.
THOUGHT = "a1b2c3__thought__CiQBcsjafH1xUu4Bq3IjUSV0p5HfzaXJBJmWkI0Uy3Ge2+S3r8o="

# rule id -> (a call_id that breaks it, one that does not).
CALL_IDS: dict[str, tuple[str, str]] = {
    "openai.call_id.length": ("c" * 65, "c" * 64),
    "openai_chat.call_id.length": ("c" * 41, "c" * 40),
    "anthropic.call_id.pattern": ("functions.search:0", "toolu_01A-b"),
    "mistral.call_id.pattern": ("call_123", "abc123XYZ"),
    **{
        f"{profile}.call_id.thought_signature": (f"call_{THOUGHT}", "abc123XYZ")
        for profile in ("openai", "anthropic", "bedrock", "mistral", "groq", "ollama", "vllm")
    },
}


def user(text: str = "hi") -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def assistant(text: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": text, **extra}


def call(call_id: str, name: str = "t", **extra: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": "{}",
        "status": "completed",
        **extra,
    }


def output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "done"}


def reasoning(**extra: Any) -> dict[str, Any]:
    return {"type": "reasoning", "summary": [], **extra}


def custom_call(call_id: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "call_id": call_id,
        "name": "apply_patch",
        "input": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n",
    }


def custom_output(call_id: str) -> dict[str, Any]:
    return {"type": "custom_tool_call_output", "call_id": call_id, "output": "Done!"}


def signed(name: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": f"{name}…", "signature": f"sig-{name}"}


#: An Anthropic assistant turn with interleaved thinking around two server tool uses.
INTERLEAVED: list[dict[str, Any]] = [
    signed("first"),
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "a"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    signed("second"),
    {"type": "text", "text": "Found it."},
]


def anthropic_response(content: list[Any]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "end_turn",
    }


def anthropic_request(content: list[Any]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": [
            {"role": "user", "content": "Search, then answer."},
            {"role": "assistant", "content": content},
            {"role": "user", "content": "And?"},
        ],
    }


def jsonl(*records: Any) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# rule id -> (items that break it, items that do not).
TRANSCRIPTS: dict[str, tuple[list[Any] | str, list[Any] | str]] = {
    "openai.order.output_required": (
        [user(), call("c1"), user("and?")],
        [user(), call("c1"), output("c1"), user("and?")],
    ),
    "openai.order.reasoning_followed": (
        [user(), reasoning(id="rs_1", encrypted_content="x"), assistant()],
        [user(), reasoning(id="rs_1", encrypted_content="x"), call("c1"), output("c1")],
    ),
    "anthropic.order.tool_result_next_turn": (
        [user(), call("c1"), call("c2"), output("c1"), assistant(), output("c2")],
        [user(), call("c1"), call("c2"), output("c1"), output("c2"), assistant()],
    ),
    "anthropic.order.tool_result_first": (
        [user(), call("c1"), user("wait"), output("c1")],
        [user(), call("c1"), output("c1"), user("and?")],
    ),
    "bedrock.order.tool_config_with_history": (
        [user(), call("c1"), output("c1"), user("thanks")],
        [user(), assistant(), user("thanks")],
    ),
    "bedrock.order.result_count": (
        [user(), call("c1"), call("c2"), output("c1"), assistant(), output("c2")],
        [user(), call("c1"), call("c2"), output("c2"), output("c1"), assistant()],
    ),
    "gemini.order.response_count": (
        [user(), call("c1"), call("c2"), output("c1"), assistant(), output("c2")],
        [user(), call("c1"), call("c2"), output("c2"), output("c1"), assistant()],
    ),
    "mistral.order.results_follow_calls": (
        [user(), call("c1"), user("wait"), output("c1")],
        [user(), call("c1"), output("c1"), assistant()],
    ),
    "mistral.order.user_after_tool": (
        [user(), call("c1"), output("c1"), user("next")],
        [user(), call("c1"), output("c1"), assistant(), user("next")],
    ),
    "anthropic.reasoning.foreign": (
        [user(), reasoning(id="rs_1", encrypted_content="gAAAA"), call("c1"), output("c1")],
        [user(), reasoning(anthropic={"type": "thinking", "signature": "sig"}), call("c1")],
    ),
    "gemini.reasoning.foreign": (
        [user(), {"type": "anthropic:thinking", "thinking": "…", "signature": "sig"}, call("c1")],
        [user(), call("c1", thoughtSignature="c2ln"), output("c1")],
    ),
    "gemini_3.reasoning.signature_required": (
        [user(), call("c1"), output("c1"), assistant()],
        [
            user(),
            {"type": "google:thought_signature", "signature": "c2ln"},
            call("c1"),
            output("c1"),
        ],
    ),
    "openai.reasoning.encrypted_elsewhere": (
        [user(), reasoning(id="rs_1", encrypted_content="gAAAA"), call("c1"), output("c1")],
        [user(), reasoning(id="rs_1", summary=[]), call("c1"), output("c1")],
    ),
    "vllm.reasoning.encrypted": (
        [user(), reasoning(id="rs_1", encrypted_content="gAAAA"), call("c1"), output("c1")],
        [user(), reasoning(summary=[{"type": "summary_text", "text": "think"}]), assistant()],
    ),
    "anthropic.reasoning.thinking_order": (
        # A response with interleaved thinking, then the next request sending it back with
        # both thinking blocks first (LiteLLM's reconstruction before its fix).
        jsonl(
            anthropic_response(INTERLEAVED),
            anthropic_request([INTERLEAVED[0], INTERLEAVED[3], *INTERLEAVED[1:3], INTERLEAVED[4]]),
        ),
        jsonl(anthropic_response(INTERLEAVED), anthropic_request(INTERLEAVED)),
    ),
    **{
        f"{profile}.calls.custom_tools": (
            [user(), custom_call("ctc_1"), custom_output("ctc_1"), assistant()],
            [user(), call("c1", "apply_patch"), output("c1"), assistant()],
        )
        for profile in ("ollama", "vllm")
    },
    "mistral.reasoning.input": (
        [user(), reasoning(summary=[{"type": "summary_text", "text": "think"}]), assistant()],
        [user(), assistant()],
    ),
}


def declaring_profile(rule_id: str) -> str:
    """The profile a rule is declared in (its id's first part, with _ for -)."""
    return rule_id.split(".")[0].replace("_", "-")


def found_rules(findings: Any) -> set[str]:
    return {f.rule for f in findings}


def transcript(items: list[Any] | str):
    """Load a list of items, or the text of a file (JSONL of several records)."""
    return load_text(items if isinstance(items, str) else json.dumps(items))


def test_every_rule_has_a_case():
    covered = set(SCHEMAS) | set(NAMES) | set(CALL_IDS) | set(TRANSCRIPTS)
    rules = {r.id for p in load_profiles().values() for r in p.rules()}
    assert rules - covered == set(), "rules without a test case"
    assert covered - rules == set(), "test cases for rules that do not exist"


def test_every_rule_has_a_reason_and_a_source():
    for profile in load_profiles().values():
        for rule in profile.rules():
            assert rule.reason and rule.sources, rule.id
            assert all(s.startswith("https://") for s in rule.sources), rule.id


@pytest.mark.parametrize("rule_id", sorted(SCHEMAS))
def test_schema_rule(rule_id):
    bad, good = SCHEMAS[rule_id]
    profile = declaring_profile(rule_id)
    broken = check_tool(Tool("t", bad, strict=True), profile)
    assert rule_id in {p.rule.id for p in broken.problems}
    problem = next(p for p in broken.problems if p.rule.id == rule_id)
    assert problem.pointer is not None and (problem.pointer == "" or problem.pointer[0] == "/")
    kept = check_tool(Tool("t", good, strict=True), profile)
    assert rule_id not in {p.rule.id for p in kept.problems}


@pytest.mark.parametrize("rule_id", sorted(NAMES))
def test_tool_name_rule(rule_id):
    bad, good = NAMES[rule_id]
    profile = declaring_profile(rule_id)
    broken = check_tool(Tool(bad, obj(a=S)), profile)
    assert [p.code for p in broken.problems if p.rule.id == rule_id] == ["target_tool_name"]
    assert not broken.accepted
    kept = check_tool(Tool(good, obj(a=S)), profile)
    assert rule_id not in {p.rule.id for p in kept.problems}


@pytest.mark.parametrize(
    "rule_id",
    sorted(
        r
        for r in NAMES
        if "history" in load_profiles()[declaring_profile(r)].tool_names[0].get("scope")
    ),
)
def test_tool_name_rule_in_history(rule_id):
    bad, good = NAMES[rule_id]
    profile = declaring_profile(rule_id)
    findings = check_transcript(transcript([user(), call("c1", bad)]), None, profile)
    named = [f for f in findings if f.rule == rule_id]
    assert [f.code for f in named] == ["target_tool_name"] and named[0].items == (1,)
    clean = check_transcript(transcript([user(), call("c1", good)]), None, profile)
    assert rule_id not in found_rules(clean)


@pytest.mark.parametrize("rule_id", sorted(CALL_IDS))
def test_call_id_rule(rule_id):
    bad, good = CALL_IDS[rule_id]
    profile = declaring_profile(rule_id)
    findings = check_transcript(transcript([user(), call(bad), output(bad)]), None, profile)
    flagged = [f for f in findings if f.rule == rule_id]
    assert len(flagged) == 1 and flagged[0].items == (1, 2)
    assert flagged[0].code == "target_call_id"
    clean = check_transcript(transcript([user(), call(good), output(good)]), None, profile)
    assert rule_id not in found_rules(clean)


@pytest.mark.parametrize("rule_id", sorted(TRANSCRIPTS))
def test_transcript_rule(rule_id):
    bad, good = TRANSCRIPTS[rule_id]
    profile = declaring_profile(rule_id)
    findings = check_transcript(transcript(bad), None, profile)
    flagged = [f for f in findings if f.rule == rule_id]
    assert flagged, [f.to_json() for f in findings]
    section = rule_id.split(".")[1]
    codes = {"order": "target_order", "calls": "target_call_as_text"}
    assert {f.code for f in flagged} == {codes.get(section, "target_reasoning")}
    assert all(f.items for f in flagged)
    clean = check_transcript(transcript(good), None, profile)
    assert rule_id not in found_rules(clean), [f.to_json() for f in clean]


def test_gemini_rules_do_not_judge_tools_declared_with_json_schema():
    # A live Gemini 2.5 request with exactly such tools was answered with 200.
    t = load_text(
        json.dumps(
            {
                "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "tools": [
                    {
                        "functionDeclarations": [
                            {"name": "closed", "parametersJsonSchema": obj(a=S)},
                            {"name": "legacy", "parameters": obj(a=S)},
                            {"name": "none", "parameters": {"type": "object", "properties": {}}},
                        ]
                    }
                ],
            }
        )
    )
    assert check_tool(t.tools["closed"], "gemini").problems == ()
    legacy = {p.rule.id for p in check_tool(t.tools["legacy"], "gemini").problems}
    assert "gemini.schema.additional_properties" in legacy
    assert check_tool(t.tools["none"], "gemini").problems == ()


def test_gemini_3_reads_the_signature_a_converted_call_keeps():
    items = [user(), call("c1", **{"google:thought_signature": "c2ln"}), output("c1")]
    findings = check_transcript(transcript(items), None, "gemini-3")
    assert "gemini_3.reasoning.signature_required" not in found_rules(findings)
