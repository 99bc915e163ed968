"""Where the keys go: next / previous difference and problem, and the counterpart (Qt-free).

The window asks these functions where to go and then selects it; what a pane shows is passed
in as a function, so the stepping is tested without widgets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # a diff's alignment comes after the window's first paint
    from inspector.gui.alignment import Alignment

SIDES = ("left", "right")


def other(side: str) -> str:
    """The other pane's side."""
    return "right" if side == "left" else "left"


def pane_side(side: str) -> str:
    """The side the keys act on: the current one, or the left when Scratch is current."""
    return side if side in SIDES else "left"


class Step(NamedTuple):
    """Where a step lands: a pair's position or an item, the side shown, whether it wrapped."""

    side: str
    item: int
    wrapped: bool
    position: int | None = None


def _wrapped(forward: bool, current: int | None, landed: int) -> bool:
    if current is None:
        return False
    return landed <= current if forward else landed >= current


def step_difference(
    alignment: Alignment,
    current: int | None,
    forward: bool,
    shows: Callable[[str, int], bool],
) -> Step | None:
    """The next (or previous) changed pair from position `current` that a pane shows
    (`shows(side, item)`), or None when the filters hide every other one."""
    changed = alignment.changed
    step = alignment.next_changed if forward else alignment.previous_changed
    position = step(current)
    for _ in range(len(changed)):
        if position is None:
            return None
        pair = alignment.diff.pairs[position]
        for side, item in (("left", pair.left), ("right", pair.right)):
            if item is not None and shows(side, item):
                if position != current or len(changed) == 1:
                    return Step(side, item, _wrapped(forward, current, position), position)
                break
        position = step(position)
    return None


def step_problem(problems: Sequence[int], current: int | None, forward: bool) -> Step | None:
    """The next (or previous) blocking item from `current` on a side, wrapping at the ends;
    the Step's side is left empty for the caller (problems are per side)."""
    if not problems:
        return None
    if forward:
        later = [i for i in problems if current is None or i > current]
        return Step("", later[0], False) if later else Step("", problems[0], current is not None)
    earlier = [i for i in problems if current is None or i < current]
    if earlier:
        return Step("", earlier[-1], False)
    return Step("", problems[-1], current is not None)


def counterpart(alignment: Alignment | None, side: str, item: int | None) -> Step | None:
    """The aligned item on the other side (None without a diff or a counterpart)."""
    if alignment is None or item is None:
        return None
    found = alignment.counterpart(side, item)
    return Step(other(side), found, False) if found is not None else None


def wrap_words(step: Step | None, forward: bool, what: str, count: int) -> str:
    """What the status bar says when a step among `count` places wrapped ('' when it did not),
    or that there is none (no step)."""
    if step is None:
        return f"No {what} on this side"
    if not step.wrapped:
        return ""
    if count == 1:
        return f"This is the only {what}"
    if forward:
        return f"Wrapped past the last {what}: back at the first of {count:,}"
    return f"Wrapped past the first {what}: back at the last of {count:,}"
