"""Claude Code sessions of 2.0.64 (a project folder with its agent files beside the session),
2.0.75 (a session that ends on calls never answered, and answers a call it does not hold) and
2.1.4 (a call the user rejected), checked against the raw records with plain `json`.

A call is a `tool_use` block of a user or assistant record and a result a `tool_result` block
(`claude_counts`); the other facts are read from the records' own `sessionId`, `agentId`,
`isSidechain` and `version` fields, which the loader does not use to count.
"""

from __future__ import annotations

from collections import Counter

from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from tests.conftest import SAMPLES
from tests.core.test_sources import claude_counts, loaded_counts, notes, raw_records

CLAUDE = SAMPLES / "sessions" / "claude_code"
FOLDER = CLAUDE / "project-2.0.64"
SESSION = FOLDER / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
REJECTED = CLAUDE / "v2.1.4-rejected.jsonl"
UNANSWERED = CLAUDE / "v2.0.75-session.jsonl"


def test_a_2_0_project_folder_reads_the_agent_files_beside_the_session():
    files = sorted(FOLDER.glob("*.jsonl"))
    transcripts = load_conversations(FOLDER)
    assert loaded_counts(transcripts) == claude_counts(files) == (6, 6)
    (session,) = {r["sessionId"] for path in files for r in raw_records(path) if "sessionId" in r}
    agents = sorted(
        {r["agentId"] for path in files for r in raw_records(path) if r.get("isSidechain")}
    )
    assert [t.conversation for t in transcripts] == [
        session,
        *(f"{session}/agent-{agent}" for agent in agents),
    ]
    # Both agents are Claude Code's start-up warmups ("Warmup"): no Task call spawned them, so
    # no link is claimed.
    assert not [
        b
        for r in raw_records(SESSION)
        for b in (r.get("message") or {}).get("content") or ()
        if isinstance(b, dict) and b.get("name") == "Task"
    ]
    assert all("subagent_conversation" not in notes(t) for t in transcripts[1:])


def test_a_call_the_user_rejected_keeps_its_error_result():
    (result,) = [
        block
        for r in raw_records(REJECTED)
        if r.get("type") == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
        if block.get("type") == "tool_result"
    ]
    assert result["is_error"] is True
    (transcript,) = load_conversations(REJECTED)
    (output,) = [i for i in transcript.items if i.type == "function_call_output"]
    assert output.raw["call_id"] == result["tool_use_id"]
    assert output.raw["output"] == result["content"]
    assert output.raw["anthropic:is_error"] is True


def test_the_versions_read_span_1_0_to_2_1():
    versions = {
        r["version"]
        for path in sorted(CLAUDE.rglob("*.json*"))
        for r in raw_records(path)
        if isinstance(r.get("version"), str)
    }
    assert {
        "1.0.98",
        "1.0.108",
        "2.0.28",
        "2.0.64",
        "2.0.75",
        "2.1.4",
        "2.1.38",
        "2.1.39",
    } <= versions


def blocks(path, kind):
    return [
        b
        for r in raw_records(path)
        if r.get("type") in ("user", "assistant")
        for b in (r.get("message") or {}).get("content") or ()
        if isinstance(b, dict) and b.get("type") == kind
    ]


def test_calls_never_answered_and_a_result_without_its_call_are_said():
    # The session ends on four calls with no result, and one result (a background Bash run's
    # notice) answers a call the file does not hold; both are counted here from the raw blocks.
    made = {b["id"] for b in blocks(UNANSWERED, "tool_use")}
    answered = {b["tool_use_id"] for b in blocks(UNANSWERED, "tool_result")}
    (transcript,) = load_conversations(UNANSWERED)
    assert loaded_counts([transcript]) == claude_counts([UNANSWERED]) == (22, 19)
    calls = {i.raw["call_id"] for i in transcript.items if i.type == "function_call"}
    outputs = {i.raw["call_id"] for i in transcript.items if i.type == "function_call_output"}
    assert (calls, outputs) == (made, answered)
    codes = Counter(f.code for f in gate_transcript(transcript, {}).findings)
    assert (
        (codes["missing_output"], codes["orphan_output"])
        == (
            len(made - answered),
            len(answered - made),
        )
        == (4, 1)
    )
