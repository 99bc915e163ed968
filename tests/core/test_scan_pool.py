"""The scan's worker pool (core/fleet_pool.py): one message each way per task, failures, stopping.

In this process the workers come from a fork server (the test runner has threads); one test runs
the forked kind in a fresh process of its own, as the command does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.core.fleet_pool import Pool, PoolError

ROOT = Path(__file__).resolve().parents[2]
#: More than a pipe holds (64 KiB on Linux): a message is written and read in many pieces.
LARGE = 1 << 20

_SETUP: list[object] = []


def _setup(argument: object) -> None:
    _SETUP.append(argument)


def _answer(task: bytes) -> bytes:
    """A task's bytes reversed, with this worker's pid and what its set-up was given."""
    return f"{os.getpid()} {_SETUP}|".encode() + task[::-1]


def _fail_on_bad(task: bytes) -> bytes:
    if task == b"bad":
        raise ValueError("no good")
    return task


def _wait_for_a_signal(task: bytes) -> bytes:
    signal.pause()
    return task


def _kill_self(task: bytes) -> bytes:
    os.kill(os.getpid(), signal.SIGKILL)
    return task


def _drain(pool: Pool) -> list[tuple[object, bytes]]:
    results = []
    while pool.busy():
        results.extend(pool.finished())
    return results


def test_each_task_comes_back_with_its_tag_from_a_worker_set_up_once() -> None:
    pool = Pool(2, _answer, _setup, "options", fork=False, preload=(__name__,))
    try:
        for number in range(6):
            pool.submit(number, f"task {number}".encode())
        assert pool.busy() == 6
        results = dict(_drain(pool))
    finally:
        pool.close()
    assert sorted(results) == list(range(6))
    pids = set()
    for number, result in results.items():
        pid, rest = result.split(b" ", 1)
        setup, body = rest.split(b"|", 1)
        assert body == f"task {number}".encode()[::-1]
        assert setup == b"['options']"  # each worker ran its set-up once
        pids.add(pid)
    assert len(pids) == 2  # the tasks were shared between the workers
    assert all(worker.process.exitcode == 0 for worker in pool.workers)


#: Forked workers (this script has no other thread), tasks and results larger than a pipe,
#: every worker given two at once: the coordinator must write what a pipe does not take while
#: it reads results, or it would wait on a worker that waits on it.
FORKED = f"""\
import hashlib, sys
sys.path.insert(0, {str(ROOT)!r})
from inspector.core.fleet_pool import Pool
from tests.core.test_scan_pool import LARGE, _answer, _setup

pool = Pool(2, _answer, _setup, "forked", fork=True)
sent = {{n: bytes([n]) * LARGE + b"end" for n in range(4)}}
for n, task in sent.items():
    pool.submit(n, task)
got = {{}}
while pool.busy():
    got.update(pool.finished())
pool.close()
for n in sorted(got):
    assert got[n].endswith(sent[n][::-1]), n
    print(n, got[n].split(b"|")[0].decode())
"""


def test_forked_workers_take_and_give_messages_larger_than_a_pipe() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["0", "1", "2", "3"]
    assert {line.split(" ", 2)[2] for line in lines} == {"['forked']"}
    assert len({line.split()[1] for line in lines}) == 2


def test_a_task_that_fails_fails_the_pool_with_the_workers_reason() -> None:
    pool = Pool(1, _fail_on_bad, _setup, None, fork=False, preload=(__name__,))
    try:
        pool.submit("good", b"fine")
        pool.submit("bad", b"bad")
        results = []
        with pytest.raises(PoolError, match=r"^worker \d+ failed: ValueError: no good$"):
            while pool.busy():
                results.extend(pool.finished())
        assert results == [("good", b"fine")]  # what came before the failure came back
    finally:
        pool.close()


def test_a_worker_that_dies_is_named_with_how_it_ended() -> None:
    pool = Pool(1, _kill_self, _setup, None, fork=False, preload=(__name__,))
    try:
        pool.submit("task", b"x")
        with pytest.raises(PoolError, match=r"was killed by signal 9 \(SIGKILL\) before handing"):
            _drain(pool)
    finally:
        pool.close()


def test_stopping_ends_busy_workers_at_once() -> None:
    pool = Pool(2, _wait_for_a_signal, _setup, None, fork=False, preload=(__name__,))
    pool.submit(1, b"a")
    pool.submit(2, b"b")
    pool.close(stop=True)  # without `stop` this would wait for ever
    assert [w.process.exitcode for w in pool.workers] == [-signal.SIGTERM] * 2
