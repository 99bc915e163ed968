"""One conversation of each file for `diff` and `report`, as `--conversation` picks it.

`gate` reports every conversation of a file that holds several; a diff or a report has one
transcript a side, so it takes the conversation `--conversation ID` names (given once, the id
applies to each file that names its conversations, as two eval logs of one task share their
sample ids; given twice, the first is LEFT's and the second RIGHT's), else the file's first,
and says so on stderr rather than leave the others unmentioned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.commands.gate import pick_conversation
from inspector.core.errors import UsageError
from inspector.core.formats import load_conversations
from inspector.core.jsonio import display_name
from inspector.core.model import LoadError, Transcript


def add_option(parser: Any, files: str) -> None:
    """Register `--conversation ID` (at most twice) on a command that reads `files`."""
    parser.add_argument(
        "--conversation",
        metavar="ID",
        action="append",
        default=[],
        help=f"the conversation to use from {files} that holds several (a trace, an eval log, "
        "a capture, a session with subagents); given twice, the first is LEFT's and the "
        "second RIGHT's; by default each file's first",
    )


def pick_sides(
    paths: Sequence[str], given: Sequence[str]
) -> tuple[list[Transcript | LoadError], list[str]]:
    """Each file's conversation to use (or why it cannot be read), and the notes for stderr.

    `given` is the `--conversation` values: none (each file's first), one (for each file that
    names its conversations; a file of one unnamed conversation is used as it is, but not every
    file may be one) or one a file. A UsageError when they do not fit the files.
    """
    if len(given) > len(paths):
        raise UsageError(
            f"--conversation is given {len(given)} times for {len(paths)} "
            f"file{'s' if len(paths) > 1 else ''}: at most one a file"
        )
    shared = len(given) == 1 and len(paths) > 1
    wanted = list(given) if len(given) == len(paths) else [given[0] if given else None] * len(paths)
    sides: list[Transcript | LoadError] = []
    notes: list[str] = []
    applied = False
    for path, asked in zip(paths, wanted, strict=True):
        try:
            conversations = load_conversations(path)
        except LoadError as exc:
            sides.append(exc)
            continue
        name = display_name(path)
        named = any(t.conversation is not None for t in conversations)
        if asked is not None and (named or not shared):
            applied = True
            try:
                sides.append(pick_conversation(conversations, asked, name)[0])
            except LoadError as exc:
                sides.append(exc)
            continue
        first = conversations[0]
        sides.append(first)
        if len(conversations) > 1:
            label = f" {first.conversation!r}" if first.conversation is not None else ""
            notes.append(
                f"{name} holds {len(conversations)} conversations; this uses the first{label} "
                "(pick another with --conversation ID)"
            )
    if shared and not applied and all(isinstance(side, Transcript) for side in sides):
        raise UsageError(f"--conversation {given[0]!r}: neither file holds named conversations")
    return sides, notes


def notes_text(command: str, notes: Sequence[str]) -> str:
    """The stderr lines for the notes `pick_sides` gave ('' when there are none)."""
    return "".join(f"inspector {command}: note: {note}\n" for note in notes)
