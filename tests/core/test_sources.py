"""Transcripts where they live: Codex rollouts and Claude Code sessions, on real public files.

Every count is made here from the raw lines with plain `json`, not by the loader: a call is a
`tool_use` block of a user or assistant record (Claude Code), or a `function_call` payload of a
`response_item` line (Codex).
"""

from __future__ import annotations

import json
import shutil
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import load_bytes, load_conversations, load_path
from inspector.core.gate import gate_transcript
from inspector.core.model import Cancelled, LoadError, Transcript
from tests.conftest import REPO, SAMPLES
from tests.core.test_cli_gate import gate

SESSIONS = SAMPLES / "sessions"
CLAUDE = SESSIONS / "claude_code"
CODEX = SESSIONS / "codex"
PROJECT = CLAUDE / "project"
MAIN = PROJECT / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def raw_records(path: Path) -> list[dict[str, Any]]:
    """The records of a file read with plain json: JSON Lines, or a `loglines` document."""
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("{") and "\n" in text.strip() and '"loglines"' in text[:200]:
        return [r for r in json.loads(text)["loglines"] if isinstance(r, dict)]
    found = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def claude_counts(paths: list[Path]) -> tuple[int, int]:
    """tool_use and tool_result blocks of the user and assistant records (progress records
    repeat a subagent's messages inside `data`, so they are not looked into)."""
    calls = results = 0
    for path in paths:
        for record in raw_records(path):
            if record.get("type") not in ("user", "assistant"):
                continue
            content = (record.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else ():
                calls += block.get("type") == "tool_use"
                results += block.get("type") == "tool_result"
    return calls, results


def codex_counts(path: Path) -> dict[str, int]:
    """How many response_item payloads of each type the rollout holds."""
    counts: dict[str, int] = {}
    for record in raw_records(path):
        if record.get("type") == "response_item":
            kind = record["payload"].get("type")
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def loaded_counts(transcripts: list[Transcript]) -> tuple[int, int]:
    items = [i for t in transcripts for i in t.items]
    return (
        sum(i.type == "function_call" for i in items),
        sum(i.type == "function_call_output" for i in items),
    )


def notes(transcript: Transcript) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for group in transcript.groups:
        for note in group.notes:
            found.setdefault(note.code, []).append(note.message)
    return found


CLAUDE_FILES = sorted(p for p in CLAUDE.glob("*.json*"))
CODEX_FILES = sorted(CODEX.glob("*.jsonl"))


# --------------------------------------------------------------------------------------------
# Claude Code


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name)
def test_claude_code_calls_and_results_match_the_raw_blocks(path):
    transcripts = load_conversations(path)
    assert {t.format for t in transcripts} == {"claude_code"}
    assert loaded_counts(transcripts) == claude_counts([path])
    assert all(t.conversation for t in transcripts)


def test_the_versions_read_are_several():
    versions = {
        r["version"]
        for p in CLAUDE_FILES + sorted(PROJECT.rglob("*.jsonl"))
        for r in raw_records(p)
        if isinstance(r.get("version"), str)
    }
    assert {v.split(".")[0] + "." + v.split(".")[1] for v in versions} >= {"1.0", "2.0", "2.1"}


def test_a_session_folder_reads_its_subagent_files_and_links_them():
    transcripts = load_conversations(MAIN)
    files = [MAIN, *sorted((PROJECT / MAIN.stem / "subagents").glob("*.jsonl"))]
    assert loaded_counts(transcripts) == claude_counts(files)
    main, agent, compact = transcripts
    assert main.conversation == MAIN.stem
    assert agent.conversation == f"{MAIN.stem}/agent-a2898e3"
    # The subagent names the Task call of the main thread that ran it (a progress record
    # ties its agent id to the call), and that call is an item of the main conversation.
    (link,) = notes(agent)["subagent_conversation"]
    task = next(i for i in main.items if i.name == "Task")
    assert task.call_id in link
    # The compaction agent was spawned by no call: nothing is claimed.
    assert "subagent_conversation" not in notes(compact)
    # The main file's progress records repeat the subagent's run: never counted.
    assert loaded_counts([main]) == claude_counts([MAIN])


def test_inline_sidechains_are_conversations_of_their_own():
    path = CLAUDE / "v1.0.108-sidechains.jsonl"
    main, *sidechains = load_conversations(path)
    assert len(sidechains) == 2
    assert "several_conversations" in notes(main)
    task_ids = {i.call_id for i in main.items if i.name == "Task"}
    for sidechain in sidechains:
        (link,) = notes(sidechain)["subagent_conversation"]
        assert any(call_id in link for call_id in task_ids)
    # load_path gives the main thread alone.
    assert load_path(path).items == main.items


def test_one_response_split_over_records_is_one_turn():
    path = CLAUDE / "v1.0.98-session.jsonl"
    records = [r for r in raw_records(path) if r.get("type") == "assistant"]
    by_id: dict[str, int] = {}
    for r in records:
        by_id[r["message"]["id"]] = by_id.get(r["message"]["id"], 0) + 1
    assert max(by_id.values()) > 1  # the file does split responses
    (t,) = load_conversations(path)
    # Parallel calls of one response answer in the order they were made: they share a turn,
    # so each result pairs with its own call, and every call has its result.
    answered = {i.call_id for i in t.items if i.type == "function_call_output"}
    assert {i.call_id for i in t.items if i.type == "function_call"} == answered
    # The call's arguments are serialised from the input object, and marked as lossy.
    call = next(i for i in t.items if i.type == "function_call")
    (mark,) = [d for d in call.conversion.derived if d.field == "arguments"]
    assert mark.how == "serialised" and "exact argument text" in mark.detail
    native = call.conversion.native
    assert json.loads(call.raw["arguments"]) == native["input"]


def test_items_keep_their_line_and_pointer():
    path = CLAUDE / "v2.1.38-session.jsonl"
    (t,) = load_conversations(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for item in t.items:
        record = json.loads(lines[item.origin.line - 1])
        assert record["type"] in ("user", "assistant")
        assert item.origin.pointer.startswith("/message")


def test_a_corrupt_line_is_a_finding_and_the_rest_still_loads(tmp_path):
    source = CLAUDE / "v1.0.98-session.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    # A line cut off mid-write, as a crash leaves it, in the middle of the session.
    middle = len(lines) // 2
    broken.write_text("".join([*lines[:middle], lines[middle][:40] + "\n", *lines[middle + 1 :]]))
    (t,) = load_conversations(broken)
    (message,) = notes(t)["corrupt_line"]
    assert f"broken.jsonl:{middle + 1}:" in message
    whole = claude_counts([source])
    assert loaded_counts([t]) == claude_counts([broken])
    assert loaded_counts([t])[0] >= whole[0] - 1
    result = gate_transcript(t, {})
    assert "corrupt_line" in {f.code for f in result.findings}


def test_a_line_of_invalid_utf8_is_corrupt_and_the_rest_loads(tmp_path):
    # Past the first MiB: a file whose start is not UTF-8 is refused as binary as a whole.
    source = CLAUDE / "v1.0.98-session.jsonl"
    lines = source.read_bytes().splitlines(keepends=True) * 50
    broken = tmp_path / "latin1.jsonl"
    at = len(lines) - 3
    broken.write_bytes(b"".join([*lines[:at], b'{"type":"user","x":"caf\xe9"}\n', *lines[at:]]))
    (t,) = load_conversations(broken)
    (message,) = notes(t)["corrupt_line"]
    assert f"latin1.jsonl:{at + 1}:" in message and "UTF-8" in message
    calls, results = claude_counts([source])
    assert loaded_counts([t]) == (calls * 50, results * 50)


def test_a_session_load_reports_progress_and_can_be_cancelled(tmp_path):
    data = (CLAUDE / "v1.0.98-session.jsonl").read_bytes() * 200  # a few thousand lines
    seen: list[tuple[int, int]] = []
    load_bytes(data, "big.jsonl", progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (len(data), len(data))
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        load_bytes(data, "big.jsonl", cancel=cancel)


def test_a_file_of_corrupt_lines_only_is_a_load_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"user","uuid":"a","message":{"role":"user","content":"x"\n')
    with pytest.raises(LoadError) as caught:
        load_conversations(bad)
    assert caught.value.path.endswith("bad.jsonl")


def test_a_folder_lists_every_session_file_it_holds(tmp_path):
    for path in (CLAUDE / "v1.0.98-session.jsonl", CODEX / "rollout-0.104-short.jsonl"):
        shutil.copy(path, tmp_path / path.name)
    transcripts = load_conversations(tmp_path)
    assert [t.format for t in transcripts] == ["codex", "claude_code"]


# --------------------------------------------------------------------------------------------
# Codex


@pytest.mark.parametrize("path", CODEX_FILES, ids=lambda p: p.name)
def test_codex_items_are_the_response_items_once_each(path):
    (t,) = load_conversations(path)
    raw = codex_counts(path)
    assert len(t.items) == sum(raw.values())
    loaded: dict[str, int] = {}
    for item in t.items:
        loaded[item.type] = loaded.get(item.type, 0) + 1
    assert loaded == raw
    # event_msg lines repeat messages and tool runs; they are not items.
    assert t.conversation and t.format == "codex"


def test_a_cut_event_line_of_a_rollout_is_still_reported(tmp_path):
    # event_msg lines add nothing and go unparsed; one cut short is still a corrupt line.
    source = CODEX / "rollout-0.58.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"type":"event_msg"' in line[:80])
    broken = tmp_path / "cut.jsonl"
    broken.write_bytes(b"".join([*lines[:at], lines[at][:60] + b"\n", *lines[at + 1 :]]))
    (t,) = load_conversations(broken)
    (message,) = notes(t)["corrupt_line"]
    assert f"cut.jsonl:{at + 1}:" in message
    assert len(t.items) == sum(codex_counts(source).values())


def test_a_compacted_history_is_noted_and_not_counted_again():
    path = CODEX / "rollout-0.104-compacted.jsonl"
    (t,) = load_conversations(path)
    (message,) = notes(t)["compacted_history"]
    replaced = next(
        len(r["payload"]["replacement_history"])
        for r in raw_records(path)
        if r.get("type") == "compacted"
    )
    assert f"({replaced} items)" in message
    assert len(t.items) == sum(codex_counts(path).values())
    assert "compacted_history" in {f.code for f in gate_transcript(t, {}).findings}


def test_codex_versions_read_are_several():
    versions = {
        r["payload"].get("cli_version")
        for p in CODEX_FILES
        for r in raw_records(p)
        if r.get("type") == "session_meta"
    }
    assert {"0.58.0", "0.104.0-alpha.1"} <= versions
    # The older metadata names the instructions `instructions`; nothing depends on it.
    assert all(load_conversations(p)[0].conversation for p in CODEX_FILES)


def test_codex_items_are_open_responses_items_with_no_envelope_finding():
    (t,) = load_conversations(CODEX / "rollout-0.104-short.jsonl")
    result = gate_transcript(t, {})
    assert not [f for f in result.findings if f.code.endswith("_envelope")]
    message = next(i for i in t.items if i.type == "message" and i.role == "assistant")
    assert message.conversion is None and "phase" in message.raw


def test_redacted_arguments_fail_to_parse_and_say_they_were_redacted():
    (t,) = load_conversations(CODEX / "rollout-0.104-short.jsonl")
    result = gate_transcript(t, {})
    calls = [
        (i, v) for i, v in zip(t.items, result.verdicts, strict=True) if i.type == "function_call"
    ]
    assert calls
    for item, verdict in calls:
        # Codex writes no status; the output that answers each call shows it ran.
        assert item.raw["status"] == "completed"
        assert verdict.verdict == "arguments_parse"
        status, arguments = item.conversion.derived
        assert (status.field, status.how) == ("status", "derived")
        assert arguments.how == "redacted" and "publisher" in arguments.detail
        assert "status" not in item.conversion.native


# --------------------------------------------------------------------------------------------
# Inspect AI eval logs

INSPECT = SESSIONS / "inspect"


def inspect_samples(path: Path) -> list[dict[str, Any]]:
    """The samples of a log read with the standard library (zipfile and json)."""
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist() if n.startswith("samples/"))
            return [json.loads(archive.read(n)) for n in names]
    return json.loads(path.read_text(encoding="utf-8")).get("samples") or []


@pytest.mark.parametrize("path", sorted(INSPECT.iterdir()), ids=lambda p: p.name)
def test_inspect_calls_and_results_match_the_raw_messages(path):
    samples = inspect_samples(path)
    transcripts = load_conversations(path)
    assert len(transcripts) == len(samples)
    calls = sum(len(m.get("tool_calls") or []) for s in samples for m in s["messages"])
    results = sum(m.get("role") == "tool" for s in samples for m in s["messages"])
    assert loaded_counts(transcripts) == (calls, results)
    assert [t.conversation for t in transcripts] == [
        f"sample {s['id']} epoch {s['epoch']}" for s in samples
    ]


def test_inspect_calls_gate_against_the_tools_the_model_was_offered():
    (t,) = load_conversations(INSPECT / "log_message_deduplication.eval")
    assert "bash" in t.tools
    result = gate_transcript(t, {})
    calls = [v for i, v in zip(t.items, result.verdicts, strict=True) if i.type == "function_call"]
    assert calls and all(v.verdict == "ok" for v in calls)
    call = next(i for i in t.items if i.type == "function_call")
    (mark,) = [d for d in call.conversion.derived if d.field == "arguments"]
    assert "exact argument text" in mark.detail


def test_an_inspect_log_without_samples_is_a_finding(tmp_path):
    document = json.loads((INSPECT / "log_images_tc.json").read_text(encoding="utf-8"))
    del document["samples"]
    path = tmp_path / "header-only.json"
    path.write_text(json.dumps(document, indent=2))
    (t,) = load_conversations(path)
    assert t.items == ()
    assert "content_not_captured" in {f.code for f in gate_transcript(t, {}).findings}


def test_an_inspect_turn_of_calls_with_empty_text_is_its_calls(tmp_path):
    # Inspect writes a turn that only calls tools with `content: ""`; a turn with empty text
    # and no call is still a message, its content as written.
    document = json.loads((INSPECT / "log_images_tc.json").read_text(encoding="utf-8"))
    call = {"id": "call_1", "function": "lookup", "arguments": {"q": "x"}, "type": "function"}
    document["samples"][0]["messages"] = [
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "found", "tool_call_id": "call_1", "function": "lookup"},
        {"role": "assistant", "content": ""},
    ]
    path = tmp_path / "calls-only.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    (t,) = load_conversations(path)
    assert [(i.type, i.raw.get("role")) for i in t.items] == [
        ("message", "user"),
        ("function_call", None),
        ("function_call_output", None),
        ("message", "assistant"),
    ]
    assert t.items[-1].raw["content"] == ""


def test_a_zip_that_is_not_an_eval_log_is_said_so(tmp_path):
    path = tmp_path / "other.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(LoadError, match=r"not an Inspect \.eval log"):
        load_conversations(path)


# --------------------------------------------------------------------------------------------
# The gate command: one entry per conversation, --conversation


def test_gate_json_has_one_entry_per_conversation_with_its_id():
    status, out, _ = gate(str(CLAUDE / "v1.0.108-sidechains.jsonl"), "--format", "json")
    files = json.loads(out)["files"]
    ids = [f["conversation"] for f in files]
    assert len(ids) == 3 and len(set(ids)) == 3
    assert status == 1


def test_gate_conversation_picks_one():
    wanted = f"{MAIN.stem}/agent-a2898e3"
    _, out, _ = gate(str(MAIN), "--conversation", wanted, "--format", "json")
    (entry,) = json.loads(out)["files"]
    assert entry["conversation"] == wanted
    assert len(entry["items"]) == len(load_conversations(MAIN)[1].items)


def test_gate_conversation_unknown_names_those_there_are():
    status, _, err = gate(str(MAIN), "--conversation", "nope")
    assert status == 2
    assert "no conversation 'nope'" in err and MAIN.stem in err
    assert "Traceback" not in err


def test_plain_files_keep_their_json_shape():
    _, out, _ = gate("samples/article/items.json", "--format", "json")
    (entry,) = json.loads(out)["files"]
    assert "conversation" not in entry


GOLDEN = [
    ("sessions-claude-code-1.0.98", [str(CLAUDE / "v1.0.98-session.jsonl")]),
    ("sessions-claude-code-2.1.38", [str(CLAUDE / "v2.1.38-session.jsonl")]),
    ("sessions-claude-code-agent-2.0.28", [str(CLAUDE / "agent-v2.0.28.jsonl")]),
    ("sessions-claude-code-web-export", [str(CLAUDE / "web-export.json")]),
    ("sessions-codex-0.104", [str(CODEX / "rollout-0.104-short.jsonl")]),
    ("sessions-inspect-eval", [str(SESSIONS / "inspect" / "log_message_deduplication.eval")]),
    ("sessions-inspect-json", [str(SESSIONS / "inspect" / "log_tool_call_error.json")]),
]


@pytest.mark.parametrize(("name", "args"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, args, golden):
    # Stored expected outputs, checked (and regenerated with --update-goldens) as the others.
    status, out, _ = gate(*[str(Path(a).relative_to(REPO)) for a in args], "--format", "json")
    document = json.loads(out)
    document["exit_status"] = status
    rendered = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    golden(SAMPLES / "expected" / f"{name}.gate.json", rendered)
