"""A JSON Lines file gated by runs is read run by run from the file, never held whole here."""

from __future__ import annotations

import gzip
import io
import json
import os
import random

import pytest

from inspector.cli import run
from inspector.core import formats, jsonio, parallel
from inspector.core.model import LoadError
from tests.benchmarks import synthetic


@pytest.fixture
def tools_file(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return path


def _log(path, items: int = 300, seed: int = 5) -> bytes:
    """A synthetic log with blank lines, CRLF line ends and no newline after its last line."""
    rng = random.Random(seed)
    lines = [json.dumps(item) for item in synthetic.items(items, seed=seed)]
    text = ""
    for line in lines:
        text += line + rng.choice(["\n", "\n", "\n", "\r\n", "\n\n", "\n \t\n"])
    data = text.rstrip("\r\n").encode("utf-8")
    path.write_bytes(data)
    return data


def _runs(path, run_bytes: int, last: int) -> tuple[formats.JsonlRuns, list] | str | None:
    fd = os.open(path, os.O_RDONLY)
    try:
        runs = formats.jsonl_file_runs(fd, os.fstat(fd).st_size, str(path), run_bytes, last)
        if runs is None or isinstance(runs, str):
            return runs
        # Read while the descriptor is open: each run's bytes and counts.
        return formats.JsonlRuns(
            b"".join(runs.piece(n) for n in range(len(runs.runs))), runs.path, runs.runs
        ), [formats.run_lines(runs, n) for n in range(len(runs.runs))]
    finally:
        os.close(fd)


@pytest.mark.parametrize("run_bytes", [1, 97, 1500, 4096, 10**6])
def test_the_file_is_cut_where_its_bytes_held_whole_are_cut(tmp_path, run_bytes):
    path = tmp_path / "log.jsonl"
    data = _log(path)
    made = _runs(path, run_bytes, max(run_bytes // 4, 1))
    assert isinstance(made, tuple)
    read, counts = made
    whole = formats.jsonl_runs(data, str(path), run_bytes, max(run_bytes // 4, 1))
    assert whole is not None
    assert read.runs == whole.runs
    assert read.data == data  # the runs read from the file are its bytes, in order
    assert counts == [formats.run_lines(whole, n) for n in range(len(whole.runs))]


@pytest.mark.parametrize(
    ("what", "answer"),
    [
        ("gzip", formats.READ_WHOLE),
        ("session", formats.READ_WHOLE),
        ("long first line", formats.READ_WHOLE),
        ("one line", formats.READ_WHOLE),
        ("document", None),
        ("bom", None),
        ("binary", None),
    ],
)
def test_a_head_that_cannot_tell_as_the_whole_file_would_says_so(
    tmp_path, monkeypatch, what, answer
):
    # READ_WHOLE: the caller reads the file whole, as before; None: it is no file of bare
    # items by runs, as `jsonl_runs` of its bytes says (or the usual way says what is wrong).
    path = tmp_path / "log.jsonl"
    data = _log(path)
    if what == "gzip":
        path.write_bytes(gzip.compress(data))
    elif what == "session":  # a Codex rollout's first line: its format's markers
        path.write_bytes(b'{"type":"session_meta","payload":{"id":"x"}}\n' + data)
    elif what == "long first line":
        monkeypatch.setattr(formats, "CHUNK_BYTES", data.index(b"\n") // 2)
    elif what == "one line":
        path.write_bytes(data.split(b"\n")[0])
    elif what == "document":
        path.write_bytes(b'{"input": [\n' + data.split(b"\n")[0] + b"\n]}\n")
    elif what == "bom":
        path.write_bytes(b"\xef\xbb\xbf" + data)
    if what == "binary":
        path.write_bytes(data[:100] + b"\0" + data[100:])
        with pytest.raises(LoadError, match="binary data"):
            _runs(path, 1500, 400)
        return
    assert _runs(path, 1500, 400) == answer
    whole = jsonio.read_bytes(path)
    if answer is None:
        assert formats.jsonl_runs(whole, str(path), 1500, 400) is None


def _gate(*args: str) -> tuple[int, bytes, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(["gate", "--format", "json", *args], out, err)
    return status, out.getvalue().encode("utf-8"), err.getvalue()


def _whole_reads(monkeypatch) -> list[str]:
    """The files the gate by runs reads whole (`read_bytes`), as it reads them."""
    read: list[str] = []
    original = jsonio.read_bytes

    def spy(path, *args, **kwargs):
        read.append(os.fspath(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(parallel, "read_bytes", spy)
    return read


def test_the_gate_by_runs_reads_no_file_whole(tmp_path, tools_file, by_runs, monkeypatch):
    path = tmp_path / "log.jsonl"
    _log(path)
    alone = _gate(str(path), "--tools", str(tools_file), "--jobs", "1")
    read = _whole_reads(monkeypatch)
    assert _gate(str(path), "--tools", str(tools_file), "--jobs", "2") == alone
    assert len(by_runs) == 1 and by_runs[0] is not None
    assert by_runs[0].makers - {os.getpid()}  # a worker made runs, read from the file
    assert read == []


def test_a_head_that_cannot_tell_has_the_file_read_whole(
    tmp_path, tools_file, by_runs, monkeypatch
):
    path = tmp_path / "log.jsonl"
    data = _log(path)
    alone = _gate(str(path), "--tools", str(tools_file), "--jobs", "1")
    read = _whole_reads(monkeypatch)
    monkeypatch.setattr(formats, "CHUNK_BYTES", data.index(b"\n") // 2)
    assert _gate(str(path), "--tools", str(tools_file), "--jobs", "2") == alone
    assert by_runs[0] is not None  # still by runs, of the bytes read whole
    assert read == [str(path)]


def test_a_file_cut_short_while_it_is_gated_goes_the_usual_way(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # Cut into runs, then shortened before its last runs are read: those runs cannot be read
    # again, and the usual way gates the file as it is then.
    path = tmp_path / "log.jsonl"
    data = _log(path)
    original = parallel._RunGate.__init__

    def shortened(self, *args, **kwargs):
        path.write_bytes(data[: len(data) // 2])
        original(self, *args, **kwargs)

    monkeypatch.setattr(parallel._RunGate, "__init__", shortened)
    status, out, err = _gate(str(path), "--tools", str(tools_file), "--jobs", "2")
    assert by_runs == [None]
    monkeypatch.setattr(parallel._RunGate, "__init__", original)
    assert (status, out, err) == _gate(str(path), "--tools", str(tools_file), "--jobs", "1")


def test_a_run_that_cannot_be_read_again_is_a_load_error(tmp_path):
    path = tmp_path / "log.jsonl"
    data = _log(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        runs = formats.jsonl_file_runs(fd, len(data), str(path), 1500, 400)
        assert isinstance(runs, formats.JsonlRuns)
        os.truncate(path, runs.runs[-1][0])
        assert runs.piece(0) == data[: runs.runs[0][1]]
        with pytest.raises(LoadError, match=r"run \d+ \(bytes .* could not be read again"):
            runs.piece(len(runs.runs) - 1)
    finally:
        os.close(fd)


def test_a_file_its_first_chunk_shows_is_no_log_of_items_is_not_read_whole_by_runs(
    tmp_path, tools_file, by_runs, monkeypatch
):
    # A large JSON document (here, of a request): the usual way reads it, once.
    path = tmp_path / "request.json"
    items = list(synthetic.items(300, seed=9))
    path.write_text(json.dumps({"model": "m", "input": items}, indent=1), encoding="utf-8")
    alone = _gate(str(path), "--tools", str(tools_file), "--jobs", "1")
    read = _whole_reads(monkeypatch)
    assert _gate(str(path), "--tools", str(tools_file), "--jobs", "2") == alone
    assert by_runs == [None]
    assert read == []
