"""The fleet scan: 2,000 generated files, every row against `gate --format json`, resume, Dask."""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import json
import logging
import os
import pickletools
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.cli import run
from inspector.commands.scan import Progress
from inspector.core import scan
from inspector.core.decision import decide_file
from inspector.core.formats import load_conversations
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError, Transcript
from inspector.core.report import error_document, gate_document
from inspector.core.targets import check_tool, with_target_findings

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
TARGETS = ("openai", "anthropic")
FILES = 2_000
OPTIONS = scan.ScanOptions()
#: An error row has every key of the gate's error object (Parquet rows have them all).
NO_WHERE = {"event_index": None, "pointer": None}

#: Broken files, each a different way of being unreadable.
BROKEN = {
    "truncated.json": b'{"input": [{"type": "message", "role": "user", "content": "hi"',
    "binary.json": b"\x00\x01\x02\xff\xfe" * 40,
    "empty.jsonl": b"",
    "not-a-transcript.json": b'{"hello": "world"}',
    "bad-line.jsonl": b'{"type": "message", "role": "user", "content": "a"}\n{oops\n',
    "latin1.json": '{"input": "café"}'.encode("latin-1"),
}


def _sources() -> list[Path]:
    """Transcript samples of every kind: requests, responses, logs, native formats, streams."""
    picked = []
    for path in sorted(SAMPLES.rglob("*")):
        rel = path.relative_to(SAMPLES).as_posix()
        if not path.is_file() or "expected" in rel or "tools" in path.name or "tools/" in rel:
            continue
        if path.suffix in (".json", ".jsonl", ".sse"):
            picked.append(path)
    return picked


def make_fleet(folder: Path, count: int = FILES) -> list[Path]:
    """A folder of `count` files: samples in subfolders, every 9th gzipped, every 23rd broken."""
    sources = _sources()
    broken = sorted(BROKEN)
    made = []
    for number in range(count):
        sub = folder / f"team-{number % 7}" / f"day-{number // 250:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        if number % 23 == 5:
            name = broken[number % len(broken)]
            target = sub / f"s{number:04d}-{name}"
            target.write_bytes(BROKEN[name])
        else:
            source = sources[number % len(sources)]
            data = source.read_bytes()
            if number % 9 == 2:
                target = sub / f"s{number:04d}-{source.name}.gz"
                target.write_bytes(gzip.compress(data, mtime=0))
            else:
                target = sub / f"s{number:04d}-{source.name}"
                target.write_bytes(data)
        made.append(target)
    (folder / ".hidden.json").write_bytes(b"{}")  # never walked
    (folder / "notes.txt").write_bytes(b"not a session")  # not a transcript suffix
    return made


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2,000-file fleet, generated once per test session."""
    folder = tmp_path_factory.mktemp("fleet")
    make_fleet(folder)
    return folder


#: The part of the fleet the interruption tests scan (about 570 files): being killed half-way
#: is their point, not the count.
TEAMS = ("team-0", "team-1")


def _teams(fleet: Path) -> list[str]:
    return [str(fleet / team) for team in TEAMS]


def _rows_under(out: Path, folders: list[str]) -> bytes:
    """The lines of a whole-fleet output whose file lies in `folders` (walk order kept)."""
    prefixes = tuple(f + os.sep for f in folders)
    lines = out.read_bytes().splitlines(keepends=True)
    return b"".join(line for line in lines if json.loads(line)["path"].startswith(prefixes))


@pytest.fixture(scope="module", autouse=True)
def _no_dask_thread_left() -> Any:
    """After this module, no Dask thread outlives its tests.

    distributed keeps one offload thread for the life of the process. A later test's gate
    would then see a second thread and, rightly, refuse to fork its workers. A fresh
    executor starts its thread only when first used, so Dask still works afterwards.
    """
    yield
    utils = sys.modules.get("distributed.utils")
    if utils is not None:
        from concurrent.futures import ThreadPoolExecutor

        utils._offload_executor.shutdown(wait=True)
        utils._offload_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="Dask-Offload"
        )


@pytest.fixture(scope="module")
def cluster() -> Any:
    """One LocalCluster (2 worker processes) for every Dask test of this module."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as local:
        yield local


def _idle(cluster: Any) -> None:
    """Wait until the cluster holds no task (a killed client's running tasks end first)."""
    from dask.distributed import Client

    with Client(cluster) as client:
        for _ in range(600):  # bounded by a count of looks, not by a clock
            if not client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
                return
            time.sleep(0.05)
    raise AssertionError("the cluster still runs tasks of a killed scan")


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), out, err)
    return status, out.getvalue(), err.getvalue()


def _blocks(document: dict[str, Any]) -> str:
    """The replay decision a gate JSON document states (the oracle the rows are checked by)."""
    return document["verdict_summary"]["outcome"]


Gated = tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, Any]]


def gate_json(path: str) -> list[Gated]:
    """`gate --format json` of each conversation of a file, plain and with each target, and
    `tools` marks per target.

    Made in this process by the functions the two commands call (load_conversations,
    gate_transcript, gate_document, with_target_findings, check_tool), the file loaded once:
    2,000 files through three subprocesses each would take minutes. A handful go through the
    real CLI below.
    """
    try:
        transcripts = load_conversations(path)
    except LoadError as exc:
        return [(error_document(path, exc), {}, {})]
    return [_gated(path, transcript) for transcript in transcripts]


def _gated(path: str, transcript: Transcript) -> Gated:
    result = gate_transcript(transcript)
    document = gate_document(path, result, decide_file(result, name=path))
    document["items"] = list(document["items"].elements)
    targets, marks = {}, {}
    for target in TARGETS:
        found = with_target_findings(result, target)
        targets[target] = {
            **gate_document(path, found, decide_file(found, name=path)),
            "items": document["items"],
        }
        marks[target] = {t.name: check_tool(t, target).mark for t in transcript.tools.values()}
    return document, targets, marks


def check_rows_against_gate(rows: list[dict[str, Any]], paths: list[str]) -> None:
    """Every row agrees with gate --format json (and gate --target P) of the same file."""
    assert list(dict.fromkeys(r["path"] for r in rows)) == paths  # walk order
    expected_rows = [gated for path in paths for gated in gate_json(path)]
    assert len(rows) == len(expected_rows)  # one row per conversation
    for row, (doc, by_target, marks) in zip(rows, expected_rows, strict=True):
        if "error" in doc:
            assert row["error"] == {"event_index": None, "pointer": None, **doc["error"]}, row[
                "path"
            ]
            assert row["format"] is None and row["items"] == 0
            continue
        assert row["error"] is None, row
        items = doc["items"]
        calls = [i for i in items if i["type"] == "function_call"]
        stream = doc.get("stream") or {}
        expected = {
            "format": doc["format"],
            "items": len(items),
            "calls": len(calls),
            "verdicts": doc["summary"],
            "findings": dict(Counter(f["code"] for f in doc["findings"])),
            "stream_violations": dict(Counter(v["code"] for v in stream.get("violations", []))),
            "decision": _blocks(doc),
            "tool_calls": dict(
                Counter(c["name"] if isinstance(c["name"], str) else "" for c in calls)
            ),
        }
        assert {k: row[k] for k in expected} == expected, row["path"]
        assert sorted(row["tools"]) == doc["tools"]
        for target in TARGETS:
            with_target = by_target[target]
            found = [f for f in with_target["findings"] if f.get("target") == target]
            entry = row["targets"][target]
            examples: dict[str, str] = {}
            for f in found:
                examples.setdefault(f["rule"], _example(f["message"]))
            assert entry["rules"] == dict(Counter(f["rule"] for f in found)), row["path"]
            assert entry["examples"] == examples
            assert entry["errors"] == sum(f["severity"] == "error" for f in found)
            assert entry["warnings"] == sum(f["severity"] == "warning" for f in found)
            assert entry["decision"] == _blocks(with_target), row["path"]
            assert entry["tools"] == marks[target], row["path"]


def _example(message: str) -> str:
    """What a row keeps of a message: all of it, or its first words up to the limit."""
    if len(message) <= scan.EXAMPLE_CHARS:
        return message
    words = message[: scan.EXAMPLE_CHARS + 1].split(" ")[:-1]
    return f"{' '.join(words).rstrip()} … ({len(message):,} chars)"


def test_a_long_example_is_cut_between_words_and_keeps_no_part_of_a_key() -> None:
    key = "sk-proj-abcdefghijklmnop1234567890"
    for before in range(scan.EXAMPLE_CHARS - len(key), scan.EXAMPLE_CHARS + 2):
        message = "x" * before + " " + key + " and more words after it"
        kept = scan.example_text(message)
        assert kept.endswith(f" … ({len(message):,} chars)")
        assert "sk-" not in kept or key in kept
        assert message.startswith(kept.split(" … (")[0])
    assert scan.example_text("short message") == "short message"
    assert scan.example_text("y" * 400) == " … (400 chars)"  # one word too long: none of it


def _scan_command(fleet: Path | list[str], out: Path, *extra: str) -> list[str]:
    paths = [str(fleet)] if isinstance(fleet, Path) else fleet
    return [
        sys.executable, "-m", "inspector", "scan", *paths, "--target", *TARGETS,
        "--jobs", "2", "-o", str(out), *extra,
    ]  # fmt: skip


def _kill_when(command: list[str], ready: Callable[[], bool]) -> str:
    """Run a scan and SIGTERM it once `ready()` holds: a real interruption half-way."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        while process.poll() is None:
            if ready():
                process.send_signal(signal.SIGTERM)
                break
            time.sleep(0.01)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, "the scan ended before it could be interrupted"
    assert "kept for --resume" in stderr and "Traceback" not in stderr
    return stderr


@pytest.fixture(scope="module")
def pool_scan(fleet: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """One real `scan --jobs 2` of the fleet, with its rows and its report."""
    folder = tmp_path_factory.mktemp("out")
    out, report = folder / "rows.jsonl", folder / "readiness.html"
    done = subprocess.run(
        _scan_command(fleet, out, "--report", str(report)),
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr  # some files are unreadable
    return out, report, done.stderr


def test_every_row_of_a_2000_file_scan_agrees_with_gate_json(
    fleet: Path, pool_scan: tuple[Path, Path, str]
) -> None:
    out, report, stderr = pool_scan
    rows = list(scan.read_rows(str(out)))
    paths = list(scan.walk([str(fleet)]))
    assert len(paths) == FILES
    assert not any(p.endswith(("notes.txt", ".hidden.json")) for p in paths)
    check_rows_against_gate(rows, paths)
    unreadable = [r for r in rows if r["error"]]
    assert len(unreadable) == sum(1 for n in range(FILES) if n % 23 == 5)
    assert sum(r["path"].endswith(".gz") and r["error"] is None for r in rows) > 150
    assert len({r["format"] for r in rows if r["format"]}) >= 8
    assert stderr.strip().splitlines()[-1].startswith(f"scanned {FILES:,} files")
    assert "\x1b[" not in stderr  # no progress bar when stderr is not a terminal
    assert not out.with_name(out.name + ".partial").exists()
    page = report.read_text(encoding="utf-8")
    assert "Migration readiness" in page and "openai: NO-GO" in page


def _gate_command(paths: list[str]) -> tuple[int, dict[str, list[dict[str, Any]]]]:
    """Run the real `gate --format json` on files: its status, and its entries per path."""
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "gate", "--format", "json", *paths],
        capture_output=True,
        text=True,
        timeout=120,
    )
    entries: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads(done.stdout)["files"]:
        entries.setdefault(entry["path"], []).append(entry)
    return done.returncode, entries


def test_a_handful_of_rows_agree_with_the_real_gate_command(
    pool_scan: tuple[Path, Path, str],
) -> None:
    rows = list(scan.read_rows(str(pool_scan[0])))
    picked = [r for r in rows if r["error"] is None][:: max(1, len(rows) // 5)][:5]
    # One gate process for the readable files (its status is the worst of them), one for an
    # unreadable file.
    status, entries = _gate_command(list(dict.fromkeys(r["path"] for r in picked)))
    for row in picked:
        # A file of several conversations is several rows; gate lists them in the same order.
        doc = entries[row["path"]][row["conversation"] or 0]
        assert row["verdicts"] == doc["summary"]
        assert row["items"] == len(doc["items"])
        assert row["decision"] == _blocks(doc)
    unsafe = any(_blocks(d) == "unsafe" for docs in entries.values() for d in docs)
    assert status == (1 if unsafe else 0)
    broken = next(r for r in rows if r["error"])
    status, entries = _gate_command([broken["path"]])
    (doc,) = entries[broken["path"]]
    assert status == 2 and broken["error"] == {"event_index": None, "pointer": None, **doc["error"]}


def test_resume_after_a_killed_scan_writes_the_same_output(
    fleet: Path, pool_scan: tuple[Path, Path, str], tmp_path: Path
) -> None:
    out = tmp_path / "rows.jsonl"
    partial = tmp_path / "rows.jsonl.partial"
    teams = _teams(fleet)
    files = len(list(scan.walk(teams)))
    _kill_when(
        _scan_command(teams, out),
        lambda: partial.exists() and partial.read_bytes().count(b"\n") >= 40,
    )
    assert not out.exists() and partial.exists()
    logged = partial.read_bytes().count(b"\n")
    assert 40 <= logged < files
    done = subprocess.run(
        [*_scan_command(teams, out), "--resume"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr
    # The same lines as the uninterrupted scan of the whole fleet has for these files.
    assert out.read_bytes() == _rows_under(pool_scan[0], teams)
    assert not partial.exists()


def test_resume_skips_unchanged_files_and_rescans_changed_ones(tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    made = make_fleet(folder, 40)
    out = tmp_path / "rows.jsonl"
    assert _cli("scan", str(folder), "--jobs", "1", "-o", str(out))[0] == 2
    before = {r["path"]: r for r in scan.read_rows(str(out))}
    kept, changed = made[0], made[1]
    # Same size and mtime: --resume takes the logged row (the file is not read again).
    stamp = kept.stat()
    kept.write_bytes(b"x" * stamp.st_size)
    os.utime(kept, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    # A new mtime: scanned again.
    changed.write_bytes(b"{}")
    new = folder / "team-0" / "new-session.jsonl"
    shutil.copy(SAMPLES / "logs" / "agent-session.jsonl", new)
    assert _cli("scan", str(folder), "--jobs", "1", "-o", str(out), "--resume")[0] == 2
    after = {r["path"]: r for r in scan.read_rows(str(out))}
    assert after[str(kept)] == before[str(kept)] and before[str(kept)]["error"] is None
    assert after[str(changed)]["error"] is not None and before[str(changed)]["error"] is None
    assert after[str(new)]["items"] == 11
    assert set(after) == set(before) | {str(new)}


def test_dask_on_a_local_cluster_gives_the_same_rows_and_report(
    fleet: Path, pool_scan: tuple[Path, Path, str], cluster: Any, tmp_path: Path
) -> None:
    parts = tmp_path / "parts"
    report = tmp_path / "readiness.html"
    status, _, err = _cli(
        "scan", str(fleet), "--target", *TARGETS, "--engine", "dask",
        "--scheduler", cluster.scheduler_address, "-o", str(parts), "--report", str(report),
    )  # fmt: skip
    assert status == 2, err
    assert len(list(parts.glob("part-*.parquet"))) > 1
    assert not (tmp_path / "parts.partial").exists()
    assert list(scan.read_rows(str(parts))) == list(scan.read_rows(str(pool_scan[0])))
    # The partitions' folds, merged in walk order, are the pool's report.
    assert _undated(report.read_text("utf-8")) == _undated(pool_scan[1].read_text("utf-8"))
    assert err.splitlines()[-1] == pool_scan[2].splitlines()[-1]


def _undated(page: str) -> str:
    return re.sub(r"on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "on DATE", page)


def test_dask_starts_and_closes_its_own_local_cluster(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without --scheduler, run_dask starts a LocalCluster and closes it when the scan ends.

    The cluster is made of threads here (cluster_options), so this module still starts one
    cluster of processes only; which processes a LocalCluster spawns is Dask's own business.
    """
    distributed = pytest.importorskip("dask.distributed")
    started: list[Any] = []

    class Recorded(distributed.LocalCluster):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(distributed, "LocalCluster", Recorded)
    folder = SAMPLES / "logs"
    paths = list(scan.walk([str(folder)]))
    parts = tmp_path / "parts"
    parts.mkdir()
    threads = {"processes": False, "n_workers": 1}
    done = list(scan.run_dask(paths, OPTIONS, str(parts), jobs=1, cluster_options=threads))
    assert len(started) == 1 and started[0].status.name == "closed"
    assert sorted(n for n, _ in done) == list(range(len(done)))
    rows = [row for path in paths for row in scan.scan_file(path, OPTIONS)]
    assert list(scan.read_rows(str(parts))) == rows


def test_dask_resume_after_a_killed_scan_writes_the_same_rows(
    fleet: Path, pool_scan: tuple[Path, Path, str], cluster: Any, tmp_path: Path
) -> None:
    parts = tmp_path / "parts"
    partial = tmp_path / "parts.partial"
    teams = _teams(fleet)
    dask = ["--engine", "dask", "--scheduler", cluster.scheduler_address]
    _kill_when(
        _scan_command(teams, parts, *dask),
        lambda: partial.is_dir() and len(list(partial.glob("part-*.parquet"))) >= 2,
    )
    _idle(cluster)
    assert not parts.exists()
    written = {p.name: p.stat().st_mtime_ns for p in partial.glob("part-*.parquet")}
    assert len(written) >= 2
    status, _, err = _cli(*_scan_command(teams, parts, *dask, "--resume")[3:])
    assert status == 2, err
    assert not partial.exists()
    expected = [json.loads(line) for line in _rows_under(pool_scan[0], teams).splitlines()]
    assert list(scan.read_rows(str(parts))) == expected
    # The partitions the killed scan finished were kept, not written again.
    kept = {p.name: p.stat().st_mtime_ns for p in parts.glob("part-*.parquet")}
    assert {name: kept[name] for name in written} == written
    assert len(kept) > len(written)


def test_dask_resume_rescans_the_partition_of_a_changed_file(cluster: Any, tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    made = make_fleet(folder, 40)
    parts = tmp_path / "parts"
    dask = ["--engine", "dask", "--scheduler", cluster.scheduler_address, "-o", str(parts)]
    assert _cli("scan", str(folder), *dask)[0] == 2
    before = {p.name: p.stat().st_mtime_ns for p in parts.glob("part-*.parquet")}
    paths = list(scan.walk([str(folder)]))
    changed = Path(paths[-1])
    assert changed in made
    changed.write_bytes((SAMPLES / "logs" / "agent-session.jsonl").read_bytes())
    assert _cli("scan", str(folder), *dask, "--resume")[0] == 2
    after = {p.name: p.stat().st_mtime_ns for p in parts.glob("part-*.parquet")}
    last = max(before)
    assert after.keys() == before.keys()
    assert after[last] != before[last]  # the changed file's partition was scanned again
    assert {n: t for n, t in after.items() if n != last} == {
        n: t for n, t in before.items() if n != last
    }
    rows = {r["path"]: r for r in scan.read_rows(str(parts))}
    assert rows[str(changed)]["items"] == 11 and rows[str(changed)]["error"] is None
    fresh = [r for p in paths for r in scan.scan_file(p, scan.ScanOptions())]
    assert list(scan.read_rows(str(parts))) == fresh


def test_parquet_rows_read_back_as_written(pool_scan: tuple[Path, Path, str], tmp_path: Path):
    pytest.importorskip("pyarrow")
    rows = list(scan.read_rows(str(pool_scan[0])))
    scan.write_parquet(rows, str(tmp_path / "rows.parquet"))
    assert list(scan.read_rows(str(tmp_path / "rows.parquet"))) == rows


def test_the_pool_keeps_only_a_window_of_files_in_flight() -> None:
    taken = []

    def endless():
        number = 0
        while True:
            taken.append(number)
            yield str(SAMPLES / "article" / "items.json")
            number += 1

    one = str(SAMPLES / "article" / "items.json")
    chunks = scan.run_pool(endless(), scan.ScanOptions(), 2, chunk=4)
    first = [next(chunks) for _ in range(3)]
    chunks.close()
    # The first tasks ramp up (1 file, 2, then 4), so the workers start on the first files.
    inline = [scan.scan_chunk([one] * size, scan.ScanOptions()) for size in (1, 2, 4)]
    assert [c.data for c in first] == [c.data for c in inline]
    assert [c.files for c in first] == [c.files for c in inline]
    # 2 jobs × 4 chunks of 4 in flight, and one more chunk per chunk consumed.
    assert len(taken) <= 2 * 4 * 4 + 3 * 4


def test_the_parent_only_merges_what_the_workers_encoded_and_folded(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --jobs 2, rows are encoded and folded in the workers: the parent touches no row."""
    paths = list(scan.walk([str(fleet / "team-3")]))[:60]
    options = scan.ScanOptions(targets=TARGETS)
    inline = list(scan.run_pool(paths, options, 1, chunk=8))
    calls = Counter()
    for name in ("scan_file", "_dumps"):
        real = getattr(scan, name)
        monkeypatch.setattr(scan, name, lambda *a, _r=real, _n=name: calls.update([_n]) or _r(*a))
    add = scan.Fleet.add
    monkeypatch.setattr(
        scan.Fleet, "add", lambda fleet, row: calls.update(["add"]) or add(fleet, row)
    )
    # Workers come from a fork server here (the test runner has threads): they import the
    # module afresh, so only this process's calls are counted.
    pooled = list(scan.run_pool(paths, options, 2, chunk=8))
    assert not calls, calls
    assert b"".join(c.data for c in pooled) == b"".join(c.data for c in inline)
    merged, folded = scan.Fleet(targets=TARGETS), scan.Fleet(targets=TARGETS)
    for chunk in pooled:
        merged.merge(chunk.tally)
    for line in b"".join(c.data for c in inline).splitlines():
        folded.add(json.loads(line))
    assert merged == folded


def test_a_chunk_travels_as_plain_values(fleet: Path) -> None:
    """A worker's message is rows already encoded and the fold as plain values: unpickling it
    names no class, so the parent calls no constructor or copyreg per tally (the dataclasses
    and Counters of a Fleet cost 3.5x as much to unpickle)."""
    paths = list(scan.walk([str(fleet / "team-3")]))[:40]
    chunk = scan.scan_chunk(paths, scan.ScanOptions(targets=TARGETS))
    message = chunk.encode()
    opcodes = {opcode.name for opcode, _, _ in pickletools.genops(message)}
    assert not opcodes & {"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "NEWOBJ", "INST", "OBJ"}
    back = scan.Chunk.decode(message)
    assert back == chunk and isinstance(back.data, bytes)
    per_target, tools = back.tally[8], back.tally[10]
    assert set(per_target) == set(TARGETS) and tools  # the fold is not empty
    merged, folded = scan.Fleet(targets=TARGETS), scan.Fleet(targets=TARGETS)
    merged.merge(back.tally)
    for line in back.data.splitlines():
        folded.add(json.loads(line))
    assert merged == folded


def test_merging_chunk_folds_in_walk_order_is_adding_every_row(
    pool_scan: tuple[Path, Path, str],
) -> None:
    rows = list(scan.read_rows(str(pool_scan[0])))
    every = scan.Fleet(targets=TARGETS)
    for row in rows:
        every.add(row)
    groups = [list(group) for _, group in itertools.groupby(rows, key=lambda r: r["path"])]
    for size in (1, 7, 64):
        merged = scan.Fleet(targets=TARGETS)
        for start in range(0, len(groups), size):
            merged.merge(scan.make_chunk(groups[start : start + size], TARGETS).tally)
        assert merged == every
        # The first example of each rule and reason, too (dict equality ignores order).
        for name in TARGETS:
            assert [(rule, t.example) for rule, t in merged.per_target[name].rules.items()] == [
                (rule, t.example) for rule, t in every.per_target[name].rules.items()
            ]
        assert list(merged.tools) == list(every.tools)


def test_merging_past_the_tool_limit_counts_what_adding_would(monkeypatch) -> None:
    monkeypatch.setattr(scan, "TOOL_LIMIT", 3)
    rows = []
    for number in range(6):
        row = scan.scan_file(str(SAMPLES / "article" / "items.json"), scan.ScanOptions())[0]
        row["tools"] = {f"tool-{number}": "d", f"tool-{number + 1}": "d"}
        rows.append(row)
    every = scan.Fleet()
    for row in rows:
        every.add(row)
    merged = scan.Fleet()
    for start in range(0, 6, 2):
        merged.merge(scan.make_chunk([[r] for r in rows[start : start + 2]], ()).tally)
    assert list(every.tools) == ["tool-0", "tool-1", "tool-2"]
    assert merged == every and merged.tools_left_out == every.tools_left_out > 0


def test_walk_is_stable_and_picks_transcripts(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".git").mkdir(parents=True)
    for name in ("b/2.jsonl", "b/1.json.gz", "a/x.sse", "a/.git/c.json", "a/skip.txt", "z.json"):
        (tmp_path / name).write_bytes(b"{}")
    found = [Path(p).relative_to(tmp_path).as_posix() for p in scan.walk([str(tmp_path)])]
    assert found == ["z.json", "a/x.sse", "b/1.json.gz", "b/2.jsonl"]
    globbed = scan.walk([str(tmp_path / "**" / "*.json*"), str(tmp_path / "z.json")])
    assert [Path(p).name for p in globbed] == ["1.json.gz", "2.jsonl", "z.json"]
    assert list(scan.walk([str(tmp_path / "a" / "skip.txt")])) == [str(tmp_path / "a/skip.txt")]


def test_progress_shows_files_rate_and_eta_on_a_terminal_only() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    now = [100.0]
    terminal = Terminal()
    progress = Progress(10, terminal, clock=lambda: now[0])
    now[0] = 102.0
    progress.advance(4, 800)
    assert "4/10 files" in terminal.getvalue() and "400 items/s" in terminal.getvalue()
    assert "ETA 0:03" in terminal.getvalue()  # 6 files left at 2 files/s
    piped = io.StringIO()
    quiet = Progress(10, piped, clock=lambda: now[0])
    quiet.advance(4, 800)
    quiet.finish()
    assert piped.getvalue() == ""


def test_a_tool_verdict_is_reused_only_for_the_same_declaration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Gemini judges a schema in parametersJsonSchema by other rules than one in parameters:
    a worker that met the same schema declared the other way must not answer from its cache."""
    native = SAMPLES / "native" / "gemini-request.json"
    (transcript,) = load_conversations(str(native))
    plain = tmp_path / "plain-request.json"
    tools = [
        {"type": "function", "name": t.name, "parameters": t.parameters}
        for t in transcript.tools.values()
    ]
    request = {"input": [{"role": "user", "content": "hi"}], "tools": tools}
    plain.write_text(json.dumps(request), encoding="utf-8")
    options = scan.ScanOptions(targets=("gemini",))
    monkeypatch.setattr(scan, "_VERDICTS", {})
    (alone,) = scan.scan_file(str(native), options)
    monkeypatch.setattr(scan, "_VERDICTS", {})
    (first,) = scan.scan_file(str(plain), options)
    (after,) = scan.scan_file(str(native), options)
    assert first["tools"] == alone["tools"]  # the same schemas…
    assert (
        first["targets"]["gemini"]["tools"] != alone["targets"]["gemini"]["tools"]
    )  # …judged apart
    assert after == alone


def test_an_unexpected_failure_on_one_file_is_its_row(monkeypatch, tmp_path: Path) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(scan, "gate_transcript", broken)
    (row,) = scan.scan_file(str(SAMPLES / "article" / "items.json"), scan.ScanOptions())
    assert "internal error" in row["error"]["message"] and "TypeError" in row["error"]["message"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resume"], "--resume needs -o"),
        (["-o", "rows.csv"], "-o must end in .jsonl or .parquet"),
        (["--scheduler", "tcp://x:1"], "--scheduler needs --engine dask"),
        (["--report", "r.pdf"], "--report must end in .html or .md"),
        (["--engine", "dask"], "--engine dask needs -o FOLDER"),
    ],
)
def test_bad_usage_is_one_line_and_status_2(args: list[str], message: str) -> None:
    status, out, err = _cli("scan", str(SAMPLES / "article"), *args)
    assert status == 2 and out == ""
    assert err.strip() == f"inspector scan: error: {message}" or message in err
    assert len(err.strip().splitlines()) == 1


def test_an_input_file_is_never_the_output(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    shutil.copy(SAMPLES / "logs" / "agent-session.jsonl", source)
    data = source.read_bytes()
    status, _, err = _cli("scan", str(source), "-o", str(source))
    assert status == 2 and "is an input file" in err
    assert source.read_bytes() == data


def test_a_tools_file_judges_every_file_as_gate_does_and_a_missing_one_is_one_line(
    tmp_path: Path,
) -> None:
    """--tools (whose loader the command imports only when it is given) reaches the scan."""
    items = str(SAMPLES / "article" / "items.json")
    tools = str(SAMPLES / "article" / "region-schema.tools.json")
    _, bare, _ = _cli("scan", items, "--jobs", "1")
    status, out, _ = _cli("scan", items, "--jobs", "1", "--tools", tools)
    _, gated, _ = _cli("gate", "--format", "json", "--tools", tools, items)
    (row,) = [json.loads(line) for line in out.splitlines()]
    (doc,) = json.loads(gated)["files"]
    assert status == 1 and row["verdicts"] == doc["summary"]
    assert row["verdicts"] != json.loads(bare)["verdicts"]  # the file alone declares no tool
    assert list(row["tools"]) == ["get_latest_sales_report"]
    status, out, err = _cli("scan", items, "--tools", str(tmp_path / "none.json"))
    assert status == 2 and out == "" and err.count("\n") == 1 and "no such file" in err


def test_a_tool_digest_is_blake2b_of_its_schema_and_strict_flag() -> None:
    """Taken from CPython's BLAKE2 module rather than hashlib (which sets up OpenSSL): the same
    digest hashlib gives, so rows and logs of earlier scans keep matching."""
    (transcript,) = load_conversations(str(SAMPLES / "native" / "gemini-request.json"))
    for tool in transcript.tools.values():
        data = orjson.dumps([tool.parameters, tool.strict], option=orjson.OPT_SORT_KEYS)
        assert scan.tool_digest(tool) == hashlib.blake2b(data, digest_size=8).hexdigest()


def test_rows_go_to_stdout_without_o() -> None:
    status, out, _ = _cli("scan", str(SAMPLES / "article" / "items.json"), "--jobs", "1")
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and row["verdicts"] and row["decision"] == "unsafe"


def test_fsspec_urls_are_walked_and_read_gzip_included() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    log = (SAMPLES / "logs" / "agent-session.jsonl").read_bytes()
    fs.pipe("/fleet-test/a/one.jsonl", log)
    fs.pipe("/fleet-test/b/two.jsonl.gz", gzip.compress(log))
    fs.pipe("/fleet-test/b/notes.txt", b"not a session")
    try:
        status, out, _ = _cli("scan", "memory://fleet-test/", "--jobs", "1")
        rows = [json.loads(line) for line in out.splitlines()]
        assert [r["path"] for r in rows] == [
            "memory://fleet-test/a/one.jsonl",
            "memory://fleet-test/b/two.jsonl.gz",
        ]
        local = scan.scan_file(str(SAMPLES / "logs" / "agent-session.jsonl"), scan.ScanOptions())
        for row in rows:
            assert row["verdicts"] == local[0]["verdicts"] and row["error"] is None
        assert status == 1
    finally:
        fs.rm("/fleet-test", recursive=True)


def test_an_output_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "missing-folder" / "rows.jsonl"
    status, _, err = _cli("scan", str(SAMPLES / "article"), "--jobs", "1", "-o", str(target))
    assert status == 2 and err.startswith("inspector scan: cannot write ")
    assert "missing-folder" in err and len(err.strip().splitlines()) == 1


def _opened_by_a_reader(fifo: Path) -> int:
    """Wait until a process opens `fifo` to read; the write end, then.

    A FIFO's write end opens without blocking only once a reader holds it open: the sign
    that a worker has started on the file. Bounded by a count of looks.
    """
    for _ in range(3000):
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.02)
    raise AssertionError("no worker started on the first file while the walk went on")


def test_workers_start_on_the_first_files_before_the_walk_ends(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The scan command hands the first file to a worker while its walk is still going."""
    first = tmp_path / "first.json"
    os.mkfifo(first)
    sample = SAMPLES / "article" / "items.json"
    walk = scan.walk

    def slow_walk(arguments: list[str]):
        yield str(first)
        # The walk goes on only once a worker reads the first file.
        with os.fdopen(_opened_by_a_reader(first), "wb") as writer:
            writer.write(sample.read_bytes())
        yield from walk(arguments)

    monkeypatch.setattr(scan, "walk", slow_walk)
    out = tmp_path / "rows.jsonl"
    status, _, err = _cli("scan", str(sample), "--jobs", "2", "-o", str(out))
    assert status == 1, err
    rows = list(scan.read_rows(str(out)))
    assert [r["path"] for r in rows] == [str(first), str(sample)]  # walk order
    assert rows[0]["verdicts"] == rows[1]["verdicts"]


def _task(*sizes: int) -> scan.Task:
    return scan.Task([f"f{n}-{size}" for n, size in enumerate(sizes)], list(sizes))


def test_tasks_are_cut_by_files_and_bytes_and_ramp_up(tmp_path: Path) -> None:
    """The first tasks are small, later ones up to the file cap, a large file alone."""
    paths = []
    for number in range(40):
        path = tmp_path / f"{number:02d}.json"
        path.write_bytes(b" " * (3 * scan.CHUNK_BYTES // 2 if number == 20 else 100))
        paths.append(str(path))
    tasks = list(scan._tasks(paths, 8, None, scan.CHUNK_BYTES))
    assert [len(t.paths) for t in tasks] == [1, 2, 4, 8, 5, 1, 8, 8, 3]
    assert [p for t in tasks for p in t.paths] == paths  # walk order, every file once
    assert tasks[5].paths == [paths[20]] and tasks[5].cost == 3 * scan.CHUNK_BYTES // 2
    # One job scans in walk order, a task per `chunk` files, and nothing is looked up.
    inline = list(scan._tasks(paths, 8, None))
    assert [len(t.paths) for t in inline] == [8] * 5 and {s for t in inline for s in t.sizes} == {0}


def test_the_largest_waiting_task_starts_first() -> None:
    window = [_task(10, 10), _task(5_000), _task(300), _task(1, 1)]
    window[0].started = True  # already running
    assert scan.next_tasks(window, 2) == [window[1], window[2]]
    window[3].chunk = scan.make_chunk([], ())  # a file taken from the log: nothing to start
    assert scan.next_tasks(window, 5) == [window[1], window[2]]


def test_the_last_tasks_of_a_walk_are_cut_finer_in_walk_order() -> None:
    running = _task(1, 1, 1)
    running.started = True
    window = [running, _task(*range(1, 17)), _task(5, 5)]
    tail = scan.split_tail(window, 2)
    assert tail[0] is running and len(tail[0].paths) == 3  # a started task is left whole
    waiting = tail[1:]
    assert len(waiting) >= 4 * 2
    assert [p for t in tail for p in t.paths] == [p for t in window for p in t.paths]
    assert [s for t in tail for s in t.sizes] == [s for t in window for s in t.sizes]
    alone = scan.split_tail([_task(7)], 2)  # nothing left to cut
    assert [t.paths for t in alone] == [["f0-7"]]


def test_the_last_tasks_to_start_shrink_to_one_file_each() -> None:
    """Started largest first, the tail's tasks shrink towards the end, and each process's last
    task is one file, so the processes end within about a file of each other."""
    window = [_task(*[100] * 32) for _ in range(6)]
    tail = scan.split_tail(window, 2)
    order = [len(t.paths) for t in scan.next_tasks(tail, len(tail))]  # the order they start in
    assert order == [32] * 4 + [16] * 3 + [8, 4] + [1] * 4
    assert [p for t in tail for p in t.paths] == [p for t in window for p in t.paths]
