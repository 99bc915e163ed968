"""Following a growing session file: appended lines are read once and gated as they arrive."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

from inspector.core.formats import _sessions, load_conversations
from inspector.core.formats._follow import Follower
from inspector.core.model import LoadError
from tests.conftest import REPO, SAMPLES
from tests.spies import CountingJson

SESSION = SAMPLES / "sessions" / "claude_code" / "v1.0.98-session.jsonl"
ROLLOUT = SAMPLES / "sessions" / "codex" / "rollout-0.104-short.jsonl"
CALLS = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"


def _items(update) -> int:
    return sum(len(t.items) for t in update.transcripts)


@pytest.mark.parametrize("source", [SESSION, ROLLOUT], ids=lambda p: p.parent.name)
def test_appended_lines_are_read_once_and_give_the_whole_sessions_items(tmp_path, source):
    data = source.read_bytes()
    lines = data.splitlines(keepends=True)
    path = tmp_path / source.name
    half = len(lines) // 2
    path.write_bytes(b"".join(lines[:half]))
    follower = Follower(path)
    first = follower.poll()
    assert first is not None and first.restarted is None
    seen = _items(first)
    assert seen > 0
    assert follower.poll() is None  # nothing new
    # The writer appends the rest, the last line in two pieces: the piece waits.
    rest = b"".join(lines[half:-1])
    cut = len(lines[-1]) // 2
    with open(path, "ab") as handle:
        handle.write(rest + lines[-1][:cut])
    second = follower.poll()
    assert second is not None and _items(second) > seen
    with open(path, "ab") as handle:
        handle.write(lines[-1][cut:])
    third = follower.poll()
    # The completed line is parsed, unless it is one a rollout's reader never parses.
    kind = json.loads(lines[-1]).get("type")
    expected = 0 if kind in ("event_msg", "turn_context") else 1
    assert third is not None and third.new_records == expected
    whole = load_conversations(source)
    assert [len(t.items) for t in third.transcripts] == [len(t.items) for t in whole]
    assert [t.items[-1].raw for t in third.transcripts] == [t.items[-1].raw for t in whole]
    # Every byte was read once, however many polls it took.
    assert follower.bytes_read == len(data)


def _pieces(data: bytes, count: int) -> list[bytes]:
    """The file cut in `count` pieces at arbitrary bytes (most cuts fall inside a line)."""
    step = len(data) // count + 1
    return [data[i : i + step] for i in range(0, len(data), step)]


def _response_lines(lines: list[bytes], upto: int) -> set[int]:
    """The 1-based numbers of the lines of the last assistant response among the first `upto`
    lines (Claude Code writes one response as several records sharing its message id)."""
    records = {n: json.loads(raw) for n, raw in enumerate(lines[:upto], 1) if raw.strip()}
    ids = {
        n: r["message"].get("id")
        for n, r in records.items()
        if r.get("type") == "assistant" and isinstance(r.get("message"), dict)
    }
    if not ids:
        return set()
    last = ids[max(ids)]
    return {n for n, i in ids.items() if i == last and i is not None}


@pytest.mark.parametrize("source", [SESSION, ROLLOUT, CALLS], ids=lambda p: p.name)
def test_a_poll_parses_and_converts_only_what_was_appended(tmp_path, monkeypatch, source):
    data = source.read_bytes()
    lines = data.splitlines(keepends=True)
    assert len(set(lines)) == len(lines)  # each line can be told apart by its bytes
    whole = load_conversations(source)
    spy = CountingJson()
    monkeypatch.setattr(_sessions, "orjson", spy)
    path = tmp_path / source.name
    path.write_bytes(b"")
    follower = Follower(path)
    before: list = []
    growing: set[int] = set()
    remade = 0
    for piece in _pieces(data, 7):
        with open(path, "ab") as handle:
            handle.write(piece)
        update = follower.poll()
        if update is None or not update.transcripts:
            continue
        (transcript,) = update.transcripts[:1]
        # An item read by an earlier poll is the same object now: it was not converted again,
        # but for the items of a response still being written and a call its output answers.
        for old, new in zip(before, transcript.items, strict=False):
            if new is old:
                continue
            remade += 1
            answered = old.type == "function_call" and old.status is None
            assert answered or old.origin.line in growing, (old.index, old.origin)
            assert new.raw.get("type") == old.raw.get("type")
        before = list(transcript.items)
        growing = _response_lines(lines, path.read_bytes().count(b"\n"))
    followed = follower.transcripts()
    assert [len(t.items) for t in followed] == [len(t.items) for t in whole]
    for mine, theirs in zip(followed, whole, strict=True):
        # Item for item what a load of the whole file gives: values, marks and places.
        assert [(i.raw, i.conversion, i.origin.line, i.origin.pointer) for i in mine.items] == [
            (i.raw, i.conversion, i.origin.line, i.origin.pointer) for i in theirs.items
        ]
    # Every line was parsed once at most, however many polls read it; a rollout's terminal
    # echoes (event_msg, turn_context) not at all.
    assert max(spy.parsed.values()) == 1
    unread = {"event_msg", "turn_context"} if source in (ROLLOUT, CALLS) else set()
    wanted = {
        raw.strip() for raw in lines if raw.strip() and json.loads(raw).get("type") not in unread
    }
    assert set(spy.parsed) == wanted
    # Re-made items are few: the calls answered and a response's records (none of the rest).
    assert remade < len(whole[0].items) // 4


def test_truncation_and_rotation_are_said_and_read_again(tmp_path):
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:10]))
    follower = Follower(path)
    before = _items(follower.poll())
    path.write_bytes(b"".join(lines[:4]))  # truncated in place
    update = follower.poll()
    assert update is not None and update.restarted == "the file was truncated"
    assert _items(update) < before
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"".join(lines[:12]))
    os.replace(replacement, path)  # rotated: another file under the same name
    update = follower.poll()
    assert update is not None and "replaced" in update.restarted
    assert _items(update) > before


def test_a_file_that_is_no_session_is_refused(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"type": "message", "role": "user", "content": "hi"}\n')
    with pytest.raises(LoadError, match="follow reads Codex rollouts and Claude Code sessions"):
        Follower(path).poll()


def _reader(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)


def test_gate_follow_prints_new_items_as_they_are_appended(tmp_path):
    records = ROLLOUT.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rollout.jsonl"
    # The first turn: up to the first call, whose output has not been written yet.
    first_call = next(i for i, r in enumerate(records) if b'"function_call"' in r)
    path.write_bytes(b"".join(records[: first_call + 1]))
    command = [sys.executable, "-m", "inspector", "gate", "--follow", str(path)]
    process = subprocess.Popen(
        [*command, "--format", "json", "--interval", "0.05"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    try:
        shown = sum(b'"type":"response_item"' in r for r in records[: first_call + 1])
        rows = [json.loads(lines.get(timeout=60)) for _ in range(shown)]
        calls = [r for r in rows if r["type"] == "function_call"]
        # Codex writes no status: with no output yet, the call cannot be judged completed.
        assert [c["verdict"] for c in calls] == ["status"]
        # The agent goes on: the output arrives, then the rest of the session.
        with open(path, "ab") as handle:
            handle.write(b"".join(records[first_call + 1 :]))
        expected = sum(1 for r in records if b'"type":"response_item"' in r)
        later = []
        while len([r for r in rows + later if not r["updated"]]) < expected:
            later.append(json.loads(lines.get(timeout=60)))
        # The first call's row is shown again, now judged on its arguments.
        (again,) = [r for r in later if r["updated"] and r["index"] == calls[0]["index"]]
        assert again["verdict"] == "arguments_parse"
    finally:
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=60)
    # Interrupted: status 130, one line, never a traceback.
    assert process.returncode == 130
    assert "Traceback" not in errors
