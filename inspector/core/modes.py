"""The diff's two modes (`DiffMode`): what the right side of a pair is.

Apart from the diff's values (core.diff.values re-exports it), so that a window's start, which
names the mode, builds none of the diff's result classes.
"""

from __future__ import annotations

from enum import StrEnum


class DiffMode(StrEnum):
    """What the right side is: the planned replay of the left, or another run to compare."""

    REPLAY = "replay"
    COMPARE = "compare"

    @property
    def description(self) -> str:
        """One line saying how the two sides are read."""
        if self is DiffMode.COMPARE:
            return (
                "two providers' runs of one session; calls align by order and name, "
                "call_ids may be renamed consistently"
            )
        return "RIGHT is what you plan to replay in place of LEFT; call_ids must match"
