"""Native samples of what a target breaks, each with its golden `gate --target` output.

Every sample shows one target rule at work on the shape a real client sends (samples/SOURCES.md
says where each shape comes from); the golden holds that rule's finding, so the sample fails
(its golden differs) without the rule.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import SAMPLES
from tests.core.test_cli_gate import gate

#: golden name → (sample under samples/native/, target, the rules it must break).
CASES: dict[str, tuple[str, str, set[str]]] = {
    "target-text-before-tool-result": (
        "anthropic-request-text-before-tool-result.json",
        "anthropic",
        {"anthropic.order.tool_result_first"},
    ),
    "target-bedrock-history-without-tool-config": (
        "bedrock-request-tool-history-no-config.json",
        "bedrock",
        {"bedrock.order.tool_config_with_history", "bedrock.order.result_count"},
    ),
    "target-thought-in-call-id": (
        "chat-request-thought-in-call-id.json",
        "openai-chat",
        {"openai.call_id.thought_signature", "openai_chat.call_id.length"},
    ),
    "target-encrypted-reasoning-vllm": (
        "responses-request-encrypted-reasoning.json",
        "vllm",
        {"vllm.reasoning.encrypted"},
    ),
    "target-encrypted-reasoning-openai": (
        "responses-request-encrypted-reasoning.json",
        "openai",
        {"openai.reasoning.encrypted_elsewhere"},
    ),
    "target-thinking-reordered": (
        "anthropic-thinking-reordered.jsonl",
        "anthropic",
        {"anthropic.reasoning.thinking_order"},
    ),
    "target-custom-tool-ollama": (
        "responses-request-custom-tool.json",
        "ollama",
        {"ollama.calls.custom_tools"},
    ),
}

#: golden name → (sample, target, a rule it must not break: each call part carries its signature).
CLEAN: dict[str, tuple[str, str, str]] = {
    "target-gemini-3-signatures-kept": (
        "gemini-request.json",
        "gemini-3",
        "gemini_3.reasoning.signature_required",
    ),
}


def gate_json(*args: str) -> tuple[int, dict]:
    """`gate … --format json` run from the repository: its exit status and its document."""
    status, out, _ = gate(*args, "--format", "json")
    return status, json.loads(out)


def gate_golden(golden, name: str, *args: str) -> tuple[int, dict]:
    """`gate_json`, with the exit status in the document, checked against its golden `name`."""
    status, document = gate_json(*args)
    document["exit_status"] = status
    golden(SAMPLES / "expected" / name, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return status, document


@pytest.mark.parametrize("name", sorted(CASES))
def test_target_sample_golden(name, golden):
    sample, target, rules = CASES[name]
    status, document = gate_golden(
        golden, f"{name}.gate.json", f"samples/native/{sample}", "--target", target
    )
    found = {f["rule"] for f in document["files"][0]["findings"] if f.get("target") == target}
    assert rules <= found
    if target == "openai":
        # A warning: the file cannot say which deployment sealed the reasoning.
        assert status == 0
    else:
        assert status == 1


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_target_sample_golden_without_a_rule(name, golden):
    sample, target, rule = CLEAN[name]
    _, document = gate_golden(
        golden, f"{name}.gate.json", f"samples/native/{sample}", "--target", target
    )
    assert rule not in {f.get("rule") for f in document["files"][0]["findings"]}


def test_the_encrypted_reasoning_warning_blocks_with_strict():
    status, _ = gate_json(
        "samples/native/responses-request-encrypted-reasoning.json",
        "--target",
        "openai",
        "--strict",
    )
    assert status == 1


def test_a_reordered_replay_is_judged_against_where_its_blocks_first_appear(tmp_path):
    # The same two records in their recorded order: no finding.
    lines = (SAMPLES / "native" / "anthropic-thinking-reordered.jsonl").read_text().splitlines()
    response, request = json.loads(lines[0]), json.loads(lines[1])
    request["messages"][1]["content"] = response["content"]
    kept = tmp_path / "kept.jsonl"
    kept.write_text(json.dumps(response) + "\n" + json.dumps(request) + "\n")
    _, document = gate_json(str(kept), "--target", "anthropic")
    found = {f.get("rule") for f in document["files"][0]["findings"]}
    assert "anthropic.reasoning.thinking_order" not in found
    # The request alone (nothing recorded to compare with) cannot be judged: no finding either.
    alone = tmp_path / "alone.json"
    alone.write_text(lines[1])
    _, document = gate_json(str(alone), "--target", "anthropic")
    assert "anthropic.reasoning.thinking_order" not in {
        f.get("rule") for f in document["files"][0]["findings"]
    }


def test_a_real_replay_with_its_thinking_moved_is_caught(tmp_path):
    # pydantic-ai's recorded response and the request that sent it back (both answered 200):
    # kept as recorded it is clean (test_targets_real); with the thinking block moved after
    # the tool_use it is the reordering Anthropic rejects.
    lines = (SAMPLES / "real" / "anthropic-thinking-tool.resp0-req1.jsonl").read_text()
    response, request = (json.loads(line) for line in lines.splitlines())
    turn = request["messages"][1]["content"]
    assert [b["type"] for b in turn] == ["thinking", "text", "tool_use"]
    request["messages"][1]["content"] = [turn[1], turn[2], turn[0]]
    moved = tmp_path / "moved.jsonl"
    moved.write_text(json.dumps(response) + "\n" + json.dumps(request) + "\n")
    status, document = gate_json(str(moved), "--target", "anthropic")
    flagged = [
        f
        for f in document["files"][0]["findings"]
        if f.get("rule") == "anthropic.reasoning.thinking_order"
    ]
    assert status == 1 and len(flagged) == 1
    # Items: the response's thinking, text and call (0-2); the request's user message (3), text
    # (4), call (5), then its thinking block (6), moved after the call, and the result (7).
    assert flagged[0]["items"] == [6]
