"""`inspector report LEFT [RIGHT]`: a report to share (HTML, Markdown or JUnit XML), redacted.

One file is gated, two are diffed; the exit status is the one decision's (`core.decision`), as
`gate` (one file) or `diff` (two files) would give it: 0 safe, safe with warnings or equivalent,
1 unsafe, different or diverged, 2 unreadable input or bad usage.
Markdown and JUnit go to stdout unless `-o` is given; HTML needs `-o`. The output file is written
atomically (a temporary file in the same folder, then os.replace) and never over an input file.
Redaction is on unless `--no-redact` is given; `--redact REGEX` adds patterns.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from inspector.commands import conversations
from inspector.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    STDOUT,
    check_output,
    safe_text,
    stdin_twice,
    target_profile,
    write_atomic,
)
from inspector.commands.gate import load_tool_option
from inspector.core.diff import diff_transcripts
from inspector.core.errors import UsageError
from inspector.core.gate import gate_transcript
from inspector.core.jsonio import display_name
from inspector.core.model import LoadError, Tool, Transcript
from inspector.core.report.html import render_html
from inspector.core.report.junit import render_junit
from inspector.core.report.markdown import render_markdown
from inspector.core.report.model import ReportInput, ReportSide, decide
from inspector.core.report.redact import Redactor, RedactPatternError
from inspector.core.targets import check_transcript

#: Renderer per --format.
RENDERERS: dict[str, Callable[[ReportInput, Redactor], str]] = {
    "html": render_html,
    "markdown": render_markdown,
    "junit": render_junit,
}
#: --format when it is not given: from the -o suffix, else Markdown.
SUFFIX_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".xml": "junit"}
MODES = ("replay", "compare")


def add_parser(sub: Any) -> None:
    """Register the report subcommand."""
    parser = sub.add_parser(
        "report",
        help="write a report to share (HTML, Markdown or JUnit XML), secrets redacted",
        description=(
            "Gate one transcript, or diff two, and write a report to share: a self-contained "
            "HTML page, a Markdown summary for a pull request, or JUnit XML for CI. Secrets "
            "(API keys, tokens, private keys) are redacted unless --no-redact is given. Exit "
            "status as gate (one file) or diff (two files): 0 clean, 1 blocking, 2 unreadable "
            "or bad usage."
        ),
    )
    parser.add_argument("left", metavar="LEFT", help="a transcript (the original, for a diff)")
    parser.add_argument("right", metavar="RIGHT", nargs="?", help="the transcript to replay")
    parser.add_argument("--tools", metavar="FILE", help="tool schemas (override the transcripts')")
    parser.add_argument(
        "--target",
        metavar="P",
        type=target_profile,
        help="also report what target provider P would reject or silently change",
    )
    parser.add_argument("--mode", choices=MODES, help="diff mode for two files (default replay)")
    parser.add_argument(
        "--strict", action="store_true", help="warnings also make the exit status 1"
    )
    parser.add_argument(
        "--format",
        choices=tuple(RENDERERS),
        help="html, markdown or junit (default: from the -o suffix, else markdown)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write here: a new or regular file, or - for stdout (required for html)",
    )
    parser.add_argument(
        "--no-redact", action="store_true", help="keep secrets as they are (the report says so)"
    )
    parser.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="REGEX",
        help="also redact what this regular expression matches (repeatable)",
    )
    conversations.add_option(parser, "a file")
    parser.set_defaults(run=run)


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output:
        return SUFFIX_FORMATS.get(Path(args.output).suffix.lower(), "markdown")
    return "markdown"


def _check_usage(args: argparse.Namespace, fmt: str) -> Redactor:
    if fmt == "html" and not args.output:
        raise UsageError("--format html needs -o OUT (an HTML page is not written to stdout)")
    if args.mode and args.right is None:
        raise UsageError("--mode applies to two files")
    if args.left == "-" and args.right == "-":
        raise UsageError("only one of LEFT and RIGHT can be - (standard input)")
    twice = stdin_twice([args.left, args.right, args.tools])
    if twice is not None:
        raise UsageError(twice)
    if args.no_redact and args.redact:
        raise UsageError("--no-redact and --redact contradict each other")
    if args.output and args.output != STDOUT:
        check_output(args.output, [p for p in (args.left, args.right, args.tools) if p])
    try:
        return Redactor(args.redact, enabled=not args.no_redact)
    except RedactPatternError as exc:
        raise UsageError(str(exc)) from None


def _load(paths: Sequence[str], given: Sequence[str], err: TextIO) -> list[Transcript] | None:
    sides, notes = conversations.pick_sides(paths, given)
    loaded = [side for side in sides if isinstance(side, Transcript)]
    for side in sides:
        if isinstance(side, LoadError):
            err.write(f"inspector: {safe_text(str(side))}\n")
    if len(loaded) < len(sides):
        return None
    err.write(conversations.notes_text("report", notes))
    return loaded


def build_report(
    args: argparse.Namespace, transcripts: Sequence[Transcript], tools: Mapping[str, Tool]
) -> ReportInput:
    """Gate or diff the transcripts and gather everything the report shows."""
    paths = [display_name(p) for p in (args.left, args.right) if p is not None]
    diff = None
    if len(transcripts) == 2:
        diff = diff_transcripts(transcripts[0], transcripts[1], tools, mode=args.mode or "replay")
        results = [diff.left, diff.right]
    else:
        results = [gate_transcript(transcripts[0], tools)]
    sides = []
    for path, result in zip(paths, results, strict=True):
        extra = (
            check_transcript(result.transcript, result.toolset, args.target) if args.target else ()
        )
        sides.append(ReportSide(path, result, tuple(extra)))
    return ReportInput(
        sides=tuple(sides),
        decision=decide(sides, diff, strict=getattr(args, "strict", False)),
        diff=diff,
        tools=args.tools,
        target=args.target.name if args.target else None,
        mode=(args.mode or "replay") if diff is not None else None,
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the report; return the exit status of gate (one file) or diff (two)."""
    fmt = _format(args)
    try:
        redactor = _check_usage(args, fmt)
        tools = load_tool_option(args.tools, err)
        if tools is None:
            return EXIT_UNREADABLE
        paths = [p for p in (args.left, args.right) if p is not None]
        transcripts = _load(paths, args.conversation, err)
        if transcripts is None:
            return EXIT_UNREADABLE
        report = build_report(args, transcripts, tools)
    except UsageError as exc:
        err.write(f"inspector report: error: {safe_text(str(exc))}\n")
        return EXIT_UNREADABLE
    text = RENDERERS[fmt](report, redactor)
    if args.output and args.output != STDOUT:
        try:
            write_atomic(args.output, text)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            err.write(f"inspector: cannot write {safe_text(args.output)}: {safe_text(reason)}\n")
            return EXIT_UNREADABLE
    else:
        out.write(text)
    return EXIT_FINDINGS if report.decision.blocks else EXIT_CLEAN
