"""The fleet scan: 2,000 generated files, every row against `gate --format json`, resume, Dask."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

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


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fleet")
    make_fleet(folder)
    return folder


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
                examples.setdefault(f["rule"], f["message"][: scan.EXAMPLE_CHARS])
            assert entry["rules"] == dict(Counter(f["rule"] for f in found)), row["path"]
            assert entry["examples"] == examples
            assert entry["errors"] == sum(f["severity"] == "error" for f in found)
            assert entry["warnings"] == sum(f["severity"] == "warning" for f in found)
            assert entry["decision"] == _blocks(with_target), row["path"]
            assert entry["tools"] == marks[target], row["path"]


def _scan_command(fleet: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "inspector",
        "scan",
        str(fleet),
        "--target",
        *TARGETS,
        "--jobs",
        "2",
        "-o",
        str(out),
        *extra,
    ]


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


def test_a_handful_of_rows_agree_with_the_real_gate_command(
    pool_scan: tuple[Path, Path, str],
) -> None:
    rows = list(scan.read_rows(str(pool_scan[0])))
    picked = [r for r in rows if r["error"] is None][:: max(1, len(rows) // 5)][:5]
    picked.append(next(r for r in rows if r["error"]))
    for row in picked:
        done = subprocess.run(
            [sys.executable, "-m", "inspector", "gate", "--format", "json", row["path"]],
            capture_output=True,
            text=True,
            timeout=120,
        )
        # A file of several conversations is several rows; gate lists them in the same order.
        files = json.loads(done.stdout)["files"]
        doc = files[row["conversation"] or 0]
        if row["error"]:
            assert done.returncode == 2 and row["error"] == {
                "event_index": None,
                "pointer": None,
                **doc["error"],
            }
            continue
        assert row["verdicts"] == doc["summary"]
        assert row["items"] == len(doc["items"])
        assert row["decision"] == _blocks(doc)
        # gate's exit status is the file's: unsafe when any of its conversations is.
        assert (done.returncode == 1) == any(_blocks(d) == "unsafe" for d in files)


def test_resume_after_a_killed_scan_writes_the_same_output(
    fleet: Path, pool_scan: tuple[Path, Path, str], tmp_path: Path
) -> None:
    out = tmp_path / "rows.jsonl"
    partial = tmp_path / "rows.jsonl.partial"
    process = subprocess.Popen(
        _scan_command(fleet, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        # Kill it once some files are logged: a real interruption half-way.
        while process.poll() is None:
            if partial.exists() and partial.read_bytes().count(b"\n") >= 100:
                process.send_signal(signal.SIGTERM)
                break
            time.sleep(0.05)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, "the scan ended before it could be interrupted"
    assert "kept for --resume" in stderr and "Traceback" not in stderr
    assert not out.exists() and partial.exists()
    logged = partial.read_bytes().count(b"\n")
    assert 100 <= logged < FILES
    done = subprocess.run(
        [*_scan_command(fleet, out), "--resume"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr
    assert out.read_bytes() == pool_scan[0].read_bytes()
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


def test_dask_on_a_local_cluster_gives_the_same_rows(
    fleet: Path, pool_scan: tuple[Path, Path, str], tmp_path: Path
) -> None:
    pytest.importorskip("dask.distributed")
    psutil = pytest.importorskip("psutil")

    def children() -> set[int]:
        # multiprocessing's resource tracker lives as long as this interpreter, by design.
        return {
            p.pid
            for p in psutil.Process().children(recursive=True)
            if "resource_tracker" not in " ".join(p.cmdline())
        }

    before = children()
    parts = tmp_path / "parts"
    report = tmp_path / "readiness.md"
    status, _, err = _cli(
        "scan", str(fleet), "--target", *TARGETS, "--engine", "dask", "--jobs", "2",
        "-o", str(parts), "--report", str(report),
    )  # fmt: skip
    assert status == 2, err
    assert len(list(parts.glob("part-*.parquet"))) > 1
    assert list(scan.read_rows(str(parts))) == list(scan.read_rows(str(pool_scan[0])))
    assert "openai" in report.read_text(encoding="utf-8")
    # The local cluster's workers and nanny processes are gone (they may take a moment to exit;
    # the wait is bounded by a count of looks, not by a clock).
    for _ in range(300):
        if not children() - before:
            break
        time.sleep(0.1)
    assert not children() - before, "Dask worker processes outlived the scan"


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

    inline = scan.scan_file(str(SAMPLES / "article" / "items.json"), scan.ScanOptions())
    rows = scan.run_pool(endless(), scan.ScanOptions(), 2, chunk=4)
    first = [next(rows) for _ in range(10)]
    rows.close()
    assert first == [inline] * 10
    # 2 jobs × 4 chunks of 4 in flight, and one more chunk per chunk consumed.
    assert len(taken) <= 2 * 4 * 4 + 4 * 4


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
