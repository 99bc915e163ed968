"""The gate of a large Claude Code session on every core: its lines converted, judged and
written share by share in forked processes.

A turn, its calls' pairing and a sidechain's parent depend on the records before them, so a
session is read in file order. Yet a session's main thread is nearly always made of turns that
need nothing of the records before them but whether the first goes on with the turn before
(one response is written as several records). So each process converts a share of the file's
lines on its own (`claude_code.convert_share`), says how many items they made, and once every
share before its own has said so, numbers its items from there, judges them and writes their
rows (`parallel.gated_run`), as a run of a JSON Lines file of bare items is gated
(`parallel.gate_jsonl_on_cores`); this process makes the findings from every share's facts, in
order. The report is byte for byte what one process writes. A share that cannot be converted
on its own (a sidechain, an id to synthesise or pair, a note on the conversation), or any
error, and the whole file is gated the usual way, in one process.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.core import parallel
from inspector.core.formats import session_format
from inspector.core.gate import ItemVerdict
from inspector.core.model import Tool, paused_gc
from inspector.core.parallel import (
    FileGate,
    Forks,
    GatedRun,
    RowEncoder,
    RowParts,
    default_jobs,
    file_gate,
    forkable_file,
    gated_run,
    judged_bytes,
)
from inspector.core.schema import DEFAULT_BUDGET, FileBudget

#: What a forked process reads: the file, its shares and how to judge them (set before the fork).
_SHARED: dict[str, Any] = {}

if TYPE_CHECKING:
    from inspector.core.formats.claude_code import Share
#: A share's count of items while it is being converted, and once it could not be.
_PENDING, _FAILED = -1, -2
#: Seconds between two looks at the counts of the shares before one's own.
_POLL = 0.002


class _Done(NamedTuple):
    """What a process sends back of its share: the share without its items, and their run."""

    share: Share
    run: GatedRun | None


def gate_session_on_cores(
    path: str,
    name: str,
    extra_tools: Mapping[str, Tool] | None,
    encode: RowEncoder,
    *,
    jobs: int | None = None,
    budget: float = DEFAULT_BUDGET,
) -> FileGate | None:
    """Gate a Claude Code session file on `jobs` processes (None: every core), each converting,
    judging and encoding a share of its lines; None when the file is no such session, is
    smaller than `parallel.POOL_MIN_BYTES`, or cannot be gated so (the caller then gates it
    the usual way, which also gives any error exactly).
    """
    jobs = default_jobs() if jobs is None else jobs
    if not forkable_file(path, jobs, parallel.POOL_MIN_BYTES) or not _claude_code(path):
        return None
    ready = judged_bytes(path, extra_tools)
    if ready is None:
        return None
    toolset, data = ready
    import tempfile

    from inspector.core.formats import claude_code

    if not claude_code.can_share(data, Path(path)):
        return None
    cuts = _cuts(data, jobs)
    count = len(cuts) - 1
    if count < 2:
        return None
    try:
        # Closed by RowParts once read, or here when the gate fails.
        files = [tempfile.TemporaryFile() for _ in range(count)]  # noqa: SIM115
    except OSError:
        return None
    _SHARED.update(
        data=data,
        name=name,
        cuts=cuts,
        counts=multiprocessing.get_context("fork").Array("q", [_PENDING] * count),
        toolset=toolset,
        budget=budget,
        encode=encode,
        files=[handle.fileno() for handle in files],
    )
    del data  # held until every share is converted
    try:
        made = _gathered(count)
    except BaseException:  # Ctrl-C, an error: the workers' shares are not wanted
        _SHARED.clear()
        for handle in files:
            handle.close()
        raise
    _SHARED.clear()
    head = None if made is None else claude_code.joined(name, [done.share for done in made])
    if made is None or head is None:
        for handle in files:
            handle.close()
        return None
    verdicts: list[ItemVerdict] = []
    told: dict[Any, ItemVerdict] = {}
    runs = [done.run for done in made if done.run is not None]
    for run in runs:
        table = [told.setdefault(key, ItemVerdict(*key)) for key in run.table]
        verdicts.extend([table[code] for code in run.codes])
    sizes = [0 if done.run is None else done.run.size for done in made]
    makers = [os.getpid(), *(run.pid for run in runs)]
    return file_gate(
        head, verdicts, [run.facts for run in runs], toolset, RowParts(files, sizes), makers
    )


#: Bytes read of a file to tell whether it is a Claude Code session before it is read whole.
_HEAD = 1 << 16


def _claude_code(path: str) -> bool:
    """Whether the file is a Claude Code session, told from its first bytes as the loader
    tells it from the whole (its first line and first KiB), when they hold its first line."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return False
    if head.find(b"\n", len(head) - len(head.lstrip())) < 0:
        return False
    # Imported only for a file that shows a session's marks: a gate imports no other format.
    from inspector.core.formats import claude_code

    return session_format(head) is claude_code


def _cuts(data: bytes, shares: int) -> list[int]:
    """Line starts that cut the data into `shares` parts of about one size (fewer when lines
    are long), from 0 to its end."""
    cuts = [0]
    for k in range(1, shares):
        end = data.find(b"\n", max(len(data) * k // shares, cuts[-1] + 1) - 1)
        if end < 0 or end + 1 >= len(data):
            break
        cuts.append(end + 1)
    cuts.append(len(data))
    return cuts


def _gathered(count: int) -> list[_Done] | None:
    """Every share, this process's first, the workers' as they send them; None when one could
    not be converted on its own."""
    try:
        forks = Forks(count - 1, _share, [(k,) for k in range(1, count)])
    except Exception:  # no process to be had, or one died as the shares were handed out
        return None
    try:
        made = _collected(forks.futures)
    except BaseException:
        forks.close(stop=True)
        raise
    forks.close(stop=made is None)
    return made


def _collected(futures: Sequence[Any]) -> list[_Done] | None:
    mine = _share(0)
    if mine is None:
        return None
    made = [mine]
    for future in futures:
        done = _result(future)
        if done is None:
            return None
        made.append(done)
    return made


def _result(future: Any) -> _Done | None:
    try:
        done: _Done | None = future.result()
    except Exception:  # a worker that failed or died: the usual way decides
        return None
    return done


def _share(number: int) -> _Done | None:
    """Convert, judge and encode one share (None: it cannot be converted on its own, or a
    share before it could not). Any error is the usual way's to give."""
    counts = _SHARED["counts"]
    try:
        return _converted(number, counts)
    except Exception:
        counts[number] = _FAILED
        return None


def _converted(number: int, counts: Any) -> _Done | None:
    from inspector.core.formats import claude_code
    from inspector.core.formats._convert import renumber

    shared = _SHARED
    cuts = shared["cuts"]
    with paused_gc():
        share = claude_code.convert_share(
            shared["data"], cuts[number], cuts[number + 1], shared["name"]
        )
    if share is None:
        counts[number] = _FAILED
        return None
    transcript = share.transcript
    items = transcript.items if transcript is not None else ()
    counts[number] = len(items)
    offset = _offset(counts, number)
    if offset is None:
        return None
    if transcript is None:
        return _Done(share, None)
    renumber(items, offset)
    # The file's validation budget runs from when its items begin to be judged, as in one
    # process, where it begins once the file is loaded: not from before the conversion.
    run = gated_run(transcript, {**shared, "started": FileBudget().started}, number)
    # The items stay here: the findings need only the run's facts.
    return _Done(dataclasses.replace(share, transcript=None), run)


def _offset(counts: Any, number: int) -> int | None:
    """The items of the shares before this one, once each has said (None: one could not be
    converted). Each share says its count before it waits, so none waits for ever."""
    while True:
        before: Sequence[int] = counts[:number]
        if _FAILED in before:
            return None
        if _PENDING not in before:
            return sum(before)
        time.sleep(_POLL)


__all__ = ["gate_session_on_cores"]
