"""Reading files, standard input (`-`), pipes, devices and gzip: bounded, cancellable, clear."""

from __future__ import annotations

import gzip
import io
import json
import os
import resource
import selectors
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from inspector.cli import run as cli_run
from inspector.core import jsonio
from inspector.core.formats import load_path, load_stream_path, load_tools
from inspector.core.jsonio import read_bytes
from inspector.core.model import Cancelled, LoadError, Transcript
from tests.conftest import REPO, SAMPLES

ITEMS = SAMPLES / "article" / "items.json"
LOG = SAMPLES / "logs" / "agent-session.jsonl"
STREAM = SAMPLES / "streams" / "function-call.sse"
TOOLS = SAMPLES / "article" / "region-schema.tools.json"

linux = pytest.mark.skipif(sys.platform != "linux", reason="FIFOs, /dev and /proc as on Linux")

#: Runs the CLI with a lower read limit, the way a test can afford to pass it.
SMALL_LIMIT_CLI = (
    "import sys; import inspector.core.jsonio as j; j.MAX_FILE_BYTES = int(sys.argv[1]); "
    "from inspector.cli import run; sys.exit(run(sys.argv[2:]))"
)


def inspector(
    *args: str,
    stdin: Any = None,
    input: bytes | None = None,
    memory_cap: int | None = None,
    limit: int | None = None,
) -> tuple[int, str, str]:
    """Run `python -m inspector` in a fresh process; return status, stdout, stderr."""
    command = [sys.executable, "-m", "inspector", *args]
    if limit is not None:
        command = [sys.executable, "-c", SMALL_LIMIT_CLI, str(limit), *args]

    def cap() -> None:
        if memory_cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap))

    done = subprocess.run(
        command,
        stdin=stdin,
        input=input,
        capture_output=True,
        cwd=REPO,
        timeout=60,
        preexec_fn=cap,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def shell(script: str) -> tuple[int, str, str]:
    """Run a bash script from the repository, with `$PY` naming this Python."""
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "PY": sys.executable},
    )
    return done.returncode, done.stdout, done.stderr


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI in this process."""
    out, err = io.StringIO(), io.StringIO()
    status = cli_run(list(args), out, err)
    return status, out.getvalue(), err.getvalue()


def summary(transcript: Transcript) -> list[tuple[Any, ...]]:
    """What must not depend on how the bytes arrived."""
    return [(i.type_label, i.call_id, i.origin.line, i.origin.pointer) for i in transcript.items]


def gate_json(path: str) -> dict[str, Any]:
    status, out, _ = run("gate", path, "--format", "json")
    assert status in (0, 1)
    return json.loads(out)["files"][0]


# --------------------------------------------------------------------------------------------
# Standard input


def test_dash_reads_a_redirected_file_and_shows_stdin() -> None:
    with ITEMS.open("rb") as handle:
        status, out, err = inspector("gate", "-", "--format", "json", stdin=handle)
    expected = gate_json(str(ITEMS))
    document = json.loads(out)["files"][0]
    assert status == 1 and err == ""
    assert document["path"] == "<stdin>"
    assert document["items"] == expected["items"]


def test_dash_reads_a_pipe() -> None:
    status, out, err = shell(f'cat {LOG.relative_to(REPO)} | "$PY" -m inspector gate -')
    assert status == 1, err
    assert out.startswith("<stdin>  (jsonl, ")


def test_stdin_errors_say_stdin_and_where() -> None:
    status, out, err = inspector("gate", "-", input=b'{"input": [\n  {"type": oops}\n]}')
    assert status == 2 and out == ""
    assert err.startswith("inspector: <stdin>:2:")
    assert "Traceback" not in err


def test_events_and_diff_read_stdin() -> None:
    status, out, _ = inspector("events", "-", input=STREAM.read_bytes())
    assert status in (0, 1) and out.startswith("<stdin>  (Open Responses stream, sse")
    status, out, _ = inspector(
        "diff", str(ITEMS), "-", "--format", "json", input=ITEMS.read_bytes()
    )
    document = json.loads(out)
    # The article's items block on their own (as `gate` says), so replaying them is unsafe.
    assert status == 1 and (document["left"], document["right"]) == (str(ITEMS), "<stdin>")
    assert document["verdict_summary"]["outcome"] == "unsafe"


def test_diff_takes_stdin_for_one_side_only() -> None:
    status, out, err = inspector("diff", "-", "-", input=ITEMS.read_bytes())
    assert status == 2 and out == ""
    assert "only one of LEFT and RIGHT can be -" in err


def test_loaders_name_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    os.write(write, ITEMS.read_bytes())
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(pipe))
        transcript = load_path("-")
    assert transcript.path == "<stdin>"
    assert summary(transcript) == summary(load_path(ITEMS))


def test_no_standard_input_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(LoadError, match="no standard input") as info:
        read_bytes("-")
    assert info.value.path == "<stdin>"


# --------------------------------------------------------------------------------------------
# Pipes


@linux
def test_named_pipe_fed_by_a_writer_thread(tmp_path: Path) -> None:
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    data = LOG.read_bytes()

    def writer() -> None:
        time.sleep(0.2)  # the reader is waiting for a writer first
        with open(fifo, "wb", buffering=0) as handle:
            for start in range(0, len(data), 500):  # in pieces, with pauses between them
                handle.write(data[start : start + 500])
                time.sleep(0.01)

    thread = threading.Thread(target=writer)
    thread.start()
    transcript = load_path(fifo)
    thread.join()
    assert summary(transcript) == summary(load_path(LOG))


@linux
def test_named_pipe_without_a_writer_is_cancelled(tmp_path: Path) -> None:
    fifo = tmp_path / "never.jsonl"
    os.mkfifo(fifo)
    cancel = threading.Event()
    outcome: list[BaseException | bytes] = []

    def reader() -> None:
        try:
            outcome.append(read_bytes(fifo, cancel=cancel))
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive() and not outcome  # still waiting for a writer
    cancel.set()
    thread.join(timeout=60)  # a guard against a hang, not a measure: the poll sees the flag
    assert not thread.is_alive()
    assert isinstance(outcome[0], Cancelled) and "cancelled" in str(outcome[0])
    assert str(fifo) in str(outcome[0])


@linux
def test_only_a_pipe_is_read_through_a_selector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A regular file's read never waits: no selector is made for it (a scan reads thousands).
    made: list[Any] = []

    def counted() -> Any:
        made.append(selector := selectors.DefaultSelector())
        return selector

    monkeypatch.setattr(jsonio, "selectors", _Selectors(counted))
    assert read_bytes(LOG) == LOG.read_bytes()
    assert made == []
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    thread = threading.Thread(target=lambda: fifo.write_bytes(LOG.read_bytes()))
    thread.start()
    assert read_bytes(fifo) == LOG.read_bytes()
    thread.join()
    assert len(made) == 1 and made[0].get_map() is None  # made, and closed once read


class _Selectors:
    """The `selectors` module as jsonio uses it, with DefaultSelector replaced."""

    def __init__(self, default: Any) -> None:
        self.DefaultSelector = default
        self.EVENT_READ = selectors.EVENT_READ


def test_cancel_stops_reading_a_file(tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled, match="cancelled"):
        read_bytes(ITEMS, cancel=cancel)


@linux
def test_process_substitution_keeps_working() -> None:
    sample = ITEMS.relative_to(REPO)
    status, out, err = shell(f'"$PY" -m inspector gate <(cat {sample})')
    assert status == 1, err
    assert out.startswith("/dev/fd/") and "(items, 4 items)" in out
    status, out, err = shell(f'"$PY" -m inspector gate <(gzip -c {sample})')
    assert status == 1, err
    assert "(items, 4 items)" in out


# --------------------------------------------------------------------------------------------
# Devices, binary data and the size limit


@linux
def test_dev_zero_ends_at_once_in_bounded_memory() -> None:
    # Under a 1 GB address-space cap, and judged on the first chunk (byte offset 0): an endless
    # device is refused without being read on.
    status, out, err = inspector("gate", "/dev/zero", memory_cap=1 << 30)
    assert status == 2 and out == ""
    assert err == (
        "inspector: /dev/zero: binary data, not a transcript (a NUL byte at byte offset 0)\n"
    )


@linux
def test_dev_urandom_ends_at_once() -> None:
    status, _, err = inspector("gate", "/dev/urandom", memory_cap=1 << 30)
    assert status == 2
    assert err.startswith("inspector: /dev/urandom: binary data, not a transcript")


def test_random_bytes_are_refused_with_the_offset(tmp_path: Path) -> None:
    # No NUL and no line break: continuation bytes with no lead byte, invalid UTF-8 at once.
    noise = bytes(0x80 | (b & 0x3F) for b in os.urandom(4096))
    path = tmp_path / "noise.jsonl"
    path.write_bytes(b'{"type": "message"}\n' + noise)
    with pytest.raises(LoadError, match="binary data, not a transcript") as info:
        read_bytes(path)
    assert "invalid UTF-8" in info.value.message and "at byte offset " in info.value.message
    assert info.value.line == 2
    (tmp_path / "nul.json").write_bytes(b'[{"type": "message"}]\n\0\0')
    with pytest.raises(LoadError, match=r"NUL byte at byte offset 22\)"):
        read_bytes(tmp_path / "nul.json")


def test_text_is_not_mistaken_for_binary(tmp_path: Path) -> None:
    # A two-byte character cut in half by the end of the first chunk is still text.
    head = b'[{"type": "message", "role": "user", "content": "'
    data = head + b"x" * (jsonio.CHUNK_BYTES - 1 - len(head)) + "é".encode() + b'"}]'
    assert data[jsonio.CHUNK_BYTES - 1 : jsonio.CHUNK_BYTES + 1] == "é".encode()
    path = tmp_path / "long.json"
    path.write_bytes(data)
    assert load_path(path).items[0].raw["content"].endswith("é")
    # UTF-16 and UTF-32 with a BOM are full of NUL bytes, and are text.
    for encoding in ("utf-16", "utf-32"):
        wide = tmp_path / f"{encoding}.json"
        wide.write_bytes(ITEMS.read_text(encoding="utf-8").encode(encoding))
        assert summary(load_path(wide)) == summary(load_path(ITEMS))


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(LOG.read_bytes() * 4)
    limit = path.stat().st_size - 1
    with pytest.raises(LoadError, match=f"file is {limit + 1:,} bytes; the limit is {limit:,}"):
        read_bytes(path, limit=limit)
    assert read_bytes(path, limit=limit + 1) == path.read_bytes()


@linux
def test_an_endless_pipe_stops_at_the_limit_in_bounded_memory() -> None:
    status, _, err = shell(
        f'yes \'{{"type": "message"}}\' | "$PY" -c \'{SMALL_LIMIT_CLI}\' 1048576 gate -'
    )
    assert status == 2
    assert err == (
        "inspector: <stdin>: input is larger than the limit of 1,048,576 bytes (1 MiB)\n"
    )


def test_the_default_limit_is_two_gib() -> None:
    assert jsonio.MAX_FILE_BYTES == 2 * 1024**3


# --------------------------------------------------------------------------------------------
# gzip


def test_gzipped_jsonl_loads_like_the_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "agent-session.jsonl.gz"
    path.write_bytes(gzip.compress(LOG.read_bytes()))
    assert summary(load_path(path)) == summary(load_path(LOG))
    document = gate_json(str(path))
    assert document["path"] == str(path)
    assert document["items"] == gate_json(str(LOG))["items"]


def test_gzip_is_known_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(gzip.compress(TOOLS.read_bytes()))
    assert set(load_tools(path)) == set(load_tools(TOOLS))
    status, out, _ = inspector("gate", "-", input=gzip.compress(LOG.read_bytes()))
    assert status == 1 and out.startswith("<stdin>  (jsonl, ")


def test_gzipped_stream_and_concatenated_members(tmp_path: Path) -> None:
    data = STREAM.read_bytes()
    middle = data.index(b"\n\n", len(data) // 2) + 2
    path = tmp_path / "function-call.sse.gz"
    # Two gzip members one after the other, as `cat a.gz b.gz` makes: one stream.
    path.write_bytes(gzip.compress(data[:middle]) + gzip.compress(data[middle:]))
    assert load_stream_path(path).stream == load_stream_path(STREAM).stream
    status, out, _ = run("events", str(path))
    assert status == run("events", str(STREAM))[0]
    assert out.startswith(f"{path}  (Open Responses stream, sse")


def test_corrupt_gzip_is_a_clear_error(tmp_path: Path) -> None:
    packed = gzip.compress(LOG.read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(LoadError, match="gzip data is cut short"):
        read_bytes(cut)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(packed[:20] + bytes(b ^ 0x5A for b in packed[20:60]) + packed[60:])
    with pytest.raises(LoadError, match="corrupt gzip data") as info:
        read_bytes(broken)
    assert info.value.path == str(broken)
    status, out, err = run("gate", str(broken))
    assert status == 2 and out == "" and err.startswith(f"inspector: {broken}: corrupt gzip")


def _bomb(path: Path, content: bytes, decompressed: int) -> None:
    """A gzip file of `decompressed` bytes of `content`: one small member, repeated."""
    member = gzip.compress(content * ((1 << 20) // len(content)), compresslevel=9)
    with path.open("wb") as handle:
        for _ in range(decompressed >> 20):
            handle.write(member)


def test_a_zeros_bomb_is_refused_at_once(tmp_path: Path) -> None:
    bomb = tmp_path / "zeros.gz"
    _bomb(bomb, b"\0", 3 * 10**9)  # 3 GB of zeros in about 3 MB
    tracemalloc.start()
    try:
        # Offset 0: judged on the first decompressed chunk, never inflated further.
        with pytest.raises(LoadError, match="NUL byte at byte offset 0 of the decompressed data"):
            read_bytes(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_a_text_bomb_stops_at_the_limit_in_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "spaces.jsonl.gz"
    _bomb(bomb, b" " * 1023 + b"\n", 3 * 10**9)  # 3 GB of JSON whitespace in about 3 MB
    limit = 32 << 20
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as info:
            read_bytes(bomb, limit=limit)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.message == (
        "decompressed data is larger than the limit of 33,554,432 bytes (32 MiB)"
    )
    assert peak < 3 * limit


# --------------------------------------------------------------------------------------------
# Read errors


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such file") as info:
        read_bytes(tmp_path / "missing.json")
    assert info.value.path == str(tmp_path / "missing.json")
    with pytest.raises(LoadError, match="is a directory"):
        read_bytes(tmp_path)
    (tmp_path / "empty.json").write_bytes(b"")
    assert read_bytes(tmp_path / "empty.json") == b""


def test_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret.json"
    path.write_bytes(ITEMS.read_bytes())
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything: have the system refuse the open

        def refuse(name: str, *args: Any) -> int:
            raise PermissionError(13, "Permission denied", name)

        monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(LoadError, match="permission denied") as info:
        read_bytes(path)
    assert info.value.path == str(path)


def test_a_regular_file_is_read_into_one_buffer_of_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(b'{"n": %d}\n' % i for i in range(500_000))  # about 6 MB
    path = tmp_path / "big.jsonl"
    path.write_bytes(data)
    calls = {"read": 0, "readv": 0}
    real_read, real_readv = os.read, os.readv

    def read(fd: int, n: int) -> bytes:
        calls["read"] += 1
        return real_read(fd, n)

    def readv(fd: int, buffers: Any) -> int:
        calls["readv"] += 1
        return real_readv(fd, buffers)

    monkeypatch.setattr(jsonio.os, "read", read)
    monkeypatch.setattr(jsonio.os, "readv", readv)
    assert read_bytes(path) == data
    # The head (to sniff gzip), then the kernel writes the rest into the buffer; one last
    # read finds the end. Chunks copied into a growing buffer took a read per megabyte.
    assert calls["read"] == 2 and calls["readv"] >= len(data) // jsonio.CHUNK_BYTES


def test_a_file_that_grows_after_it_was_opened_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b'{"n": 1}\n' * 200_000)
    opened = jsonio._open

    def open_then_append(name: str) -> Any:
        fd, info, owned = opened(name)
        with open(path, "ab") as out:  # the agent writes on after the file was opened
            out.write(b'{"n": 2}\n')
        return fd, info, owned

    monkeypatch.setattr(jsonio, "_open", open_then_append)
    assert read_bytes(path).endswith(b'{"n": 1}\n{"n": 2}\n')


def test_standard_input_redirected_at_an_offset_reads_from_there(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(b"skipped\n" + b'{"n": 1}\n' * 300_000)
    code = (
        "import os, sys\n"
        "from inspector.core.jsonio import read_bytes\n"
        "os.lseek(0, 8, os.SEEK_SET)\n"
        "data = read_bytes('-')\n"
        "sys.stdout.write(f'{len(data)} {data[:8]!r}')\n"
    )
    with open(path, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True, cwd=REPO
        )
    first = b'{"n": 1}'
    assert done.stdout == f"{len(path.read_bytes()) - 8} {first!r}", done.stderr
