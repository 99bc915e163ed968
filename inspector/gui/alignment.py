"""A DiffResult seen from the window: aligned row orders and stepping between differences.

Qt-free: which pair comes next is plain bookkeeping over the core's pairs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.core.decision import Decision
    from inspector.core.diff import DiffResult, Pair


def field_keys(value: Any) -> list[Any]:
    """The keys of a JSON container (object keys, or list positions); none for a scalar."""
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return list(range(len(value)))
    return []


def padded_keys(left: Any, right: Any) -> list[Any]:
    """The field rows both sides of an aligned pair show under one node: the left's keys in its
    order, then the keys only the right has.

    Both panes list the same keys, each showing a gap row where its own value has none, so
    the lines of an expanded pair stay level however many fields either side has.
    """
    keys = field_keys(left)
    extra = field_keys(right)
    if not keys or not extra:
        return keys or extra
    seen = set(keys)
    return keys + [k for k in extra if k not in seen]


@dataclass(frozen=True)
class Alignment:
    """Row orders for aligned mode and the positions of changed pairs."""

    diff: DiffResult
    #: The two files' names, as the decision's reasons and per-side answers name them.
    names: tuple[str, str] = ("", "")
    #: The core's one decision for the pair (computed once, with the alignment).
    decision: Decision = field(init=False)
    left_rows: Sequence[int | None] = field(init=False)
    right_rows: Sequence[int | None] = field(init=False)
    changed: list[int] = field(init=False)

    def __post_init__(self) -> None:
        from inspector.core.decision import decide_pair  # made with the first diff, not before

        object.__setattr__(self, "decision", decide_pair(self.diff, names=self.names))
        pairs = self.diff.pairs
        left_rows = pairs.rows("left")
        right_rows = pairs.rows("right")
        object.__setattr__(self, "left_rows", left_rows)
        object.__setattr__(self, "right_rows", right_rows)
        changed = [n for n in pairs.with_changes() if pairs[n].changed]
        object.__setattr__(self, "changed", changed)

    def rows(self, side: str) -> Sequence[int | None]:
        """The aligned display order of one side (None where it has no item)."""
        return self.left_rows if side == "left" else self.right_rows

    def pair_of(self, side: str, item: int) -> Pair | None:
        """The pair holding an item of one side."""
        if side == "left":
            return self.diff.pair_for_left(item)
        return self.diff.pair_for_right(item)

    def position(self, side: str, item: int) -> int | None:
        """The display position of the pair holding an item."""
        # The diff's own index of pairs by item: the display order is the order of the pairs.
        return self.diff.pair_number(side, item)

    def counterpart(self, side: str, item: int) -> int | None:
        """The aligned item on the other side, if any."""
        pair = self.pair_of(side, item)
        if pair is None:
            return None
        return pair.right if side == "left" else pair.left

    def next_changed(self, position: int | None) -> int | None:
        """The next changed pair after a position (the first one from None); wraps around."""
        if not self.changed:
            return None
        if position is None:
            return self.changed[0]
        at = bisect_right(self.changed, position)
        return self.changed[at] if at < len(self.changed) else self.changed[0]

    def previous_changed(self, position: int | None) -> int | None:
        """The changed pair before a position (the last one from None); wraps around."""
        if not self.changed:
            return None
        if position is None:
            return self.changed[-1]
        at = bisect_left(self.changed, position)
        return self.changed[at - 1] if at > 0 else self.changed[-1]
