"""The scan's pool workers do no work a single process would do once: what they import and build.

Each test runs `inspector scan` in a subprocess of its own, as the command runs: one thread, so
the workers are forked from it (a test runner's threads would make them come from a fork
server). A driver wraps the pool's worker functions before the command starts; the forked
workers inherit the wrappers and log what they find.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from inspector.core import formats, scan
from tests.core.test_scan import make_fleet

ROOT = Path(__file__).resolve().parents[2]

#: Runs `inspector scan ARGS…` (argv[2:]) and appends to argv[1], one JSON object a line: the
#: parent's modules when it makes the pool and when the scan ends (with the messages it sent
#: and received and the most threads it ran), each worker's modules when it starts (before its
#: initializer) and, after each task, the modules it imported since. A worker given a file
#: whose name holds $SCAN_KILL kills itself.
DRIVER = """\
import gc, json, os, signal, sys, threading
from inspector.cli import run
from inspector.core import fleet_pool, scan

def note(**entry):
    with open(sys.argv[1], "a") as log:
        log.write(json.dumps(entry) + "\\n")

make = fleet_pool.Pool.__init__

def made(self, *args, **kwargs):
    note(who="parent", at="pool", modules=sorted(sys.modules))
    make(self, *args, **kwargs)

fleet_pool.Pool.__init__ = made
counts = {"sent": 0, "received": 0, "threads": 1}
submit = fleet_pool.Pool.submit

def traced_submit(self, tag, task):
    counts["sent"] += 1
    counts["threads"] = max(counts["threads"], threading.active_count())
    submit(self, tag, task)

fleet_pool.Pool.submit = traced_submit
finished = fleet_pool.Pool.finished

def traced_finished(self):
    for result in finished(self):
        counts["received"] += 1
        yield result

fleet_pool.Pool.finished = traced_finished
init = scan._init_worker
started = set()

def traced_init(options):
    started.update(sys.modules)
    note(who="worker", at="start", pid=os.getpid(), gc=gc.isenabled())
    init(options)
    note(who="worker", at="init", pid=os.getpid(), new=sorted(set(sys.modules) - started))

scan._init_worker = traced_init
chunk = scan._worker_chunk

def traced_chunk(paths):
    kill = os.environ.get("SCAN_KILL")
    if kill and any(kill in path for path in paths):
        os.kill(os.getpid(), signal.SIGKILL)
    done = chunk(paths)
    note(who="worker", at="task", pid=os.getpid(), new=sorted(set(sys.modules) - started))
    return done

scan._worker_chunk = traced_chunk
gc.disable()  # as python -m inspector runs a command
status = run(sys.argv[2:])
note(who="parent", at="end", modules=sorted(sys.modules), **counts)
os._exit(status)
"""


def _run(log: Path, *args: str, kill: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCAN_KILL": kill}
    command = [sys.executable, "-c", DRIVER, str(log), "scan", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)


def _scan(log: Path, *args: str) -> list[dict[str, Any]]:
    done = _run(log, *args)
    assert done.returncode in (0, 1, 2), done.stderr
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 files: every transcript sample twice over, some gzipped, some unreadable."""
    folder = tmp_path_factory.mktemp("mixed")
    make_fleet(folder, 300)
    return folder


@pytest.fixture(scope="module")
def pooled(
    mixed: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[dict[str, Any]], Path]:
    """One `scan --jobs 2` of the mixed folder, through the driver: its log and its output."""
    folder = tmp_path_factory.mktemp("pooled")
    out = folder / "two.jsonl"
    log = _scan(folder / "log", str(mixed), "--target", "openai", "--jobs", "2", "-o", str(out))
    return log, out


#: What the parent once imported before it forked, though neither it nor a worker scans with
#: them: the gate command's module (its report documents, its own process pools), shutil (for
#: the Dask engine's folders) and hashlib, whose import sets up OpenSSL (a tool's digest is
#: BLAKE2, from CPython's own module). All of it came before the fork, where every worker waits.
NOT_BEFORE_THE_FORK = (
    "inspector.commands.gate",
    "inspector.core.parallel",
    "inspector.core.report",
    "inspector.core.session_gate",
    "multiprocessing",
    "shutil",
    "hashlib",
    "_hashlib",
)


def test_no_worker_imports_a_module_and_the_rows_are_those_of_one_job(
    mixed: Path, pooled: tuple[list[dict[str, Any]], Path], tmp_path: Path
) -> None:
    """The parent preloaded every format module before the pool started; the workers, forked
    from it, scan every kind of file without importing anything (each would otherwise import
    every format module and the stream machinery again)."""
    one = tmp_path / "one.jsonl"
    log, two = pooled
    (pool,) = [e for e in log if e["at"] == "pool"]
    assert set(scan.worker_modules()) <= set(pool["modules"])
    for name in formats.FORMAT_MODULES:
        assert f"inspector.core.formats.{name}" in pool["modules"]
    starts = [e for e in log if e["at"] == "start"]
    assert len(starts) == 2 and not any(e["gc"] for e in starts)
    tasks = [e for e in log if e["at"] == "task"]
    assert len({e["pid"] for e in tasks}) == 2  # both workers scanned
    for entry in [e for e in log if e["at"] == "init"] + tasks:
        assert entry["new"] == [], f"worker {entry['pid']} imported {entry['new']}"
    # One job, on the same files, scans in this process and writes the same bytes.
    single = _scan(
        tmp_path / "log1", str(mixed), "--target", "openai", "--jobs", "1", "-o", str(one)
    )
    assert not [e for e in single if e["who"] == "worker"]
    assert one.read_bytes() == two.read_bytes()
    # What the single process imported while scanning, the pool's parent had before forking
    # (its walk's `glob` aside): nothing a file needs is left for a worker to import.
    (end,) = [e for e in single if e["at"] == "end"]
    assert set(end["modules"]) - set(pool["modules"]) <= {"glob"}


def test_one_job_imports_only_the_formats_its_files_need(tmp_path: Path) -> None:
    """`--jobs 1` keeps loading formats on first use: an Open Responses file imports no other."""
    sample = tmp_path / "request.json"
    sample.write_text(
        '{"model": "m", "input": [{"type": "message", "role": "user", "content": "hi"}]}'
    )
    log = _scan(tmp_path / "log", str(sample), "--jobs", "1", "-o", str(tmp_path / "rows.jsonl"))
    (end,) = [e for e in log if e["at"] == "end"]
    others = [
        f"inspector.core.formats.{n}" for n in formats.FORMAT_MODULES if n != "open_responses"
    ]
    assert not set(others) & set(end["modules"])


def test_the_parent_imports_before_the_fork_nothing_the_scan_does_not_use(
    pooled: tuple[list[dict[str, Any]], Path],
) -> None:
    """What the parent imports before it forks, every worker waits for; the modules of other
    commands and hashlib's OpenSSL are not among it, nor does the parent import them later."""
    log, _ = pooled
    (pool,) = [e for e in log if e["at"] == "pool"]
    assert "inspector.core.scan" in pool["modules"]
    assert not set(NOT_BEFORE_THE_FORK) & set(pool["modules"])
    (end,) = [e for e in log if e["at"] == "end"]
    assert not set(NOT_BEFORE_THE_FORK) & set(end["modules"])


def test_the_parent_runs_no_thread_and_sends_one_message_a_task(
    mixed: Path, pooled: tuple[list[dict[str, Any]], Path]
) -> None:
    """The parent hands out work through a pipe per worker: no pool thread, no concurrent
    .futures (its feeder and manager threads cost the parent about a millisecond a task), and
    one message out and one back per task, a task being many small files."""
    log, _ = pooled
    (end,) = [e for e in log if e["at"] == "end"]
    assert end["threads"] == 1
    # Neither concurrent.futures nor the multiprocessing queues its pool feeds (a module may
    # import multiprocessing itself for its own use).
    assert not {"concurrent.futures", "multiprocessing.queues"} & set(end["modules"])
    tasks = [e for e in log if e["at"] == "task"]
    files = sum(1 for _ in scan.walk([str(mixed)]))
    assert end["sent"] == end["received"] == len(tasks)
    assert len(tasks) <= files / 8  # the first tasks ramp up, the last are cut finer


def test_a_worker_killed_mid_scan_is_one_line_and_resume_finishes_the_scan(
    mixed: Path, tmp_path: Path
) -> None:
    out = tmp_path / "rows.jsonl"
    victim = sorted(p.name for p in mixed.rglob("*.json"))[40]
    args = (str(mixed), "--target", "openai", "--jobs", "2", "-o", str(out))
    done = _run(tmp_path / "log", *args, kill=victim)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert re.fullmatch(
        r"inspector scan: error: worker \d+ was killed by signal 9 \(SIGKILL\) before handing "
        r"back its task; .*rows\.jsonl\.partial is kept for --resume\n",
        done.stderr,
    ), done.stderr
    assert not out.exists() and (tmp_path / "rows.jsonl.partial").exists()
    resumed = _run(tmp_path / "log2", *args, "--resume")
    assert resumed.returncode == 2, resumed.stderr  # the fleet has unreadable files
    whole = tmp_path / "whole.jsonl"
    _scan(tmp_path / "log3", str(mixed), "--target", "openai", "--jobs", "1", "-o", str(whole))
    assert out.read_bytes() == whole.read_bytes()
