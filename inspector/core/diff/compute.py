"""The whole diff: document changes, every pair's changes and the reasons that block."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from inspector.core.diff.align import _align
from inspector.core.diff.call_ids import _CallIds
from inspector.core.diff.changes import (
    _format_neutral_verdicts,
    is_filler,
    one_side_change,
    pair_changes,
    same_json,
)
from inspector.core.diff.keys import _Alike, _is_call_type, _Side
from inspector.core.diff.match import Found
from inspector.core.diff.reasons import _reasons
from inspector.core.diff.result import DiffResult
from inspector.core.diff.values import (
    ERROR,
    INFO,
    Change,
    DiffMode,
    DocumentChange,
    Pair,
    Pairs,
    Reason,
    _plural,
)
from inspector.core.gate import (
    GateResult,
    ItemVerdict,
    ToolSet,
    Verdict,
    answered_history,
    gate_transcript,
)
from inspector.core.model import Envelope, Item, Tool, Transcript, paused_gc


def _format_name(transcript: Transcript) -> str:
    """The format, with the envelopes of its records when the name does not say them."""
    envelopes = " + ".join(dict.fromkeys(str(g.envelope) for g in transcript.groups))
    envelopes = envelopes or str(Envelope.OPEN_RESPONSES)
    return (
        transcript.format
        if transcript.format == envelopes
        else f"{transcript.format} ({envelopes})"
    )


def document_changes(
    left: GateResult, right: GateResult, mode: DiffMode | str = DiffMode.REPLAY
) -> list[DocumentChange]:
    """Differences of the documents as a whole: their format and, in replay mode, the envelope.

    A right side the gate reports as another API's envelope (its `*_envelope` findings, code
    `<envelope>_envelope`) cannot be replayed as Open Responses: `foreign_envelope`, an error.
    """
    out: list[DocumentChange] = []
    left_format, right_format = left.transcript.format, right.transcript.format
    if left_format != right_format:
        message = (
            f"the format changed from {_format_name(left.transcript)} to "
            f"{_format_name(right.transcript)}"
        )
        out.append(DocumentChange("format_changed", INFO, left_format, right_format, message))
    if DiffMode(mode) is DiffMode.REPLAY:
        envelopes: dict[str, list[Any]] = {}
        for finding in right.findings:
            if finding.code.endswith("_envelope"):
                envelopes.setdefault(finding.code, []).append(finding)
        for code, findings in envelopes.items():
            more = f" (+{_plural(len(findings) - 1, 'more record')})" if len(findings) > 1 else ""
            out.append(
                DocumentChange(
                    "foreign_envelope",
                    ERROR,
                    None,
                    code.removesuffix("_envelope"),
                    f"right side: {findings[0].message}{more}",
                    right_items=tuple(sorted({i for f in findings for i in f.items})),
                )
            )
    return out


#: A diff's progress report: what it is doing, and how far the whole diff has got (0..1).
DiffProgress = Callable[[str, float], None]
#: How far the diff has got when the items are read and when they are aligned (the rest of the
#: way is comparing the pairs), and how many reports comparing the pairs makes at most.
_READ, _ALIGNED, _PAIR_REPORTS = 0.4, 0.5, 100


def diff_results(
    left: GateResult,
    right: GateResult,
    *,
    mode: DiffMode | str = DiffMode.REPLAY,
    progress: DiffProgress | None = None,
) -> DiffResult:
    """Align two gated transcripts, list the changes of every pair and decide on replay.

    `progress` hears the stage and how far the diff has got, rising to 1.0 at the end; reports
    are bounded (a few hundred for any size), so a GUI can pass each one on.
    """
    mode = DiffMode(mode)
    with paused_gc():
        return _diff_results(left, right, mode, progress or _silent)


def _silent(_stage: str, _fraction: float) -> None:
    pass


def _diff_results(
    left: GateResult, right: GateResult, mode: DiffMode, progress: DiffProgress
) -> DiffResult:
    compare = mode is DiffMode.COMPARE
    litems, ritems = left.transcript.items, right.transcript.items
    total = max(len(litems) + len(ritems), 1)

    progress("Reading the items", 0.0)
    shared: dict[bytes, int] = {}
    lside = _Side.of(litems, shared)
    progress("Reading the items", _READ * len(litems) / total)
    rside = _Side.of(ritems, shared)
    alike = _Alike(lside, rside)
    history = (
        (answered_history(left), answered_history(right)) if compare else (frozenset(), frozenset())
    )
    if compare:
        # Whether a schema is known is a property of a file, not a difference between the runs:
        # the tools known on either side judge both.
        tools = _either(left, right)
        lverdicts: Sequence[Verdict] = _format_neutral_verdicts(left, tools, history[0])
        rverdicts: Sequence[Verdict] = _format_neutral_verdicts(right, tools, history[1])
    else:
        lverdicts, rverdicts = _Verdicts(left), _Verdicts(right)
    # Replay mode's proved stretches compare their verdicts a stretch at a time, from the gate's
    # results (no list of every item's verdict is held: see `_same_verdicts`).
    lheld, rheld = left.verdicts, right.verdicts
    progress("Aligning the items", _READ)
    aligned = _align(lside, rside, mode, alike)
    if compare:
        aligned = _split_unlike(aligned, litems, ritems)
    lefts, rights = aligned.lefts, aligned.rights
    # Stretches whose pairs differ in nothing but the id and the verdict (replay mode: compare
    # mode checks each pair's call_ids below).
    proved = [] if compare else aligned.proved
    del aligned
    call_ids = _CallIds(lefts, rights, lside, rside, litems, ritems) if compare else None
    count = len(lefts)
    made: dict[int, Pair] = {}
    notes: dict[int, str] = {}
    test, known = alike.test, alike.known
    step = max(count // _PAIR_REPORTS, 1)
    # The positions compared pair by pair: all but the proved stretches whose verdicts are
    # the same, told for a whole stretch by its bytes of verdict numbers (its pairs then have
    # no change).
    todo: list[tuple[int, int]] = []
    position = 0
    for start, stop in [*proved, (count, count)]:
        if position < start:
            todo.append((position, start))
        if start < stop and not _same_verdicts(
            lheld, rheld, lefts[start], rights[start], stop - start
        ):
            todo.append((start, stop))
        position = stop
    reported = 0  # the position the next report is due at
    for first, last in todo:
        for number in range(first, last):
            if number >= reported:
                progress("Comparing the pairs", _ALIGNED + (1 - _ALIGNED) * number / count)
                reported = number - number % step + step
            i, j = lefts[number], rights[number]
            if j < 0:
                made[number] = Pair(i, None, (one_side_change(litems[i], "left", mode),))
                continue
            if i < 0:
                made[number] = Pair(None, j, (one_side_change(ritems[j], "right", mode),))
                continue
            if (
                lverdicts[i] == rverdicts[j]
                and (
                    compare
                    # The same value of the same kind (1 and true are not one call_id).
                    or (
                        type(lcall := litems[i].call_id) is type(rcall := ritems[j].call_id)
                        and lcall == rcall
                    )
                )
                and (known[i] == j or test(i, j))
            ):
                # The common case, decided on bytes: nothing but the id (and in compare mode
                # the call_id, checked below) differs.
                changes: tuple[Change, ...] = ()
            else:
                changes = pair_changes(
                    litems[i], ritems[j], lverdicts[i], rverdicts[j], mode=mode, history=history
                )
            if call_ids is not None and (found := call_ids.change(i, j)) is not None:
                change, note = found
                at = 1 if changes and changes[0].pointer == "/type" else 0
                changes = (*changes[:at], change, *changes[at:])
                if note is not None:
                    notes[number] = note
            if changes:
                made[number] = Pair(i, j, changes)
    if compare:
        _mark_reordered(lefts, rights, made, litems)
    # The sides' texts, keys and marks go before the result is built, not with it.
    iota = alike.iota
    del lside, rside, alike, test, known, call_ids
    pairs = Pairs.held(lefts, rights, made)
    documents = document_changes(left, right, mode)
    details = [Reason(d.code, d.message, None) for d in documents if d.severity == ERROR] + [
        Reason(code, text, number)
        for number in pairs.with_changes()
        if (pair := pairs[number]).blocking
        for code, text in _reasons(pair, litems, ritems, notes.get(number))
    ]
    reasons = tuple(r.text for r in details)
    progress("Compared", 1.0)
    return DiffResult(
        left,
        right,
        pairs,
        not reasons,
        reasons,
        mode=mode,
        document_changes=tuple(documents),
        reason_details=tuple(details),
        iota=iota,
    )


class _Verdicts(Sequence[Verdict]):
    """The gate's verdict of each item, read from its result when asked for."""

    __slots__ = ("_held",)

    def __init__(self, result: GateResult) -> None:
        self._held = result.verdicts

    def __len__(self) -> int:
        return len(self._held)

    def __getitem__(self, index: int) -> Verdict:  # type: ignore[override]  # no slices
        return self._held[index].verdict


def _same_verdicts(
    left: Sequence[ItemVerdict], right: Sequence[ItemVerdict], i: int, j: int, size: int
) -> bool:
    """Whether the `size` left items from i have the verdicts of the right items from j."""
    # A stretch at a time, so that no list an item is held for the whole diff; the members
    # are the enum's own, compared by identity first.
    return [v.verdict for v in left[i : i + size]] == [v.verdict for v in right[j : j + size]]


def _either(left: GateResult, right: GateResult) -> ToolSet:
    """The tools known on either side (the left's win a clash), limited as either side limits."""
    if left.toolset.tools == right.toolset.tools:
        return left.toolset
    tools = {**right.toolset.tools, **left.toolset.tools}
    allowed = [a for a in (left.toolset.allowed, right.toolset.allowed) if a is not None]
    return ToolSet(MappingProxyType(tools), frozenset().union(*allowed) if allowed else None)


def _split_unlike(found: Found, litems: Sequence[Item], ritems: Sequence[Item]) -> Found:
    """Compare mode: a call or output never pairs with another kind of item, nor reasoning or
    an assistant's words with a call; such pairs become one item on each side."""
    out = Found()
    for i, j in zip(found.lefts, found.rights, strict=True):
        if i >= 0 and j >= 0:
            left, right = litems[i], ritems[j]
            lcall, rcall = _is_call_type(left.type), _is_call_type(right.type)
            # A call that became a provider-prefixed item stays one pair: became_namespaced.
            prefixed = any(isinstance(t, str) and ":" in t for t in (left.type, right.type))
            unlike = (lcall or rcall) and not prefixed and not same_json(left.type, right.type)
            if unlike or is_filler(left) != is_filler(right) or _other_wording(left, right):
                out.extend(((i, None), (None, j)))
                continue
        out.lefts.append(i)
        out.rights.append(j)
    return out


def _other_wording(left: Item, right: Item) -> bool:
    """Whether two items are each run's own wording of another kind (OpenAI `reasoning` against
    another provider's assistant text or thinking block): neither is the other's counterpart,
    so each is listed on its own side, as information, not as a changed type."""
    return is_filler(left) and is_filler(right) and not same_json(left.type, right.type)


def _mark_reordered(
    lefts: array[int], rights: array[int], made: dict[int, Pair], litems: Sequence[Item]
) -> None:
    """Compare mode: calls and outputs paired out of order (a parallel batch against calls made
    one after another) carry `calls_reordered`, information (added to `made`)."""
    calls = [
        n
        for n, (i, j) in enumerate(zip(lefts, rights, strict=True))
        if i >= 0 and j >= 0 and _is_call_type(litems[i].type)
    ]
    calls.sort(key=lefts.__getitem__)
    paired = [rights[n] for n in calls]
    crossed = set()
    highest = -1
    for n, right in zip(calls, paired, strict=True):
        if right < highest:
            crossed.add(n)
        highest = max(highest, right)
    lowest = len(paired) and max(paired) + 1
    for n, right in zip(reversed(calls), reversed(paired), strict=True):
        if right > lowest:
            crossed.add(n)
        lowest = min(lowest, right)
    for n in crossed:
        held = made.get(n)
        change = Change("calls_reordered", "", lefts[n], rights[n], INFO)
        made[n] = Pair(lefts[n], rights[n], (*(held.changes if held else ()), change))


def diff_transcripts(
    left: Transcript,
    right: Transcript,
    extra_tools: Mapping[str, Tool] | None = None,
    *,
    mode: DiffMode | str = DiffMode.REPLAY,
) -> DiffResult:
    """Gate both transcripts (with the same extra tools) and diff the results."""
    return diff_results(
        gate_transcript(left, extra_tools), gate_transcript(right, extra_tools), mode=mode
    )
