"""`inspector diff LEFT RIGHT`: two providers' transcripts side by side, and the replay decision.

`--mode replay` (the default): RIGHT is what you plan to replay in place of LEFT; call_ids must
match and RIGHT must be an Open Responses envelope. `--mode compare`: two providers' runs of
one session; calls align by order and name, and call_ids may be renamed consistently.

Exit status (the one decision, `core.decision.decide_pair`): replay mode, 0 when the right side
may be replayed (safe, or safe with warnings), 1 when it is unsafe (`--strict`: warnings block
too); compare mode, 0 when the runs are equivalent, 1 when they are different or diverged; 2
when a file (or --tools) cannot be read or the usage is wrong.

JSON (`--format json`) is one document: {"left": path, "right": path, "pairs": [{"left": i or
null, "right": j or null, "changes": [{"code", "pointer", "left", "right", "severity"}],
"changed", "left_type", "right_type", "left_verdict", "right_verdict"}], "replay_safe": bool,
"reasons": [str], "summary": {"same", "info", "changed", "only_left", "only_right"}, "mode":
"replay" or "compare", "document_changes": [{"code", "severity", "left", "right", "message",
"left_items", "right_items"}], "verdict_summary": {"outcome": "safe", "safe_with_warnings",
"unsafe" (replay) or "equivalent", "different", "diverged" (compare), "severity", "exit_status",
"replay_safe", "strict", "headline", "note", "suggestion", "reasons" and "warnings" [{"side",
"code", "severity", "text", "pair"}], "differences", "equivalent", "blocked_items",
"right_items", "blocking_findings", "right_reasons", "sides"}, "changes_by_code": [{"code",
"severity", "count", "pairs", "reasons", "document"}]}.

When a transcript cannot be read the JSON document is {"left": path, "right": path, "errors":
{"left": {"message", "line", "column"}, "right": {…}}}, with an entry only for each side that
failed (both files are always tried), and no pairs; text mode writes one
"inspector: file:line:column: message" line per failed file to stderr instead.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from inspector.commands import conversations
from inspector.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    Style,
    safe_text,
    stdin_twice,
    write_json,
)
from inspector.commands.gate import SEVERITY_SGR, VERDICT_SGR, decision_lines, load_tool_option
from inspector.core.decision import Decision, decide_pair
from inspector.core.diff import (
    Change,
    DiffMode,
    DiffResult,
    DocumentChange,
    Pair,
    diff_transcripts,
)
from inspector.core.errors import UsageError
from inspector.core.gate import GateResult, Verdict
from inspector.core.jsonio import STDIN, display_name
from inspector.core.model import LoadError, Severity, Transcript
from inspector.core.report.diff_json import diff_document

#: One marker per pair: identical, info-only, changed, blocking, one side only.
MARKERS = {"same": "=", "info": "~", "changed": "!", "blocking": "X", "left": "<", "right": ">"}
MARKER_SGR = {"=": "2", "~": "2", "!": "33;1", "X": "31;1", "<": "35", ">": "35"}
LEGEND = "= same  ~ info only  ! changed  X blocks replay  < left only  > right only"
#: Longest cell (type, name, call_id) and value shown in text output; the JSON has them whole.
CELL_WIDTH = 40
VALUE_WIDTH = 70


def add_parser(sub: Any) -> None:
    """Register the diff subcommand."""
    parser = sub.add_parser(
        "diff",
        help="align two providers' transcripts of one session and list what changed",
        description=(
            "Align two transcripts item by item, list every change (type, call_id, name, "
            "arguments, status, content, verdict) and decide whether replay is safe (replay "
            "mode) or whether the runs are equivalent (compare mode). Exit 0 safe or "
            "equivalent, 1 unsafe, different or diverged, 2 when a file cannot be read."
        ),
    )
    parser.add_argument("left", metavar="LEFT", help="the original provider's transcript")
    parser.add_argument("right", metavar="RIGHT", help="the transcript to replay")
    parser.add_argument("--tools", metavar="FILE", help="tool schemas (override the transcripts')")
    parser.add_argument(
        "--mode",
        choices=[str(m) for m in DiffMode],
        default=str(DiffMode.REPLAY),
        help=(
            "replay (default): RIGHT is what you plan to replay in place of LEFT, call_ids must "
            "match; compare: two providers' runs of one session, calls align by order and name "
            "and call_ids may be renamed consistently"
        ),
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--strict", action="store_true", help="warnings also make the exit status 1"
    )
    conversations.add_option(parser, "a file")
    parser.set_defaults(run=run)


def marker(pair: Pair) -> str:
    """Return the one-character marker of a pair."""
    if pair.right is None:
        return MARKERS["left"]
    if pair.left is None:
        return MARKERS["right"]
    if pair.blocking:
        return MARKERS["blocking"]
    if pair.changed:
        return MARKERS["changed"]
    return MARKERS["info"] if pair.changes else MARKERS["same"]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _value(value: Any) -> str:
    if value is None:
        return "-"
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return safe_text(_clip(text, VALUE_WIDTH))


def _cells(result: GateResult, index: int | None) -> list[str]:
    """Index, type, name (or role), call_id and verdict of one item; blanks when absent."""
    if index is None:
        return ["", "", "", "", ""]
    item = result.transcript.items[index]
    label = item.name if isinstance(item.name, str) else item.role
    texts = [
        str(index),
        item.type_label,
        label if isinstance(label, str) else "",
        item.call_id if isinstance(item.call_id, str) else "",
    ]
    return [safe_text(_clip(t, CELL_WIDTH)) for t in texts] + [str(result.verdicts[index].verdict)]


def _side(cells: list[str], widths: list[int], style: Style, right: bool = False) -> str:
    index, *middle, verdict = cells
    parts = [index.rjust(widths[0])]
    parts += [text.ljust(width) for text, width in zip(middle, widths[1:-1], strict=True)]
    word = verdict.ljust(widths[-1])
    parts.append(style(word, VERDICT_SGR.get(Verdict(verdict), "31")) if verdict else word)
    line = "  ".join(parts)
    return line.rstrip() if right else line


def change_line(change: Change, style: Style) -> str:
    """Return the text line listing one change beneath its pair."""
    severity = Severity(change.severity)
    word = style(severity.value.ljust(7), SEVERITY_SGR[severity])
    where = safe_text(change.pointer) if change.pointer else "(item)"
    if change.code in ("only_left", "only_right"):
        return f"        {word} {change.code}"
    return f"        {word} {change.code}  {where}  {_value(change.left)} → {_value(change.right)}"


def document_line(change: DocumentChange, style: Style) -> str:
    """Return the text line listing one document-level change."""
    severity = Severity(change.severity)
    word = style(severity.value.ljust(7), SEVERITY_SGR[severity])
    return f"  {word} {change.code}  {safe_text(change.message)}"


def render_text(
    left_path: str,
    right_path: str,
    diff: DiffResult,
    style: Style,
    decision: Decision | None = None,
) -> list[str]:
    """Return the side-by-side text report: one line per pair, changes beneath, the decision."""
    lines = []
    for side, path, result in (
        ("left: ", left_path, diff.left),
        ("right:", right_path, diff.right),
    ):
        transcript: Transcript = result.transcript
        picked = f" [{safe_text(transcript.conversation)}]" if transcript.conversation else ""
        lines.append(
            f"{side} {style(safe_text(path), '1')}{picked}  "
            f"({transcript.format}, {len(transcript.items)} items)"
        )
    lines.append(f"mode:  {style(str(diff.mode), '1')} ({diff.mode.description})")
    lines.append(LEGEND)
    rows = [(_cells(diff.left, p.left), _cells(diff.right, p.right), p) for p in diff.pairs]
    columns = ([left for left, _, _ in rows], [right for _, right, _ in rows])
    widths = [[max((len(c[k]) for c in cells), default=0) for k in range(5)] for cells in columns]
    for left_cells, right_cells, pair in rows:
        mark = marker(pair)
        lines.append(
            f"  {_side(left_cells, widths[0], style)}  {style(mark, MARKER_SGR[mark])}  "
            f"{_side(right_cells, widths[1], style, right=True)}".rstrip()
        )
        lines.extend(change_line(change, style) for change in pair.changes)
    if diff.document_changes:
        lines.append("document:")
        lines.extend(document_line(change, style) for change in diff.document_changes)
    counts = diff.summary()
    lines.append(
        f"pairs: {len(diff.pairs)}  (same {counts['same']}, info only {counts['info']}, "
        f"changed {counts['changed']}, left only {counts['only_left']}, "
        f"right only {counts['only_right']})"
    )
    if decision is None:
        decision = decide_pair(diff, names=(left_path, right_path))
    lines.extend(decision_lines(decision, style))
    return lines


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Diff two transcript files and print the report; return the exit status."""
    if args.left == args.right == STDIN:
        err.write("inspector diff: error: only one of LEFT and RIGHT can be - (standard input)\n")
        return EXIT_UNREADABLE
    twice = stdin_twice([args.left, args.right, args.tools])
    if twice is not None:
        err.write(f"inspector diff: error: {twice}\n")
        return EXIT_UNREADABLE
    tools = load_tool_option(args.tools, err)
    if tools is None:
        return EXIT_UNREADABLE
    try:
        sides, notes = conversations.pick_sides([args.left, args.right], args.conversation)
    except UsageError as usage:
        err.write(f"inspector diff: error: {safe_text(str(usage))}\n")
        return EXIT_UNREADABLE
    loaded = dict(zip(("left", "right"), sides, strict=True))
    args.left, args.right = display_name(args.left), display_name(args.right)  # `-` → <stdin>
    errors = {side: value for side, value in loaded.items() if isinstance(value, LoadError)}
    if errors:
        if args.format == "json":
            document = {
                "left": args.left,
                "right": args.right,
                "errors": {side: exc.to_json() for side, exc in errors.items()},
            }
            write_json(document, out)
        else:
            for exc in errors.values():
                err.write(f"inspector: {safe_text(str(exc))}\n")
        return EXIT_UNREADABLE
    err.write(conversations.notes_text("diff", notes))
    left, right = loaded["left"], loaded["right"]
    assert isinstance(left, Transcript) and isinstance(right, Transcript)
    diff = diff_transcripts(left, right, tools, mode=args.mode)
    decision = decide_pair(diff, names=(args.left, args.right), strict=args.strict)
    if args.format == "json":
        document = diff_document(diff, args.left, args.right, streamed=True, decision=decision)
        write_json(document, out)
    else:
        lines = render_text(args.left, args.right, diff, Style.for_stream(out), decision)
        out.write("\n".join(lines) + "\n")
    return EXIT_FINDINGS if decision.blocks else EXIT_CLEAN
