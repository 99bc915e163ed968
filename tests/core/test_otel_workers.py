"""How a trace's runs are made: by plain forked workers taking them from a queue this process
fills as it numbers the runs' lines, each run's documents in a memory file and its word on a
pipe (`commands.traces`, with `core.parallel`'s workers)."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import traces
from inspector.core import parallel
from inspector.core.formats import otel
from tests.benchmarks import synthetic
from tests.core import test_otel_runs
from tests.core.conftest import said_in_file
from tests.core.test_parallel import (
    interrupted_gate_ends_its_workers,
    refuse_pools_threads_and_disk_files,
    spy_workers,
)

#: Every trace file gated by runs, and what each gate by runs gave (test_otel_runs's).
by_runs = test_otel_runs.by_runs
_gate = test_otel_runs._gate
_by_runs_and_alone = test_otel_runs._by_runs_and_alone


def _runs_each(monkeypatch: pytest.MonkeyPatch, runs: int) -> None:
    """About `runs` runs a process (each of many lines), not one a line."""
    monkeypatch.setattr(traces, "RUNS_PER_JOB", runs)


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 200_000)
    return path


def _made_by(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each run a worker makes, said in a file (the workers' memory is their own): its
    number, its first line, the process and whether it was made."""
    return said_in_file(monkeypatch, traces, "_run", tmp_path / "made", lambda run: (run[2],))


def test_each_run_is_made_once_by_a_worker_numbered_from_its_first_line(
    trace: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _runs_each(monkeypatch, 4)
    said = _made_by(tmp_path, monkeypatch)
    started = spy_workers(monkeypatch)
    alone = _gate(str(trace), "--jobs", "1")
    assert not said.exists() and not started  # one process never goes by runs
    data = trace.read_bytes()
    for jobs in (2, 3):
        said.unlink(missing_ok=True)
        by_runs.clear()
        started.clear()
        assert _gate(str(trace), "--jobs", str(jobs)) == alone
        (made,) = by_runs
        assert made is not None
        lines = [line.split() for line in said.read_text(encoding="utf-8").splitlines()]
        numbers = sorted(int(number) for number, *_ in lines)
        # More runs than workers: each worker took several from the queue, each run once.
        assert numbers == list(range(len(made.files))) and len(numbers) > 2 * jobs
        assert all(ok == "True" for *_, ok in lines)
        cuts = otel.line_runs(data, max(1, len(data) // (jobs * 4) + 1))
        assert cuts is not None and len(cuts) == len(numbers)
        firsts = {int(number): int(first) for number, first, *_ in lines}
        assert [firsts[n] for n in numbers] == [1 + data[:a].count(b"\n") for a, _ in cuts]
        # One worker a job, every one forked by this process and reaped, none this process.
        pids = {int(pid) for *_, pid, _ in lines}
        assert len(started) == jobs and {w.pid for w in started} == pids == made.makers
        assert os.getpid() not in pids
        assert all(w.exitcode == 0 for w in started)


def test_no_pool_no_thread_and_no_file_on_disk_is_made_for_a_trace_by_runs(
    trace: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _runs_each(monkeypatch, 4)
    alone = _gate(str(trace), "--jobs", "1")

    refuse_pools_threads_and_disk_files(monkeypatch, "a trace by runs")
    names: list[list[str]] = []
    original = traces.TraceGate.__init__

    def kept(self: traces.TraceGate, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        names.append([os.readlink(f"/proc/self/fd/{f.fileno()}") for f in self.files])

    monkeypatch.setattr(traces.TraceGate, "__init__", kept)
    assert _gate(str(trace), "--jobs", "2") == alone
    (made,) = by_runs
    assert made is not None and made.makers and os.getpid() not in made.makers
    (files,) = names
    assert len(files) > 2 and all(name.startswith("/memfd:rows") for name in files)


def test_jobs_1_2_and_3_write_the_same_bytes_for_a_trace_of_many_runs(
    tmp_path: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Runs of many lines each, blank lines and lines of every length among them (the lines'
    # numbers are in the reports), and a call id that JSON escapes.
    _runs_each(monkeypatch, 5)
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 300_000)
    lines = path.read_bytes().splitlines()
    for k in range(0, len(lines), 7):
        lines[k] = lines[k].replace(b'id\\": \\"call_', b'id\\": \\"call\\\\u00e9_', 1)
    out = b""
    for k, line in enumerate(lines):
        out += line + b"\n" + b"\n" * (k % 3) + b" " * (k % 5)
    path.write_bytes(out + b"\n")
    options = ("--tools", str(_tools(tmp_path)))
    _status, one, _ = _by_runs_and_alone(path, by_runs, *options)
    assert len(by_runs) == 2 and all(made is not None and len(made.files) > 6 for made in by_runs)
    documents = json.loads(one)["files"]
    assert len(documents) == len(lines)
    assert any("é" in str(i["call_id"]) for d in documents for i in d["items"])
    assert _gate(str(path), "--jobs", "0", *options) == _gate(str(path), "--jobs", "1", *options)


def test_jobs_1_2_and_3_write_the_same_bytes_for_the_samples_in_runs_of_several_lines(
    tmp_path: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = test_otel_runs._one_line_each(tmp_path, "samples.jsonl", own_traces=True)
    # Runs of one to a few lines each (the samples' lines are 2 to 80 KB).
    monkeypatch.setattr(traces, "RUN_MIN_BYTES", 12_000)
    _by_runs_and_alone(path, by_runs)
    assert len(by_runs) == 2 and all(made is not None for made in by_runs)
    lines = len(path.read_bytes().splitlines())
    assert all(6 < len(made.files) < lines - 6 for made in by_runs)


def _tools(folder: Path) -> Path:
    path = folder / "tools.json"
    listed = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
    path.write_text(json.dumps(listed), encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["killed", "exits", "raises"])
def test_a_worker_killed_or_failed_in_a_run_sends_the_file_the_usual_way(
    trace: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    _runs_each(monkeypatch, 4)
    alone = _gate(str(trace), "--jobs", "1")
    here = os.getpid()
    original = traces._run
    started = spy_workers(monkeypatch)

    def failing(number: int, run: Any) -> Any:
        if os.getpid() != here and number == 3:
            if how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer ends it
            if how == "exits":
                os._exit(3)
            raise MemoryError
        return original(number, run)

    monkeypatch.setattr(traces, "_run", failing)
    for jobs in ("2", "3"):
        by_runs.clear()
        started.clear()
        assert _gate(str(trace), "--jobs", jobs) == alone
        assert by_runs == [None]
        # Every worker was reaped, the one that ended in run 3 as it ended.
        assert started and all(not worker.is_alive() for worker in started)
        codes = [worker.exitcode for worker in started]
        ended = {"killed": -signal.SIGKILL, "exits": 3}.get(how)
        if ended is not None:
            assert ended in codes


def test_a_trace_by_runs_that_ends_early_ends_its_workers_at_once(
    trace: Path, by_runs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _runs_each(monkeypatch, 4)
    here = os.getpid()
    seen: list[list[parallel.Worker]] = []
    started = spy_workers(monkeypatch)

    def asleep(number: int, run: Any) -> Any:
        if os.getpid() != here:
            time.sleep(600)  # a worker in its run
        raise AssertionError("runs are made by workers only")

    def interrupted(*args: Any) -> Any:
        seen.append([worker for worker in started if worker.is_alive()])
        raise KeyboardInterrupt  # Ctrl-C while the workers make their runs

    monkeypatch.setattr(traces, "_run", asleep)
    monkeypatch.setattr(parallel, "hear_runs", interrupted)
    interrupted_gate_ends_its_workers(lambda: _gate(str(trace), "--jobs", "2"), seen)


def test_the_queue_holds_every_runs_word_unread_so_queuing_never_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Words past a pipe's default 64 KiB: made larger, never a write that waits for a reader.
    count = 10_000
    taken, queue = parallel.word_pipe(traces._QUEUED.size * count)
    try:
        for number in range(count):
            parallel.write_all(queue, traces._QUEUED.pack(number, 7 * number + 1))
        os.close(queue)
        queue = -1
        words = []
        while (word := parallel.take(taken, traces._QUEUED)) is not None:
            words.append(word)
    finally:
        os.close(taken)
        if queue >= 0:
            os.close(queue)
    assert words == [(number, 7 * number + 1) for number in range(count)]
