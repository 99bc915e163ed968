"""The migration-readiness report of a fleet scan, in HTML and Markdown.

It reads a `Fleet` (the scan's aggregates) and nothing else: per target, a go / no-go line, how
many conversations the target would reject or silently change and by which rules (with one
example each, linked to its file); the tool schemas of the fleet with their portability marks
and calls; parse health per format. The HTML page is the shared shell of `report.html` (no
script, light and dark); every string from a file is redacted, made printable and escaped.
"""

from __future__ import annotations

import contextlib
import html
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from inspector import __version__
from inspector.core.report.html import icon, page
from inspector.core.report.markdown import code, escape
from inspector.core.report.model import Cleaner, count_text
from inspector.core.report.redact import Redactor
from inspector.core.scan import DECISIONS, Fleet, FormatTally, TargetTally, ToolTally, is_url
from inspector.core.targets import Rule, get_profile
from inspector.resources import palette_data

#: Rules listed per target, tools in the matrix, reasons per format; the rest are counted.
RULES_SHOWN = 12
TOOLS_SHOWN = 200
REASONS_SHOWN = 8
#: Longest message and path shown (a row's example is already at most about 320 characters).
MESSAGE = 400
PATH = 160
#: Decision words and their CSS class (the banner colours of report.html).
STATES = {"go": "pass", "go with changes": "warn", "no-go": "block"}
MARK_ORDER = ("✗", "~", "✓")


def _e(text: str) -> str:
    return html.escape(text, quote=True)


@dataclass(frozen=True, slots=True)
class _RuleRow:
    rule: str
    reason: str
    source: str
    conversations: int
    findings: int
    example: tuple[str, int, str] | None


def _rules(name: str, tally: TargetTally) -> list[_RuleRow]:
    """A target's rules, most conversations first, with the reason and source from its profile."""
    known: dict[str, Rule] = {}
    with contextlib.suppress(KeyError):  # rows from a newer profile set: shown without reasons
        known = {r.id: r for r in get_profile(name).rules()}
    rows = []
    for rule, entry in tally.rules.items():
        found = known.get(rule)
        rows.append(
            _RuleRow(
                rule,
                found.reason if found else "",
                found.source if found else "",
                entry.conversations,
                entry.findings,
                entry.example,
            )
        )
    return sorted(rows, key=lambda r: (-r.conversations, -r.findings, r.rule))


def _title(name: str) -> str:
    try:
        return get_profile(name).title
    except KeyError:
        return name


def _target_line(fleet: Fleet, name: str) -> str:
    tally = fleet.per_target[name]
    total = fleet.conversations
    return (
        f"{name}: {fleet.verdict(name).upper()}: {tally.rejected:,} of "
        f"{count_text(total, 'conversation')} rejected, {tally.changed:,} silently changed"
    )


def _marks(tool: ToolTally, target: str) -> tuple[str, str]:
    """The worst mark a tool gets from a target, and how its conversations split by mark."""
    counts = tool.marks.get(target)
    if not counts:
        return "", ""
    worst = next(m for m in MARK_ORDER if counts.get(m))
    split = " ".join(f"{m}{counts[m]:,}" for m in MARK_ORDER if counts.get(m))
    return worst, split if len(counts) > 1 else ""


def _top_tools(fleet: Fleet) -> list[tuple[str, ToolTally]]:
    return sorted(fleet.tools.items(), key=lambda kv: (-kv[1].calls, kv[0]))[:TOOLS_SHOWN]


def _formats(fleet: Fleet) -> list[tuple[str, FormatTally]]:
    # Readable formats first, by size; then the unreadable groups.
    return sorted(
        fleet.formats.items(), key=lambda kv: (kv[0].startswith("unreadable"), -kv[1].files, kv[0])
    )


class _Base:
    def __init__(self, fleet: Fleet, redactor: Redactor, link_base: str | None, tools: str | None):
        self.fleet = fleet
        self.redactor = redactor
        self.clean = Cleaner(redactor)
        self.link_base = link_base
        self.tools = tools
        self.generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    def href(self, path: str) -> str | None:
        """A link to a scanned file, relative to the report's folder (or the URL itself).

        None when the path had something redacted or escaped: the link would carry it whole.
        """
        if self.clean(path) != path:
            return None
        if is_url(path):
            return quote(path, safe=":/?&=%@+,;~")
        target = os.path.abspath(path)
        if self.link_base is not None:
            target = os.path.relpath(target, self.link_base)
        # "./" first: a file named like a URL scheme ("javascript:…") stays a relative path.
        posix = Path(target).as_posix()
        return quote(posix if os.path.isabs(target) else "./" + posix)

    def settings(self) -> list[tuple[str, str]]:
        named = [("targets", ", ".join(self.fleet.targets)), ("tools", self.tools or "")]
        return [(k, v) for k, v in named if v]


class _Html(_Base):
    def text(self, value: Any, limit: int = 0) -> str:
        return _e(self.clean(value, limit))

    def file_link(self, path: str) -> str:
        """The path in a code span, linked to the file when it may be."""
        shown = f"<code>{self.text(path, PATH)}</code>"
        href = self.href(path)
        return shown if href is None else f'<a href="{_e(href)}">{shown}</a>'

    def banner(self, state: str, text: str) -> str:
        mark = icon({"pass": "v-ok", "warn": "s-warning", "block": "s-error"}[state])
        return f'<div class="decision {state}">{mark}{_e(text)}</div>'

    def header(self) -> str:
        fleet = self.fleet
        lines = [
            self.banner(STATES[fleet.verdict(n)], _target_line(fleet, n)) for n in fleet.targets
        ]
        if not fleet.targets:
            lines.append('<p class="muted">No target given: the gate alone (--target P…).</p>')
        chips = "".join(
            f'<span class="chip {cls}">{_e(word)} {fleet.decisions.get(d, 0):,}</span>'
            for d, word, cls in (
                ("safe", "safe", "v-ok"),
                ("safe_with_warnings", "with warnings", "s-warning"),
                ("unsafe", "blocks a replay", "v-arguments_schema"),
            )
        )
        facts = (
            f"<tr><th>files</th><td>{fleet.files:,} ({fleet.unreadable:,} unreadable)</td></tr>"
            f"<tr><th>conversations</th><td>{fleet.conversations:,}</td></tr>"
            f"<tr><th>items</th><td>{fleet.items:,} ({fleet.calls:,} function calls)</td></tr>"
            f'<tr><th>on any provider</th><td class="chips">{chips}</td></tr>'
        )
        meta = " · ".join(f"{k}: <code>{self.text(v)}</code>" for k, v in self.settings())
        return (
            "<header><h1>Migration readiness</h1>"
            + "".join(lines)
            + f'<table class="files">{facts}</table>'
            + (f'<p class="muted">{meta}</p>' if meta else "")
            + "</header>"
        )

    def target_section(self, name: str) -> str:
        fleet = self.fleet
        tally = fleet.per_target[name]
        rules = _rules(name, tally)
        decided = ", ".join(
            f"{d.replace('_', ' ')} {tally.decisions.get(d, 0):,}" for d in DECISIONS
        )
        parts = [
            f'<section id="target-{self.text(name)}"><h2>{self.text(name)}: '
            f"{self.text(_title(name))}</h2>",
            self.banner(STATES[fleet.verdict(name)], _target_line(fleet, name)),
            f'<p class="muted">With this target\'s findings added: {_e(decided)}.</p>',
        ]
        if not rules:
            parts.append('<p class="none">No rule of this target applies to the fleet.</p>')
            return "".join(parts) + "</section>"
        rows = []
        for row in rules[:RULES_SHOWN]:
            example = ""
            if row.example is not None:
                path, number, message = row.example
                example = (
                    self.file_link(path) + f' <span class="muted">conversation {number}</span>'
                    f'<p class="detail">{self.text(message, MESSAGE)}</p>'
                )
            source = ""
            if row.source:
                # The profile's own data, not a file's: its web sources may be links.
                links = [
                    f'<a href="{_e(s)}">{_e(s)}</a>' if s.startswith("https://") else _e(s)
                    for s in row.source.split("; ")
                ]
                source = f'<p class="extras">source: {"; ".join(links)}</p>'

            rows.append(
                f'<tr><td><code>{self.text(row.rule)}</code><p class="detail">'
                f"{self.text(row.reason, MESSAGE)}</p>{source}</td>"
                f'<td class="num">{row.conversations:,}</td><td class="num">{row.findings:,}</td>'
                f"<td>{example}</td></tr>"
            )
        more = ""
        if len(rules) > RULES_SHOWN:
            rest = rules[RULES_SHOWN:]
            more = (
                f'<p class="muted">{len(rest):,} more rules: '
                + ", ".join(f"{self.text(r.rule)} {r.conversations:,}" for r in rest)
                + ".</p>"
            )
        parts.append(
            '<table class="findings"><colgroup><col style="width:34%"><col style="width:9em">'
            '<col style="width:7em"><col></colgroup><thead><tr><th>rule</th>'
            '<th class="num">conversations</th><th class="num">findings</th>'
            f"<th>example</th></tr></thead>{''.join(rows)}</table>{more}"
        )
        return "".join(parts) + "</section>"

    def tools_section(self) -> str:
        fleet = self.fleet
        tools = _top_tools(fleet)
        head = f'<section id="tools"><h2>Tools ({len(fleet.tools):,})</h2>'
        if not tools:
            return head + '<p class="none">No tool definitions in the fleet.</p></section>'
        classes = {"✓": "v-ok", "~": "s-warning", "✗": "s-error"}
        rows = []
        for name, tool in tools:
            cells = []
            for target in fleet.targets:
                worst, split = _marks(tool, target)
                # Mixed marks: how many conversations got each, in the worst one's colour.
                cells.append(f'<td class="m {classes.get(worst, "")}">{_e(split or worst)}</td>')
            variants = len(tool.variants)
            rows.append(
                f"<tr><td><code>{self.text(name, 80)}</code></td>"
                f'<td class="num">{variants:,}</td><td class="num">{tool.conversations:,}</td>'
                f'<td class="num">{tool.calls:,}</td>{"".join(cells)}</tr>'
            )
        heads = "".join(f'<th class="m">{self.text(t)}</th>' for t in fleet.targets)
        note = ""
        if len(fleet.tools) > len(tools) or fleet.tools_left_out:
            note = (
                f'<p class="muted">The {len(tools):,} most called tools are listed'
                f"{f'; {fleet.tools_left_out:,} more definitions were not tracked' if fleet.tools_left_out else ''}.</p>"  # noqa: E501
            )
        legend = (
            '<p class="legend"><span class="v-ok">✓ accepted</span>'
            '<span class="s-warning">~ accepted but silently changed</span>'
            '<span class="s-error">✗ rejected</span> (the worst over the tool\'s schema '
            "variants; a split shows how many conversations got each)</p>"
        )
        return (
            head
            + legend
            + '<table class="matrix"><thead><tr><th>tool</th><th class="num">schemas</th>'
            f'<th class="num">conversations</th><th class="num">calls</th>{heads}</tr></thead>'
            f"{''.join(rows)}</table>{note}</section>"
        )

    def health_section(self) -> str:
        rows = []
        for name, tally in _formats(self.fleet):
            reasons = ""
            if tally.reasons:
                listed = "".join(
                    f"<li>{count:,} × {self.text(reason, MESSAGE)} "
                    '<span class="muted">(e.g. '
                    + self.file_link(tally.examples[reason])
                    + ")</span></li>"
                    for reason, count in tally.reasons.most_common(REASONS_SHOWN)
                )
                reasons = f'<ul class="reasons">{listed}</ul>'
            rows.append(
                f"<tr><td><code>{self.text(name)}</code>{reasons}</td>"
                f'<td class="num">{tally.files:,}</td><td class="num">{tally.conversations:,}</td>'
                f'<td class="num">{tally.items:,}</td><td class="num">{tally.violations:,}</td>'
                f'<td class="num">{tally.unreadable:,}</td></tr>'
            )
        return (
            '<section id="health"><h2>Parse health</h2>'
            '<table class="health"><colgroup><col><col span="5" style="width:8.5em"></colgroup>'
            '<thead><tr><th>format</th><th class="num">files</th>'
            '<th class="num">conversations</th><th class="num">items</th>'
            '<th class="num">stream violations</th><th class="num">unreadable</th></tr></thead>'
            f"{''.join(rows)}</table></section>"
        )

    def render(self) -> str:
        body = "".join(self.target_section(n) for n in self.fleet.targets)
        body += self.tools_section() + self.health_section()
        footer = (
            f"<footer>Generated by Replay Inspector {_e(__version__)} on {_e(self.generated)}. "
            f"{_e(self.redactor.describe())} This page is self-contained: no scripts, nothing "
            "loaded from elsewhere.</footer>"
        )
        return page(
            "Migration readiness",
            f"{self.header()}\n<main>{body}</main>\n{footer}",
            __version__,
            css=_css(),
        )


def _css() -> str:
    data = palette_data()["severities"]["warning"]
    light, dark = data["light"]["fg"], data["dark"]["fg"]
    rule = ".decision.warn{{color:{0};background:var(--alt);border:1px solid {0}}}"
    return (
        ".decision{display:block;width:fit-content}"
        ".num{text-align:right;white-space:nowrap}"
        ".matrix{width:auto}.matrix td,.matrix th{padding-right:14px}"
        "td.m{white-space:nowrap;font-weight:600}td.m.v-ok{background:none}a{color:inherit}"
        "header .files th{font-weight:600;color:var(--muted)}\n"
        + rule.format(light)
        + "\n@media (prefers-color-scheme:dark){"
        + rule.format(dark)
        + "}\n"
    )


class _Markdown(_Base):
    def text(self, value: Any, limit: int = 200) -> str:
        return escape(self.clean(value, limit))

    def code(self, value: Any, limit: int = 200, in_table: bool = True) -> str:
        return code(self.clean(value, limit), in_table)

    def render(self) -> str:
        fleet = self.fleet
        marks = {"go": "✅", "go with changes": "⚠️", "no-go": "❌"}
        lines = ["# Migration readiness", ""]
        for name in fleet.targets:
            lines.append(f"- {marks[fleet.verdict(name)]} **{escape(_target_line(fleet, name))}**")
        if not fleet.targets:
            lines.append("- no target given: the gate alone (`--target P…`)")
        decided = ", ".join(
            f"{d.replace('_', ' ')} {fleet.decisions.get(d, 0):,}" for d in DECISIONS
        )
        lines += [
            "",
            f"{fleet.files:,} files ({fleet.unreadable:,} unreadable), "
            f"{fleet.conversations:,} conversations, {fleet.items:,} items, "
            f"{fleet.calls:,} function calls. On any provider: {escape(decided)}.",
        ]
        lines.extend(f"- {k}: {self.code(v, in_table=False)}" for k, v in self.settings())
        for name in fleet.targets:
            lines += ["", f"## {escape(name)}: {escape(_title(name))}", ""]
            rules = _rules(name, fleet.per_target[name])
            if not rules:
                lines.append("No rule of this target applies to the fleet.")
                continue
            rows = []
            for row in rules[:RULES_SHOWN]:
                example = ""
                if row.example is not None:
                    path, number, message = row.example
                    href = self.href(path)
                    link = self.code(path, PATH)
                    link = link if href is None else f"[{link}]({_md_url(href)})"
                    example = f"{link} #{number}: {self.text(message, MESSAGE)}"
                rows.append(
                    [
                        self.code(row.rule),
                        self.text(row.reason),
                        f"{row.conversations:,}",
                        f"{row.findings:,}",
                        example,
                    ]
                )
            lines += _table(["rule", "why", "conversations", "findings", "example"], rows)
            if len(rules) > RULES_SHOWN:
                lines += ["", f"{len(rules) - RULES_SHOWN:,} more rules not listed."]
        tools = _top_tools(fleet)
        lines += ["", f"## Tools ({len(fleet.tools):,})", ""]
        if tools:
            rows = []
            for name, tool in tools:
                cells = []
                for target in fleet.targets:
                    worst, split = _marks(tool, target)
                    cells.append(f"{worst} ({split})" if split else worst)
                rows.append(
                    [
                        self.code(name, 80),
                        f"{len(tool.variants):,}",
                        f"{tool.conversations:,}",
                        f"{tool.calls:,}",
                        *cells,
                    ]
                )
            heads = ["tool", "schemas", "conversations", "calls", *fleet.targets]
            lines += _table(heads, rows)
            lines += ["", "✓ accepted · ~ accepted but silently changed · ✗ rejected"]
        else:
            lines.append("No tool definitions in the fleet.")
        lines += ["", "## Parse health", ""]
        rows = []
        for name, tally in _formats(fleet):
            why = "; ".join(
                f"{count:,} × {self.text(reason, 120)}"
                for reason, count in tally.reasons.most_common(REASONS_SHOWN)
            )
            rows.append(
                [
                    self.code(name),
                    f"{tally.files:,}",
                    f"{tally.conversations:,}",
                    f"{tally.items:,}",
                    f"{tally.violations:,}",
                    f"{tally.unreadable:,}",
                    why,
                ]
            )
        heads = ["format", "files", "conversations", "items", "violations", "unreadable", "why"]
        lines += _table(heads, rows)
        lines += [
            "",
            f"Generated by Replay Inspector {__version__} on {self.generated}. "
            f"{escape(self.redactor.describe())}",
            "",
        ]
        return "\n".join(lines)


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out


def _md_url(url: str) -> str:
    # Spaces and brackets would end the link target early.
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C")


def render_readiness(
    fleet: Fleet,
    redactor: Redactor,
    *,
    fmt: str = "html",
    link_base: str | None = None,
    tools: str | None = None,
) -> str:
    """The readiness report as an HTML page (`fmt` html) or Markdown (`fmt` markdown).

    Links to files are relative to `link_base` (the report's folder) when it is given.
    """
    renderer = _Html if fmt == "html" else _Markdown
    return renderer(fleet, redactor, link_base, tools).render()


__all__ = ["render_readiness"]
