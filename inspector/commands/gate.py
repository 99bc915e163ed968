"""`inspector gate FILE…`: a replay verdict for every item, transcript findings, a summary."""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Iterator
from typing import Any, TextIO

from inspector.commands.common import (
    _SHORT,
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    Encoded,
    Style,
    encoded_item_rows,
    safe_text,
    stdin_twice,
    target_profile,
    write_json,
)
from inspector.core.decision import Decision, decide_file
from inspector.core.display import show_number
from inspector.core.formats import SESSION_MARKERS, load_conversations, load_tools
from inspector.core.gate import GateResult, Verdict
from inspector.core.jsonio import GZIP_MAGIC, STDIN, display_name
from inspector.core.model import LoadError, Severity, Tool, Transcript
from inspector.core.parallel import (
    POOL_MIN_BYTES,
    FileGate,
    default_jobs_for,
    gate_jsonl_on_cores,
    gate_on_cores,
)
from inspector.core.report import Streamed, error_document, gate_document
from inspector.core.schema import DEFAULT_BUDGET
from inspector.core.session_gate import gate_session_on_cores

#: SGR colour per verdict for terminals; blocked verdicts red, passing green, soft yellow.
VERDICT_SGR = {
    Verdict.OK: "32",
    Verdict.NOT_FUNCTION_CALL: "2",
    Verdict.NAMESPACED: "35;1",
    Verdict.STATUS: "33",
    Verdict.UNKNOWN_TOOL: "33",
}
SEVERITY_SGR = {Severity.ERROR: "31;1", Severity.WARNING: "33", Severity.INFO: "2"}
#: SGR colour of a decision's headline, by its severity.
DECISION_SGR = {Severity.ERROR: "31;1", Severity.WARNING: "33;1", Severity.INFO: "32;1"}


def decision_lines(decision: Decision, style: Style) -> list[str]:
    """The decision as text: the headline, its reasons and warnings, then the note."""
    listed = decision.reasons or decision.warnings
    # With reasons listed beneath, the head is the outcome alone (the headline repeats the first).
    head = decision.outcome.words if listed else decision.headline
    lines = ["decision: " + style(safe_text(head), DECISION_SGR[decision.severity])]
    lines.extend(f"  - {safe_text(line)}" for line in decision.reason_lines())
    lines.extend(f"  ! {safe_text(line)}" for line in decision.warning_lines())
    for extra in (decision.note, decision.suggestion):
        if extra:
            lines.append("  " + style("note: " + safe_text(extra), "33;1"))
    return lines


def _verdict_list(text: str) -> list[Verdict]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    try:
        return [Verdict(name) for name in names]
    except ValueError:
        valid = ", ".join(v.value for v in Verdict)
        raise argparse.ArgumentTypeError(f"verdicts are: {valid}") from None


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 1024:
        raise argparse.ArgumentTypeError(
            "give a number of processes from 1 to 1024, or 0 for every core"
        )
    return value


def _size(arg: str) -> int | None:
    """The size of a named regular file (None for standard input or anything else)."""
    if arg == STDIN:
        return None
    try:
        found = os.stat(arg)
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def _shows_trace(arg: str) -> bool:
    """Whether a file's first 4 KiB show the marks of an OTLP trace, or are compressed (the
    trace gate tells those): only then is the gate by runs of traces (`commands.traces`)
    imported, which gives None for any file without the marks."""
    try:
        with open(arg, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return head[:2] == GZIP_MAGIC or any(mark in head for mark in SESSION_MARKERS["otel"])


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("give a number of seconds between 0 and 3600")
    return value


def add_parser(sub: Any) -> None:
    """Register the gate subcommand."""
    parser = sub.add_parser(
        "gate",
        help="give every item of one or more transcripts a replay verdict",
        description="Give every item a replay verdict and report transcript findings.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="transcript files")
    parser.add_argument("--tools", metavar="FILE", help="tool schemas (override the transcript's)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--fail-on",
        type=_verdict_list,
        metavar="VERDICT,…",
        help="only these verdicts make the exit status 1 (default: every blocking verdict)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="warning findings also make the exit status 1"
    )
    parser.add_argument(
        "--target",
        type=target_profile,
        metavar="P",
        help="also report what target provider P would reject or silently change",
    )
    parser.add_argument(
        "--item-budget",
        type=_seconds,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help=f"time one item's schema validation may take (default {DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="processes that judge the items of a large file (0: every core); by default "
        f"every core for a file of {POOL_MIN_BYTES >> 20} MiB or more, one process for a "
        "smaller one; the report is the same whatever N",
    )
    parser.add_argument(
        "--conversation",
        metavar="ID",
        help="gate only this conversation of a file that holds several (a session with "
        "subagents, a trace, an eval log, a capture)",
    )
    parser.add_argument(
        "--follow",
        action="store_true",
        help="keep reading a growing JSONL session file and gate new items as they arrive "
        "(stop with Ctrl-C)",
    )
    parser.add_argument(
        "--interval",
        type=_seconds,
        default=0.5,
        metavar="SECONDS",
        help=argparse.SUPPRESS,  # how often --follow looks at the file (tests look often)
    )
    parser.set_defaults(run=run)


def load_tool_option(path: str | None, err: TextIO) -> dict[str, Tool] | None:
    """Load --tools, reporting a failure on err; None means the run must stop with status 2."""
    if path is None:
        return {}
    try:
        return load_tools(path)
    except LoadError as exc:
        err.write(f"inspector: {safe_text(str(exc))}\n")
        return None


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return safe_text(value if isinstance(value, str) else show_number(value))


def render_text(
    path: str, result: GateResult, style: Style, decision: Decision | None = None
) -> list[str]:
    """Return the aligned text report for one gated file, ending with its decision."""
    transcript = result.transcript
    lines = [
        style(safe_text(path), "1") + f"  ({transcript.format}, {len(transcript.items)} items)"
    ]
    rows = []
    for item, verdict in zip(transcript.items, result.verdicts, strict=True):
        label = item.name if isinstance(item.name, str) else item.role
        rows.append(
            (
                str(item.index),
                _cell(item.type_label),
                _cell(label),
                _cell(item.call_id),
                verdict.verdict,
                safe_text(verdict.detail),
            )
        )
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(4)]
    width_verdict = max((len(r[4]) for r in rows), default=0)
    for index, kind, label, call_id, outcome, detail in rows:
        word = style(outcome.value.ljust(width_verdict), VERDICT_SGR.get(outcome, "31"))
        lines.append(
            f"  {index.rjust(widths[0])}  {kind.ljust(widths[1])}  {label.ljust(widths[2])}  "
            f"{call_id.ljust(widths[3])}  {word}  {detail}"
        )
    if result.findings:
        lines.append("findings:")
        for finding in result.findings:
            items = ",".join(f"#{i}" for i in finding.items)
            sev = style(finding.severity.value, SEVERITY_SGR[finding.severity])
            where = f" [{items}]" if items else ""
            lines.append(f"  {sev} {finding.code}{where}: {safe_text(finding.message)}")
    summary = " | ".join(f"{k} {v}" for k, v in result.summary().items()) or "no items"
    decision = decision or decide_file(result, name=path)
    # Blocked as the decision counts them (answered history blocks only under --strict).
    lines.append(f"summary: {summary}  (blocked {decision.blocked_items} of {decision.items})")
    stream = transcript.stream
    if stream is not None:
        lines.append(
            f"stream: {stream.status}, {stream.events} events, {stream.total_violations} violations"
        )
    return lines + decision_lines(decision, style)


def pick_conversation(
    transcripts: list[Transcript], wanted: str | None, path: str
) -> list[Transcript]:
    """The conversations to report: all, or the one `--conversation` names (else a LoadError)."""
    if wanted is None:
        return transcripts
    chosen = [t for t in transcripts if t.conversation == wanted]
    if not chosen:
        ids = [t.conversation for t in transcripts if t.conversation is not None]
        listed = ", ".join(ids[:20]) + (" …" if len(ids) > 20 else "") if ids else "none"
        raise LoadError(
            f"no conversation {wanted!r} in the file; its conversations: {listed}", path=path
        )
    return chosen


def heading(path: str, transcript: Transcript) -> str:
    """A report's title: the file, and the conversation within it when it has an id."""
    if transcript.conversation is None:
        return path
    return f"{path} [{transcript.conversation}]"


def file_document(
    path: str, result: GateResult, decision: Decision | None = None, rows: Streamed | None = None
) -> dict[str, Any]:
    """The JSON object for one gated transcript (its decision, its conversation id if any;
    `rows`: its item rows already encoded, as `gate_document` takes them)."""
    if rows is None and len(result.verdicts) > SHORT_ROWS:
        # Encoded as they are written; a short document is written whole by one orjson call.
        rows = Streamed((_encode_rows(result),), encoded=ROWS_LEVEL)
    document = gate_document(path, result, decision, rows)
    if result.transcript.conversation is not None:
        document["conversation"] = result.transcript.conversation
    return document


#: Where a file's item rows sit in the JSON report: {"files": [{"items": [row…]}]}.
ROWS_LEVEL = 3
#: Rows of a document `write_json` may write whole (see `common._SHORT`).
SHORT_ROWS = _SHORT
#: Where a file's (or a conversation's) document sits in it.
FILES_LEVEL = 2


def _encode_rows(result: GateResult) -> Iterator[bytes]:
    """A gate's item rows as the JSON report writes them (`parallel.RowEncoder`)."""
    return encoded_item_rows(result, ROWS_LEVEL)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Gate each file and print the report; return the exit status."""
    twice = stdin_twice([*args.files, args.tools])
    if twice is not None:
        err.write(f"inspector gate: error: {twice}\n")
        return EXIT_UNREADABLE
    tools = load_tool_option(args.tools, err)
    if tools is None:
        return EXIT_UNREADABLE
    style = Style.for_stream(out)
    state = {"unreadable": False, "blocking": False}

    if args.follow:
        from inspector.commands.follow import follow  # only a followed run needs it

        return follow(args, tools, out, err, style)

    def decided(path: str, result: GateResult) -> Decision:
        decision = decide_file(result, name=path, strict=args.strict, fail_on=args.fail_on)
        if decision.blocks:
            state["blocking"] = True
        return decision

    def gated(path: str, transcript: Transcript, jobs: int | None) -> tuple[GateResult, Decision]:
        result = gate_on_cores(transcript, tools, jobs=jobs, budget=args.item_budget)
        if args.target is not None:
            from inspector.core.targets import with_target_findings

            result = with_target_findings(result, args.target)
        return result, decided(path, result)

    # A large JSON Lines file of bare items is loaded, judged and its rows written by runs, on
    # every core, when the report is JSON and nothing needs the whole transcript at once.
    by_runs = args.format == "json" and args.target is None and args.conversation is None

    def reported(path: str, transcript: Transcript) -> tuple[dict[str, Any], bool]:
        result, decision = gated(path, transcript, 1)
        return file_document(path, result, decision), decision.blocks

    Report = GateResult | FileGate | LoadError | Encoded

    def reports() -> Iterator[tuple[str, Report, Decision | None]]:
        # One file at a time: its report is written before the next is read; a file of
        # several conversations gives one report for each.
        for arg in args.files:
            path = display_name(arg)  # `-` is shown as <stdin>
            jobs = default_jobs_for(_size(arg)) if args.jobs is None else args.jobs or None
            if by_runs and arg != STDIN and jobs != 1:
                # A large OTLP trace of the file exporter's lines: by runs of its traces (told
                # from its head, before the file is read).
                traced = None
                if _shows_trace(arg):
                    from inspector.commands.traces import gate_trace_on_cores

                    traced = gate_trace_on_cores(
                        arg,
                        path,
                        reported,
                        jobs=jobs,
                        level=FILES_LEVEL,
                        tools=tools,
                        budget=args.item_budget,
                    )
                if traced is not None:
                    state["blocking"] = state["blocking"] or traced.blocks
                    try:
                        yield path, traced.encoded, None
                    finally:
                        traced.close()
                    continue
                runs = gate_session_on_cores(
                    arg, path, tools, _encode_rows, jobs=jobs, budget=args.item_budget
                ) or gate_jsonl_on_cores(
                    arg, path, tools, _encode_rows, jobs=jobs, budget=args.item_budget
                )
                if runs is not None:
                    try:
                        yield path, runs, decided(path, runs.result)
                    finally:
                        runs.rows.close()
                    continue
            try:
                transcripts = pick_conversation(
                    load_conversations(arg, strict=args.strict), args.conversation, path
                )
            except LoadError as exc:
                state["unreadable"] = True
                yield path, exc, None
                continue
            for transcript in transcripts:
                yield path, *gated(path, transcript, jobs)

    if args.format == "json":
        # Streamed: each file's rows are written as they are made, never held whole.
        documents = (
            error_document(path, r)
            if isinstance(r, LoadError)
            else file_document(path, r.result, decision, Streamed(r.rows, encoded=ROWS_LEVEL))
            if isinstance(r, FileGate)
            else r
            if isinstance(r, Encoded)
            else file_document(path, r, decision)
            for path, r, decision in reports()
        )
        write_json({"files": Streamed(documents, nested=True)}, out)
    else:
        for number, (path, r, decision) in enumerate(reports()):
            assert not isinstance(r, FileGate | Encoded)  # by runs for a JSON report only
            if isinstance(r, LoadError):
                err.write(f"inspector: {safe_text(str(r))}\n")
                continue
            if number:
                out.write("\n")
            title = heading(path, r.transcript)
            out.write("\n".join(render_text(title, r, style, decision)) + "\n")
    if state["unreadable"]:
        return EXIT_UNREADABLE
    return EXIT_FINDINGS if state["blocking"] else EXIT_CLEAN
