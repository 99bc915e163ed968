"""The words of the status line, from the core's decisions (Qt-free; no check is made here).

Every input is a `core.decision.Decision`: each file's (`decide_file`) and the pair's
(`decide_pair`, made once with the alignment). The words are the decision's own
(`status_line`, `reason_lines`, `warning_lines`), so the window says what every report says.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from inspector.core.decision import Decision

#: What the status line says before any file is open.
NOTHING_OPEN = "Open two transcripts to see what may be replayed to another model."
#: The last line of the tooltip of a diff's status line.
CLICK_HINT = "Click to list every reason and change by code."


class Side(NamedTuple):
    """What the status line knows of one loaded file: its name, decision and verdict counts."""

    name: str
    decision: Decision
    summary: Mapping[str, int]


class StatusLine(NamedTuple):
    """The status line: its text, tooltip, icon kind and colour severity (None: plain)."""

    text: str
    tip: str
    #: "error", "warning", "info" (a severity's icon) or "ok" (the ok verdict's icon); None.
    icon: str | None
    severity: str | None


def plural(count: int, word: str) -> str:
    """`count` with thousands separators and the word, plural unless it is one ("2 errors")."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


#: The icon kind of each decision severity: green ok, amber warning, red error.
_ICONS = {"info": "ok", "warning": "warning", "error": "error"}


def decision_words(decision: Decision) -> str:
    """The words for one file's replay decision (the core decides, never the GUI)."""
    return decision.status_line()


def answers(sides: Sequence[Side]) -> list[str]:
    """One line per loaded file: its name and its replay answer."""
    return [f"{side.name}: {decision_words(side.decision)}" for side in sides]


def diff_status(decision: Decision, changed: int, sides: Sequence[Side]) -> StatusLine:
    """The status line of a finished diff: the core's decision, its mode and changed pairs."""
    severity = str(decision.severity)
    text = f"{decision.status_line()}   ({decision.mode} mode; {plural(changed, 'changed pair')})"
    lines = [*decision.reason_lines(), *decision.warning_lines()] or [decision.headline]
    lines += ["", *answers(sides), "", CLICK_HINT]
    return StatusLine(text, "\n".join(lines), _ICONS[severity], severity)


def files_status(sides: Sequence[Side], waiting: str) -> StatusLine:
    """The status line of loaded files with no diff yet; `waiting` says why there is none."""
    if not sides:
        return StatusLine(NOTHING_OPEN, "", None, None)
    worst = min((side.decision for side in sides), key=lambda d: d.severity.rank)
    text = "   ".join(
        f"{answer} ({', '.join(f'{k} {v:,}' for k, v in side.summary.items())})"
        for answer, side in zip(answers(sides), sides, strict=True)
    )
    if waiting:
        text += "   — " + waiting
    severity = str(worst.severity)
    return StatusLine(text, text, _ICONS[severity], severity)


def waiting_words(missing: str | None, path: str | None, unreadable: bool, comparing: bool) -> str:
    """Why no diff is shown: the `missing` side has no file (or `path` is unreadable or still
    loading there), or the two are being compared."""
    if missing is None:
        return "comparing…" if comparing else ""
    if path is None:
        return "open a second transcript to compare"
    if unreadable:
        return f"the {missing} file {path} could not be read, so there is nothing to compare"
    return f"loading {path}…"


def hidden_words(changed: int) -> str:
    """What F8 says when the filters hide every other difference."""
    return (
        f"The filter hides the other differences ({changed:,} in all): "
        "Esc in the filter box clears it"
    )


def window_status(
    sides: Mapping[str, Side],
    paths: Mapping[str, str | None],
    unreadable: Callable[[str], bool],
    verdict: Decision | None,
    changed: int,
    comparing: bool,
) -> StatusLine:
    """The window's status line: the diff's decision when there is one, else each loaded
    side's (`sides`, by side) and why there is no diff (`paths`: every side's file)."""
    if verdict is not None:
        return diff_status(verdict, changed, list(sides.values()))
    missing = next(s for s in paths if s not in sides) if len(sides) == 1 else None
    path = paths.get(missing) if missing is not None else None
    waiting = waiting_words(
        missing,
        os.path.basename(path) if path else None,
        missing is not None and unreadable(missing),
        comparing,
    )
    return files_status(list(sides.values()), waiting)
