"""The gate on every core (core.parallel) writes, byte for byte, what one process writes."""

from __future__ import annotations

import io
import itertools
import json
import multiprocessing
import os
import pickle
import random
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from inspector.cli import run
from inspector.core import formats, gate, parallel
from inspector.core.formats import load_conversations, load_path, tools_from_document
from inspector.core.gate import (
    FileFindings,
    ItemFacts,
    facts_findings,
    facts_of,
    gate_transcript,
    item_facts,
    item_verdicts,
    make_toolset,
    run_findings,
    verdict_tally,
)
from inspector.core.model import LoadError, Transcript
from tests.benchmarks import synthetic

REPO = Path(__file__).resolve().parents[2]


def _call(rng: random.Random, number: int) -> dict[str, object]:
    """A function call whose arguments take the strict parser's slow paths or fail it."""
    kind = rng.choice(["duplicate", "long", "broken", "big_float", "plain", "unknown"])
    arguments = {
        "duplicate": '{"query": "a", "query": "b"}',
        "long": f'{{"query": "q", "limit": {10**25 + number}}}',
        "broken": '{"query": "unterminated',
        "big_float": '{"query": "q", "limit": 1e400}',
        "plain": json.dumps({"query": f"q{number}", "limit": number % 7}),
        "unknown": "{}",
    }[kind]
    return {
        "type": "function_call",
        "id": f"fc_x{number}",
        "call_id": f"call_x{number}",
        "name": "no_such_tool" if kind == "unknown" else "search_web",
        "arguments": arguments,
        "status": "completed",
    }


def _write(path, items: int, seed: int, *, long_numbers: bool) -> None:
    """A synthetic log, with odd calls mixed in (a file with long numbers is not read lean)."""
    rng = random.Random(seed)
    lines = [json.dumps(item) for item in synthetic.items(items, seed=seed)]
    odd = [json.dumps(_call(rng, n)) for n in range(items // 10 + 1)]
    if not long_numbers:
        odd = [line for line in odd if str(10**25)[:19] not in line]
    for line in odd:
        lines.insert(rng.randrange(len(lines) + 1), line)
    # The same call again: a verdict shared between items, made by whichever process.
    lines.extend(lines[len(lines) // 3 : len(lines) // 3 + 20])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def tools_file(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return path


@pytest.fixture
def pool_runs(monkeypatch):
    """Every run of the pool, with the processes that made its verdicts."""
    runs: list[set[int]] = []
    original = parallel._Workers.close

    def spy(self):
        original(self)
        runs.append(self.makers)

    monkeypatch.setattr(parallel._Workers, "close", spy)
    return runs


def _gate_json(*args: str) -> tuple[int, bytes]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    assert err.getvalue() == ""
    return status, out.getvalue().encode("utf-8")


@pytest.mark.parametrize(
    ("items", "long_numbers"), [(40, False), (700, True), (2500, False), (2500, True)]
)
def test_the_pool_writes_what_one_process_writes(
    tmp_path, tools_file, pool_runs, monkeypatch, items, long_numbers
):
    log = tmp_path / "log.jsonl"
    _write(log, items, seed=items, long_numbers=long_numbers)
    one = _gate_json(str(log), "--tools", str(tools_file), "--jobs", "1")
    assert pool_runs == []
    monkeypatch.setattr(parallel, "POOL_MIN_ITEMS", 1)  # even a small file goes to the pool
    pooled = _gate_json(str(log), "--tools", str(tools_file), "--jobs", "3")
    assert pooled == one
    # The pool ran, and a worker process (not this one) made verdicts.
    (workers,) = pool_runs
    assert workers - {os.getpid()}
    document = json.loads(one[1])
    verdicts = {row["verdict"] for row in document["files"][0]["items"]}
    assert {"ok", "arguments_schema", "arguments_parse", "unknown_tool"} <= verdicts


def _answers(result):
    # An exception equals only itself: a parse error is compared by what it says and where.
    return [
        (v.verdict, v.detail, v.errors, v.tool, v.given, v.parse_error and v.parse_error.where)
        for v in result.verdicts
    ]


def test_the_pool_gives_the_gate_result_of_one_process(tmp_path, tools_file, pool_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 600, seed=3, long_numbers=True)
    transcript = load_path(str(log))
    tools = tools_from_document(synthetic.tools(), str(tools_file))
    alone = gate_transcript(transcript, tools)
    pooled = parallel.gate_on_cores(transcript, tools, jobs=3, threshold=1)
    assert len(pool_runs) == 1
    assert _answers(pooled) == _answers(alone)
    assert pooled.findings == alone.findings
    # A verdict that keeps its arguments points back to an item with those arguments (the
    # first of its worker's run: the same text, parsed when asked).
    for mine, theirs in zip(pooled.verdicts, alone.verdicts, strict=True):
        assert (mine.source is None) == (theirs.source is None)
        if mine.source is not None:
            assert mine.source.get("arguments") == theirs.source.get("arguments")
            assert mine.parsed == theirs.parsed


def test_a_small_file_stays_in_this_process(tmp_path, tools_file, pool_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=5, long_numbers=False)
    _gate_json(str(log), "--tools", str(tools_file), "--jobs", "4")
    assert pool_runs == []  # far fewer items than POOL_MIN_ITEMS


def test_by_default_a_large_file_takes_every_core_and_a_small_one_this_process(
    tmp_path, tools_file, pool_runs, monkeypatch
):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=6, long_numbers=False)
    monkeypatch.setattr(parallel, "POOL_MIN_ITEMS", 1)
    monkeypatch.setattr(parallel, "default_jobs", lambda: 2)
    size = log.stat().st_size
    monkeypatch.setattr(parallel, "POOL_MIN_BYTES", size + 1)
    alone = _gate_json(str(log), "--tools", str(tools_file))
    assert pool_runs == []  # one byte short of a large file
    monkeypatch.setattr(parallel, "POOL_MIN_BYTES", size)
    pooled = _gate_json(str(log), "--tools", str(tools_file))
    assert len(pool_runs) == 1 and pool_runs[0] - {os.getpid()}
    assert pooled == alone
    # Standard input has no size to go by: one process.
    assert parallel.default_jobs_for(None) == 1


def test_under_an_address_space_cap_a_large_file_is_gated_in_one_process_by_default():
    # The pool's threads reserve a malloc arena and a stack each: under `ulimit -v` a default
    # gate stays in the one process that fits (measured: 100k calls gate at a 170 MB cap in one
    # process, and need 300 MB with the pool); `--jobs N` still asks for workers.
    script = (
        "import resource\n"
        "from inspector.core import parallel\n"
        "parallel.default_jobs = lambda: 2\n"
        "big = parallel.POOL_MIN_BYTES\n"
        "unlimited = resource.RLIM_INFINITY\n"
        "resource.setrlimit(resource.RLIMIT_AS, (unlimited, unlimited))\n"
        "print(parallel.default_jobs_for(big), parallel.default_jobs_for(big - 1))\n"
        "resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))\n"
        "print(parallel.default_jobs_for(big), parallel.default_jobs_for(big - 1))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.split("\n")[:2] == ["2 1", "1 1"]


def _dying_worker(start: int, stop: int) -> None:
    os._exit(3)  # as a worker killed by the kernel ends


def test_a_worker_that_dies_has_its_items_judged_here(tmp_path, tools_file, pool_runs, monkeypatch):
    log = tmp_path / "log.jsonl"
    _write(log, 400, seed=8, long_numbers=False)
    transcript = load_path(str(log))
    tools = tools_from_document(synthetic.tools(), str(tools_file))
    alone = gate_transcript(transcript, tools)
    monkeypatch.setattr(parallel, "_judge", _dying_worker)
    pooled = parallel.gate_on_cores(transcript, tools, jobs=2, threshold=1)
    assert pool_runs == [{os.getpid()}]  # every verdict made here
    assert _answers(pooled) == _answers(alone)
    assert pooled.findings == alone.findings


def test_a_process_with_another_thread_is_not_forked(tmp_path, tools_file, pool_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=4, long_numbers=False)
    transcript = load_path(str(log))
    tools = tools_from_document(synthetic.tools(), str(tools_file))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        result = parallel.gate_on_cores(transcript, tools, jobs=2, threshold=1)
    finally:
        stop.set()
        other.join()
    assert pool_runs == []
    assert _answers(result) == _answers(gate_transcript(transcript, tools))


def test_a_schema_only_python_jsonschema_runs_keeps_the_gate_in_this_process(tmp_path, pool_runs):
    # A backtracking pattern: python-jsonschema validates, under a step budget of the whole file.
    schemas = synthetic.tools()
    schemas[0]["parameters"]["properties"]["region"] = {"pattern": "^(?=a)a+$"}
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(schemas), encoding="utf-8")
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=9, long_numbers=False)
    transcript = load_path(str(log))
    parallel.gate_on_cores(
        transcript, tools_from_document(schemas, str(tools)), jobs=2, threshold=1
    )
    assert pool_runs == []


def test_jobs_must_be_a_count(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--jobs", "many", str(tmp_path / "x.jsonl")], out, err)
    assert status == 2
    assert "--jobs" in err.getvalue()
    assert "every core" in err.getvalue()


def test_the_generated_logs_take_both_loaders(tmp_path):
    # A run of 19 digits anywhere sends a file the plain way; without one it is read lean.
    for long_numbers, lean in ((False, True), (True, False)):
        log = tmp_path / f"log-{long_numbers}.jsonl"
        _write(log, 300, seed=1, long_numbers=long_numbers)
        items = load_path(str(log)).items
        assert any(item.lean_source is not None for item in items) == lean


def _sample_transcripts():
    root = Path(__file__).resolve().parents[2] / "samples"
    for path in sorted(root.rglob("*.json*")):
        if "expected" in path.parts:
            continue
        try:
            yield from load_conversations(str(path))
        except LoadError:
            continue


def test_findings_made_before_the_later_verdicts_are_the_findings_of_one_pass():
    # The pool's way: the findings' pass runs knowing only the first k items' verdicts, and the
    # others arrive afterwards. Every sample, split anywhere, gives one process's result.
    checked = codes = 0
    for transcript in _sample_transcripts():
        alone = gate_transcript(transcript)
        toolset, _ = make_toolset(transcript)
        fresh = item_verdicts(transcript.items, toolset)
        count = len(fresh)
        for k in sorted({0, 1, count // 3, count // 2, count - 1, count} - {-1}):
            later = gate_transcript(transcript, verdicts=fresh[:k], rest=lambda k=k, f=fresh: f[k:])
            assert later.findings == alone.findings, (transcript.path, k)
            assert _answers(later) == _answers(alone), (transcript.path, k)
        checked += 1
        found = {f.code for f in alone.findings}
        codes |= ("output_for_blocked_call" in found) | 2 * ("status_not_recorded" in found)
    assert checked > 50
    assert codes == 3  # both findings that wait for verdicts were among them


def _gated_synthetic_log(tmp_path, tools_file, items: int):
    """A synthetic log's transcript, and its gate in one process."""
    path = tmp_path / "log.jsonl"
    synthetic.write_jsonl(path, items)
    (transcript,) = load_conversations(str(path))
    return transcript, gate_transcript(
        transcript, tools_from_document(synthetic.tools(), str(tools_file))
    )


def test_facts_sent_as_plain_tuples_are_the_items_facts_again(tmp_path, tools_file):
    # A run sends its items' facts as plain tuples (a named tuple is unpickled by a Python call
    # each); made facts again, they are the facts, and give the findings one process makes.
    transcript, alone = _gated_synthetic_log(tmp_path, tools_file, 3000)
    facts = item_facts(transcript.items)
    sent = pickle.loads(pickle.dumps(list(map(tuple, facts)), pickle.HIGHEST_PROTOCOL))
    assert all(type(fact) is tuple for fact in sent)
    back = list(map(facts_of, sent))
    assert back == facts and all(type(fact) is ItemFacts for fact in back)
    assert [fact.type_label for fact in back] == [fact.type_label for fact in facts]
    head = Transcript(path=transcript.path, format="jsonl", items=(), groups=transcript.groups)
    found = facts_findings(
        head, list(alone.verdicts), alone.toolset, back, range(len(transcript.items))
    )
    assert found == list(alone.findings) and found


def _gate_to_file(path: Path, *args: str) -> bytes:
    with path.open("w", encoding="utf-8") as out:
        run(["gate", "--format", "json", *args], out, io.StringIO())
    return path.read_bytes()


def _to_file_alone_then_by_runs(tmp_path, tools_file, by_runs, seed):
    """A log's report written to a file by one process, and a call writing it by runs."""
    log = tmp_path / "log.jsonl"
    _write(log, 400, seed=seed, long_numbers=False)
    tools = ("--tools", str(tools_file))
    alone = _gate_to_file(tmp_path / "alone.json", str(log), *tools, "--jobs", "1")
    assert by_runs == []
    return alone, lambda: _gate_to_file(tmp_path / "runs.json", str(log), *tools, "--jobs", "2")


def test_by_runs_the_rows_files_are_copied_to_the_output_without_reading_them(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # Written to a file, each run's rows go from its temporary file to the output by the
    # kernel (sendfile): never read into this process.
    alone, by_runs_to_file = _to_file_alone_then_by_runs(tmp_path, tools_file, by_runs, 29)
    sent: list[int] = []
    original = os.sendfile

    def sendfile(out_fd, in_fd, offset, count):
        sent.append(count)
        return original(out_fd, in_fd, offset, count)

    def read(self, number):
        raise AssertionError("a rows' file read into this process")

    monkeypatch.setattr(os, "sendfile", sendfile)
    monkeypatch.setattr(parallel.RowParts, "_blocks", read)
    assert by_runs_to_file() == alone
    assert by_runs[0] is not None and sum(sent) == sum(by_runs[0].rows.sizes) > 0


def test_an_output_sendfile_refuses_takes_the_rows_block_by_block(
    tmp_path, tools_file, by_runs, monkeypatch
):
    alone, by_runs_to_file = _to_file_alone_then_by_runs(tmp_path, tools_file, by_runs, 31)

    def refused(*args):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(os, "sendfile", refused)
    assert by_runs_to_file() == alone
    assert by_runs[0] is not None and len(by_runs[0].rows.sizes) > 3


def _sleeping_worker(start: int, stop: int) -> None:
    time.sleep(600)


def test_a_gate_that_ends_early_ends_its_workers_at_once(tmp_path, tools_file, monkeypatch):
    log = tmp_path / "log.jsonl"
    _write(log, 200, seed=12, long_numbers=False)
    transcript = load_path(str(log))
    tools = tools_from_document(synthetic.tools(), str(tools_file))
    monkeypatch.setattr(parallel, "_judge", _sleeping_worker)
    seen: list[list[multiprocessing.Process]] = []

    def interrupted(*args, **kwargs):
        # Ctrl-C while the workers judge their runs.
        seen.append(multiprocessing.active_children())
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel, "gate_transcript", interrupted)

    def as_the_cli(signum, frame):
        raise SystemExit(143)  # the entry point turns SIGTERM into an exception

    previous = signal.signal(signal.SIGTERM, as_the_cli)
    try:
        with pytest.raises(KeyboardInterrupt):
            parallel.gate_on_cores(transcript, tools, jobs=2, threshold=1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    (workers,) = seen
    assert workers  # the worker was running (asleep in its run)
    for worker in workers:
        worker.join(timeout=30)  # a bound for a broken build, not a measured time
        # Ended by the signal itself: the handler it inherited, which would have raised in it
        # (and printed a traceback), was put back to the default.
        assert not worker.is_alive() and worker.exitcode == -signal.SIGTERM


# --------------------------------------------------------------------------------------------
# A large JSON Lines file of bare items, loaded, judged and written by runs


def _gate(*args: str) -> tuple[int, bytes, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    return status, out.getvalue().encode("utf-8"), err.getvalue()


def _by_runs_and_alone(log: Path, tools_file: Path, made: list) -> tuple[int, bytes, str]:
    """Gate `log` by runs on 2 and 3 processes and in one; assert all three say the same."""
    alone = _gate(str(log), "--tools", str(tools_file), "--jobs", "1")
    assert made == []  # one process never goes by runs
    for jobs in ("2", "3"):
        assert _gate(str(log), "--tools", str(tools_file), "--jobs", jobs) == alone
    return alone


def test_a_file_by_runs_writes_what_one_process_writes(tmp_path, tools_file, by_runs):
    log = tmp_path / "log.jsonl"
    _write(log, 400, seed=21, long_numbers=False)
    status, one, _ = _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    # Runs were made by a forked worker, not only by this process.
    assert all(made.makers - {os.getpid()} for made in by_runs)
    # The file's tally of verdicts is the runs' added up: the one its verdicts make, in order.
    for made in by_runs:
        tally = made.result.tally
        assert tally is not None and list(tally.items()) == list(
            verdict_tally(made.result.verdicts).items()
        )
    document = json.loads(one)["files"][0]
    verdicts = {row["verdict"] for row in document["items"]}
    assert {"ok", "arguments_schema", "arguments_parse", "unknown_tool"} <= verdicts
    assert status == 1


def test_runs_cut_next_to_blank_and_crlf_lines(tmp_path, tools_file, by_runs, monkeypatch):
    # CRLF line ends and blank lines of every kind, cut at many places (each run ends after
    # the first newline past its size): the lines and indexes are the whole file's.
    rng = random.Random(5)
    lines = [json.dumps(item) for item in synthetic.items(150, seed=5)]
    for blank in ["", " ", "\t", "\x0c \x0b"] * 10:
        lines.insert(rng.randrange(len(lines) + 1), blank)
    log = tmp_path / "log.jsonl"
    log.write_bytes(("\r\n".join(["", *lines]) + "\r\n\r\n").encode("utf-8"))
    for size in (97, 256, 1000, 1777):
        monkeypatch.setattr(parallel, "RUN_BYTES", size)
        by_runs.clear()
        _by_runs_and_alone(log, tools_file, by_runs)
        assert by_runs and all(made is not None for made in by_runs)


def test_the_runs_lines_and_items_add_up_to_the_whole_files():
    # Each run counts its own lines and the blank ones among them (a run's first line too,
    # whose newline before it is the run before's): summed, the whole file's.
    rng = random.Random(9)
    lines = [json.dumps({"type": "message", "n": n}) for n in range(60)]
    for blank in ["", " ", "\t", "\r", "\x0c \x0b"] * 8:
        lines.insert(rng.randrange(len(lines) + 1), blank)
    data = ("\n".join(lines) + "\n\n  ").encode()
    for size in (1, 7, 40, 333):
        runs = formats.jsonl_runs(data, None, size, size)
        assert runs is not None and len(runs.runs) > 1
        counts = [formats.run_lines(runs, number) for number in range(len(runs.runs))]
        assert sum(lines for lines, _ in counts) == data.count(b"\n")
        assert sum(items for _, items in counts) == 60


def test_by_runs_no_run_is_counted_before_the_workers_take_runs(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # The cut looks at none of the file's lines: a run's lines and items are counted by a
    # process that takes a later run, once, and kept for the others.
    log = tmp_path / "log.jsonl"
    _write(log, 400, seed=3, long_numbers=False)
    monkeypatch.setattr(parallel, "RUN_BYTES", 8000)
    here = os.getpid()
    events: list[tuple[str, int]] = []
    cut, count, make = parallel.jsonl_file_runs, parallel.run_lines, parallel._gate_run

    def spy(event, work):
        def spied(*args):
            if os.getpid() == here:
                events.append((event, args[-1]))
            return work(*args)

        return spied

    monkeypatch.setattr(parallel, "jsonl_file_runs", spy("cut", cut))
    monkeypatch.setattr(parallel, "run_lines", spy("count", count))
    monkeypatch.setattr(parallel, "_gate_run", spy("make", make))
    _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    gates = [k for k, (event, _) in enumerate(events) if event == "cut"]
    assert len(gates) == 2
    for start, stop in itertools.pairwise([*gates, len(events)]):
        assert events[start + 1] == ("make", 0)  # nothing counted before the first run
        making, counted = 0, []
        for event, number in events[start + 1 : stop]:
            if event == "make":
                making = number
            else:  # for a later run this process makes, each run once
                assert number < making and number not in counted
                counted.append(number)


def test_an_error_on_a_line_of_a_later_run_is_the_one_process_error(tmp_path, tools_file, by_runs):
    log = tmp_path / "log.jsonl"
    lines = [json.dumps(item) for item in synthetic.items(200, seed=7)]
    lines[150] = lines[150][:-5]  # cut short: invalid JSON in a later run
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs == [None, None]  # the usual way gave the error
    assert err == ""  # the JSON report holds the error
    assert status == 2
    error = json.loads(out)["files"][0]["error"]
    assert error["line"] == 151


#: The findings that can name items of two runs, or wait for a later run.
SPANNING = {
    "duplicate_call_id",
    "duplicate_item_id",
    "output_before_call",
    "output_for_blocked_call",
    "orphan_output",
    "missing_output",
    "incomplete_not_last",
    "non_portable_type",
}


def test_findings_that_span_runs_are_the_one_process_findings(tmp_path, tools_file, by_runs):
    filler = [json.dumps(item) for item in synthetic.items(120, seed=11)]
    call = {"type": "function_call", "name": "search_web", "status": "completed"}

    def item(**members):
        return json.dumps(members)

    early = [
        item(**call, id="fc_a", call_id="span_ok", arguments='{"query": "q"}'),
        item(**call, id="fc_b", call_id="span_bad", arguments="{broken"),
        item(**call, id="fc_c", call_id="span_dup", arguments='{"query": "q"}'),
        item(type="message", id="dup_id", role="user", content="hi"),
        item(type="function_call_output", call_id="span_late", output="before its call"),
        item(type="reasoning", id="rs_x", status="incomplete", summary=[]),
        item(type="vendor_widget", id="w_1"),
    ]
    late = [
        item(type="function_call_output", call_id="span_ok", output="answer"),
        item(type="function_call_output", call_id="span_bad", output="answer"),
        item(**call, id="fc_d", call_id="span_dup", arguments='{"query": "r"}'),
        item(type="message", id="dup_id", role="assistant", content="again"),
        item(**call, id="fc_e", call_id="span_late", arguments='{"query": "q"}'),
        item(type="function_call_output", call_id="nowhere", output="orphan"),
        item(type="function_call_output", call_id=7, output="not a call_id"),
        item(type="vendor_widget", id="w_2"),
    ]
    lines = filler[:40] + early + filler[40:] + late + filler[:10]
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _status, out, _ = _by_runs_and_alone(log, tools_file, by_runs)
    assert all(made is not None and len(made.rows.sizes) > 4 for made in by_runs)
    codes = {finding["code"] for finding in json.loads(out)["files"][0]["findings"]}
    assert codes >= SPANNING


def test_a_file_that_is_not_bare_items_goes_the_usual_way(tmp_path, tools_file, by_runs):
    lines = [json.dumps(item) for item in synthetic.items(200, seed=13)]
    request = {"model": "m", "input": [{"type": "message", "role": "user", "content": "x"}]}
    lines.insert(150, json.dumps(request))
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs == [None, None]
    # A file with a run of 19 digits is read the plain way: the usual way too.
    _write(log, 200, seed=14, long_numbers=True)
    by_runs.clear()
    _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs == [None, None]


def test_a_run_whose_worker_dies_sends_the_file_the_usual_way(
    tmp_path, tools_file, by_runs, monkeypatch
):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=15, long_numbers=False)
    here = os.getpid()
    original = parallel._gate_run

    def dying(number):
        if os.getpid() != here:
            os._exit(3)  # as a worker killed by the kernel ends
        return original(number)

    monkeypatch.setattr(parallel, "_gate_run", dying)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs == [None, None]


def test_without_temporary_files_the_file_goes_the_usual_way(
    tmp_path, tools_file, by_runs, monkeypatch
):
    import tempfile

    log = tmp_path / "log.jsonl"
    _write(log, 200, seed=16, long_numbers=False)

    def refused(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    monkeypatch.setattr(os, "memfd_create", refused, raising=False)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs == [None, None]


def test_the_first_runs_rows_are_held_in_memory_and_the_later_ones_on_disk(
    tmp_path, tools_file, by_runs, monkeypatch
):
    import tempfile

    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=18, long_numbers=False)
    on_disk: list[int] = []
    original = tempfile.TemporaryFile

    def counted(*args, **kwargs):
        on_disk.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", counted)
    monkeypatch.setattr(parallel, "MEMORY_RUNS", 2)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    runs = [len(made.rows.sizes) for made in by_runs]
    assert min(runs) > 2 and len(on_disk) == sum(count - 2 for count in runs)

    def refused(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    # Where memory files cannot be had, every run's rows are on disk: the same report.
    monkeypatch.setattr(os, "memfd_create", refused, raising=False)
    on_disk.clear()
    by_runs.clear()
    _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    assert len(on_disk) == sum(len(made.rows.sizes) for made in by_runs)


def test_by_runs_workers_take_their_runs_with_no_thread_here_to_hand_them_out(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # The workers claim runs themselves and say on a pipe which they made: this process runs
    # no pool thread (a feeder or a manager, which would take the GIL from its own runs).
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=19, long_numbers=False)
    here = os.getpid()
    threads_here: list[int] = []
    original = parallel._gate_run

    def spy(number):
        if os.getpid() == here:
            threads_here.append(threading.active_count())
        return original(number)

    monkeypatch.setattr(parallel, "_gate_run", spy)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    assert all(made.makers - {here} for made in by_runs)  # workers made runs
    assert threads_here and set(threads_here) == {1}


def test_a_gate_by_runs_that_ends_early_ends_its_workers_at_once(
    tmp_path, tools_file, by_runs, monkeypatch
):
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=17, long_numbers=False)
    here = os.getpid()
    seen: list[list[parallel.Worker]] = []
    started = spy_workers(monkeypatch)

    def asleep_or_interrupted(number):
        if os.getpid() != here:
            time.sleep(600)  # a worker in its run
        seen.append([worker for worker in started if worker.is_alive()])
        raise KeyboardInterrupt  # Ctrl-C while the workers make their runs

    monkeypatch.setattr(parallel, "_gate_run", asleep_or_interrupted)

    interrupted_gate_ends_its_workers(
        lambda: _gate(str(log), "--tools", str(tools_file), "--jobs", "2"), seen
    )


def refuse_pools_threads_and_disk_files(monkeypatch: pytest.MonkeyPatch, what: str) -> None:
    """Make starting a thread, a process pool or a temporary file on disk fail, saying that
    `what` (a gate's way of running) did."""

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"{what} started a pool or a thread, or made a file on disk")

    # A pool's feeder and handler threads, a temporary file on disk: none is wanted.
    monkeypatch.setattr(threading.Thread, "start", refused)
    monkeypatch.setattr("tempfile.TemporaryFile", refused)
    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", refused)


def spy_workers(monkeypatch: pytest.MonkeyPatch) -> list[parallel.Worker]:
    """Every `parallel.Worker` forked from now on, in order."""
    started: list[parallel.Worker] = []
    original = parallel.Worker

    def spy(*args: object) -> parallel.Worker:
        started.append(original(*args))
        return started[-1]

    monkeypatch.setattr(parallel, "Worker", spy)
    return started


def interrupted_gate_ends_its_workers(
    gate: Callable[[], object], seen: list[list[parallel.Worker]]
) -> None:
    """Run `gate`, which a Ctrl-C ends while its workers are busy (`seen` gets the workers
    alive then), as the CLI runs it, and check that every worker was ended by SIGTERM."""

    def as_the_cli(signum, frame):
        raise SystemExit(143)  # the entry point turns SIGTERM into an exception

    previous = signal.signal(signal.SIGTERM, as_the_cli)
    try:
        with pytest.raises(KeyboardInterrupt):
            gate()
    finally:
        signal.signal(signal.SIGTERM, previous)
    (workers,) = seen
    assert workers
    for worker in workers:
        worker.join(timeout=30)  # a bound for a broken build, not a measured time
        assert not worker.is_alive() and worker.exitcode == -signal.SIGTERM


# --------------------------------------------------------------------------------------------
# The findings of a file by runs: each run's made where it was judged, joined here in order


def _odd_item(rng: random.Random) -> dict[str, object]:
    """An item from small pools of call_ids and ids: calls repeated, answered before, after,
    twice or never, outputs without a call_id string, repeated ids, incomplete items and
    unprefixed vendor types."""
    roll = rng.random()
    call_id = rng.choice([f"c{rng.randrange(6)}", f"c{rng.randrange(6)}", 7, None])
    if roll < 0.4:
        arguments = rng.choice(['{"query": "abc"}', '{"query": 1}', "{bad"])
        name = rng.choice(["search_web", "search_web", "no_such_tool"])
        item = {"type": "function_call", "name": name, "arguments": arguments}
    elif roll < 0.8:
        item = {"type": "function_call_output", "output": "x"}
    elif roll < 0.9:
        item = {"type": rng.choice(["vendor_x", "vendor_y", "openai:thing"])}
    else:
        item = {"type": "message", "role": "user", "content": "hi"}
    if call_id is not None:
        item["call_id"] = call_id
    status = rng.choice(["completed", "completed", "incomplete", "in_progress", None])
    if status is not None:
        item["status"] = status
    if rng.random() < 0.3:
        item["id"] = f"i{rng.randrange(8)}"
    return item


def _by_runs_in_process(transcript, verdicts, cuts) -> tuple[list, int]:
    """The findings of a file of one group, its runs cut at `cuts` (item indexes, 0 to the
    end): each run's found on its own, joined in order; and how many runs were loaded again."""
    items = transcript.items
    head = Transcript(path=transcript.path, format="jsonl", items=(), groups=transcript.groups)

    def reload(index):
        start = max(cut for cut in cuts[:-1] if cut <= index)
        return items[start : min(cut for cut in cuts if cut > index)]

    joined = FileFindings(head, verdicts, reload)
    for start, stop in itertools.pairwise(cuts):
        joined.add(run_findings(items[start:stop], verdicts[start:stop]))
    return joined.findings(), joined.reloaded


def _one_group(transcript) -> bool:
    return (
        len(transcript.groups) == 1
        and transcript.groups[0].kind not in ("request", "response")
        and not transcript.tools
        and transcript.tool_choice is None
    )


def test_findings_joined_from_runs_cut_anywhere_in_every_sample_are_one_process_findings():
    checked = 0
    for transcript in filter(_one_group, _sample_transcripts()):
        alone = gate_transcript(transcript)
        count = len(transcript.items)
        for step in (1, 2, 3, count or 1):
            cuts = sorted({*range(0, count, step), count})
            found, _ = _by_runs_in_process(transcript, list(alone.verdicts), [0, *cuts[1:]])
            assert found == list(alone.findings), (transcript.path, step)
        checked += 1
    assert checked > 20


def test_findings_joined_from_runs_of_generated_logs_are_one_process_findings(tmp_path):
    # Repeated call_ids and ids, answers before and after their calls, orphans, incomplete
    # items: on either side of run boundaries placed anywhere.
    tools = tools_from_document(synthetic.tools(), "tools.json")
    codes: set[str] = set()
    reloaded = 0
    for seed in range(150):
        rng = random.Random(seed)
        log = tmp_path / f"log{seed}.jsonl"
        lines = [json.dumps(_odd_item(rng)) for _ in range(rng.randrange(1, 30))]
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        (transcript,) = load_conversations(str(log))
        alone = gate_transcript(transcript, tools)
        codes |= {finding.code for finding in alone.findings}
        count = len(transcript.items)
        for _ in range(12):
            inner = rng.sample(range(1, count), min(count - 1, rng.randrange(0, 6)))
            cuts = sorted({0, count, *inner})
            found, loads = _by_runs_in_process(transcript, list(alone.verdicts), cuts)
            assert found == list(alone.findings), (seed, cuts)
            reloaded += loads
    assert codes >= SPANNING
    assert reloaded  # runs that repeat an earlier run's ids were looked at again


def test_a_run_that_repeats_no_earlier_call_id_or_id_is_never_loaded_again(tmp_path, tools_file):
    transcript, alone = _gated_synthetic_log(tmp_path, tools_file, 3000)
    cuts = [0, 1, 700, 701, 1500, 2999, len(transcript.items)]
    found, loads = _by_runs_in_process(transcript, list(alone.verdicts), cuts)
    assert found == list(alone.findings) and loads == 0
    assert {"output_for_blocked_call", "incomplete_not_last"} <= {f.code for f in found}


def test_by_runs_this_process_makes_no_finding_from_the_workers_runs(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # Each run's findings are made in the process that judged it; this one only joins them,
    # and looks at no item of a run a worker made (nor makes any item's facts).
    log = tmp_path / "log.jsonl"
    synthetic.write_jsonl(log, 600)  # no call_id or id of a run again in a later one
    here = os.getpid()
    runs_here: list[int] = []
    looked_at_here: list[int] = []
    made = parallel.run_findings
    look = gate._RunPass.look

    def run_findings_spy(items, verdicts):
        if os.getpid() == here:
            runs_here.append(len(items))
        return made(items, verdicts)

    def look_spy(self, items):
        items = list(items)
        if os.getpid() == here:
            looked_at_here.append(len(items))
        return look(self, items)

    def no_facts(items):
        raise AssertionError("item facts made for a file gated by runs")

    monkeypatch.setattr(parallel, "run_findings", run_findings_spy)
    monkeypatch.setattr(gate._RunPass, "look", look_spy)
    monkeypatch.setattr(parallel, "item_facts", no_facts)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    assert all(made.makers - {here} for made in by_runs)  # workers made runs
    # Every item looked at here was in a run this process judged.
    assert sum(looked_at_here) == sum(runs_here)


def test_the_last_runs_are_short_and_every_process_takes_runs_from_the_front(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # Each process takes the next run no process has begun, so all of them end on the short
    # last runs together (this process no longer takes runs from the end while it waits).
    log = tmp_path / "log.jsonl"
    synthetic.write_jsonl(log, 400)
    data = log.read_bytes()
    runs = parallel.jsonl_runs(data, str(log), 8000, 2000)
    assert runs is not None
    sizes = [stop - start for start, stop in runs.runs]
    cut = next(k for k, (start, _) in enumerate(runs.runs) if len(data) - start <= 16000)
    assert all(size >= 8000 for size in sizes[:cut])
    assert all(size < 8000 for size in sizes[cut:]) and len(sizes[cut:]) >= 3
    here = os.getpid()
    made_here: list[int] = []
    original = parallel._gate_run

    def spy(number):
        if os.getpid() == here:
            made_here.append(number)
        return original(number)

    monkeypatch.setattr(parallel, "_gate_run", spy)
    _by_runs_and_alone(log, tools_file, by_runs)
    assert by_runs and all(made is not None for made in by_runs)
    # Two gates by runs (2 and 3 processes): each began with run 0 and went on in order.
    starts = [k for k, number in enumerate(made_here) if number == 0]
    assert len(starts) == 2 and starts[0] == 0
    for gated in (made_here[: starts[1]], made_here[starts[1] :]):
        assert gated == sorted(gated)


def _steps_made(work: Callable[..., object], *args: object) -> int:
    """The steps `work(*args)` takes: each Python line run, each Python function and builtin
    called (a loop of Python lines over a growing table counts each turn; a scan done inside
    one builtin counts once)."""
    made = 0

    def calls(frame, event, arg):
        nonlocal made
        if event in ("call", "c_call"):
            made += 1

    def lines(frame, event, arg):
        nonlocal made
        if event == "line":
            made += 1
        return lines

    sys.setprofile(calls)
    sys.settrace(lines)
    try:
        work(*args)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return made


def test_the_findings_of_a_log_take_steps_in_proportion_to_its_items(tmp_path, tools_file):
    # The findings' pass looks at each item once, with tables that do not grow their work per
    # item (no Python loop over a growing table, no pass per group): a log three times as
    # long, of the same traffic, takes about three times the steps, in one process and by runs
    # alike.
    made: dict[int, tuple[int, int, int]] = {}
    for items in (2000, 6000):
        transcript, alone = _gated_synthetic_log(tmp_path, tools_file, items)
        verdicts = list(alone.verdicts)
        toolset, _ = make_toolset(transcript)
        one = _steps_made(gate.transcript_findings, transcript, verdicts, toolset)
        runs = _steps_made(run_findings, transcript.items, verdicts)
        made[items] = (one, runs, len(alone.findings) + items)
    (one, runs, size), (one3, runs3, size3) = made[2000], made[6000]
    grown = size3 / size  # items and findings together: the findings are made per item
    assert 2.5 < grown < 3.5
    assert one3 <= 1.1 * grown * one
    assert runs3 <= 1.1 * grown * runs


def test_telling_a_log_of_bare_items_from_a_session_imports_no_session_format(tmp_path):
    # Before a large log is gated by runs, the gate asks whether it is a session it can gate
    # in shares: for a log that shows no session's marks, no session format is imported.
    log = tmp_path / "log.jsonl"
    synthetic.write_jsonl(log, 50)
    code = (
        "import sys\n"
        "from inspector.core import session_gate\n"
        "print(session_gate._share_format(sys.argv[1]),"
        " 'inspector.core.formats.claude_code' in sys.modules,"
        " 'inspector.core.formats.codex' in sys.modules)\n"
    )
    told = subprocess.run(
        [sys.executable, "-c", code, str(log)], capture_output=True, text=True, check=True
    )
    assert told.stdout.split() == ["None", "False", "False"]


def test_while_a_worker_is_held_in_a_run_this_process_makes_every_other_run(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # The gate's process keeps taking the next run nobody began for as long as it waits for a
    # worker's run, whatever it has joined meanwhile: the worker is held in its first run until
    # this process has made the file's last run (or, in a broken build, for a bound).
    log = tmp_path / "log.jsonl"
    synthetic.write_jsonl(log, 400)
    here = os.getpid()
    held, release = os.pipe()
    made_here: list[int] = []
    original = parallel._gate_run

    def spy(number):
        if os.getpid() != here:
            if not made_there:
                select.select([held], [], [], 60)  # a bound for a broken build, not a measure
            made_there.append(number)
            return original(number)
        made_here.append(number)
        made = original(number)
        if number == len(parallel._SHARED["runs"].runs) - 1:
            os.write(release, b"x")
        return made

    made_there: list[int] = []  # in the worker: what it made (its own copy after the fork)
    monkeypatch.setattr(parallel, "_gate_run", spy)
    try:
        alone = _gate(str(log), "--tools", str(tools_file), "--jobs", "1")
        made_here.clear()
        assert _gate(str(log), "--tools", str(tools_file), "--jobs", "2") == alone
    finally:
        os.close(held)
        os.close(release)
    (gated,) = by_runs
    assert gated is not None
    runs = len(gated.rows.sizes)
    assert runs >= 8
    # Every run but the one the worker was held in was made here.
    assert len(made_here) == runs - 1 and len(set(made_here)) == runs - 1


def test_the_gate_imports_the_trace_gate_only_for_a_file_that_shows_a_trace(tmp_path):
    # Every file the gate may take by runs is first offered to the gate of OTLP traces: that
    # module is imported only when the file's head shows a trace's marks.
    log, trace = tmp_path / "log.jsonl", tmp_path / "trace.jsonl"
    synthetic.write_jsonl(log, 50)
    synthetic.write_otlp(trace, 20_000)
    code = (
        "import io, sys\n"
        "from inspector.cli import run\n"
        "out = io.StringIO()\n"
        "run(['gate', '--format', 'json', sys.argv[1], '--jobs', '2'], out, out)\n"
        "print('inspector.commands.traces' in sys.modules)\n"
    )
    told = [
        subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
        ).stdout.split()
        for path in (log, trace)
    ]
    assert told == [["False"], ["True"]]


def test_the_queue_of_runs_gives_each_run_once_in_order_to_every_process(monkeypatch):
    # More runs than a pipe holds by default (64 KiB of numbers) are queued too; forked
    # readers taking runs meanwhile take each run once, the numbers never torn.
    count = 20_000
    monkeypatch.setitem(parallel._SHARED, "queue", parallel._run_queue(1, count))
    try:
        assert parallel._next_run() == 1
        taken, told = os.pipe()
        pid = os.fork()
        if pid == 0:  # a reader of its own, as a worker is
            numbers = []
            while (number := parallel._next_run()) is not None:
                numbers.append(number)
            os.write(told, pickle.dumps(numbers))
            os._exit(0)
        os.close(told)
        here = []
        while (number := parallel._next_run()) is not None:
            here.append(number)
        with os.fdopen(taken, "rb") as answer:
            there = pickle.loads(answer.read())
        os.waitpid(pid, 0)
    finally:
        os.close(parallel._SHARED["queue"])
    assert here == sorted(here) and there == sorted(there)
    assert sorted(here + there) == list(range(2, count))


def test_a_gate_by_runs_imports_no_shared_memory_module(tmp_path, tools_file):
    # The runs are taken from a pipe and their counts kept in an anonymous shared map: no
    # `multiprocessing.sharedctypes` (nor its heap and locks) to import or set up.
    log = tmp_path / "log.jsonl"
    _write(log, 300, seed=23, long_numbers=False)
    code = (
        "import io, os, sys\n"
        "from inspector.core import parallel\n"
        "from inspector.commands import gate\n"
        "parallel.POOL_MIN_BYTES, parallel.RUN_BYTES = 1, 1500\n"
        "made = []\n"
        "def spy(*args, **kwargs):\n"
        "    made.append(parallel.gate_jsonl_on_cores(*args, **kwargs))\n"
        "    return made[-1]\n"
        "gate.gate_jsonl_on_cores = spy\n"
        "from inspector.cli import run\n"
        "out = io.StringIO()\n"
        "run(['gate', '--format', 'json', sys.argv[1], '--tools', sys.argv[2], '--jobs', '2'],"
        " out, out)\n"
        "workers = made[0].makers - {os.getpid()}\n"
        "print(len(workers), 'multiprocessing.sharedctypes' in sys.modules)\n"
    )
    told = subprocess.run(
        [sys.executable, "-c", code, str(log), str(tools_file)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert told.stdout.split() == ["1", "False"]
