"""A large OTLP trace file (the collector's file exporter's lines) gated on every core.

Each line of the file exporter is one export request, and a conversation is a trace (or a
`gen_ai.conversation.id`), so once the lines are cut into runs, each run's conversations can be
loaded, gated and written by a forked worker on its own. The runs are put together in order
when no conversation id, trace or joined span is in two of them; the file's first
conversation, whose note counts every conversation of the file, is made here once all are known.
Anything else (a run that does not load, runs that share a trace, a worker that dies) gives
None, and the caller gates the file the usual way, which also gives any error exactly. The
report is byte for byte what one process writes.
"""

from __future__ import annotations

import mmap
import os
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from inspector.commands.common import Encoded, write_element
from inspector.core.formats import SESSION_MARKERS
from inspector.core.jsonio import GZIP_MAGIC, MAX_FILE_BYTES
from inspector.core.model import Transcript, paused_gc
from inspector.core.parallel import (
    POOL_MIN_BYTES,
    Forks,
    default_jobs,
    forkable_file,
)

if TYPE_CHECKING:
    from inspector.core.formats import otel

#: A conversation's report: its JSON document, and whether its decision blocks.
Report = Callable[[str, Transcript], tuple[dict[str, Any], bool]]
#: Bytes of the file in the smallest run; a file is cut into about four runs a process, so a
#: process that ends its runs early takes another.
RUN_MIN_BYTES = 1 << 20
RUNS_PER_JOB = 4


@dataclass(frozen=True, slots=True)
class _Run:
    """What a worker sends back of one run: the rest is in its documents' file."""

    ids: list[str]
    links: set[otel.Link]
    #: Bytes of encoded documents written to the run's file.
    size: int
    blocks: bool
    #: The first run's first conversation's inferences, pickled: made by the gate's process.
    first: bytes | None
    pid: int


@dataclass(frozen=True, slots=True)
class TraceGate:
    """A trace file gated by runs: its conversations' documents, encoded, in order."""

    encoded: Encoded
    #: Whether any conversation's decision blocks.
    blocks: bool
    #: Each run's file of encoded documents, and its size.
    files: list[Any]
    sizes: list[int]
    #: The processes that made runs.
    makers: frozenset[int]

    def close(self) -> None:
        """Close the runs' files."""
        for handle in self.files:
            handle.close()


#: What a forked worker reads (set before the fork).
_SHARED: dict[str, Any] = {}


def gate_trace_on_cores(
    arg: str, path: str, report: Report, *, jobs: int | None, level: int
) -> TraceGate | None:
    """Gate an OTLP JSON Lines file on `jobs` processes (None: every core), each loading,
    gating and encoding (`report`, at `level` of the document) runs of its lines; None when
    the file is not one, is smaller than POOL_MIN_BYTES, or cannot be gated so."""
    jobs = default_jobs() if jobs is None else jobs
    if not forkable_file(arg, jobs, POOL_MIN_BYTES):
        return None
    try:
        with open(arg, "rb") as handle:
            # Mapped, not read: each worker reads its own runs' pages. A compressed or
            # oversized file goes the usual way, which reads or refuses it.
            if handle.read(2) == GZIP_MAGIC or os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                return None
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        return _mapped(cast(bytes, mapped), path, report, jobs, level)
    finally:
        mapped.close()


def _mapped(data: bytes, path: str, report: Report, jobs: int, level: int) -> TraceGate | None:
    if not any(mark in data[:4096] for mark in SESSION_MARKERS["otel"]):
        return None  # not a trace: its reader is not imported
    from inspector.core.formats import otel

    size = max(RUN_MIN_BYTES, len(data) // (jobs * RUNS_PER_JOB) + 1)
    runs = otel.line_runs(data, size)
    if runs is None:
        return None
    import tempfile

    # Closed once read (TraceGate.close), or here when the gate fails.
    files = [tempfile.TemporaryFile() for _ in runs]  # noqa: SIM115
    try:
        made = _gate(data, runs, path, report, jobs, level, [f.fileno() for f in files])
    except BaseException:
        for handle in files:
            handle.close()
        raise
    if made is None:
        for handle in files:
            handle.close()
        return None
    first, sizes, blocks, makers = made
    encoded = Encoded(_joined(first, files, sizes, level))
    return TraceGate(encoded, blocks, files, sizes, makers)


def _gate(
    data: bytes,
    runs: list[otel.Cut],
    path: str,
    report: Report,
    jobs: int,
    level: int,
    files: list[int],
) -> tuple[bytes, list[int], bool, frozenset[int]] | None:
    """Every run made by the workers, then the file's first conversation here: its encoded
    document, each run's bytes of documents and whether any decision blocks (None: the
    usual way)."""
    from inspector.core.formats import otel

    _SHARED.update(data=data, path=path, report=report, level=level, files=files)
    # Each run's first line is counted as it is sent: the workers begin meanwhile.
    calls = ((n, run) for n, run in enumerate(otel.numbered(data, runs)))
    forks = Forks(min(jobs, len(runs)), _worker_run, calls)
    try:
        done: list[_Run | None] = []
        for future in forks.futures:
            try:
                done.append(future.result())
            except Exception:  # a worker that failed or died: the usual way decides
                done.append(None)
    except BaseException:  # Ctrl-C: the workers' runs are not wanted
        forks.close(stop=True)
        raise
    forks.close()
    made = [run for run in done if run is not None]
    if len(made) != len(runs) or made[0].first is None:
        return None
    ids = [cid for run in made for cid in run.ids]
    links = [link for run in made for link in run.links]
    if len(set(ids)) != len(ids) or len(set(links)) != len(links):
        return None  # a conversation or a trace in two runs: grouped only by the whole file
    with paused_gc():
        first = otel.build(path, ids[0], pickle.loads(made[0].first), otel.first_notes(path, ids))
        document, blocks = report(path, first)
        encoded: list[bytes] = []
        write_element(document, level, encoded.append)
    blocks = blocks or any(run.blocks for run in made)
    makers = frozenset(run.pid for run in made)
    return b"".join(encoded), [run.size for run in made], blocks, makers


def _joined(first: bytes, files: list[Any], sizes: list[int], level: int) -> Iterator[bytes]:
    """The first document, then each run's, joined as the writer joins a nested array's (a
    run's documents read whole: whole UTF-8, as the writer needs)."""
    separator = b",\n" + b"  " * level
    yield first
    for handle, size in zip(files, sizes, strict=True):
        if size:
            yield separator
            yield _read_all(handle.fileno(), size)


def _read_all(handle: int, size: int) -> bytes:
    """The first `size` bytes of a file."""
    pieces, done = [], 0
    while done < size:
        piece = os.pread(handle, size - done, done)
        if not piece:
            raise OSError("a run's documents' file ended early")
        pieces.append(piece)
        done += len(piece)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _worker_run(number: int, run: otel.LineRun) -> _Run | None:
    """Load, gate and encode one run's conversations (the file's first run's first is left to
    the gate's process); None on any error, which the usual way gives exactly."""
    try:
        return _run(number, run)
    except Exception:
        return None


def _run(number: int, run: otel.LineRun) -> _Run | None:
    from inspector.core.formats import otel

    data: bytes = _SHARED["data"]
    path: str = _SHARED["path"]
    report: Report = _SHARED["report"]
    level: int = _SHARED["level"]
    separator = b",\n" + b"  " * level
    with paused_gc():
        grouped, links = otel.run_conversations(data, run, path)
        ids = list(grouped)
        first = None
        if number == 0:
            if not ids:
                return None  # the file's first conversation is in a later run
            first = pickle.dumps(grouped.pop(ids[0]), pickle.HIGHEST_PROTOCOL)
        out = _Out(_SHARED["files"][number])
        blocks = False
        for cid, inferences in grouped.items():
            document, blocked = report(path, otel.build(path, cid, inferences, []))
            blocks = blocks or blocked
            if out.size or out.pieces:
                out.add(separator)
            write_element(document, level, out.add)
        out.flush()
    return _Run(ids, links, out.size, blocks, first, os.getpid())


class _Out:
    """A run's encoded documents, written to its file a megabyte at a time."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.pieces: list[bytes] = []
        #: Bytes written to the file, and held in `pieces`.
        self.size = self.held = 0

    def add(self, piece: bytes) -> None:
        """Append a piece; write what is held once it is a megabyte."""
        self.pieces.append(piece)
        self.held += len(piece)
        if self.held >= _FLUSH:
            self.flush()

    def flush(self) -> None:
        """Write the pieces held to the file."""
        view = memoryview(b"".join(self.pieces))
        self.pieces.clear()
        self.held = 0
        while view:
            written = os.pwrite(self.handle, view, self.size)
            self.size += written
            view = view[written:]


#: Bytes of encoded documents a worker holds before it writes them to its run's file.
_FLUSH = 1 << 20


__all__ = ["RUN_MIN_BYTES", "TraceGate", "gate_trace_on_cores"]
