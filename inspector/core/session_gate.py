"""The gate of a large session file (Claude Code, Codex) on every core: its lines converted,
judged and written share by share in forked processes.

A turn, its calls' pairing and a sidechain's parent depend on the records before them, so a
session is read in file order. Yet a session's main thread is nearly always made of turns that
need nothing of the records before them but whether the first goes on with the turn before
(one Claude Code response is written as several records; a Codex call's status is told by its
output). So each process converts a share of the file's lines on its own (the format's
`convert_share`, see `ShareFormat`), says how many items they made, and once every
share before its own has said so, numbers its items from there, judges them and writes their
rows (`parallel.gated_run`), as a run of a JSON Lines file of bare items is gated
(`parallel.gate_jsonl_on_cores`), and makes its findings as if it were the whole file. This
process merges them in order (`_merged`): what crosses a cut (a call answered in a later share,
an output whose call is in another) is judged again from the few items each share left open.
The report is byte for byte what one process writes. A share that cannot be converted on its
own (a sidechain, an id to synthesise or pair, a note on the conversation, tools defined in the
file), what the format cannot join (a Codex call answered in another share), findings a share
cannot make alone (a call id or item id in two shares, an incomplete item at a share's end, a
finding over the whole file), or any error, and the whole file is gated the usual way, in one
process.

The workers are plain forked processes, one a share (no pool, no threads): each tells the
shares after it its count on a pipe of its own and reads the earlier shares' counts from
theirs (a read the kernel wakes, not a poll), writes its rows to a file in memory
(`parallel.rows_file`) and what it sends back after them, and says so with a word on a pipe
they share (`parallel.RUN_WORD`). This process writes the rows from those files to the
report.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import struct
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, Protocol, cast

import msgspec
from msgspec import structs

from inspector.core import gate, parallel
from inspector.core.formats import session_format
from inspector.core.gate import (
    Finding,
    GateResult,
    ItemVerdict,
    ToolSet,
    facts_findings,
    facts_of,
    item_facts,
)
from inspector.core.model import Item, Severity, Tool, Transcript, paused_gc
from inspector.core.parallel import (
    FileGate,
    GatedRun,
    RowEncoder,
    RowParts,
    default_jobs,
    forkable_file,
    gated_run,
    judged_bytes,
)
from inspector.core.schema import DEFAULT_BUDGET, FileBudget

#: What a forked process reads: the file, its shares and how to judge them (set before the fork).
_SHARED: dict[str, Any] = {}
#: A worker's converted shares, never freed: the process ends once it sent them.
_KEPT: list[Transcript] = []


class Share(Protocol):
    """A run of a session's lines converted on its own (each format's own `Share`)."""

    #: Its items, numbered from 0 (None: no item, or they were left where they were made).
    @property
    def transcript(self) -> Transcript | None: ...


class ShareFormat(Protocol):
    """What a session format's module gives to be gated in shares (`claude_code`, `codex`)."""

    def can_share(self, data: bytes, source: Path | None, /) -> bool:
        """Whether the file may be converted in shares at all."""

    def convert_share(self, data: bytes, start: int, stop: int, path: str | None, /) -> Any:
        """The share of the lines from `start` to `stop`, or None: not on its own."""

    def joined(self, path: str | None, shares: Sequence[Any], /) -> Transcript | None:
        """The conversation of the file's shares without its items, or None."""


#: A share's count of items once it could not be converted.
_FAILED = -2


#: A finding as a worker sends it: code, severity, items, message (in MessagePack: `_plain`).
_PlainFinding = tuple[str, str, tuple[int, ...], str]
_PLAIN = msgspec.msgpack.Decoder(list[_PlainFinding])


class _Local(NamedTuple):
    """A share's findings, made as if it were the whole file, and what merging them needs."""

    #: Without its group's (made with every item of the file) and its unanswered calls';
    #: as MessagePack of plain tuples (`_plain`) when a worker sends them.
    findings: list[Finding] | bytes
    #: Its calls left unanswered and its outputs of a call it does not hold, in item order:
    #: `ItemFacts` as plain tuples, each call with its (verdict, detail).
    open: list[tuple[Any, ...]]
    told: dict[int, tuple[Any, str]]
    #: Every call id of its calls and every item id of its items.
    call_ids: set[str]
    item_ids: set[str]
    #: How many items it holds, and whether its last is incomplete (only the file's last
    #: item may be).
    items: int
    ends_incomplete: bool


class _Done(NamedTuple):
    """What a process sends back of its share: the share without its items, their run and
    their findings."""

    share: Share
    run: GatedRun | None
    local: _Local | None = None


def gate_session_on_cores(
    path: str,
    name: str,
    extra_tools: Mapping[str, Tool] | None,
    encode: RowEncoder,
    *,
    jobs: int | None = None,
    budget: float = DEFAULT_BUDGET,
) -> FileGate | None:
    """Gate a session file (`ShareFormat`) on `jobs` processes (None: every core), each
    converting, judging and encoding a share of its lines; None when the file is no such
    session, is smaller than `parallel.POOL_MIN_BYTES`, or cannot be gated so (the caller then
    gates it the usual way, which also gives any error exactly).
    """
    jobs = default_jobs() if jobs is None else jobs
    if not forkable_file(path, jobs, parallel.POOL_MIN_BYTES):
        return None
    fmt = _share_format(path)
    if fmt is None:
        return None
    ready = judged_bytes(path, extra_tools)
    if ready is None:
        return None
    toolset, data = ready
    if not fmt.can_share(data, Path(path)):
        return None
    cuts = _cuts(data, jobs, getattr(fmt, "cut_at", None))
    count = len(cuts) - 1
    if count < 2:
        return None
    try:
        # Closed by RowParts once read, or here when the gate fails.
        files = [parallel.rows_file(number) for number in range(count)]
    except OSError:
        return None
    _SHARED.update(
        data=data,
        format=fmt,
        name=name,
        cuts=cuts,
        toolset=toolset,
        budget=budget,
        encode=encode,
        files=[handle.fileno() for handle in files],
        owner=os.getpid(),
    )
    del data  # held until every share is converted
    try:
        try:
            gate: _ShareGate | None = _ShareGate(count)
        except OSError:  # no pipes or no processes to be had: the usual way
            gate = None
        made = None if gate is None else gate.made()
    except BaseException:  # Ctrl-C, an error: the workers' shares are not wanted
        _SHARED.clear()
        for handle in files:
            handle.close()
        raise
    _SHARED.clear()
    head = None if made is None else fmt.joined(name, [done.share for done in made])
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
    locals_ = [done.local for done in made if done.local is not None]
    findings = _merged(head, verdicts, locals_, toolset)
    if findings is None:
        for handle in files:
            handle.close()
        return None
    sizes = [0 if done.run is None else done.run.size for done in made]
    makers = frozenset([os.getpid(), *(run.pid for run in runs)])
    result = GateResult(head, tuple(verdicts), tuple(findings), toolset)
    return FileGate(result, RowParts(files, sizes), makers)


#: Bytes read of a file to tell its session format before it is read whole.
_HEAD = 1 << 16


def _share_format(path: str) -> ShareFormat | None:
    """The file's session format when it can be gated in shares, told from its first bytes as
    the loader tells it from the whole (its first line and first KiB), when they hold its
    first line; a format module is imported only for a file that shows its marks."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return None
    if head.find(b"\n", len(head) - len(head.lstrip())) < 0:
        return None
    found: ModuleType | None = session_format(head)
    if found is None or not hasattr(found, "convert_share"):
        return None
    return cast(ShareFormat, found)


#: The weight of this process's share, and of each worker's: a worker pays for the pages it
#: copies on write and pickles what it sends back, this process frees its share's items once
#: they are judged (70-80 ms of a 100 MB generated session's 1.1 s a share); so weighted, both
#: spent 1.05-1.08 s of CPU on their shares (process_time, 3 runs).
_OWN_WEIGHT, _WORKER_WEIGHT = 96, 100


def _cuts(data: bytes, shares: int, cut_at: Callable[[bytes, int], int] | None = None) -> list[int]:
    """Line starts that cut the data into `shares` parts (the first a little smaller than the
    others, `_OWN_WEIGHT`; fewer parts when lines are long), from 0 to its end; `cut_at`, the
    format's, moves a cut on to a line a share had better end before (`codex.cut_at`)."""
    cuts = [0]
    whole = _OWN_WEIGHT + _WORKER_WEIGHT * (shares - 1)
    for k in range(1, shares):
        at = len(data) * (_OWN_WEIGHT + _WORKER_WEIGHT * (k - 1)) // whole
        end = data.find(b"\n", max(at, cuts[-1] + 1) - 1)
        if end < 0 or end + 1 >= len(data):
            break
        cut = end + 1 if cut_at is None else cut_at(data, end + 1)
        if cut >= len(data):
            break
        cuts.append(cut)
    cuts.append(len(data))
    return cuts


class _Counts:
    """How each share tells the shares after it how many items it made: a pipe per share but
    the last, which it writes its count to once for each later share, and which those read.

    A read waits in the kernel until the count is written (no polling); a share that could
    not be converted writes `_FAILED`, and one that ended without a word (killed) leaves its
    pipe with no writer, which its readers take as failed too.
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self.pipes: list[tuple[int, int]] = []
        try:
            for _ in range(count - 1):
                self.pipes.append(os.pipe())
        except OSError:
            self.close()
            raise

    def keep(self, number: int) -> None:
        """In the process of share `number`: close the ends it never uses, so that a pipe
        whose writer ended reads as ended."""
        for share, (read, write) in enumerate(self.pipes):
            if share != number:
                os.close(write)
            if share >= number:
                os.close(read)
        self.pipes = [
            (read if share < number else -1, write if share == number else -1)
            for share, (read, write) in enumerate(self.pipes)
        ]

    def __setitem__(self, number: int, items: int) -> None:
        """Share `number` made `items` items (`_FAILED`: it could not be converted)."""
        if number >= len(self.pipes) or self.pipes[number][1] < 0:
            return  # the last share (none after it waits), or one that said already
        word = _COUNT.pack(items) * (self.count - 1 - number)
        # A few bytes: written whole. Refused when every later share ended: none waits.
        with contextlib.suppress(OSError):
            os.write(self.pipes[number][1], word)
        read, write = self.pipes[number]
        os.close(write)
        self.pipes[number] = (read, -1)

    def before(self, number: int) -> int | None:
        """The items of the shares before `number`, once each has said (None: one could not
        be converted)."""
        total = 0
        for share in range(number):
            word = os.read(self.pipes[share][0], _COUNT.size)
            if len(word) < _COUNT.size:
                return None  # its process ended before it said
            (items,) = _COUNT.unpack(word)
            if items < 0:
                return None
            total += items
        return total

    def close(self) -> None:
        """Close every end still open here."""
        for read, write in self.pipes:
            for end in (read, write):
                if end >= 0:
                    os.close(end)
        self.pipes = []


#: A share's count of items on its pipe.
_COUNT = struct.Struct("<q")


class _ShareGate:
    """A session's shares made by plain forked workers, one share each, this process the first.

    No pool and no threads: each worker converts its share, tells the later shares its count
    (`_Counts`), waits for the earlier shares' counts, judges its items and writes their rows
    to its share's file (in memory, `parallel.rows_file`), then what it sends back after them,
    and says so on a pipe all of them share (a `parallel.RUN_WORD`).
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self.counts = _Counts(count)
        self.workers: list[parallel.Worker] = []
        self.said = -1
        try:
            self.said, told = os.pipe()
            try:
                self.workers = parallel.fork_workers(
                    _worker_share, [(number, told, self.counts) for number in range(1, count)]
                )
            finally:
                os.close(told)  # the workers hold it: the pipe ends when the last one does
            self.counts.keep(0)
        except BaseException:
            self.end(stop=True)
            raise

    def made(self) -> list[_Done] | None:
        """Every share, this process's first; None when one could not be converted or gated
        on its own (a worker that failed or died included)."""
        try:
            made = self._made()
        except BaseException:
            self.end(stop=True)
            raise
        self.end(stop=made is None)
        return made

    def _made(self) -> list[_Done] | None:
        mine = _share(0, self.counts)
        if mine is None:
            return None
        heard = parallel.hear_runs(self.said, range(1, self.count), _SHARED["files"], _Done)
        if heard is None:
            return None
        return [mine, *(heard[number] for number in range(1, self.count))]

    def end(self, *, stop: bool) -> None:
        """End the workers (`stop`: at once, whatever they are doing)."""
        parallel.end_workers(self.workers, stop=stop)
        self.workers = []
        if self.said >= 0:
            os.close(self.said)
            self.said = -1
        self.counts.close()


def _worker_share(number: int, told: int, counts: _Counts) -> None:
    """A worker's life: share `number` made, and said on `told`. Any error is this process's
    to give, in the usual way."""
    parallel.init_worker()
    counts.keep(number)
    done = None
    with contextlib.suppress(Exception):  # the share is not made: this process's word says so
        done = _share(number, counts)
    # After the share's rows (none for a share of no turns).
    size = 0 if done is None or done.run is None else done.run.size
    word = parallel.sent_word(number, done, size, _SHARED["files"][number])
    # A few bytes, written whole; refused only when this process was ended (nothing waits).
    with contextlib.suppress(OSError):
        os.write(told, word)


def _share(number: int, counts: _Counts) -> _Done | None:
    """Convert, judge and encode one share (None: it cannot be converted on its own, or a
    share before it could not). Any error is the usual way's to give."""
    try:
        return _converted(number, counts)
    except Exception:
        counts[number] = _FAILED
        return None


def _converted(number: int, counts: Any) -> _Done | None:
    from inspector.core.formats._convert import renumber

    shared = _SHARED
    cuts = shared["cuts"]
    with paused_gc():
        share = shared["format"].convert_share(
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
    run = gated_run(transcript, {**shared, "started": FileBudget().started}, number, facts=False)
    told = [ItemVerdict(*key) for key in run.table]
    worker = os.getpid() != shared["owner"]
    with paused_gc():
        verdicts = [told[code] for code in run.codes]
        local = _local(transcript, offset, verdicts, shared["toolset"], sent=worker)
    # The items stay here: merging the findings needs only what `_local` keeps of them.
    if worker:
        # A worker's items are freed with it: it ends once its share is sent, and freeing
        # them one by one first would only hold the gate back.
        _KEPT.append(transcript)
    return _Done(structs.replace(share, transcript=None), run, local)


class _Placed(Sequence[ItemVerdict]):
    """Verdicts of items numbered from `first`, looked up by the items' own numbers."""

    def __init__(self, first: int, verdicts: Mapping[int, ItemVerdict] | Sequence[ItemVerdict]):
        self.first, self.verdicts, self.size = first, verdicts, first + len(verdicts)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: Any) -> Any:
        return self.verdicts[index - self.first]


#: Codes of the findings on items, by the part of the list they are in (as `facts_findings`
#: orders them); a share's findings of any other code cannot be merged.
_STATUS = frozenset({"response_status_mismatch", "incomplete_not_last"})
_PAIRING = frozenset(
    {"duplicate_call_id", "orphan_output", "output_before_call", "output_for_blocked_call"}
)
_IDENTITY = frozenset({"duplicate_item_id"})
_MISSING = "missing_output"
_MERGED = _STATUS | _PAIRING | _IDENTITY


def _group_findings(head: Transcript, toolset: ToolSet, members: Sequence[int]) -> list[Finding]:
    """The findings on the conversation's group alone (its envelope, its notes)."""
    return facts_findings(head, (), toolset, (), members)


def _item_findings(
    head: Transcript, verdicts: Sequence[ItemVerdict], toolset: ToolSet, facts: Any, last: int
) -> list[Finding]:
    """`facts_findings` without the group's findings (made once, with every member), the
    group's last member `last` (-1: none).

    Of the group's members the findings on items read only the last (an incomplete item
    not last is a finding), so they are given that one: not a tuple of every item's number,
    which the group's findings are made with and which are dropped here.
    """
    members = range(last, last + 1) if last >= 0 else range(0)
    found = facts_findings(head, verdicts, toolset, facts, members)
    return found[len(_group_findings(head, toolset, ())) :]


def _local(
    transcript: Transcript,
    first: int,
    verdicts: list[ItemVerdict],
    toolset: ToolSet,
    *,
    sent: bool = False,
) -> _Local:
    """A share's findings as `facts_findings` makes them for a file of its items alone, and
    the items they leave open (`sent`: to another process, its findings as MessagePack)."""
    items: Sequence[Item] = transcript.items
    head = dataclasses.replace(transcript, items=())
    placed = _Placed(first, verdicts)
    # Items stand for their facts: `facts_findings` reads of them only what facts hold.
    found = _item_findings(head, placed, toolset, items, first + len(items) - 1)
    mine = [f for f in found if f.code != _MISSING]
    kept: list[Finding] | bytes = msgspec.msgpack.encode(list(map(_plain, mine))) if sent else mine
    opened = [items[f.items[0] - first] for f in found if f.code == _MISSING]
    opened += [
        output
        for f in found
        if f.code == "orphan_output" and type((output := items[f.items[0] - first]).call_id) is str
    ]
    opened.sort(key=lambda item: item.index)
    told = {
        item.index: (verdicts[item.index - first].verdict, verdicts[item.index - first].detail)
        for item in opened
        if item.type == "function_call"
    }
    call_ids = {
        item.call_id for item in items if item.type == "function_call" and type(item.call_id) is str
    }
    item_ids = {item.id for item in items if type(item.id) is str and item.id}
    return _Local(
        kept,
        list(map(tuple, item_facts(opened))),
        told,
        call_ids,
        item_ids,
        len(items),
        bool(items) and items[-1].status == "incomplete",
    )


def _plain(finding: Finding) -> _PlainFinding:
    """A finding as a share sends it: a slotted dataclass is unpickled by a Python
    `__setstate__` and a severity by a call of its enum, plain tuples of strings in
    MessagePack are written and read by C (a share's tens of thousands of findings are sent
    in a few milliseconds: pickle took 30 ms for 45k)."""
    return finding.code, finding.severity.value, finding.items, finding.message


_SEVERITIES = {severity.value: severity for severity in Severity}


def _received(found: list[Finding] | bytes) -> list[Finding]:
    """A share's findings, as they were made or as a worker sent them (`_plain`)."""
    if not isinstance(found, bytes):
        return found
    make, severities = gate._finding, _SEVERITIES  # a finding made by setting its slots
    return [
        make(code, severities[word], items, text)
        for code, word, items, text in _PLAIN.decode(found)
    ]


def _merged(
    head: Transcript, verdicts: list[ItemVerdict], shares: list[_Local], toolset: ToolSet
) -> list[Finding] | None:
    """The file's findings, from each share's, as one process makes them; None when a share's
    cannot be merged (they would depend on other shares' items the shares did not keep)."""
    members = range(len(verdicts))
    calls: set[str] = set()
    ids: set[str] = set()
    for number, local in enumerate(shares):
        if local.call_ids & calls or local.item_ids & ids:
            return None  # a call id or item id in two shares: pairs that cross the cut
        calls |= local.call_ids
        ids |= local.item_ids
        if local.ends_incomplete and any(later.items for later in shares[number + 1 :]):
            return None  # not the file's last item: the findings say so, the share's did not
    every = [f for local in shares for f in _received(local.findings)]
    if any(f.code not in _MERGED for f in every):
        return None
    # What crosses a cut, judged again: the open calls and outputs of every share together.
    opened = [facts_of(fact) for local in shares for fact in local.open]
    open_calls = {fact.call_id for fact in opened if fact.type == "function_call"}
    outputs = {fact.index for fact in opened if fact.type == "function_call_output"}
    if any(
        fact.call_id in calls and fact.call_id not in open_calls
        for fact in opened
        if fact.type == "function_call_output"
    ):
        return None  # an output of a call its share answered already
    told = {index: ItemVerdict(*said) for local in shares for index, said in local.told.items()}
    again = _item_findings(head, _Placed(0, told), toolset, opened, len(verdicts) - 1)
    answers: dict[int, Finding] = {}
    missing: list[Finding] = []
    for finding in again:
        if finding.code == _MISSING:
            missing.append(finding)
        elif finding.code == "output_for_blocked_call":
            answers[finding.items[1]] = finding
        elif finding.code in ("orphan_output", "output_before_call"):
            answers[finding.items[0]] = finding
        else:
            return None
    out = _group_findings(head, toolset, members)
    out += [f for f in every if f.code in _STATUS]
    for f in every:
        if f.code not in _PAIRING:
            continue
        if f.code == "orphan_output" and f.items[0] in outputs:
            answer = answers.get(f.items[0])
            if answer is not None:
                out.append(answer)
        else:
            out.append(f)
    out += missing
    out += [f for f in every if f.code in _IDENTITY]
    return out


def _offset(counts: _Counts, number: int) -> int | None:
    """The items of the shares before this one, once each has said (None: one could not be
    converted). Each share says its count before it waits, so none waits for ever."""
    return counts.before(number)


__all__ = ["gate_session_on_cores"]
