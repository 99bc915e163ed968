"""A Claude Code session gated share by share on several processes (core.session_gate) is what
one process gives: each share of lines converts as the whole file's load converts it (items,
indexes, origins, values, marks, natives, the conversation's group and id, corrupt lines), a
response whose records straddle a cut included, and the report is byte for byte the same; what
a share cannot convert on its own sends the file the usual way."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import run
from inspector.commands import gate as gate_command
from inspector.core import parallel, session_gate
from inspector.core.formats import claude_code, conversations_from_bytes
from inspector.core.formats._convert import renumber
from inspector.core.gate import gate_transcript
from inspector.core.model import Item, Transcript
from tests.benchmarks import synthetic
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES
from tests.core.test_parallel import interrupted_gate_ends_its_workers, spy_workers
from tests.core.test_session_lean import _facts

CLAUDE = SAMPLES / "sessions" / "claude_code"
#: Every Claude Code session file of the samples (the web export is one JSON document).
SESSIONS = sorted(p for p in CLAUDE.rglob("*.jsonl"))
_BASE = {"parentUuid": None, "isSidechain": False, "userType": "external", "sessionId": "s-9"}


def _in_shares(data: bytes, path: str, cuts: list[int]) -> Transcript | None:
    """The main thread as shares cut at `cuts` convert it, numbered and joined as the gate by
    shares numbers them (None: a share cannot be converted on its own)."""
    shares = [claude_code.convert_share(data, a, b, path) for a, b in itertools.pairwise(cuts)]
    if any(share is None for share in shares):
        return None
    items: list[Item] = []
    for share in shares:
        assert share is not None
        if share.transcript is not None:
            renumber(share.transcript.items, len(items))
            items += share.transcript.items
    head = claude_code.joined(path, [s for s in shares if s is not None])
    assert head is not None
    return dataclasses.replace(head, items=tuple(items))


def _assert_same(shared: Transcript, whole: Transcript) -> None:
    assert shared.format == whole.format
    assert _facts([shared]) == _facts([whole])


def _line_starts(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, byte in enumerate(data) if byte == 10 and i + 1 < len(data)]


def _cut_sets(data: bytes, most: int = 60) -> list[list[int]]:
    """Cuts into two shares at up to `most` line starts (every one of a short file), and
    into three and four."""
    starts = _line_starts(data)[1:]
    step = max(1, len(starts) // most)
    sets = [[0, cut, len(data)] for cut in starts[::step]]
    for k in (3, 4):
        sets.append([0, *(starts[len(starts) * j // k] for j in range(1, k)), len(data)])
    return [sorted(set(cuts)) for cuts in sets]


def _check_every_cut(data: bytes, path: str, cut_sets: list[list[int]] | None = None) -> int:
    """Convert the data in shares at each set of cuts; each is the whole file's main thread,
    or cannot be converted so (only then may the file hold more than one conversation).
    How many sets converted in shares."""
    found = conversations_from_bytes(data, path)
    converted = 0
    for cuts in cut_sets if cut_sets is not None else _cut_sets(data):
        shared = _in_shares(data, path, cuts)
        if shared is None:
            continue
        assert len(found) == 1, "a file of several conversations is never converted in shares"
        _assert_same(shared, found[0])
        converted += 1
    return converted


def _sidechains(path: Path) -> bool:
    """Whether a session file holds a sidechain's turn (read here with the standard library)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("isSidechain") is True
            and record.get("type") in ("user", "assistant")
            and isinstance(record.get("message"), dict)
        ):
            return True
    return False


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_every_sample_converts_in_shares_as_it_loads_whole(path: Path) -> None:
    converted = _check_every_cut(path.read_bytes(), str(path))
    assert converted == 0 if _sidechains(path) else converted > 0


def _records(*records: dict[str, Any]) -> list[str]:
    return [json.dumps({**_BASE, "uuid": f"u{n}", **r}) for n, r in enumerate(records)]


def _response(message_id: str, *blocks: dict[str, Any]) -> list[dict[str, Any]]:
    """One response written as one record per block, as Claude Code 2.x writes it."""
    message = {"id": message_id, "type": "message", "role": "assistant", "model": "m"}
    return [{"type": "assistant", "message": {**message, "content": [b]}} for b in blocks]


def _straddling() -> bytes:
    """Responses of several records with progress records, snapshots, corrupt and blank lines
    between them, so that some cut falls inside each."""
    call = {"type": "tool_use", "name": "Read", "input": {"file_path": "/a"}}
    progress = {"type": "progress", "data": {"type": "hook_progress"}, "parentToolUseID": "x"}
    snapshot = {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}
    user = {"type": "user", "message": {"role": "user", "content": "go"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "text"}
    records = [
        snapshot,
        user,
        *_response(
            "msg_1", {"type": "text", "text": "a"}, {**call, "id": "t1"}, {**call, "id": "t2"}
        ),
        {"type": "user", "message": {"role": "user", "content": [result]}},
        *_response("msg_2", {"type": "thinking", "thinking": "hm", "signature": "s"}),
        progress,
        *_response("msg_2", {"type": "text", "text": "b"}, {"type": "text", "text": "c"}),
        snapshot,
        # A type that is no string is no turn (the reader once raised TypeError on it).
        {"type": ["user"], "message": {"role": "user", "content": "x"}},
        *_response("msg_3", {"type": "text", "text": "d"}),
        *_response("msg_3", {**call, "id": "t3"}),
        progress,
        *_response("msg_3", {"type": "text", "text": ""}),
        user,
        *_response("msg_4", {"type": "text", "text": "e"}),
    ]
    lines = _records(*records)
    lines.insert(6, '{"type": "assistant", "message": ')  # cut off mid-write
    lines.insert(9, "")
    lines.insert(12, "   ")
    lines.insert(15, "[1, 2]")
    return ("\n".join(lines) + "\n").encode("utf-8")


def test_a_response_that_straddles_a_cut_is_converted_with_the_share_it_begins_in() -> None:
    data = _straddling()
    starts = _line_starts(data)[1:]
    every = [[0, cut, len(data)] for cut in starts]
    pairs = [[0, a, b, len(data)] for a, b in itertools.combinations(starts, 2)]
    assert _check_every_cut(data, "straddle.jsonl", every + pairs) == len(every) + len(pairs)
    # The corrupt lines are findings with their line numbers, as one process has them.
    (whole,) = conversations_from_bytes(data, "straddle.jsonl")
    assert [n.code for n in whole.groups[0].notes] == ["corrupt_line"] * 2


def test_a_generated_and_a_repeated_real_session_convert_in_shares(tmp_path: Path) -> None:
    generated = tmp_path / "generated.jsonl"
    synthetic.write_claude_code(generated, 200_000)
    real = tmp_path / "real.jsonl"
    repeated(CLAUDE / "project" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl", real, 900_000)
    for path in (generated, real):
        assert _check_every_cut(path.read_bytes(), str(path), _cut_sets(path.read_bytes(), 12))


def _session(*records: dict[str, Any]) -> bytes:
    return ("\n".join(_records(*records)) + "\n").encode("utf-8")


_USER = {"type": "user", "message": {"role": "user", "content": "hi"}}


@pytest.mark.parametrize(
    "odd",
    [
        # A sidechain's turn: its conversation is found from the records before it.
        {**_USER, "isSidechain": True},
        # A result without an id is paired with an earlier call, or its id synthesised.
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result"}]}},
        # A call without an id: its id is numbered among every earlier one.
        *_response("msg_x", {"type": "tool_use", "name": "Read", "input": {}}),
    ],
    ids=["sidechain", "result without id", "call without id"],
)
def test_what_needs_the_records_before_it_is_not_converted_in_shares(odd: dict[str, Any]) -> None:
    call = {"type": "tool_use", "id": "t", "name": "Read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
    before = [*_response("msg_a", call), {"type": "user", "message": {"content": [result]}}]
    data = _session(*before, odd, _USER)
    starts = _line_starts(data)
    odd_start = starts[len(before)]
    # The share that holds the odd record cannot convert it, wherever the cut falls.
    assert claude_code.convert_share(data, 0, len(data), "odd.jsonl") is None
    assert claude_code.convert_share(data, odd_start, len(data), "odd.jsonl") is None
    assert claude_code.convert_share(data, 0, odd_start, "odd.jsonl") is not None


def test_a_share_after_a_sidechain_turn_cannot_tell_whether_it_goes_on() -> None:
    data = _session(_USER, {**_USER, "isSidechain": True}, _USER)
    after = _line_starts(data)[2]
    assert claude_code.convert_share(data, after, len(data), "side.jsonl") is None


# --------------------------------------------------------------------------------------------
# The command


@pytest.fixture
def by_shares(monkeypatch: pytest.MonkeyPatch) -> list[parallel.FileGate | None]:
    """Every file `gate` tried by shares, even a small one, and what it gave (None: the file
    went the usual way)."""
    made: list[parallel.FileGate | None] = []
    original = session_gate.gate_session_on_cores

    def spy(*args: Any, **kwargs: Any) -> parallel.FileGate | None:
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(parallel, "POOL_MIN_BYTES", 1)
    monkeypatch.setattr(gate_command, "gate_session_on_cores", spy)
    # A thread another test left idle in this process (Dask's offload thread, after the scan
    # tests) would keep every gate here; these tests start none (test_parallel checks that a
    # process with another thread is not forked).
    monkeypatch.setattr(parallel, "_can_fork", lambda: True)
    return made


def _gate(*args: str) -> tuple[int, bytes, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    return status, out.getvalue().encode("utf-8"), err.getvalue()


def _by_shares_and_alone(path: Path, made: list[Any], *options: str) -> tuple[int, bytes, str]:
    """Gate `path` on 2 and 3 processes and in one; assert all three say the same."""
    alone = _gate(str(path), *options, "--jobs", "1")
    assert made == []  # one process never goes by shares
    for jobs in ("2", "3"):
        assert _gate(str(path), *options, "--jobs", jobs) == alone
    return alone


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return path


def test_a_session_by_shares_writes_what_one_process_writes(
    tmp_path: Path, tools_file: Path, by_shares: list[Any]
) -> None:
    path = tmp_path / "session.jsonl"
    synthetic.write_claude_code(path, 300_000)
    lines = path.read_bytes().split(b"\n")
    broken = len(lines) * 3 // 4
    lines[broken] = lines[broken][:-9]  # a line cut off mid-write, in the second share
    path.write_bytes(b"\n".join(lines))
    status, out, _ = _by_shares_and_alone(path, by_shares, "--tools", str(tools_file))
    assert len(by_shares) == 2 and all(made is not None for made in by_shares)
    # Shares were gated by forked workers, not only by this process.
    assert all(made.makers - {os.getpid()} for made in by_shares)
    (document,) = json.loads(out)["files"]
    assert document["conversation"] == "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    verdicts = {row["verdict"] for row in document["items"]}
    assert {"ok", "arguments_schema", "unknown_tool", "not_function_call"} <= verdicts
    corrupt = [f["message"] for f in document["findings"] if f["code"] == "corrupt_line"]
    assert len(corrupt) == 1 and f"session.jsonl:{broken + 1}:" in corrupt[0]
    assert status == 1


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_every_sample_gated_by_shares_writes_what_one_process_writes(
    tmp_path: Path, by_shares: list[Any], path: Path
) -> None:
    # A copy: beside the sample, a session's subagent files send it the usual way.
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    _by_shares_and_alone(copy, by_shares)
    assert by_shares and all((made is None) == _sidechains(path) for made in by_shares)


def test_a_session_with_subagent_files_goes_the_usual_way(by_shares: list[Any]) -> None:
    path = CLAUDE / "project" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    _by_shares_and_alone(path, by_shares)
    assert by_shares == [None, None]


def test_a_share_whose_worker_dies_sends_the_file_the_usual_way(
    tmp_path: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "session.jsonl"
    synthetic.write_claude_code(path, 100_000)
    here = os.getpid()
    original = session_gate._converted

    def dying(number: int, counts: Any) -> Any:
        if os.getpid() != here:
            os._exit(3)  # as a worker killed by the kernel ends
        return original(number, counts)

    monkeypatch.setattr(session_gate, "_converted", dying)
    _by_shares_and_alone(path, by_shares)
    assert by_shares == [None, None]


def test_a_gate_by_shares_that_ends_early_ends_its_workers_at_once(
    tmp_path: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "session.jsonl"
    synthetic.write_claude_code(path, 100_000)
    here = os.getpid()
    seen: list[list[parallel.Worker]] = []
    started = spy_workers(monkeypatch)

    def asleep_or_interrupted(number: int, counts: Any) -> Any:
        if os.getpid() != here:
            time.sleep(600)  # a worker in its share
        seen.append([worker for worker in started if worker.is_alive()])
        raise KeyboardInterrupt  # Ctrl-C while the workers convert their shares

    monkeypatch.setattr(session_gate, "_converted", asleep_or_interrupted)

    interrupted_gate_ends_its_workers(lambda: _gate(str(path), "--jobs", "2"), seen)


def _turns(*turns: tuple[str, str, Any]) -> bytes:
    """A session of turns: ("call", call id, tool name) or ("result", call id, None)."""
    records = []
    for k, (kind, call_id, name) in enumerate(turns):
        if kind == "call":
            block = {"type": "tool_use", "id": call_id, "name": name, "input": {"n": 1}}
            message = {"id": f"msg_{k}", "role": "assistant", "content": [block]}
            records.append({**_BASE, "type": "assistant", "message": message, "uuid": f"u{k}"})
        else:
            block = {"type": "tool_result", "tool_use_id": call_id, "content": "done"}
            message = {"role": "user", "content": [block]}
            records.append({**_BASE, "type": "user", "message": message, "uuid": f"u{k}"})
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


#: Sessions whose pairs cross the cut, with the line the second share starts at, and whether
#: the shares' findings can be merged (else the file goes the usual way).
_ACROSS = {
    # Calls answered in the next share (an ok call, a blocked one), a call never answered,
    # an output no call answers, an output before its call (in the next share), and pairs
    # inside each share.
    "merged": (
        [
            ("call", "a", "t"),
            ("call", "b", "unknown"),
            ("call", "c", "t"),
            ("result", "e", None),
            ("call", "f", "t"),
            ("result", "f", None),
            ("result", "a", None),
            ("result", "b", None),
            ("result", "d", None),
            ("call", "e", "t"),
            ("call", "g", "unknown"),
            ("result", "g", None),
            ("result", "a", None),
        ],
        6,
        True,
    ),
    # One call id in both shares.
    "duplicate call": ([("call", "a", "t"), ("call", "a", "t"), ("result", "a", None)], 1, False),
    # An output of a call its own share answered already.
    "answered twice": (
        [("call", "a", "unknown"), ("result", "a", None), ("result", "a", None)],
        2,
        False,
    ),
}


@pytest.mark.parametrize("case", list(_ACROSS))
def test_findings_across_a_cut_are_merged_as_one_process_makes_them(
    tmp_path: Path, by_shares: list[Any], monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    turns, cut, merged = _ACROSS[case]
    data = _turns(*turns)
    path, tools = tmp_path / "across.jsonl", tmp_path / "tools.json"
    path.write_bytes(data)
    tool = {"type": "function", "name": "t", "parameters": {"type": "object"}}
    tools.write_text(json.dumps({"tools": [tool]}), encoding="utf-8")
    starts = _line_starts(data)
    monkeypatch.setattr(
        session_gate, "_cuts", lambda data, shares, cut_at=None: [0, starts[cut], len(data)]
    )
    alone = _gate(str(path), "--tools", str(tools), "--jobs", "1")
    assert _gate(str(path), "--tools", str(tools), "--jobs", "2") == alone
    assert len(by_shares) == 1 and (by_shares[0] is not None) == merged
    codes = {f["code"] for f in json.loads(alone[1])["files"][0]["findings"]}
    if case == "merged":
        assert codes >= {
            "output_for_blocked_call",
            "missing_output",
            "orphan_output",
            "output_before_call",
        }
    else:
        assert codes & {"duplicate_call_id", "output_for_blocked_call"}


def test_an_incomplete_item_at_a_shares_end_is_not_merged() -> None:
    # Only the file's last item may be incomplete: a share whose last item is cannot tell
    # whether one follows, so its findings are not merged when a later share holds items.
    (transcript,) = conversations_from_bytes(_turns(("call", "a", "t")), "x.jsonl")
    head = dataclasses.replace(transcript, items=())
    toolset = parallel.make_toolset(None, None)[0]
    verdicts = list(gate_transcript(transcript).verdicts) * 2

    def local(items: int, incomplete: bool) -> Any:
        return session_gate._Local([], [], {}, frozenset(), frozenset(), items, incomplete)

    merged = session_gate._merged
    assert merged(head, verdicts, [local(1, True), local(1, False)], toolset) is None
    assert merged(head, verdicts, [local(1, True), local(0, False)], toolset) is not None
    assert merged(head, verdicts, [local(1, False), local(1, True)], toolset) is not None
