"""The gate of a large file on every core: the items' verdicts made by forked worker processes.

A forked worker inherits the loaded transcript, so nothing of it is sent: each worker is given
a run of item indexes, judges those items as one process does (`gate.item_verdicts`), and
sends back each distinct verdict once, without its item, and one small number per item. This
process judges the first run meanwhile, puts the verdicts together in item order and makes the
findings, which need the whole transcript. The result, and every report made from it, is what
one process gives. Without a plain fork (another thread runs here, or the platform has none),
with one job, a small transcript, or a toolset with a schema only python-jsonschema can run
(its step budget is shared by the whole file), the whole gate runs in this process.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import mmap
import os
import pickle
import select
import signal
import stat
import struct
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.formats import (
    JsonlRuns,
    jsonl_file_runs,
    jsonl_runs,
    load_jsonl_run,
    run_lines,
)
from inspector.core.gate import (
    FileFindings,
    GateResult,
    ItemVerdict,
    RunFindings,
    ToolSet,
    Verdict,
    gate_transcript,
    item_facts,
    item_verdicts,
    make_toolset,
    ok_verdict,
    run_findings,
    verdict_tally,
)
from inspector.core.jsonio import read_at, read_bytes
from inspector.core.model import Group, Item, LoadError, Tool, Transcript, paused_gc
from inspector.core.schema import DEFAULT_BUDGET, ENGINE_PY, FileBudget, compile_schema, file_budget

#: Items a transcript needs before its verdicts are shared with worker processes: below it,
#: forking and sending the verdicts back cost more than judging them here.
POOL_MIN_ITEMS = 20_000
#: Bytes a file needs before `gate` uses every core by default (`default_jobs_for`): about
#: POOL_MIN_ITEMS items of a typical log.
POOL_MIN_BYTES = 4 << 20


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_jobs_for(size: int | None) -> int:
    """The processes `gate` uses by default for a file of `size` bytes (None: not known).

    Every core from POOL_MIN_BYTES on, else one: a small file is done before workers start.
    Under an address-space cap (`ulimit -v`, RLIMIT_AS), one: the pool's threads each reserve
    a malloc arena and a stack (about 140 MB of address space in all), so a cap that one
    process fits under could refuse the pool (`--jobs N` still asks for it).
    """
    if size is None or size < POOL_MIN_BYTES or _address_space_capped():
        return 1
    return default_jobs()


def _address_space_capped() -> bool:
    """Whether this process's address space has a finite cap."""
    import resource

    return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY


def gate_on_cores(
    transcript: Transcript,
    extra_tools: Mapping[str, Tool] | None = None,
    *,
    jobs: int | None = None,
    budget: float = DEFAULT_BUDGET,
    threshold: int | None = None,
) -> GateResult:
    """`gate_transcript`, with the verdicts of a large transcript made by `jobs` processes.

    `jobs` None: every core. Fewer than `threshold` (default POOL_MIN_ITEMS) items, one job,
    or no plain fork, and the whole gate runs here. The result is the one `gate_transcript`
    gives.
    """
    jobs = default_jobs() if jobs is None else jobs
    threshold = POOL_MIN_ITEMS if threshold is None else threshold
    started = FileBudget().started
    items = transcript.items
    if jobs > 1 and len(items) >= max(threshold, 2) and _can_fork():
        toolset, _overridden = make_toolset(transcript, extra_tools)
        if _pool_can_judge(toolset):
            workers = _Workers(items, toolset, budget, min(jobs, len(items)), started)
            try:
                result = gate_transcript(
                    transcript,
                    extra_tools,
                    budget=budget,
                    verdicts=workers.mine(),
                    rest=workers.rest,
                    started=started,
                )
            except BaseException:  # Ctrl-C, an error: the workers' runs are not wanted
                workers.close(stop=True)
                raise
            workers.close()
            return result
    return gate_transcript(transcript, extra_tools, budget=budget, started=started)


def _pool_can_judge(toolset: ToolSet) -> bool:
    """Whether every schema runs on jsonschema-rs (or not at all): no step budget to share."""
    for tool in toolset.tools.values():
        if tool.has_schema and compile_schema(tool.parameters).engine == ENGINE_PY:
            return False
    return True


def _can_fork() -> bool:
    """Whether workers can be plain forks: this process runs no other thread (the CLI).

    Forking a process with other threads can copy a lock one of them holds.
    """
    import threading

    return threading.active_count() == 1 and hasattr(os, "fork")


def _runs(count: int, jobs: int) -> list[tuple[int, int]]:
    """Item index runs, this process's first: half a worker's share, since it also makes the
    findings' pass over the items while the workers judge theirs."""
    weights = [1] + [2] * (jobs - 1)
    bounds = [count * sum(weights[:k]) // sum(weights) for k in range(jobs + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(jobs) if bounds[k] < bounds[k + 1]]


#: What a forked worker reads: the items and how to judge them (set before the fork).
_SHARED: dict[str, Any] = {}


class Forks:
    """Forked worker processes, each reading `_SHARED` as it was when they were forked."""

    def __init__(self, processes: int, task: Callable[..., Any], calls: Iterable[tuple[Any, ...]]):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(
            max(processes, 1),
            mp_context=multiprocessing.get_context("fork"),
            initializer=init_worker,
        )
        # The workers are forked as the first tasks are submitted. Until each has set its own
        # handlers (`init_worker`), the signals this process turns into exceptions are held back, so
        # a worker never runs them (a traceback, where only this process should answer).
        held = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            try:
                self.futures = [self.pool.submit(task, *call) for call in calls]
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held Ctrl-C comes here
        except BaseException:
            self.close(stop=True)
            raise

    def close(self, *, stop: bool = False) -> None:
        """End the workers (`stop`: at once, whatever they are doing) and forget what they read."""
        if stop:
            # The executor has no public way to end a running task; its processes are ours.
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)
        _SHARED.clear()


class _Workers(Forks):
    """Forked workers judging runs of a transcript's items while this process judges the first.

    `rest()` gives the verdicts of the workers' runs, in item order; a worker that fails
    (killed, out of memory) has its run judged here instead. `makers`: the ids of the
    processes that made verdicts.
    """

    def __init__(
        self, items: Sequence[Item], toolset: ToolSet, budget: float, jobs: int, started: float
    ) -> None:
        self.items, self.toolset, self.budget, self.started = items, toolset, budget, started
        self.runs = _runs(len(items), jobs)
        self.makers = {os.getpid()}
        _SHARED.update(items=items, toolset=toolset, budget=budget, started=started)
        super().__init__(len(self.runs) - 1, _judge, self.runs[1:])

    def _judged(self, start: int, stop: int) -> list[ItemVerdict]:
        with paused_gc(), file_budget(FileBudget(started=self.started)):
            return item_verdicts(self.items[start:stop], self.toolset, budget=self.budget)

    def mine(self) -> list[ItemVerdict]:
        """The verdicts of the first run, made in this process."""
        return self._judged(*self.runs[0])

    def rest(self) -> list[ItemVerdict]:
        """The verdicts of the other runs, as the workers send them back."""
        verdicts: list[ItemVerdict] = []
        for (start, stop), future in zip(self.runs[1:], self.futures, strict=True):
            try:
                pid, table, codes = future.result()
            except Exception:  # the worker died or failed: this process judges its run
                verdicts.extend(self._judged(start, stop))
                continue
            self.makers.add(pid)
            verdicts.extend(_attached(table, codes, self.items))
        return verdicts


#: Signals held back while workers are forked.
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def init_worker() -> None:
    """Set a forked worker's signals: Ctrl-C is the parent's to act on, SIGTERM just ends it."""
    # Ctrl-C reaches the whole process group: the parent stops, the workers only end quietly;
    # terminated by the parent, a worker just ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_SIGNALS)


#: A verdict as a worker sends it back: ok by its tool name, or any verdict without its
#: item; with the index of the item it points back to (-1: none).
Sent = tuple[str, int] | tuple[ItemVerdict, int]


def _judge(start: int, stop: int) -> tuple[int, list[Sent], array[int]]:
    """One worker's run: its distinct verdicts, detached, and each item's place among them."""
    items, toolset = _SHARED["items"], _SHARED["toolset"]
    budget, started = _SHARED["budget"], _SHARED["started"]
    # The file's time budget runs from when the parent began, as it would in one process.
    with paused_gc(), file_budget(FileBudget(started=started)):
        made = item_verdicts(items[start:stop], toolset, budget=budget)
    distinct, codes = _tabled(made, id)
    return os.getpid(), [_detached(verdict) for verdict in distinct], codes


def _tabled(
    made: Sequence[ItemVerdict], key: Callable[[ItemVerdict], Any]
) -> tuple[list[ItemVerdict], array[int]]:
    """Each verdict distinct by `key`, first seen first, and each verdict's place among them:
    how a run's verdicts travel back, each distinct one once."""
    places: dict[Any, int] = {}
    distinct: list[ItemVerdict] = []
    codes = array("I")
    for verdict in made:
        place = places.setdefault(key(verdict), len(distinct))
        if place == len(distinct):
            distinct.append(verdict)
        codes.append(place)
    return distinct, codes


def _detached(verdict: ItemVerdict) -> Sent:
    """A verdict without its item (which would bring the whole file's bytes along)."""
    source = verdict.source
    if source is None:
        return verdict, -1
    if verdict.verdict == Verdict.OK and not verdict.errors and verdict.tool is not None:
        return verdict.tool, source.index
    bare = ItemVerdict(
        verdict.verdict, verdict.detail, verdict.errors, verdict.tool, None, verdict.parse_error
    )
    return bare, source.index


def _attached(table: list[Sent], codes: array[int], items: Sequence[Item]) -> list[ItemVerdict]:
    """The verdicts a worker sent, pointing back to this process's items again."""
    made: list[ItemVerdict] = []
    for sent, index in table:
        if isinstance(sent, str):
            made.append(ok_verdict(sent, items[index]))
        elif index < 0:
            made.append(sent)
        else:
            made.append(
                ItemVerdict(
                    sent.verdict,
                    sent.detail,
                    sent.errors,
                    sent.tool,
                    None,
                    sent.parse_error,
                    items[index],
                )
            )
    return [made[code] for code in codes]


# --------------------------------------------------------------------------------------------
# A large JSON Lines file of bare items: loaded, judged and written run by run on every core

#: Bytes of the file a process loads, judges and writes at a time: a worker holds one run's
#: items at most, and the runs left at the end are few and short.
RUN_BYTES = 1 << 20

#: Encodes the item rows of a run's gate (its transcript holds the run's items only) as the
#: report writes them: the bytes of its elements of the rows' array, in pieces.
RowEncoder = Callable[[GateResult], Iterable[bytes]]


@dataclass(frozen=True, slots=True)
class GatedRun:
    """What a process sends back of one run: the rest is in its rows' file."""

    items: int
    #: Bytes of encoded rows written to the run's file.
    size: int
    #: Each distinct (verdict, detail), and each item's place among them.
    table: list[tuple[Verdict, str]]
    codes: array[int]
    #: The run's `item_facts`, pickled (empty when `found` is made instead): unpickled
    #: together once every run is made, rather than held as objects scattered among the
    #: freed ones of each run's load.
    facts: bytes
    #: The run's group (None: the run has no items).
    group: Group | None
    pid: int
    #: What the run brings to the file's findings, made with its items (`gate.run_findings`).
    found: RunFindings | None = None
    #: The items before the run, as it numbered its own from (`_gate_run`).
    first: int = 0
    #: The items of each verdict word (`gate.verdict_tally`): the file's tally is the runs'
    #: added up, not counted again over every verdict here.
    tally: Mapping[Verdict, int] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FileGate:
    """A file gated run by run (`gate_jsonl_on_cores`): its item rows already encoded.

    `result` has the findings and, for each item, a verdict with its word and detail (all a
    decision reads); its transcript has the file's group and no items: the rows are `rows`.
    """

    result: GateResult
    rows: RowParts
    #: The processes that made runs (this one's first).
    makers: frozenset[int]


class RowParts:
    """The encoded item rows of a file, a part per run, each in a temporary file.

    Iterated once: each part as blocks of bytes (cut after a newline, so each block is whole
    UTF-8), its file closed once read; `close` closes those not read.
    """

    def __init__(self, files: list[Any], sizes: list[int]) -> None:
        self.files, self.sizes = files, sizes

    def __iter__(self) -> Iterator[Iterator[bytes]]:
        for number in range(len(self.files)):
            yield self._blocks(number)

    def _blocks(self, number: int) -> Iterator[bytes]:
        handle, size = self.files[number], self.sizes[number]
        try:
            done, left = 0, b""
            while done < size:
                block = os.pread(handle.fileno(), min(_BLOCK, size - done), done)
                if not block:
                    raise OSError(f"the rows' file of run {number} ended early")
                done += len(block)
                cut = block.rfind(b"\n") + 1 if done < size else len(block)
                if cut:
                    yield left + block[:cut]
                    left = block[cut:]
                else:
                    left += block
            if left:
                yield left
        finally:
            handle.close()

    def send(self, number: int, fd: int | None, write: Callable[[bytes], Any]) -> None:
        """Copy part `number` to descriptor `fd` in the kernel (os.sendfile), never through
        this process; by `write`, block by block, where `fd` takes no sendfile (or is None)."""
        handle, size = self.files[number], self.sizes[number]
        done = 0
        try:
            while fd is not None and done < size:
                try:
                    sent = os.sendfile(fd, handle.fileno(), done, size - done)
                except OSError:
                    if done:
                        raise
                    break  # not a descriptor sendfile writes to: block by block
                if not sent:
                    raise OSError(f"the rows' file of run {number} ended early")
                done += sent
        except BaseException:
            handle.close()
            raise
        if done < size:
            for block in self._blocks(number):
                write(block)
        else:
            handle.close()

    def close(self) -> None:
        """Close every part's file (those read are closed already)."""
        for handle in self.files:
            handle.close()


#: Bytes read from a rows' file at a time.
_BLOCK = 1 << 20


def gate_jsonl_on_cores(
    path: str,
    name: str,
    extra_tools: Mapping[str, Tool] | None,
    encode: RowEncoder,
    *,
    jobs: int | None = None,
    budget: float = DEFAULT_BUDGET,
) -> FileGate | None:
    """Gate a JSON Lines file of bare Open Responses items on `jobs` processes (None: every
    core), each loading, judging and encoding runs of its lines; None when the file is not
    one, is smaller than POOL_MIN_BYTES, or cannot be read so (the caller then gates it the
    usual way, which also gives any error exactly).

    Forked workers take runs of the file; this process takes the first ones and any a worker
    has not begun once its own are done, and makes the findings from each run's facts, in
    order. The report is byte for byte what one process writes. Each process reads the runs
    it loads from the file (`formats.jsonl_file_runs`): the file is not held whole here, and
    is not read before the workers begin (unless its first chunk cannot tell its framing).
    """
    jobs = default_jobs() if jobs is None else jobs
    if not forkable_file(path, jobs, POOL_MIN_BYTES):
        return None
    toolset = judging_toolset(extra_tools)
    if toolset is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None  # the usual way says what is wrong
    try:
        runs = _file_runs(fd, path, name)
        if runs is None or len(runs.runs) < 2:
            return None
        try:
            gate = _RunGate(runs, toolset, budget, jobs, encode)
        except OSError:
            return None  # no temporary files (or no processes) to be had: the usual way
        del runs  # held by the gate until its runs are made
        return gate.gate()
    finally:
        os.close(fd)


def _file_runs(fd: int, path: str, name: str) -> JsonlRuns | None:
    """The runs of the file open at `fd`, read from it run by run where its first chunk tells
    as the whole file would (`jsonl_file_runs`), else from its bytes read whole; None when it
    is not a file of bare items read so, or cannot be read (the usual way then says why)."""
    try:
        size = os.fstat(fd).st_size
        runs = jsonl_file_runs(fd, size, name, RUN_BYTES, RUN_BYTES // 4)
        if not isinstance(runs, str):  # READ_WHOLE is the one text it answers
            return runs
        data = read_bytes(path)
    except (LoadError, OSError):
        return None
    return jsonl_runs(data, name, RUN_BYTES, RUN_BYTES // 4)


def judged_bytes(path: str, extra_tools: Mapping[str, Tool] | None) -> tuple[ToolSet, bytes] | None:
    """The tools a forkable file's items are judged by and the file's bytes, for a gate by
    runs or shares; None when workers cannot judge by those tools or the file cannot be read
    (the usual way then says what is wrong)."""
    toolset = judging_toolset(extra_tools)
    if toolset is None:
        return None
    try:
        return toolset, read_bytes(path)
    except LoadError:
        return None


def judging_toolset(extra_tools: Mapping[str, Tool] | None) -> ToolSet | None:
    """The tools a file's items are judged by in forked workers (those given, each schema
    compiled here, before the fork, for every worker), or None when a schema needs
    python-jsonschema, whose step budget a whole file shares."""
    toolset, _ = make_toolset(None, extra_tools)
    return toolset if _pool_can_judge(toolset) else None


def forkable_file(path: str, jobs: int, min_bytes: int) -> bool:
    """Whether a file may be gated by runs in forked workers: more than one job, a regular
    file of `min_bytes` or more, and a process that can fork."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    if jobs < 2 or not stat.S_ISREG(info.st_mode) or info.st_size < min_bytes:
        return False
    return _can_fork()


class _RunGate:
    """One file's gate by runs: the runs' results in order, and the findings made from them.

    The workers are plain forked processes (no pool, no threads here): each takes the next run
    no process has begun until none is left, writes what it sends back of a run after the
    run's rows in the run's file, and says so on a pipe all of them share (a message of a few
    bytes, written whole), so that no worker waits for this process to hand it work.
    """

    def __init__(
        self, runs: JsonlRuns, toolset: ToolSet, budget: float, jobs: int, encode: RowEncoder
    ) -> None:
        self.runs, self.toolset = runs, toolset
        count = len(runs.runs)
        # This process takes the first run, and then, as the workers do, the next run no
        # process has begun (`_gate`): every process takes runs from the front, so the last
        # ones, which are short (`jsonl_runs`), are what they end on together.
        self.mine = 1
        self.queue = _run_queue(self.mine, count)
        try:
            # Each run's lines and items, once a process has counted them (`_before`): memory
            # the forks share (no lock: each run's count is one aligned 8-byte word).
            self.counts = mmap.mmap(-1, 8 * count)
            # Closed by RowParts once read, or here when the gate fails.
            self.files = [rows_file(number) for number in range(count)]
        except BaseException:
            os.close(self.queue)
            raise
        _SHARED.update(
            runs=runs,
            toolset=toolset,
            budget=budget,
            started=FileBudget().started,
            encode=encode,
            files=[handle.fileno() for handle in self.files],
            queue=self.queue,
            counted=memoryview(self.counts).cast("Q"),
        )
        self.done: list[GatedRun | None] = [None] * count
        #: The items before each run joined so far.
        self.firsts: list[int] = []
        self.heard = bytearray()
        self.workers: list[Worker] = []
        self.live: list[Worker] = []
        self.said, told = os.pipe()
        try:
            workers = min(jobs - 1, count - self.mine)
            task = (told, self.queue, _gate_run, _SHARED["files"])
            self.workers = fork_workers(worker_runs, [task] * workers)
            self.live = list(self.workers)
        except BaseException:
            self._end(stop=True)
            self._close_files()
            raise
        finally:
            os.close(told)  # the workers hold it: the pipe ends when the last one does

    def gate(self) -> FileGate | None:
        """The file's gate, or None when a run cannot be read as a run (any error included)."""
        try:
            made = self._gate()
        except BaseException:  # Ctrl-C, an error: the workers' runs are not wanted
            self._end(stop=True)
            self._close_files()
            raise
        # A gate that failed wants no more runs; one that is made has them all.
        self._end(stop=made is None)
        if made is None:
            self._close_files()
        return made

    def _end(self, *, stop: bool) -> None:
        """End the workers (`stop`: at once, whatever they are doing) and forget what they read."""
        end_workers(self.workers, stop=stop)
        self.workers = []
        if self.said >= 0:
            os.close(self.said)
            self.said = -1
        if self.queue >= 0:
            os.close(self.queue)
            self.queue = -1
        counted = _SHARED.pop("counted", None)
        if counted is not None:
            counted.release()  # the map cannot close while a view of it is held
        self.counts.close()
        _SHARED.clear()

    def _close_files(self) -> None:
        for handle in self.files:
            handle.close()

    def _gate(self) -> FileGate | None:
        count = len(self.runs.runs)
        for number in range(self.mine):
            if not self._here(number):
                return None
        verdicts: list[ItemVerdict] = []
        found: FileFindings | None = None
        shared: dict[tuple[Verdict, str], ItemVerdict] = {}
        tally: dict[Verdict, int] = {}
        makers = {os.getpid()}
        queued = True  # runs no process has begun may be left
        for number in range(count):
            # While the next run is still being made, take the next run no process began.
            while self.done[number] is None:
                if not self._hear(wait=False):
                    return None
                if self.done[number] is not None:
                    break
                if queued:
                    later = _next_run()
                    queued = later is not None
                    if later is not None:
                        if not self._here(later):
                            return None
                        continue
                if not self._hear(wait=True):
                    return None
            done = self.done[number]
            assert done is not None
            if done.first != len(verdicts) or done.found is None:
                return None  # the runs' items were not counted as loaded: the usual way
            self.firsts.append(done.first)
            makers.add(done.pid)
            told = [shared.setdefault(key, ItemVerdict(*key)) for key in done.table]
            verdicts.extend([told[code] for code in done.codes])
            for word, times in done.tally.items():
                tally[word] = tally.get(word, 0) + times
            if found is None and done.group is not None:
                # The file's group is the one its first item began (in the first run with
                # items).
                head = Transcript(
                    path=self.runs.path, format="jsonl", items=(), groups=(done.group,)
                )
                found = FileFindings(head, verdicts, self._reloaded)
            if found is not None:
                try:
                    found.add(done.found)
                except LoadError:  # a run loaded again (never: the same bytes load alike)
                    return None
            self.done[number] = dataclasses.replace(done, table=[], codes=array("I"), found=None)
        if found is None:
            return None  # no items: the usual way says so
        # The runs' findings are joined as they come, in the processes that made them: only
        # what spans runs is left to do here.
        try:
            findings = found.findings()
        except LoadError:
            return None
        # Every run is made: the file's bytes are not needed here any more.
        del self.runs
        _SHARED.pop("runs", None)
        sizes = [run.size for run in self.done if run is not None]
        result = GateResult(found.head, tuple(verdicts), tuple(findings), self.toolset, tally)
        return FileGate(result, RowParts(self.files, sizes), frozenset(makers))

    def _hear(self, *, wait: bool) -> bool:
        """Take in the runs the workers have made (`wait`: until one more word comes); False
        when a worker could not make a run, or ended before it said it had made every run
        it began (killed, out of memory)."""
        ends = {worker.sentinel: worker for worker in self.live}
        waited = [*([self.said] if self.said >= 0 else []), *ends]
        if not waited:
            return not wait  # nothing more can come
        for handle in _ready(waited, wait=wait):
            if handle == self.said:
                words = os.read(self.said, _HEARD)
                if not words:  # every worker has ended: all they said is here
                    os.close(self.said)
                    self.said = -1
                self.heard += words
            else:
                ended = ends[handle]
                ended.join()
                if ended.exitcode:  # killed, out of memory: the runs it began are not made
                    return False
                self.live.remove(ended)
        while len(self.heard) >= RUN_WORD.size:
            number, size, length = RUN_WORD.unpack_from(self.heard)
            del self.heard[: RUN_WORD.size]
            if size < 0:
                return False  # not a run of bare items, or it failed: the usual way decides
            sent = pickle.loads(read_at(self.files[number].fileno(), length, size))
            if not isinstance(sent, GatedRun):
                return False
            self.done[number] = sent
        return True

    def _reloaded(self, index: int) -> Sequence[Item]:
        """The items of the run that holds item `index`, loaded again (a run that repeats a
        call_id or an id of an earlier run: its findings name items of the runs before)."""
        number = bisect.bisect_right(self.firsts, index) - 1
        transcript = load_jsonl_run(self.runs, number, _before(number))
        if transcript is None:  # it was loaded before: the same bytes load the same way
            raise LoadError(f"run {number} of the file could not be loaded again")
        return transcript.items

    def _here(self, number: int) -> bool:
        """Make a run in this process; whether it could be."""
        try:
            self.done[number] = _gate_run(number)
        except Exception:
            return False
        return self.done[number] is not None


def fork_workers(task: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Worker]:
    """A `Worker` running `task(*args)` for each of `calls`; if one cannot be forked, those
    forked are ended and the error raised."""
    workers: list[Worker] = []
    # Until each worker has set its own handlers (`init_worker`), the signals this process
    # turns into exceptions are held back, so a worker never runs them.
    held = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        for args in calls:
            workers.append(Worker(task, *args))
    except BaseException:
        end_workers(workers, stop=True)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held Ctrl-C comes here
    return workers


def end_workers(workers: Sequence[Worker], *, stop: bool) -> None:
    """Reap the workers once they have ended (`stop`: end them at once, whatever they do)."""
    if stop:
        for worker in workers:
            worker.terminate()
    for worker in workers:
        worker.join()


class Worker:
    """A forked process running `task(*args)`, then ending at once (no exit handlers, no
    buffers flushed: what it inherited is this process's to write): `os.fork` itself, without
    the `multiprocessing` modules a `Process` imports and sets up (some 4 ms before the first
    run could begin). Its status is 0 when `task` returned, 1 when it raised."""

    def __init__(self, task: Callable[..., Any], *args: Any) -> None:
        #: Readable (at its end) once the process has ended: the process holds its other end.
        self.sentinel, holds = os.pipe()
        try:
            self.pid = os.fork()
        except BaseException:
            os.close(self.sentinel)
            os.close(holds)
            raise
        if self.pid == 0:  # the worker
            status = 1
            try:
                os.close(self.sentinel)
                task(*args)
                status = 0
            finally:
                os._exit(status)
        os.close(holds)
        #: How it ended (None: not joined yet): its exit status, or minus the signal that ended it.
        self.exitcode: int | None = None

    def terminate(self) -> None:
        """End the process with SIGTERM (nothing if it has been joined)."""
        if self.exitcode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)

    def join(self, timeout: float | None = None) -> None:
        """Wait until the process has ended (for at most `timeout` seconds) and reap it."""
        if self.exitcode is not None:
            return
        if timeout is not None and not _ready([self.sentinel], wait=True, timeout=timeout):
            return
        _, status = os.waitpid(self.pid, 0)
        self.exitcode = os.waitstatus_to_exitcode(status)
        os.close(self.sentinel)

    def is_alive(self) -> bool:
        """Whether the process has not been joined yet."""
        return self.exitcode is None


def _ready(handles: Sequence[int], *, wait: bool, timeout: float | None = None) -> list[int]:
    """The descriptors among `handles` that can be read (or are at their end) now, or, with
    `wait`, once one is (within `timeout` seconds; None: however long it takes)."""
    poller = select.poll()
    for handle in handles:
        poller.register(handle, select.POLLIN)
    limit = (-1 if timeout is None else int(timeout * 1000)) if wait else 0
    return [handle for handle, _ in poller.poll(limit)]


#: Runs whose rows are held in memory (the rest in files on disk): their rows are about 3.5
#: times their bytes, so about 220 MB at most, which a file on disk would hold in the page
#: cache as long anyway.
MEMORY_RUNS = 64


def rows_file(number: int) -> Any:
    """A temporary file for the rows of run `number`: in memory (`os.memfd_create`) for the
    first MEMORY_RUNS runs, else on disk.

    Closing a file of rows written on disk waited 3-4 ms a run for the file system (ext4)
    after the last run, with every worker done; memory is freed at once.
    """
    if number < MEMORY_RUNS and hasattr(os, "memfd_create"):
        try:
            return open(os.memfd_create("rows"), "r+b")
        except OSError:
            pass  # no memory files here (an old kernel, a sandbox): on disk
    import tempfile

    return tempfile.TemporaryFile()


#: A worker's word for a run: its number, the size of its rows (-1: not made) and of what it
#: sends back of the run, written after them in the run's file. Shorter than PIPE_BUF, so
#: the words of several workers on one pipe never interleave.
RUN_WORD = struct.Struct("<iqq")
#: Bytes of words read from the pipe at a time.
_HEARD = 1 << 16


def worker_runs(
    told: int,
    queue: int,
    make: Callable[..., Any],
    files: Sequence[int],
    word: struct.Struct | None = None,
) -> None:
    """A worker's life: the next run no process has begun (a `word` of `queue`, by default a
    run's number alone), until none is left, each made by `make(*word)` and said on `told`
    (`sent_word`, after the run's `made.size` bytes of rows). Any error is this process's to
    give, in the usual way."""
    init_worker()
    while (taken := take(queue, word or _QUEUED)) is not None:
        made = None
        with contextlib.suppress(Exception):  # not made: the word says so
            made = make(*taken)
        number = taken[0]
        os.write(told, sent_word(number, made, 0 if made is None else made.size, files[number]))


def sent_word(number: int, sent: Any, after: int, handle: int) -> bytes:
    """The word that says run `number` is made, what is sent back of it (`sent`; None: it is
    not made) written after its `after` bytes of rows in its file (`handle`)."""
    if sent is not None:
        try:
            data = pickle.dumps(sent, pickle.HIGHEST_PROTOCOL)
            write_at(handle, data, after)
            return RUN_WORD.pack(number, after, len(data))
        except Exception:
            pass
    return RUN_WORD.pack(number, -1, 0)


def hear_runs(said: int, numbers: range, files: Sequence[int], kind: type) -> dict[int, Any] | None:
    """What the workers sent back of each of the runs `numbers` (a `kind`), by number, as
    they say it on `said` (`sent_word`); None when one could not make its run, or every
    worker ended before each run was said (one was killed)."""
    made: dict[int, Any] = {}
    heard = b""
    while len(made) < len(numbers):
        while len(heard) < RUN_WORD.size:
            words = os.read(said, 1 << 12)
            if not words:
                return None  # every worker ended, one before it said
            heard += words
        number, size, length = RUN_WORD.unpack_from(heard)
        heard = heard[RUN_WORD.size :]
        if size < 0 or number not in numbers or number in made:
            return None
        sent = pickle.loads(read_at(files[number], length, size))
        if not isinstance(sent, kind):
            return None
        made[number] = sent
    return made


def write_at(handle: int, data: bytes, offset: int) -> int:
    """Write all of `data` at `offset` of a file; the offset after it."""
    view = memoryview(data)
    while view:
        written = os.pwrite(handle, view, offset)
        offset += written
        view = view[written:]
    return offset


#: A run's number in the queue of runs no process has begun (`_run_queue`).
_QUEUED = struct.Struct("<I")


def _run_queue(first: int, count: int) -> int:
    """A pipe holding the numbers of runs `first` to `count` - 1, in order, its writing end
    closed: the read end, from which each process takes the next run no process has begun.

    A read of one number takes it whole (the kernel reads a pipe under its lock, and every
    read asks for one number's bytes): each run is taken once, with no lock that a killed
    worker could leave held, and no shared-memory module to import.
    """
    numbers = b"".join(_QUEUED.pack(number) for number in range(first, count))
    taken, queue = word_pipe(len(numbers))
    try:
        write_all(queue, numbers)
    except BaseException:
        os.close(taken)
        raise
    finally:
        os.close(queue)
    return taken


def word_pipe(size: int) -> tuple[int, int]:
    """A pipe (read end, write end) that holds `size` bytes unread, so that writing them
    never waits for a reader: made larger than a pipe's 64 KiB when needed (else an OSError)."""
    taken, queue = os.pipe()
    try:
        if size > _PIPE_BYTES:
            import fcntl

            fcntl.fcntl(queue, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except BaseException:
        os.close(taken)
        os.close(queue)
        raise
    return taken, queue


#: Bytes a pipe holds unless made larger (Linux).
_PIPE_BYTES = 1 << 16


def write_all(handle: int, data: bytes) -> None:
    """Write all of `data` to a pipe (or any descriptor without positions)."""
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view) :]


def _next_run() -> int | None:
    """Take the next run no process has begun (None: none is left)."""
    taken = take(_SHARED["queue"])
    return None if taken is None else int(taken[0])


def take(queue: int, word: struct.Struct = _QUEUED) -> tuple[Any, ...] | None:
    """Take the next word of a queue of runs (`_run_queue`; None: the queue is empty, and its
    writing end closed, so no more come)."""
    taken = os.read(queue, word.size)
    if len(taken) < word.size:
        return None
    return word.unpack(taken)


def _gate_run(number: int) -> GatedRun | None:
    """Load, judge and encode one run of the file (None: it is not a run of bare items)."""
    shared = _SHARED
    before = _before(number)
    transcript = load_jsonl_run(shared["runs"], number, before)
    if transcript is None or not _one_group(transcript):
        return None
    return gated_run(transcript, shared, number, findings=True, first=before[1])


def _before(number: int) -> tuple[int, int]:
    """The lines and items of the file before run `number`.

    Each run's are counted once, by the first process that needs them (as a rule the one
    taking the run after it), and kept for the others: counted here for the whole file
    before any run began, they were a serial start the workers waited for.
    """
    runs: JsonlRuns = _SHARED["runs"]
    counted = _SHARED["counted"]
    lines = items = 0
    for run in range(number):
        # Each run's lines plus one (0: not counted yet) above its items, in one word, so a
        # process reads a run's count whole or not at all.
        known = counted[run]
        if known:
            run_count = (known >> 32) - 1, known & _LOW
        else:
            run_count = run_lines(runs, run)
            if run_count[0] < _LOW:  # else not kept: each process counts it
                counted[run] = (run_count[0] + 1) << 32 | run_count[1]
        lines += run_count[0]
        items += run_count[1]
    return lines, items


#: The low 32 bits of a run's count: its items (`_before`).
_LOW = (1 << 32) - 1


def gated_run(
    transcript: Transcript,
    shared: Mapping[str, Any],
    number: int,
    *,
    facts: bool = True,
    findings: bool = False,
    first: int = 0,
) -> GatedRun:
    """Judge the items of run `number` (numbered as in the whole file) and write their rows to
    its file: what a process sends back of the run. `shared`: what a forked process reads
    (`toolset`, `budget`, `started`: when the file's budget began, `encode`, `files`).
    Without `facts`, its items' facts are left out (its findings are made where it is);
    `findings`: what the run brings to the file's findings (a file of one group of bare items)
    is sent instead (`gate.run_findings`); `first`: the items before the run."""
    toolset: ToolSet = shared["toolset"]
    handle: int = shared["files"][number]
    with paused_gc(), file_budget(FileBudget(started=shared["started"])):
        made = item_verdicts(transcript.items, toolset, budget=shared["budget"])
        result = GateResult(transcript, tuple(made), (), toolset)
        os.ftruncate(handle, 0)
        size = 0
        for piece in shared["encode"](result):
            size = write_at(handle, piece, size)
        distinct, codes = _tabled(made, _word_and_detail)
        table = [_word_and_detail(verdict) for verdict in distinct]
        found = run_findings(transcript.items, made) if findings else None
        facts = facts and not findings
        # Plain tuples: a named tuple is unpickled by a call of its Python `__new__` each.
        plain = list(map(tuple, item_facts(transcript.items))) if facts else []
        pickled = pickle.dumps(plain, pickle.HIGHEST_PROTOCOL) if facts else b""
    group = transcript.groups[0] if transcript.groups else None
    tally = verdict_tally(made)
    return GatedRun(len(made), size, table, codes, pickled, group, os.getpid(), found, first, tally)


def _word_and_detail(verdict: ItemVerdict) -> tuple[Verdict, str]:
    """All a decision and the findings read of a verdict made by runs."""
    return verdict.verdict, verdict.detail


def _one_group(transcript: Transcript) -> bool:
    """Whether a run's items are one group of bare items, as the whole file's load makes them
    (or a run of blank lines: no items, no group)."""
    groups = transcript.groups
    if not groups:
        return not transcript.items
    return (
        len(groups) == 1
        and groups[0].index == 0
        and groups[0].kind == "items"
        and not groups[0].notes
        and not transcript.tools
        and transcript.tool_choice is None
        and transcript.stream is None
        and transcript.format == "jsonl"
    )


__all__ = [
    "POOL_MIN_BYTES",
    "POOL_MIN_ITEMS",
    "FileGate",
    "RowParts",
    "default_jobs",
    "default_jobs_for",
    "forkable_file",
    "gate_jsonl_on_cores",
    "gate_on_cores",
    "judged_bytes",
]
