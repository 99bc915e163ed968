"""`inspector events FILE`: check a recorded stream against the item/event lifecycle.

An SSE stream is reduced as it is read (`formats.reduce_stream_path`); the text timeline lists
up to LINES_SHOWN items per response and LINES_SHOWN violations, and says how many more there
are; the JSON document writes its violations one by one (complete, never held as JSON).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TextIO

from inspector.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    Style,
    safe_text,
    write_json,
)
from inspector.core.formats import reduce_stream_path
from inspector.core.jsonio import display_name
from inspector.core.model import Item, LoadError, Severity
from inspector.core.report import Streamed, error_document
from inspector.core.stream import OutputItem, ResponseResult, StreamResult, Violation

SEVERITY_SGR = {"error": "31;1", "warning": "33", "info": "2"}
STATUS_SGR = {"completed": "32", "incomplete": "33", "failed": "31", "none": "31;1"}

_CLIP = 60
#: Items per response, and violations, listed in the text timeline; the rest are counted.
LINES_SHOWN = 1_000


def add_parser(sub: Any) -> None:
    """Register the events subcommand."""
    parser = sub.add_parser(
        "events",
        help="check a recorded event stream (SSE or JSONL) against the item/event lifecycle",
        description=(
            "Reduce a recorded Open Responses stream, show a timeline per response and every "
            "lifecycle violation. Exit 0 clean, 1 on an error violation (or a warning with "
            "--strict, or a stream of another API), 2 when the file cannot be read as a stream."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="recorded stream (.sse, or JSONL events)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="conformance mode: unknown events are errors and warnings fail the check",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: Any, out: TextIO, err: TextIO) -> int:
    """Check one stream file and report; return the exit status."""
    path = display_name(args.file)  # `-` is shown as <stdin>
    as_json = args.format == "json"
    try:
        # The same decode and reduction `gate` and the window use: one reading of a stream.
        transcript = reduce_stream_path(args.file, strict=args.strict)
        stream = transcript.stream
    except LoadError as exc:
        if as_json:
            write_json(error_document(path, exc), out)
        else:
            err.write(f"inspector: {safe_text(str(exc))}\n")
        return EXIT_UNREADABLE
    if stream.dialect != "open_responses":
        _report_foreign(path, stream, as_json, out, transcript.items)
    elif as_json:
        write_json(json_document(path, stream), out)
    else:
        out.write("\n".join(render_text(path, stream, Style.for_stream(out))) + "\n")
    return EXIT_FINDINGS if stream.blocking else EXIT_CLEAN


# --------------------------------------------------------------------------------------------
# Open Responses


def json_document(path: str, result: StreamResult) -> dict[str, Any]:
    """The JSON document of a reduced stream, its violations written as they are turned to JSON."""
    document = {"path": path, "dialect": result.dialect, **result.to_json()}
    document["violations"] = Streamed(v.to_json() for v in result.violations)
    return document


def _more(
    rest: Sequence[Any], noun: str, word: Any, counted: Mapping[str, int] | None = None
) -> Iterator[str]:
    """One line for what is not listed: '… and 999,000 more violations (code 999,000)'.

    `counted`: more of them, by word, that the reduction counted without keeping.
    """
    counts = Counter(safe_text(word(x)) for x in rest)
    counts.update(counted or {})
    if counts:
        listed = ", ".join(f"{k} {n:,}" for k, n in counts.most_common(10))
        yield f"  … and {counts.total():,} more {noun} ({listed})"


def render_text(path: str, result: StreamResult, style: Style) -> list[str]:
    """Return the timeline and violation list for a reduced stream (LINES_SHOWN of each)."""
    lines = [
        style(safe_text(path), "1")
        + f"  (Open Responses stream, {result.framing}, {result.events} events, "
        + f"{len(result.responses)} response{'s' if len(result.responses) != 1 else ''})"
    ]
    for resp in result.responses:
        lines.extend(_response_lines(resp, style))
    lines.append(_violation_header(result))
    for v in result.violations[:LINES_SHOWN]:
        where = "  ".join(
            f"{label} {value if value is not None else '-'}"
            for label, value in (
                ("event", v.event_index),
                ("line", v.line),
                ("seq", v.sequence_number),
            )
        )
        severity = style(v.severity.ljust(7), SEVERITY_SGR[v.severity])
        lines.append(f"  {where}  {severity}  {v.code}: {safe_text(v.message)}")
    lines.extend(
        _more(result.violations[LINES_SHOWN:], "violations", _code, result.left_out_by_code())
    )
    verdict = "FAIL" if result.blocking else "ok"
    lines.append(
        f"status: {style(result.status, STATUS_SGR.get(result.status, '0'))}"
        f"{' (strict)' if result.strict else ''}  {verdict}"
    )
    return lines


def _code(violation: Violation) -> str:
    return violation.code


def _item_type(out: OutputItem) -> str:
    return _cell(out.item.get("type"))


def _violation_header(result: StreamResult) -> str:
    counts = ", ".join(
        f"{result.count(s)} {s}{'s' if result.count(s) != 1 and s != 'info' else ''}"
        for s in Severity
    )
    return f"violations: {counts}" if result.total_violations else "violations: none"


def _response_lines(resp: ResponseResult, style: Style) -> list[str]:
    status = resp.status + (" (partial snapshot: no terminal event)" if resp.partial else "")
    lines = [
        f"response {resp.index}  {_cell(resp.response_id)}  "
        f"{style(status, STATUS_SGR.get(resp.status, '0'))}  "
        f"events {resp.first_event}-{resp.last_event}  line {_cell(resp.line)}"
    ]
    counts = ", ".join(
        f"{safe_text(name.removeprefix('response.'))} {n}" for name, n in resp.event_counts
    )
    lines.append(f"  events: {counts}")
    snapshot = resp.snapshot or {}
    if snapshot.get("incomplete_details"):
        lines.append(f"  incomplete_details: {_json_clip(snapshot['incomplete_details'])}")
    if snapshot.get("error"):
        lines.append(f"  error: {_json_clip(snapshot['error'])}")
    if resp.snapshot is not None and "usage" in resp.snapshot:
        lines.append(f"  usage: {_usage(resp.snapshot['usage'])}")
    lines.append(f"  items: {len(resp.items)}" if resp.items else "  items: none")
    lines.extend(f"    {_item_line(out)}" for out in resp.items[:LINES_SHOWN])
    lines.extend(f"  {x}" for x in _more(resp.items[LINES_SHOWN:], "items", _item_type))
    if resp.extensions:
        lines.append(f"  extension events kept opaque: {len(resp.extensions)}")
    return lines


def _usage(usage: Any) -> str:
    if not isinstance(usage, Mapping):
        return _json_clip(usage)
    keys = ("input_tokens", "output_tokens", "total_tokens")
    known = [f"{key.removesuffix('_tokens')} {_cell(usage[key])}" for key in keys if key in usage]
    return ", ".join(known) if known else _json_clip(usage)


def _item_line(out: OutputItem) -> str:
    item = out.item
    kind = item.get("type")
    head = f"#{out.output_index} {_cell(kind)} {_cell(item.get('id'))} {_cell(item.get('status'))}"
    if not out.done:
        head += " (never done)"
    detail = ""
    if kind == "function_call":
        detail = (
            f"{_cell(item.get('name'))} {_cell(item.get('call_id'))} "
            f"arguments {_clip(item.get('arguments'))}"
        )
    elif kind == "message":
        detail = _parts_summary(item.get("content"))
    elif kind == "reasoning":
        summary = _parts_summary(item.get("summary"))
        content = _parts_summary(item.get("content"))
        detail = "; ".join(x for x in (f"summary {summary}" if summary else "", content) if x)
    return (
        head + (f"  {detail}" if detail else "") + f"  (event {out.event_index}, line {out.line})"
    )


def _parts_summary(parts: Any) -> str:
    if not isinstance(parts, list) or not parts:
        return ""
    shown = []
    for part in parts:
        if not isinstance(part, Mapping):
            shown.append(_cell(type(part).__name__))
            continue
        kind = part.get("type")
        text = part.get("refusal" if kind == "refusal" else "text")
        size = f" {len(text)} chars" if isinstance(text, str) else ""
        shown.append(f"{_cell(kind)}{size}")
    return ", ".join(shown)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return safe_text(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def _clip(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > _CLIP:
        text = text[: _CLIP - 1] + "…"
    return safe_text(text)


def _json_clip(value: Any) -> str:
    return _clip(json.dumps(value, ensure_ascii=False, default=str))


# --------------------------------------------------------------------------------------------
# Streams of other APIs


def _report_foreign(
    path: str, stream: StreamResult, as_json: bool, out: TextIO, items: Sequence[Item] = ()
) -> None:
    assembled = stream.assembled
    if as_json:
        write_json(
            {
                "path": path,
                "dialect": stream.dialect,
                "status": stream.status,
                "strict": stream.strict,
                "events": stream.events,
                "violations": [v.to_json() for v in stream.violations],
                "responses": [],
                "assembled": assembled,
            },
            out,
        )
        return
    message = stream.violations[0].message
    lines = [f"{safe_text(path)}: {message}", f"  {stream.events} events"]
    if stream.dialect == "chat_completions":
        lines.extend(_chat_lines(assembled))
    elif stream.dialect == "anthropic":
        lines.extend(_anthropic_lines(assembled))
    else:
        # Other APIs: the items their assembled record converts to.
        lines.extend(
            f"  #{it.index} {_cell(it.type_label)} {_cell(it.name or it.role)} "
            f"{_cell(it.call_id)} {_cell(it.status)}"
            for it in items
        )
    out.write("\n".join(lines) + "\n")


def _chat_lines(record: dict[str, Any]) -> list[str]:
    lines = [f"  chat.completion {_cell(record.get('id'))}  model {_cell(record.get('model'))}"]
    for choice in record.get("choices", []):
        msg = choice["message"]
        content = msg.get("content")
        lines.append(
            f"  choice {choice['index']}  finish_reason {_cell(choice.get('finish_reason'))}  "
            f"role {_cell(msg.get('role'))}  content "
            + (f"{len(content)} chars {_clip(content)}" if isinstance(content, str) else "none")
        )
        if "refusal" in msg:
            lines.append(f"    refusal {_clip(msg['refusal'])}")
        for i, call in enumerate(msg.get("tool_calls", [])):
            function = call["function"]
            lines.append(
                f"    tool_call {i} {_cell(call.get('id'))} {_cell(function.get('name'))} "
                f"arguments {_clip(function.get('arguments'))}"
            )
    if "usage" in record:
        lines.append(f"  usage: {_json_clip(record['usage'])}")
    return lines


def _anthropic_lines(record: dict[str, Any]) -> list[str]:
    lines = [
        f"  message {_cell(record.get('id'))}  model {_cell(record.get('model'))}  "
        f"stop_reason {_cell(record.get('stop_reason'))}"
    ]
    for i, block in enumerate(record.get("content", [])):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use":
            lines.append(
                f"    block {i} tool_use {_cell(block.get('id'))} {_cell(block.get('name'))} "
                f"input {_json_clip(block.get('input'))}"
            )
        elif kind == "text":
            lines.append(f"    block {i} text {len(block.get('text', ''))} chars")
        else:
            lines.append(f"    block {i} {_cell(kind)}")
    if "usage" in record:
        lines.append(f"  usage: {_json_clip(record['usage'])}")
    if "error" in record:
        lines.append(f"  error: {_json_clip(record['error'])}")
    return lines
