"""The gate of a large file on every core: call verdicts made in worker processes.

A completed call's verdict depends on its name, its arguments and the toolset alone, so the
distinct (name, arguments) pairs of a transcript are cut into chunks and judged by a process
pool; the parent then gates the transcript as one process does, taking each pair's verdict
from the pool (`gate_transcript(known=…)`). Findings need the whole transcript and are made in
the parent, in item order, so the result, and every report made from it, is what one process
gives. A small file, one job, or a toolset with a schema only python-jsonschema can run (its
step budget is shared by the whole file) is gated in this process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from inspector.core.gate import (
    Detached,
    GateResult,
    ToolSet,
    call_keys,
    detached_verdict,
    gate_transcript,
    make_toolset,
)
from inspector.core.model import Tool, Transcript, paused_gc
from inspector.core.schema import DEFAULT_BUDGET, ENGINE_PY, FileBudget, compile_schema, file_budget

#: Distinct calls a transcript needs before its verdicts go to worker processes: below it,
#: starting the pool and sending the calls costs more than the verdicts take in one process.
POOL_MIN_CALLS = 4096
#: Calls per task sent to a worker.
CHUNK = 1024


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def gate_on_cores(
    transcript: Transcript,
    extra_tools: Mapping[str, Tool] | None = None,
    *,
    jobs: int | None = None,
    budget: float = DEFAULT_BUDGET,
    threshold: int | None = None,
) -> GateResult:
    """`gate_transcript`, with the call verdicts of a large transcript made by `jobs` processes.

    `jobs` None: every core. Fewer than `threshold` (default POOL_MIN_CALLS) distinct calls, or
    one job, and the whole gate runs here. The result is the one `gate_transcript` gives.
    """
    jobs = default_jobs() if jobs is None else jobs
    threshold = POOL_MIN_CALLS if threshold is None else threshold
    started = FileBudget().started
    if jobs > 1:
        keys = call_keys(transcript)
        toolset, _overridden = make_toolset(transcript, extra_tools)
        if len(keys) >= threshold and _pool_can_judge(toolset):
            known, _workers = _pool_verdicts(keys, toolset, budget, jobs, started)
            return gate_transcript(
                transcript, extra_tools, budget=budget, known=known, started=started
            )
    return gate_transcript(transcript, extra_tools, budget=budget, started=started)


def _pool_can_judge(toolset: ToolSet) -> bool:
    """Whether every schema runs on jsonschema-rs (or not at all): no step budget to share."""
    for tool in toolset.tools.values():
        if tool.has_schema and compile_schema(tool.parameters).engine == ENGINE_PY:
            return False
    return True


def _context() -> Any:
    """A plain fork when this process has no other thread (the CLI), else a fork server."""
    import multiprocessing
    import threading

    # Forking a process with other threads can copy a lock one of them holds; the fork server
    # is a clean single-threaded process that has the gate's imports loaded.
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["inspector.core.parallel"])
    return context


def _pool_verdicts(
    keys: Sequence[tuple[str, str]], toolset: ToolSet, budget: float, jobs: int, started: float
) -> tuple[dict[tuple[str, str], Detached | None], set[int]]:
    """Each key's verdict, made by `jobs` processes: this one and `jobs - 1` workers.

    Every chunk is queued for the workers; this process takes its share of chunks from the end
    of the queue, each one no worker has started yet (a task it could cancel), so it does not
    sit idle. The first chunk is always a worker's. Returns the verdicts and the ids of the
    processes that made them.
    """
    from concurrent.futures import ProcessPoolExecutor

    chunks = [keys[start : start + CHUNK] for start in range(0, len(keys), CHUNK)]
    setup = (dict(toolset.tools), toolset.allowed, budget, started)
    done: list[tuple[int, list[Detached | None]] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(
        max(1, min(jobs - 1, len(chunks) - 1)),
        mp_context=_context(),
        initializer=_init_worker,
        initargs=setup,
    ) as pool:
        futures = [pool.submit(_judge, chunk) for chunk in chunks]
        with paused_gc(), file_budget(FileBudget(started=started)):
            share = len(chunks) // jobs
            for number in reversed(range(len(chunks) - share, len(chunks))):
                if not futures[number].cancel():
                    break
                done[number] = (os.getpid(), [_detach(k, toolset, budget) for k in chunks[number]])
        for number, future in enumerate(futures):
            if done[number] is None:
                done[number] = future.result()
    known: dict[tuple[str, str], Detached | None] = {}
    workers: set[int] = set()
    for chunk, made in zip(chunks, done, strict=True):
        assert made is not None
        workers.add(made[0])
        known.update(zip(chunk, made[1], strict=True))
    return known, workers


def _detach(key: tuple[str, str], toolset: ToolSet, budget: float) -> Detached | None:
    return detached_verdict(key[0], key[1], toolset, budget)


_WORKER: dict[str, Any] = {}


def _init_worker(
    tools: dict[str, Tool], allowed: frozenset[str] | None, budget: float, started: float
) -> None:
    import signal
    from types import MappingProxyType

    # Ctrl-C reaches the whole process group: the parent stops, the workers only end quietly.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER.update(
        toolset=ToolSet(MappingProxyType(tools), allowed), budget=budget, started=started
    )


def _judge(chunk: Sequence[tuple[str, str]]) -> tuple[int, list[Detached | None]]:
    """One task in a worker: the verdict of each (name, arguments)."""
    toolset, budget = _WORKER["toolset"], _WORKER["budget"]
    # The file's time budget runs from when the parent began, as it would in one process.
    with paused_gc(), file_budget(FileBudget(started=_WORKER["started"])):
        return os.getpid(), [_detach(key, toolset, budget) for key in chunk]


__all__ = ["CHUNK", "POOL_MIN_CALLS", "default_jobs", "gate_on_cores"]
