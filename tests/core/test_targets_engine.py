"""The target engine: strict handling, schema walking, profile validation, findings, samples."""

from __future__ import annotations

import json
import subprocess
import sys
from types import MappingProxyType
from typing import Any

import pytest

from inspector.core.decision import decide_file
from inspector.core.formats import load_path, load_text, load_tools
from inspector.core.gate import Finding, ToolSet, gate_transcript, make_toolset
from inspector.core.model import LoadError, Severity, Tool
from inspector.core.targets import (
    ProfileError,
    TargetFinding,
    UnknownTarget,
    check_tool,
    check_tools,
    check_transcript,
    get_profile,
    load_profiles,
    profile_names,
    reasoning_family,
    walk_schema,
    with_target_findings,
)
from inspector.core.targets import profile as profile_module
from inspector.core.targets.transcript_rules import segments
from tests.conftest import CORPUS, SAMPLES

S = {"type": "string"}
OPTIONAL = {
    "type": "object",
    "properties": {"q": S, "limit": {"type": "integer"}},
    "required": ["q"],
}


def rules_of(verdict: Any) -> list[tuple[str, str]]:
    return [(p.rule.id, p.code) for p in verdict.problems]


# -- strict mode ---------------------------------------------------------------------------------


def test_openai_normalizes_a_tool_without_strict():
    # Responses makes the schema strict by itself: the optional property silently becomes required.
    verdict = check_tool(Tool("search", OPTIONAL), "openai")
    assert verdict.mode == "normalize"
    assert verdict.accepted and verdict.altered and verdict.mark == "~"
    assert rules_of(verdict) == [("openai.strict.all_required", "target_tool_schema_altered")]
    assert "makes the schema strict itself" in verdict.problems[0].message


def test_openai_falls_back_to_best_effort_when_the_schema_cannot_be_strict():
    schema = {**OPTIONAL, "properties": {**OPTIONAL["properties"], "q": {"oneOf": [S, S]}}}
    verdict = check_tool(Tool("search", schema), "openai")
    assert verdict.mode == "loose" and verdict.problems == () and verdict.mark == "✓"


def test_openai_does_not_close_an_explicitly_open_object_by_itself():
    schema = {"type": "object", "properties": {"q": S}, "required": ["q"]}
    assert check_tool(Tool("t", schema), "openai").mode == "normalize"
    opened = {**schema, "additionalProperties": True}
    assert check_tool(Tool("t", opened), "openai").mode == "loose"


def test_openai_honours_the_strict_flag():
    strict = check_tool(Tool("search", OPTIONAL, strict=True), "openai")
    assert not strict.accepted and strict.mark == "✗"
    assert ("openai.strict.all_required", "target_tool_schema") in rules_of(strict)
    assert ("openai.strict.closed_objects", "target_tool_schema") in rules_of(strict)
    loose = check_tool(Tool("search", OPTIONAL, strict=False), "openai")
    assert loose.mode == "loose" and loose.problems == ()


def test_chat_completions_default_is_not_strict():
    verdict = check_tool(Tool("search", OPTIONAL), "openai-chat")
    assert verdict.mode == "loose" and verdict.problems == ()


def test_strict_flag_is_read_from_every_tools_shape(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {"type": "function", "name": "a", "parameters": S, "strict": True},
                {"type": "function", "function": {"name": "b", "parameters": S, "strict": False}},
                {"name": "c", "input_schema": S, "strict": True},
                {"type": "function", "name": "d", "parameters": S},
            ]
        )
    )
    assert {n: t.strict for n, t in load_tools(path).items()} == {
        "a": True,
        "b": False,
        "c": True,
        "d": None,
    }


def test_tool_without_schema_is_only_judged_by_name():
    assert check_tool(Tool("lookup", None), "gemini").problems == ()
    assert check_tool(Tool("bad name", None, kind="custom"), "openai").mark == "✗"


# -- schema walking ------------------------------------------------------------------------------


def test_walk_reaches_every_subschema_with_escaped_pointers():
    schema = {
        "type": "object",
        "properties": {"a/b": {"type": "array", "items": {"anyOf": [S, {"type": "null"}]}}},
        "$defs": {"x~y": {"type": "object", "additionalProperties": S}},
        "prefixItems": [S],
        "not": True,
    }
    pointers = [n.pointer for n in walk_schema(schema)]
    assert pointers == [
        "",
        "/properties/a~1b",
        "/properties/a~1b/items",
        "/properties/a~1b/items/anyOf/0",
        "/properties/a~1b/items/anyOf/1",
        "/$defs/x~0y",
        "/$defs/x~0y/additionalProperties",
        "/prefixItems/0",
    ]


def test_indirect_recursion_is_found():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a"}},
        "$defs": {
            "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}},
            "b": {"type": "array", "items": {"$ref": "#/$defs/a"}},
            "c": {"type": "string"},
        },
    }
    verdict = check_tool(Tool("t", schema, strict=True), "anthropic")
    recursive = [
        p.pointer for p in verdict.problems if p.rule.id == "anthropic.strict.recursive_ref"
    ]
    assert recursive == ["/$defs/a/properties/b/$ref", "/$defs/b/items/$ref"]


def test_hostile_schemas_do_not_crash():
    deep: Any = S
    for _ in range(400):
        deep = {"type": "object", "properties": {"x": deep}}
    for schema in (True, False, [], "text", 3, {"properties": []}, {"$ref": 5}, deep):
        for name in profile_names():
            check_tool(Tool("t", schema, strict=True), name)
            check_tool(Tool("t", schema), name)


# -- profiles ------------------------------------------------------------------------------------


def test_profiles_and_inheritance():
    assert profile_names()[:6] == [
        "openai",
        "openai-chat",
        "anthropic",
        "gemini",
        "gemini-3",
        "bedrock",
    ]
    gemini, gemini3 = get_profile("gemini"), get_profile("gemini-3")
    assert {r.id for r in gemini.rules()} < {r.id for r in gemini3.rules()}
    chat = get_profile("openai-chat")
    assert "openai.call_id.length" not in {r.id for r in chat.rules()}
    assert chat.strict is not None and chat.strict.default == "loose"


def test_unknown_target_lists_the_profiles():
    with pytest.raises(UnknownTarget) as caught:
        get_profile("gpt")
    assert str(caught.value) == f"unknown target 'gpt'; profiles are: {', '.join(profile_names())}"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x"}, "'title' is a required property"),
        (
            {"name": "x", "title": "X", "schema": [{"id": "x.a", "check": "refs", "reason": "r"}]},
            "/schema/0",
        ),
        (
            {
                "name": "x",
                "title": "X",
                "schema": [
                    {
                        "id": "x.a",
                        "check": "refs",
                        "effect": "dropped",
                        "reason": "r",
                        "source": "s",
                    }
                ],
            },
            "/schema/0",
        ),
        (
            {
                "name": "x",
                "title": "X",
                "call_ids": [{"id": "x.c", "pattern": "^a$", "reason": "r", "source": "s", "x": 1}],
            },
            "/call_ids/0",
        ),
    ],
)
def test_malformed_profile_data_is_reported(data, message):
    with pytest.raises(ProfileError, match=message):
        profile_module._validate("x", data)


def test_well_formed_profiles_are_checked_without_python_jsonschema():
    # Every scan worker loads the profiles: the full validator is asked only to name a fault.
    code = (
        "import sys\n"
        "from inspector.core.targets import load_profiles\n"
        "assert len(load_profiles()) > 5\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_inheritance_errors_are_reported():
    base = {
        "name": "a",
        "title": "A",
        "call_ids": [{"id": "a.c", "pattern": "x", "reason": "r", "source": "s"}],
    }
    with pytest.raises(ProfileError, match="cannot extend 'zz'"):
        profile_module._resolve(
            "b", {"a": base, "b": {"name": "b", "title": "B", "extends": "zz"}}, ()
        )
    with pytest.raises(ProfileError, match="drops unknown rules"):
        profile_module._resolve(
            "b", {"a": base, "b": {"name": "b", "title": "B", "extends": "a", "drop": ["a.x"]}}, ()
        )
    with pytest.raises(ProfileError, match="duplicate rule ids"):
        profile_module._resolve("b", {"a": base, "b": {**base, "name": "b", "extends": "a"}}, ())


def test_profile_data_is_frozen():
    profile = get_profile("openai")
    with pytest.raises(TypeError):
        profile.schema[0].params["mode"] = "loose"  # type: ignore[index]
    assert isinstance(load_profiles(), MappingProxyType)


# -- findings ------------------------------------------------------------------------------------

TOOLS = {
    "lookup": Tool(
        "lookup", {"type": "object", "properties": {"q": S}, "additionalProperties": False}
    ),
}


CALLED = [
    {"type": "message", "role": "user", "content": "hi"},
    {
        "type": "function_call",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": "{}",
        "status": "completed",
    },
]


def items_transcript(items: list[Any]):
    return load_text(json.dumps(items))


def test_target_finding_is_a_gate_finding_with_more_keys():
    transcript = items_transcript(CALLED)
    findings = check_transcript(transcript, TOOLS, "gemini")
    schema = next(f for f in findings if f.code == "target_tool_schema")
    assert isinstance(schema, Finding) and isinstance(schema, TargetFinding)
    data = schema.to_json()
    assert list(data)[:4] == ["code", "severity", "items", "message"]
    assert data["target"] == "gemini" and data["rule"] == "gemini.schema.additional_properties"
    assert data["tool"] == "lookup" and data["pointer"] == "/additionalProperties"
    assert data["items"] == [1] and data["source"].startswith("https://")
    ids = next(
        f for f in check_transcript(transcript, TOOLS, "mistral") if f.code == "target_call_id"
    )
    assert "tool" not in ids.to_json() and ids.to_json()["rule"] == "mistral.call_id.pattern"


def test_tools_may_be_a_toolset_a_mapping_or_a_list():
    transcript = items_transcript([{"type": "message", "role": "user", "content": "hi"}])
    expected = [f.to_json() for f in check_transcript(transcript, TOOLS, "gemini")]
    assert expected
    for tools in (ToolSet(MappingProxyType(TOOLS)), list(TOOLS.values())):
        assert [f.to_json() for f in check_transcript(transcript, tools, "gemini")] == expected
    assert check_transcript(transcript, None, "gemini") == []
    assert set(check_tools(TOOLS, "gemini")) == {"lookup"}


def test_target_errors_block_like_any_error():
    transcript = items_transcript(
        [*CALLED, {"type": "function_call_output", "call_id": "call_1", "output": "x"}]
    )
    result = gate_transcript(transcript, TOOLS)
    assert not decide_file(result).blocks
    judged = with_target_findings(result, "mistral")
    assert decide_file(judged).blocks and judged.verdicts == result.verdicts
    assert judged.findings[: len(result.findings)] == result.findings


def test_a_transcript_every_target_accepts_gets_no_finding():
    tools = load_tools(SAMPLES / "tools" / "portable.tools.json")
    signed = {"thought_signature": "c2lnbmF0dXJl"}
    transcript = items_transcript(
        [
            {"type": "message", "role": "system", "content": "Be brief."},
            {"type": "message", "role": "user", "content": "Weather in Oslo?"},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "Ab3dE6gH9",
                "name": "get_weather",
                "arguments": '{"city":"Oslo","unit":"celsius"}',
                "status": "completed",
                **signed,
            },
            {"type": "function_call_output", "call_id": "Ab3dE6gH9", "output": "4 °C"},
            {"type": "message", "role": "assistant", "content": "It is 4 °C."},
            {"type": "message", "role": "user", "content": "Thanks."},
        ]
    )
    assert not decide_file(gate_transcript(transcript, tools)).blocks
    for name in profile_names():
        assert check_transcript(transcript, tools, name) == [], name


def test_reasoning_families():
    def family(raw: dict[str, Any]) -> str | None:
        return reasoning_family(items_transcript([raw]).items[0])

    assert (
        family({"type": "reasoning", "summary": [], "encrypted_content": "gAAA"})
        == "openai_encrypted"
    )
    assert family({"type": "reasoning", "summary": [], "encrypted_content": ""}) is None
    assert family({"type": "reasoning", "signature": "s"}) == "anthropic_signature"
    assert family({"type": "anthropic:redacted_thinking", "data": "x"}) == "anthropic_signature"
    assert (
        family({"type": "function_call", "google": {"thoughtSignature": "s"}}) == "gemini_signature"
    )
    assert family({"type": "google:thought_signature"}) == "gemini_signature"
    assert family({"type": "reasoning", "summary": []}) is None


def test_anthropic_thinking_blocks_are_native_to_anthropic(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(
        json.dumps(
            {
                "model": "claude",
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "thinking", "thinking": "…", "signature": "EqQB"},
                            {"type": "tool_use", "id": "toolu_01", "name": "t", "input": {}},
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "x"}
                        ],
                    },
                ],
            }
        )
    )
    transcript = load_path(path)
    assert check_transcript(transcript, None, "anthropic") == []
    assert {f.rule for f in check_transcript(transcript, None, "gemini")} == {
        "gemini.reasoning.foreign"
    }


def test_a_response_after_a_response_starts_a_new_conversation():
    transcript = load_path(SAMPLES / "streams" / "two-responses.jsonl")
    assert [len(s) for s in segments(transcript)] == [1, 1]
    log = load_path(SAMPLES / "logs" / "agent-session.jsonl")
    assert [len(s) for s in segments(log)] == [3, 8]


# -- samples and corpus --------------------------------------------------------------------------

# What genuinely breaks on the clean samples: all of them share the sales tools (strict: true with
# optional properties, $schema and additionalProperties) and OpenAI-style call ids.
GENUINE = {
    "openai": {"openai.strict.all_required", "openai.strict.unsupported_keywords"},
    "openai-chat": {"openai.strict.all_required", "openai.strict.unsupported_keywords"},
    "anthropic": {"anthropic.strict.constraints"},
    "gemini": {"gemini.schema.additional_properties", "gemini.schema.unknown_fields"},
    "gemini-3": {
        "gemini.schema.additional_properties",
        "gemini.schema.unknown_fields",
        "gemini_3.reasoning.signature_required",
    },
    "bedrock": {"bedrock.strict.numeric", "bedrock.strict.max_items"},
    "mistral": {"mistral.call_id.pattern"},
    "groq": {"groq.strict.all_required"},
    "ollama": {"ollama.schema.root_fields", "ollama.schema.property_fields"},
    "vllm": set(),
}
CLEAN = [
    "diff/reformatted-arguments/left.json",
    "diff/reformatted-arguments/right.json",
    "diff/regressions/left.json",
    "diff/reordered-parallel/left.json",
    "diff/reordered-parallel/right.json",
    "logs/batch-input.jsonl",
    "streams/two-responses.jsonl",
    "streams/function-call.sse",
]


@pytest.mark.parametrize("name", CLEAN)
def test_clean_samples_only_break_what_they_genuinely_break(name):
    transcript = load_path(SAMPLES / name)
    result = gate_transcript(transcript)
    assert not decide_file(result).blocks, "the sample is no longer clean"
    for target in profile_names():
        found = {f.rule for f in check_transcript(transcript, result.toolset, target)}
        assert found <= GENUINE[target], (target, found - GENUINE[target])


def test_article_ok_items_pass_every_target_but_mistral_ids_and_gemini_3_signatures():
    transcript = load_path(SAMPLES / "article" / "items.json")
    tools = load_tools(SAMPLES / "article" / "region-schema.tools.json")
    ok = items_transcript([item.raw for item in transcript.items[:2]])
    toolset, _ = make_toolset(ok, tools)
    for target in profile_names():
        found = {
            f.rule for f in check_transcript(ok, toolset, target) if f.code != "target_tool_schema"
        }
        found -= {"ollama.schema.root_fields", "gemini.schema.additional_properties"}
        expected = {
            "mistral": {"mistral.call_id.pattern"},
            "gemini-3": {"gemini_3.reasoning.signature_required"},
        }
        assert found <= expected.get(target, set()), target


def test_portable_tools_are_accepted_everywhere():
    tools = load_tools(SAMPLES / "tools" / "portable.tools.json")
    for target in profile_names():
        for name, verdict in check_tools(tools, target).items():
            assert verdict.problems == (), (target, name)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the repository")
def test_corpus_is_judged_without_crashing():
    judged = 0
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        try:
            transcript = load_path(path)
        except LoadError:
            continue
        result = gate_transcript(transcript)
        for target in profile_names():
            for finding in check_transcript(transcript, result.toolset, target):
                assert finding.severity in (Severity.ERROR, Severity.WARNING)
                assert finding.source.startswith("https://")
        judged += 1
    assert judged > 50


def test_targets_import_without_qt():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None\n"
        "import inspector.core.targets, inspector.commands.tools\n"
        "inspector.core.targets.load_profiles()\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
