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

import os
import signal
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.core.gate import (
    GateResult,
    ItemVerdict,
    ToolSet,
    Verdict,
    gate_transcript,
    item_verdicts,
    make_toolset,
    ok_verdict,
)
from inspector.core.model import Item, Tool, Transcript, paused_gc
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
    """
    return default_jobs() if size is not None and size >= POOL_MIN_BYTES else 1


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
    import multiprocessing
    import threading

    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def _runs(count: int, jobs: int) -> list[tuple[int, int]]:
    """Item index runs, this process's first: half a worker's share, since it also makes the
    findings' pass over the items while the workers judge theirs."""
    weights = [1] + [2] * (jobs - 1)
    bounds = [count * sum(weights[:k]) // sum(weights) for k in range(jobs + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(jobs) if bounds[k] < bounds[k + 1]]


#: What a forked worker reads: the items and how to judge them (set before the fork).
_SHARED: dict[str, Any] = {}


class _Workers:
    """Forked workers judging runs of a transcript's items while this process judges the first.

    `rest()` gives the verdicts of the workers' runs, in item order; a worker that fails
    (killed, out of memory) has its run judged here instead. `makers`: the ids of the
    processes that made verdicts.
    """

    def __init__(
        self, items: Sequence[Item], toolset: ToolSet, budget: float, jobs: int, started: float
    ) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.items, self.toolset, self.budget, self.started = items, toolset, budget, started
        self.runs = _runs(len(items), jobs)
        self.makers = {os.getpid()}
        _SHARED.update(items=items, toolset=toolset, budget=budget, started=started)
        self.pool = ProcessPoolExecutor(
            max(len(self.runs) - 1, 1),
            mp_context=multiprocessing.get_context("fork"),
            initializer=_init,
        )
        # The workers are forked as the first task is submitted. Until each has set its own
        # handlers (`_init`), the signals this process turns into exceptions are held back, so
        # a worker never runs them (a traceback, where only this process should answer).
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            try:
                self.futures = [self.pool.submit(_judge, s, e) for s, e in self.runs[1:]]
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held Ctrl-C comes here
        except BaseException:
            self.close(stop=True)
            raise

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

    def close(self, *, stop: bool = False) -> None:
        """End the workers (`stop`: at once, whatever they are doing) and forget the items."""
        if stop:
            # The executor has no public way to end a running task; its processes are ours.
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)
        _SHARED.clear()


#: Signals held back while workers are forked.
_HELD = {signal.SIGINT, signal.SIGTERM}


def _init() -> None:
    # Ctrl-C reaches the whole process group: the parent stops, the workers only end quietly;
    # terminated by the parent, a worker just ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


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
    places: dict[int, int] = {}
    table: list[Sent] = []
    codes = array("I")
    for verdict in made:
        place = places.get(id(verdict))
        if place is None:
            place = places[id(verdict)] = len(table)
            table.append(_detached(verdict))
        codes.append(place)
    return os.getpid(), table, codes


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


__all__ = ["POOL_MIN_BYTES", "POOL_MIN_ITEMS", "default_jobs", "default_jobs_for", "gate_on_cores"]
