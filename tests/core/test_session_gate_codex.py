"""A Codex rollout gated in shares (core/session_gate.py with formats/codex.py's shares):
each share converts as the whole file's load converts its lines, and the report is the one
one process writes, or the file goes the usual way."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from inspector.core import session_gate
from inspector.core.formats import codex
from inspector.core.formats._convert import renumber
from inspector.core.model import Item, Transcript
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES
from tests.core.test_session_gate import _by_shares_and_alone, _cut_sets, _line_starts, by_shares
from tests.core.test_session_lean import _facts

__all__ = ["by_shares"]  # the fixture, used here by name

ROLLOUTS = sorted((SAMPLES / "sessions" / "codex").glob("*.jsonl"))


def _defines_tools(path: Path) -> bool:
    """Whether a rollout's metadata defines tools (read here with the standard library)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "session_meta" and record["payload"].get("dynamic_tools"):
            return True
    return False


def _in_shares(data: bytes, path: str, cuts: list[int]) -> Transcript | None:
    """The rollout as shares cut at `cuts` convert it, numbered and joined as the gate by
    shares numbers them (None: a share cannot be converted on its own, or not joined)."""
    shares = [codex.convert_share(data, a, b, path) for a, b in itertools.pairwise(cuts)]
    if any(share is None for share in shares):
        return None
    made = [share for share in shares if share is not None]
    head = codex.joined(path, made)
    if head is None:
        return None
    items: list[Item] = []
    for share in made:
        if share.transcript is not None:
            renumber(share.transcript.items, len(items))
            items += share.transcript.items
    return dataclasses.replace(head, items=tuple(items))


def _answered_elsewhere(data: bytes, cuts: list[int]) -> bool:
    """Whether a call with no status is in one share and an output of its call id in another
    (told here from each line's JSON, independently of the loader)."""
    share_of: dict[str, set[int]] = {}
    calls: list[tuple[str, int]] = []
    for number, (a, b) in enumerate(itertools.pairwise(cuts)):
        for line in data[a:b].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            payload = record.get("payload") if isinstance(record, dict) else None
            if record.get("type") != "response_item" or not isinstance(payload, dict):
                continue
            if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
                share_of.setdefault(payload.get("call_id"), set()).add(number)
            elif payload.get("type") == "function_call" and "status" not in payload:
                calls.append((payload.get("call_id"), number))
    return any(share_of.get(call, set()) - {number} for call, number in calls)


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_every_rollout_converts_in_shares_as_it_loads_whole(path: Path) -> None:
    data = path.read_bytes()
    (whole,) = codex.load_file(data, str(path))
    converted = refused = 0
    for cuts in _cut_sets(data):
        shared = _in_shares(data, str(path), cuts)
        if shared is None:
            refused += 1
            # Only a share that defines tools, or a call answered in another share, is refused.
            assert _defines_tools(path) or _answered_elsewhere(data, cuts)
            continue
        assert not _answered_elsewhere(data, cuts)
        assert _facts([shared]) == _facts([whole])
        converted += 1
    assert converted == 0 if _defines_tools(path) else converted > 0


def test_a_cut_between_a_call_and_its_output_is_refused_and_a_turns_start_is_not() -> None:
    path = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"
    data = path.read_bytes()
    starts = _line_starts(data)
    lines = data.splitlines()
    call = next(k for k, line in enumerate(lines) if b'"type":"function_call",' in line)
    assert _in_shares(data, str(path), [0, starts[call + 1], len(data)]) is None
    # Moved on to the next turn's context line, the same cut converts.
    moved = codex.cut_at(data, starts[call + 1])
    assert b'"type":"turn_context"' in data[moved : data.index(b"\n", moved)]
    shared = _in_shares(data, str(path), [0, moved, len(data)])
    assert shared is not None
    assert _facts([shared]) == _facts(codex.load_file(data, str(path)))


def test_a_rollout_that_defines_tools_is_not_converted_in_shares() -> None:
    path = SAMPLES / "sessions" / "codex" / "rollout-0.128-js.jsonl"
    data = path.read_bytes()
    assert _defines_tools(path)
    first = data.index(b"\n") + 1
    assert codex.convert_share(data, 0, first, str(path)) is None
    assert codex.convert_share(data, first, len(data), str(path)) is not None
    # Told from its first line before any share is converted.
    assert not codex.can_share(data, path)
    assert codex.can_share(
        (SAMPLES / "sessions" / "codex" / "rollout-0.58.jsonl").read_bytes(), None
    )


def test_a_waiting_call_answered_later_is_the_item_made_from_its_answered_payload() -> None:
    for path in ROLLOUTS:
        reader = codex.Reader(str(path))
        reader.read_file(path.read_bytes())
        for item in reader.transcripts()[0].items:
            if item.type != "function_call" or item.conversion is None:
                continue
            if item.conversion.derived[0].field != "status":
                continue
            raw, conversion = codex._item(item.conversion.native, True)
            fresh = Item(item.index, raw, item.origin, item.group, item.envelope, conversion)
            assert item == fresh and item.status == fresh.status == "completed"
            assert item._mask == fresh._mask


def _large_rollout(tmp_path: Path) -> Path:
    """A real rollout's lines repeated to about 1 MB, with a broken line and a compacted
    history in its second half."""
    source = SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl"
    path = tmp_path / "rollout.jsonl"
    repeated(source, path, 1_000_000)
    lines = path.read_bytes().split(b"\n")
    compacted = SAMPLES / "sessions" / "codex" / "rollout-0.104-compacted.jsonl"
    marker = next(
        line for line in compacted.read_bytes().splitlines() if b'"type":"compacted"' in line
    )
    at = len(lines) * 3 // 4
    broken = next(k for k in range(at, len(lines)) if b'"type":"message"' in lines[k])
    lines[broken] = lines[broken][:-9]  # a line cut off mid-write
    lines.insert(broken + 5, marker)
    path.write_bytes(b"\n".join(lines))
    return path


def test_a_large_rollout_by_shares_writes_what_one_process_writes(
    tmp_path: Path, by_shares: list[Any]
) -> None:
    path = _large_rollout(tmp_path)
    status, out, _ = _by_shares_and_alone(path, by_shares)
    assert len(by_shares) == 2 and all(made is not None for made in by_shares)
    # Shares were gated by forked workers, not only by this process.
    assert all(made.makers - {os.getpid()} for made in by_shares)
    (document,) = json.loads(out)["files"]
    assert document["format"] == "codex"
    first = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert first["type"] == "session_meta"
    assert document["conversation"] == first["payload"]["id"]
    codes = [f["code"] for f in document["findings"]]
    assert codes.count("corrupt_line") == 1 and codes.count("compacted_history") == 1
    # Counted here from the file's lines: every response_item is an item, none twice.
    items = sum(
        1
        for line in path.read_bytes().splitlines()
        if b'"type":"response_item"' in line and line.endswith(b"}")
    )
    assert len(document["items"]) == items
    # Each repeat's calls keep their ids (the benchmark's renaming keeps the `call_id` key):
    # every output answers its call, whose redacted arguments block it.
    outputs = sum(
        1
        for line in path.read_bytes().splitlines()
        if b'"type":"function_call_output","call_id":"call_r' in line
    )
    assert outputs > 100 and codes.count("output_for_blocked_call") == outputs
    assert status == 1


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_every_rollout_gated_by_shares_writes_what_one_process_writes(
    tmp_path: Path, by_shares: list[Any], path: Path
) -> None:
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    _by_shares_and_alone(copy, by_shares)
    if _defines_tools(path):
        assert by_shares and all(made is None for made in by_shares)


def test_a_call_answered_in_another_share_sends_the_file_the_usual_way(
    tmp_path: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rollout.jsonl"
    shutil.copy(SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl", path)
    data = path.read_bytes()
    lines = data.splitlines()
    call = next(k for k, line in enumerate(lines) if b'"type":"function_call",' in line)
    cut = _line_starts(data)[call + 1]
    # Every share ends right after that call: its output is in the next share.
    monkeypatch.setattr(session_gate, "_cuts", lambda data, shares, cut_at: [0, cut, len(data)])
    _by_shares_and_alone(path, by_shares)
    assert by_shares and all(made is None for made in by_shares)
