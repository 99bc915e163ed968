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

import os
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from inspector.commands.common import Encoded, write_element
from inspector.core.formats import otel
from inspector.core.jsonio import read_bytes
from inspector.core.model import LoadError, Transcript, paused_gc
from inspector.core.parallel import (
    POOL_MIN_BYTES,
    RowParts,
    _Forks,
    default_jobs,
    forkable_file,
)

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
    parts: RowParts
    #: The processes that made runs.
    makers: frozenset[int]

    def close(self) -> None:
        """Close the runs' files (those read are closed already)."""
        self.parts.close()


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
        data = read_bytes(arg)
    except LoadError:
        return None  # the usual way says what is wrong
    size = max(RUN_MIN_BYTES, len(data) // (jobs * RUNS_PER_JOB) + 1)
    runs = otel.line_runs(data, size)
    if runs is None:
        return None
    import tempfile

    # Closed by RowParts once read, or here when the gate fails.
    files = [tempfile.TemporaryFile() for _ in runs]  # noqa: SIM115
    parts = RowParts(files, [0] * len(files))
    try:
        made = _gate(data, runs, path, report, jobs, level, [f.fileno() for f in files])
    except BaseException:
        parts.close()
        raise
    if made is None:
        parts.close()
        return None
    encoded, sizes, blocks, makers = made
    parts.sizes[:] = sizes
    return TraceGate(Encoded(_joined(encoded, parts, level)), blocks, parts, makers)


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
    _SHARED.update(data=data, path=path, report=report, level=level, files=files)
    # Each run's first line is counted as it is sent: the workers begin meanwhile.
    calls = ((n, run) for n, run in enumerate(otel.numbered(data, runs)))
    forks = _Forks(min(jobs, len(runs)), _worker_run, calls)
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


def _joined(first: bytes, parts: RowParts, level: int) -> Iterator[bytes]:
    """The first document, then each run's, joined as the writer joins a nested array's."""
    separator = b",\n" + b"  " * level
    yield first
    for part, size in zip(parts, parts.sizes, strict=True):
        for number, block in enumerate(part):
            yield separator + block if number == 0 and size else block


def _worker_run(number: int, run: otel.LineRun) -> _Run | None:
    """Load, gate and encode one run's conversations (the file's first run's first is left to
    the gate's process); None on any error, which the usual way gives exactly."""
    try:
        return _run(number, run)
    except Exception:
        return None


def _run(number: int, run: otel.LineRun) -> _Run | None:
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
