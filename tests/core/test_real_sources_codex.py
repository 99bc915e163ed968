"""Codex rollouts of five CLI versions (0.58 to 0.128), checked against the raw lines.

Every count here is made with plain `json` from the file, not by the loader: a call is a
`response_item` line whose payload is a `function_call` or `custom_tool_call`, a result one
whose payload is its `_output`. Where Codex wrote a second record of the same tool run, in the
`event_msg` lines the loader skips unparsed (`exec_command_end`, `patch_apply_end`,
`web_search_end`), the calls are checked against that record too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import load_conversations
from inspector.core.formats._follow import Follower
from inspector.core.gate import gate_transcript
from inspector.core.model import Transcript
from tests.conftest import SAMPLES

CODEX = SAMPLES / "sessions" / "codex"
EXEC_077 = CODEX / "rollout-0.77-exec.jsonl"
TOOLS_0125 = CODEX / "rollout-0.125-tools.jsonl"
DESKTOP_0128 = CODEX / "rollout-0.128-js.jsonl"
ROLLOUTS = sorted(CODEX.glob("*.jsonl"))

CALLS = ("function_call", "custom_tool_call")
RESULTS = ("function_call_output", "custom_tool_call_output")


def lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a rollout, parsed with plain json (the samples hold no broken line)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def payloads(path: Path, line_type: str) -> list[dict[str, Any]]:
    return [r["payload"] for r in lines(path) if r["type"] == line_type]


def raw_calls(path: Path) -> list[tuple[str, str, str]]:
    """(type, call_id, name) of each call, in file order."""
    return [
        (p["type"], p["call_id"], p["name"])
        for p in payloads(path, "response_item")
        if p["type"] in CALLS
    ]


def raw_results(path: Path) -> list[tuple[str, str]]:
    return [
        (p["type"], p["call_id"]) for p in payloads(path, "response_item") if p["type"] in RESULTS
    ]


def loaded(path: Path) -> Transcript:
    (transcript,) = load_conversations(path)
    return transcript


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_calls_and_results_match_the_raw_lines(path):
    transcript = loaded(path)
    items = transcript.items
    calls = [(i.type, i.raw["call_id"], i.raw["name"]) for i in items if i.type in CALLS]
    results = [(i.type, i.raw["call_id"]) for i in items if i.type in RESULTS]
    assert calls == raw_calls(path)
    assert results == raw_results(path)
    # Each item points at its own line, so the window and the reports name the right one.
    numbered = [
        n
        for n, r in enumerate(lines(path), 1)
        if r["type"] == "response_item" and r["payload"]["type"] in CALLS + RESULTS
    ]
    assert [i.origin.line for i in items if i.type in CALLS + RESULTS] == numbered


@pytest.mark.parametrize("path", [EXEC_077, TOOLS_0125, DESKTOP_0128], ids=lambda p: p.name)
def test_every_call_its_rollout_answers_is_judged_on_its_arguments(path):
    # Codex writes no status; an output in the file shows the call ran, so the gate goes on to
    # the tool (no rollout of these holds a schema for the tools called: unknown_tool).
    answered = {call_id for _, call_id in raw_results(path)}
    transcript = loaded(path)
    verdicts = gate_transcript(transcript, {}).verdicts
    functions = [
        (item, verdict)
        for item, verdict in zip(transcript.items, verdicts, strict=True)
        if item.type == "function_call"
    ]
    assert functions
    for item, verdict in functions:
        assert item.raw["call_id"] in answered
        assert item.raw["status"] == "completed" and "status" not in item.conversion.native
        assert [(d.field, d.how) for d in item.conversion.derived] == [("status", "derived")]
        assert verdict.verdict == "unknown_tool"


def test_tool_runs_match_the_events_codex_wrote_for_the_terminal():
    # 0.125 writes an event for each finished command, patch and web search beside the items;
    # the loader never parses those lines, so they are a second record to count against.
    events = payloads(TOOLS_0125, "event_msg")
    transcript = loaded(TOOLS_0125)
    items = transcript.items
    outputs = {i.raw["call_id"] for i in items if i.type in RESULTS}
    commands = {
        i.raw["call_id"]
        for i in items
        if i.type == "function_call" and i.raw["name"] == "exec_command"
    }
    ended = [e["call_id"] for e in events if e["type"] == "exec_command_end"]
    assert ended and set(ended) <= commands <= outputs
    patches = [
        i.raw["call_id"]
        for i in items
        if i.type == "custom_tool_call" and i.raw["name"] == "apply_patch"
    ]
    applied = [e["call_id"] for e in events if e["type"] == "patch_apply_end" and e["success"]]
    assert len(patches) == 3 and patches == applied and set(patches) <= outputs
    searches = [i for i in items if i.type == "web_search_call"]
    assert len(searches) == sum(e["type"] == "web_search_end" for e in events) == 2
    # A web search is the provider's own tool: no call id, a vendor item, never a call to run.
    assert all("call_id" not in i.raw for i in searches)
    findings = {f.code: f for f in gate_transcript(transcript, {}).findings}
    assert "non_portable_type" in findings


def test_the_versions_and_clients_read_are_several():
    metas = [payloads(path, "session_meta")[0] for path in ROLLOUTS]
    versions = {m["cli_version"] for m in metas}
    assert {"0.58.0", "0.77.0", "0.104.0-alpha.1", "0.125.0", "0.128.0-alpha.1"} <= versions
    assert {"codex_cli_rs", "codex_exec", "Codex Desktop"} <= {m["originator"] for m in metas}
    # The instructions moved from `instructions` (0.77) to `base_instructions` (0.125): the
    # session is named by its id either way.
    assert "instructions" in payloads(EXEC_077, "session_meta")[0]
    assert "base_instructions" in payloads(TOOLS_0125, "session_meta")[0]
    for path, meta in zip(ROLLOUTS, metas, strict=True):
        assert loaded(path).conversation == meta["id"]


def test_desktop_metadata_tools_are_the_transcripts_tools():
    # Codex Desktop lists its own tools, with their JSON Schemas, in the session's metadata.
    (meta,) = payloads(DESKTOP_0128, "session_meta")
    declared = meta["dynamic_tools"]
    transcript = loaded(DESKTOP_0128)
    assert list(transcript.tools) == [d["name"] for d in declared]
    for i, definition in enumerate(declared):
        tool = transcript.tools[definition["name"]]
        assert tool.parameters == definition["inputSchema"]
        assert (tool.origin.line, tool.origin.pointer) == (
            1,
            f"/payload/dynamic_tools/{i}/inputSchema",
        )


@pytest.mark.parametrize(
    ("arguments", "verdict"),
    [('{"mode": "view", "id": "daily"}', "ok"), ('{"mode": 3}', "arguments_schema")],
)
def test_a_call_to_a_metadata_tool_is_checked_against_its_schema(tmp_path, arguments, verdict):
    # The same rollout with one more turn calling the app's own automation_update tool.
    call = {"type": "function_call", "name": "automation_update", "namespace": "codex_app"}
    call |= {"arguments": arguments, "call_id": "call_appended"}
    output = {"type": "function_call_output", "call_id": "call_appended", "output": "done"}
    appended = "".join(
        json.dumps({"timestamp": "2026-05-11T10:40:00.000Z", "type": "response_item", "payload": p})
        + "\n"
        for p in (call, output)
    )
    path = tmp_path / DESKTOP_0128.name
    path.write_text(DESKTOP_0128.read_text(encoding="utf-8") + appended, encoding="utf-8")
    transcript = loaded(path)
    result = gate_transcript(transcript, {})
    (judged,) = [
        v
        for item, v in zip(transcript.items, result.verdicts, strict=True)
        if item.raw.get("call_id") == "call_appended" and item.type == "function_call"
    ]
    assert judged.verdict == verdict


@pytest.mark.parametrize("path", [TOOLS_0125, DESKTOP_0128], ids=lambda p: p.name)
def test_following_a_rollout_as_it_grows_gives_what_loading_it_gives(tmp_path, path):
    # The file written in pieces cut at arbitrary bytes, read after each: the metadata's tools
    # arrive with its first line, and the items are those of the whole file.
    data = path.read_bytes()
    step = len(data) // 7 + 1
    pieces = [data[i : i + step] for i in range(0, len(data), step)]
    grown = tmp_path / path.name
    grown.write_bytes(pieces[0])
    follower = Follower(grown)
    last = follower.poll()
    for piece in pieces[1:]:
        with open(grown, "ab") as handle:
            handle.write(piece)
        last = follower.poll() or last
    assert last is not None and follower.bytes_read == len(data)
    (followed,) = last.transcripts
    whole = loaded(path)
    assert list(followed.tools) == list(whole.tools)
    assert [(i.type, i.raw) for i in followed.items] == [(i.type, i.raw) for i in whole.items]
