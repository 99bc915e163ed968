"""`inspector gate --follow FILE`: gate a growing session file's new items as they arrive."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, TextIO

from inspector.commands.common import EXIT_UNREADABLE, Style, safe_text
from inspector.core.formats._follow import Follower
from inspector.core.gate import GateResult, gate_transcript
from inspector.core.model import LoadError, Tool
from inspector.core.report import item_rows

#: The exit status of an interrupted run (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130
#: Seconds between looks at the file.
INTERVAL = 0.5


def _row_text(conversation: str | None, row: dict[str, Any], updated: bool) -> str:
    where = f"[{conversation}] " if conversation else ""
    label = row["name"] if isinstance(row["name"], str) else row["role"]
    mark = " (updated)" if updated else ""
    return safe_text(
        f"{where}#{row['index']} {row['type']} {label or '-'} {row['call_id'] or '-'} "
        f"{row['verdict']}{mark}  {row['detail']}"
    )


def follow(
    args: argparse.Namespace, tools: dict[str, Tool], out: TextIO, err: TextIO, style: Style
) -> int:
    """Follow one file until interrupted: print each new item's row (and each changed one)."""
    if len(args.files) != 1 or args.files[0] == "-":
        err.write("inspector: --follow takes one file (not standard input)\n")
        return EXIT_UNREADABLE
    follower = Follower(args.files[0])
    interval = getattr(args, "interval", INTERVAL)
    #: conversation → the rows already shown, by item index (to show only what changed).
    shown: dict[str | None, list[dict[str, Any]]] = {}
    try:
        return _loop(follower, interval, shown, tools, args, out, err)
    except KeyboardInterrupt:
        # Following ends when the user says so: one line, no traceback.
        err.write("inspector: interrupted\n")
        return EXIT_INTERRUPTED


def _loop(
    follower: Follower,
    interval: float,
    shown: dict[str | None, list[dict[str, Any]]],
    tools: dict[str, Tool],
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
) -> int:
    while True:
        try:
            update = follower.poll()
        except LoadError as exc:
            err.write(f"inspector: {safe_text(str(exc))}\n")
            return EXIT_UNREADABLE
        if update is not None:
            if update.restarted is not None:
                err.write(
                    f"inspector: {safe_text(follower.name)}: {update.restarted}; "
                    "reading it again from the start\n"
                )
                shown.clear()
            for transcript in update.transcripts:
                if args.conversation is not None and transcript.conversation != args.conversation:
                    continue
                result: GateResult = gate_transcript(transcript, tools, budget=args.item_budget)
                _show(transcript.conversation, list(item_rows(result)), shown, args, out)
            out.flush()
        time.sleep(interval)


def _show(
    conversation: str | None,
    rows: list[dict[str, Any]],
    shown: dict[str | None, list[dict[str, Any]]],
    args: argparse.Namespace,
    out: TextIO,
) -> None:
    before = shown.get(conversation, [])
    for row in rows:
        index = row["index"]
        updated = index < len(before)
        if updated and before[index] == row:
            continue
        if args.format == "json":
            # One object per line, as a log of what arrived (a reader can follow this in turn).
            document = {"conversation": conversation, "updated": updated, **row}
            out.write(json.dumps(document, ensure_ascii=False) + "\n")
        else:
            out.write(_row_text(conversation, row, updated) + "\n")
    shown[conversation] = rows
