"""`DiffResult`: both gate results, the aligned pairs, the decision, grouped by code."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field

from inspector.core.diff.values import (
    ERROR,
    INFO,
    WARNING,
    CodeGroup,
    DiffMode,
    DocumentChange,
    Pair,
    Pairs,
    Reason,
    Severity,
)
from inspector.core.gate import GateResult

_SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True, slots=True)
class DiffResult:
    """Both gate results, the aligned pairs in display order, and the reasons that block.

    `replay_safe` says only that no change of the diff itself blocks; the answer every output
    gives (with each side's own findings) is `core.decision.decide_pair`.
    """

    left: GateResult
    right: GateResult
    #: The pairs (any sequence of Pair is taken and held as `Pairs`).
    pairs: Pairs
    replay_safe: bool
    reasons: tuple[str, ...]
    mode: DiffMode = DiffMode.REPLAY
    document_changes: tuple[DocumentChange, ...] = ()
    #: The reasons with their codes and pairs (same order as `reasons`).
    reason_details: tuple[Reason, ...] = ()
    #: Each item's position in `pairs` (-1: in none), a machine integer an item.
    _left_slot: array[int] = field(init=False, repr=False, compare=False)
    _right_slot: array[int] = field(init=False, repr=False, compare=False)
    #: 0, 1, 2, … (`_Alike.iota`), when the diff has one: the slots are made from its slices.
    iota: InitVar[array[int] | None] = None

    def __post_init__(self, iota: array[int] | None) -> None:
        if not isinstance(self.pairs, Pairs):
            object.__setattr__(self, "pairs", Pairs(self.pairs))
        for name, side, count in (
            ("_left_slot", "left", len(self.left.transcript.items)),
            ("_right_slot", "right", len(self.right.transcript.items)),
        ):
            object.__setattr__(self, name, _slots(self.pairs.indexes(side), count, iota))

    def _pair_at(self, slots: array[int], index: int) -> Pair | None:
        if not 0 <= index < len(slots) or slots[index] < 0:
            return None
        return self.pairs[slots[index]]

    def pair_for_left(self, index: int) -> Pair | None:
        """Return the pair holding left item `index` (None when out of range)."""
        return self._pair_at(self._left_slot, index)

    def pair_for_right(self, index: int) -> Pair | None:
        """Return the pair holding right item `index` (None when out of range)."""
        return self._pair_at(self._right_slot, index)

    def pair_number(self, side: str, index: int) -> int | None:
        """Return the position in `pairs` of the pair holding an item of one side."""
        slots = self._left_slot if side == "left" else self._right_slot
        if not 0 <= index < len(slots) or slots[index] < 0:
            return None
        return slots[index]

    def summary(self) -> dict[str, int]:
        """Count pairs: same, info (informational changes only), changed, only_left, only_right."""
        counts = {"same": 0, "info": 0, "changed": 0, "only_left": 0, "only_right": 0}
        pairs = self.pairs
        lefts, rights = pairs.indexes("left"), pairs.indexes("right")  # -1: no item
        counts["only_left"] = rights.count(-1)
        counts["only_right"] = lefts.count(-1)
        both = len(pairs) - counts["only_left"] - counts["only_right"]
        for number in pairs.with_changes():  # one-sided pairs always have a change
            if lefts[number] >= 0 and rights[number] >= 0:
                counts["changed" if pairs[number].changed else "info"] += 1
        counts["same"] = both - counts["changed"] - counts["info"]
        return counts

    def changes_by_code(self) -> tuple[CodeGroup, ...]:
        """Every change, document change and reason grouped by code: errors first, then by code."""
        severity: dict[str, str] = {}
        counts: Counter[str] = Counter()
        pairs: dict[str, dict[int, None]] = {}
        document: set[str] = set()

        def note(code: str, level: str, where: Iterable[int]) -> None:
            counts[code] += 1
            known = severity.get(code)
            if known is None or _SEVERITY_RANK[Severity(level)] < _SEVERITY_RANK[Severity(known)]:
                severity[code] = level
            found = pairs.setdefault(code, {})
            for number in where:
                found.setdefault(number, None)

        for number in self.pairs.with_changes():
            for change in self.pairs.changes_at(number):
                note(change.code, change.severity, (number,))
        for whole in self.document_changes:
            document.add(whole.code)
            where = [
                at
                for side, items in (("left", whole.left_items), ("right", whole.right_items))
                for index in items
                if (at := self.pair_number(side, index)) is not None
            ]
            note(whole.code, whole.severity, where)
        reasons: dict[str, list[str]] = {}
        for reason in self.reason_details:
            reasons.setdefault(reason.code, []).append(reason.text)
        groups = [
            CodeGroup(
                code=code,
                severity=str(severity[code]),
                count=counts[code],
                pairs=tuple(sorted(pairs[code])),
                reasons=tuple(reasons.get(code, ())),
                document=code in document,
            )
            for code in counts
        ]
        groups.sort(key=lambda g: (_SEVERITY_RANK[Severity(g.severity)], g.code))
        return tuple(groups)


def _slots(held: array[int], count: int, iota: array[int] | None = None) -> array[int]:
    """Each of `count` items' position among the pairs, from each pair's item (-1: none);
    `iota` (0, 1, 2, …, of held's type) saves making the numbers; it is lengthened as needed."""
    # Each item once, in item order (the left side in display order, and the right one unless
    # pairs cross): the positions are those of every pair but the few with no item here, and
    # they are copied a run at a time between those, each run checked by its bytes.
    n = len(held)
    if iota is not None and iota.typecode == held.typecode:
        numbers = iota
        # A diff has up to both sides' items in pairs: the few numbers it lacks are added.
        numbers.extend(range(len(numbers), max(n, count)))
    else:
        numbers = array(held.typecode, range(max(n, count)))
    size = numbers.itemsize
    held_bytes, number_bytes = held.tobytes(), numbers.tobytes()
    slots = array(held.typecode)
    start = expected = 0
    while start <= n:
        try:
            gap = held.index(-1, start)
        except ValueError:
            gap = n
        if (
            held_bytes[size * start : size * gap]
            != number_bytes[size * expected : size * (expected + gap - start)]
        ):
            break
        slots.extend(numbers[start:gap])
        expected += gap - start
        start = gap + 1
    else:
        if expected == count:
            return slots
    slots = array("i", [-1]) * count
    for number, index in enumerate(held):
        if 0 <= index < count:
            slots[index] = number
    return slots
