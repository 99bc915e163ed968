"""`inspector tools FILE… [--target P…]`: which targets accept each tool schema (a matrix)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from inspector.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    EXIT_UNREADABLE,
    Style,
    safe_text,
    target_profile,
    write_json,
)
from inspector.core.formats import load_bytes, tools_from_document
from inspector.core.jsonio import decode_text, display_name, load_json, read_bytes
from inspector.core.model import LoadError, Severity, Tool
from inspector.core.targets import (
    Profile,
    ToolVerdict,
    check_tool,
    load_profiles,
    profile_names,
)

MARK_SGR = {"✓": "32", "~": "33", "✗": "31;1"}
SEVERITY_SGR = {Severity.ERROR: "31;1", Severity.WARNING: "33", Severity.INFO: "2"}
#: Longest tool name shown in the matrix (the problem list gives it in full).
NAME_WIDTH = 48


def add_parser(sub: Any) -> None:
    """Register the tools subcommand."""
    parser = sub.add_parser(
        "tools",
        help="show which target providers accept each tool schema",
        description="The portability matrix of tool schemas: for each tool and target, "
        "accepted (✓), accepted but silently changed (~) or rejected (✗), with the problems "
        f"and their sources. Targets: {', '.join(profile_names())}.",
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a tools file, a request, or any transcript that carries tools",
    )
    parser.add_argument(
        "--target",
        dest="targets",
        action="extend",
        nargs="+",
        type=target_profile,
        metavar="P",
        help="the targets to judge against (default: every profile)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def tools_in_file(path: str) -> list[Tool]:
    """The tool definitions of a file: a transcript's tools, or a tools file's definitions.

    The file is read once, so `-` (standard input) and pipes work too.
    """
    name = display_name(path)
    data = read_bytes(path)
    try:
        transcript = load_bytes(data, name)
    except LoadError as exc:
        # Not a transcript: a {name: schema} tools file, for one, is only readable as tools.
        try:
            return list(_tools_document(data, name).values())
        except LoadError:
            raise exc from None
    if transcript.tools:
        return list(transcript.tools.values())
    try:
        return list(_tools_document(data, name).values())
    except LoadError:
        raise LoadError(
            "no tool definitions found (expected a tools array, a request body, an object "
            "mapping names to schemas, or a transcript that carries tools)",
            path=name,
        ) from None


def _tools_document(data: bytes, name: str) -> dict[str, Tool]:
    # load_tools reads the file itself; these bytes are already read (standard input cannot be
    # read twice).
    text = decode_text(data, name).removeprefix("\ufeff")
    return tools_from_document(load_json(text, name), name)


def _source(path: str, tool: Tool) -> dict[str, Any]:
    origin = tool.origin
    source: dict[str, Any] = {"path": path, "pointer": origin.pointer if origin else None}
    if origin is not None and origin.line is not None:
        source["line"] = origin.line
    return source


def tool_document(path: str, tool: Tool, verdicts: list[ToolVerdict]) -> dict[str, Any]:
    """The JSON object for one tool: its name, where it is defined, and each target's verdict."""
    return {
        "name": tool.name,
        "source": _source(path, tool),
        "targets": {
            v.target: {
                "accepted": v.accepted,
                "altered": v.altered,
                "mode": v.mode,
                "problems": [p.to_json() for p in v.problems],
            }
            for v in verdicts
        },
    }


def _shorten(name: str) -> str:
    text = safe_text(name)
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"


def render_matrix(
    path: str, rows: list[tuple[Tool, list[ToolVerdict]]], targets: list[Profile], style: Style
) -> list[str]:
    """The text form for one file: tools × targets, then every problem with its rule."""
    count = f"{len(rows)} tool{'' if len(rows) == 1 else 's'}"
    lines = [style(safe_text(path), "1") + f"  ({count})"]
    names = [_shorten(tool.name) for tool, _ in rows]
    width = max([len("tool"), *(len(n) for n in names)])
    widths = [max(len(p.name), 1) for p in targets]
    header = (
        "  "
        + "tool".ljust(width)
        + "".join("  " + p.name.center(w) for p, w in zip(targets, widths, strict=True))
    )
    lines.append(header.rstrip())
    for name, (_, verdicts) in zip(names, rows, strict=True):
        cells = "".join(
            "  "
            + " " * ((w - 1) // 2)
            + style(v.mark, MARK_SGR[v.mark])
            + " " * (w - 1 - (w - 1) // 2)
            for v, w in zip(verdicts, widths, strict=True)
        )
        lines.append(("  " + name.ljust(width) + cells).rstrip())
    lines.append("  ✓ accepted   ~ accepted but silently changed   ✗ rejected")
    listed = False
    for tool, verdicts in rows:
        # Profiles that extend another share its rules: one line per problem, with its targets.
        grouped: dict[tuple[str, str, str | None, str], list[str]] = {}
        for verdict in verdicts:
            for problem in verdict.problems:
                key = (problem.severity.value, problem.rule.id, problem.pointer, problem.message)
                grouped.setdefault(key, []).append(verdict.target)
        if not grouped:
            continue
        if not listed:
            lines.append("problems:")
            listed = True
        lines.append(f"  {safe_text(tool.name)}")
        for (severity, rule, pointer, message), names in grouped.items():
            sev = style(severity.ljust(7), SEVERITY_SGR[Severity(severity)])
            where = "(name)" if pointer is None else (pointer or "(schema root)")
            lines.append(
                f"    {sev} {', '.join(names)}  {safe_text(where)}: {safe_text(message)} [{rule}]"
            )
    return lines


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Judge every tool of every file against the targets; print the matrix."""
    targets: list[Profile] = args.targets or list(load_profiles().values())
    # A target named twice is judged once, in the order first given.
    targets = list({p.name: p for p in targets}.values())
    style = Style.for_stream(out)
    documents: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    rejected = False
    for number, arg in enumerate(args.files):
        path = display_name(arg)  # `-` is shown as <stdin>
        try:
            tools = tools_in_file(arg)
        except LoadError as exc:
            errors.append({"path": path, "error": exc.to_json()})
            if args.format == "text":
                err.write(f"inspector: {safe_text(str(exc))}\n")
            continue
        rows = [(tool, [check_tool(tool, p) for p in targets]) for tool in tools]
        rejected = rejected or any(not v.accepted for _, verdicts in rows for v in verdicts)
        if args.format == "json":
            documents.extend(tool_document(path, tool, verdicts) for tool, verdicts in rows)
        else:
            if number:
                out.write("\n")
            out.write("\n".join(render_matrix(path, rows, targets, style)) + "\n")
    if args.format == "json":
        document: dict[str, Any] = {"targets": [p.name for p in targets], "tools": documents}
        if errors:
            document["errors"] = errors
        write_json(document, out)
    if errors:
        return EXIT_UNREADABLE
    return EXIT_FINDINGS if rejected else EXIT_CLEAN
