"""One self-contained HTML page: inline CSS, inline SVG icons, no script, nothing fetched.

It opens offline and from an e-mail attachment. A Content-Security-Policy meta tag forbids every
script and every load as a second line of defence; the first is that every string from a file is
redacted, made printable and passed through `html.escape` before it is written. Colours and icons
come from the GUI's palette file, in its light and dark variants (`prefers-color-scheme`).

Past ROW_LIMIT rows, only the rows that matter (a blocked item, a changed or one-sided pair) are
listed, the first KEPT_LIMIT of them; each run of rows left out becomes one line with its counts,
so a page of a million blocked calls stays a few megabytes.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from inspector.core.diff import DiffResult, Pair
from inspector.core.gate import GateResult, ItemVerdict
from inspector.core.model import Item
from inspector.core.report.model import (
    Cleaner,
    FindingLike,
    ReportInput,
    ReportSide,
    count_text,
    decision_mark,
    extra_title,
    finding_extras,
    is_blocked,
    item_cells,
    items_text,
    pair_kind,
    verdict_counts,
)
from inspector.core.report.redact import Redactor
from inspector.resources import palette_data, resource_path

#: Rows listed in full; past this, only blocked and changed rows are listed.
ROW_LIMIT = 20_000
#: Past ROW_LIMIT, the rows that matter listed (each with its detail); the rest are counted.
KEPT_LIMIT = 5_000
#: Findings listed per table; the rest are counted by code.
FINDING_LIMIT = 2_000
#: Reasons shown in the header before the rest go behind a disclosure.
REASONS_SHOWN = 12
#: Longest text of a cell (type, name, call_id), of a detail and of a value in a change.
CELL = 80
DETAIL = 400
VALUE = 600
#: Longest item JSON shown for a blocked item.
ITEM = 4_000

#: Marker character and word per pair kind (as in the diff command's text output).
MARKERS = {
    "same": ("=", "same"),
    "info": ("~", "info only"),
    "changed": ("!", "changed"),
    "blocking": ("X", "blocks replay"),
    "left": ("<", "left only"),
    "right": (">", "right only"),
}
#: Change level (palette `changes`) of a pair kind; same pairs get none.
LEVELS = {
    "info": "info",
    "changed": "minor",
    "blocking": "major",
    "left": "minor",
    "right": "minor",
}


def _e(text: str) -> str:
    return html.escape(text, quote=True)


# --------------------------------------------------------------------------------------------
# Palette: CSS and icons


#: The decision banner per decision severity: its class and icon.
# A break opportunity after each inner "_" or "." of an identifier.
_WORD_BREAK = re.compile(r"(?<=[^_.])([_.])(?=[^_.])")

_DECISION_STATES = {
    "error": ("block", "s-error"),
    "warning": ("warn", "s-warning"),
    "info": ("pass", "v-ok"),
}


def _colour_rules(theme: str) -> list[str]:
    data = palette_data()
    rules = []
    for section, prefix in (("verdicts", "v"), ("changes", "c"), ("severities", "s")):
        for key, entry in data[section].items():
            colours = entry[theme]
            background = f";background:{colours['bg']}" if colours.get("bg") else ""
            rules.append(f".{prefix}-{key}{{color:{colours['fg']}{background}}}")
    gap = data["gap"][theme]
    rules.append(f".gap{{color:{gap['fg']};background:{gap['bg']}}}")
    # The decision banner takes the colours of a blocked and of a passing verdict.
    for state, verdict in (("block", "arguments_schema"), ("warn", "status"), ("pass", "ok")):
        colours = data["verdicts"][verdict][theme]
        rules.append(
            f".decision.{state}{{color:{colours['fg']};background:{colours['bg']};"
            f"border:1px solid {colours['fg']}}}"
        )
    return rules


_LAYOUT = """
:root{color-scheme:light dark;--fg:#1f2328;--bg:#ffffff;--muted:#59636e;--line:#d8dee4;
--head:#f3f5f7;--alt:#fafbfc}
@media (prefers-color-scheme:dark){:root{--fg:%(Text)s;--bg:%(Base)s;--muted:%(PlaceholderText)s;
--line:%(Midlight)s;--head:%(Window)s;--alt:%(AlternateBase)s}}
*{box-sizing:border-box}
body{margin:0;padding:18px 22px 28px;background:var(--bg);color:var(--fg);
font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
h1{font-size:20px;margin:0 0 10px}
h2{font-size:16px;margin:26px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:16px 0 6px}
p{margin:6px 0}
table{border-collapse:collapse;width:100%%}
th,td{padding:3px 6px;text-align:left;vertical-align:top;border-bottom:1px solid var(--line);
overflow-wrap:anywhere}
thead th{background:var(--head);font-weight:600}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:12px}
.muted,.none{color:var(--muted)}
.i{width:14px;height:14px;vertical-align:-2px;margin-right:4px}
.decision{display:inline-block;font-size:16px;font-weight:600;padding:6px 12px;border-radius:4px;
margin:2px 0 6px}
.reasons{margin:4px 0 10px;padding-left:22px}
.files{width:auto;margin:8px 0}
.files th,.files td{padding-right:14px;overflow-wrap:normal;white-space:nowrap}
.files td.path{white-space:normal;overflow-wrap:anywhere;min-width:min(48ch,45vw)}
.files td.chips{white-space:normal}
.chip{display:inline-block;padding:0 6px;margin:1px 4px 1px 0;border-radius:3px;white-space:nowrap}
.redaction{padding:4px 8px;border-left:3px solid var(--line)}
.redaction.off{font-weight:600}
.legend span{margin-right:12px;white-space:nowrap}
.rows,.changes{table-layout:fixed;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,
"Liberation Mono",monospace;font-size:12px}
.rows th{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
font-size:13px}
.w-s{width:12ch}.w-k{width:24ch}.w-n{width:5ch}.w-v{width:calc(17ch + 34px)}
.w-t{width:26ch}.w-c{width:13ch}.w-m{width:6ch}.w-tt{width:22ch}.w-id{width:31ch}
.n{text-align:right;color:var(--muted)}
td.v{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.m{text-align:center;font-weight:700}
.sep{border-left:2px solid var(--line)}
.ns{font-weight:700}
tr.more>td{padding:0 6px 6px 28px;border-top:0}
tr.skip>td{text-align:center;color:var(--muted);background:var(--alt);font-style:italic}
details>summary{cursor:pointer;color:var(--muted)}
details>summary:hover{color:var(--fg)}
details[open]>summary{margin-bottom:4px}
pre.json{margin:4px 0;padding:6px 8px;background:var(--alt);border:1px solid var(--line);
white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;max-height:24em;overflow:auto}
.changes{margin:2px 0 4px;width:100%%}
.changes td{border-bottom:1px dotted var(--line);padding:2px 6px}
.detail{margin:2px 0;white-space:pre-wrap}
.extras{margin:2px 0 0;color:var(--muted)}
footer{margin-top:28px;padding-top:8px;border-top:1px solid var(--line);color:var(--muted)}
"""


@cache
def stylesheet() -> str:
    """The page's CSS: layout, then the palette's colours for light and dark."""
    dark = palette_data()["dark_palette"]
    layout = _LAYOUT % {k: v for k, v in dark.items() if isinstance(v, str)}
    return (
        layout.strip()
        + "\n"
        + "\n".join(_colour_rules("light"))
        + "\n@media (prefers-color-scheme:dark){\n"
        + "\n".join(_colour_rules("dark"))
        + "\n}\n"
    )


def _symbol(symbol_id: str, resource: str) -> str:
    # Our own SVG files: their children become a <symbol>, referenced by every use of the icon.
    root = ET.fromstring(resource_path(resource).read_text(encoding="utf-8"))
    for element in root.iter():
        element.tag = element.tag.rpartition("}")[2]
    inner = "".join(ET.tostring(child, encoding="unicode") for child in root)
    view_box = root.get("viewBox", "0 0 16 16")
    return f'<symbol id="{symbol_id}" viewBox="{_e(view_box)}">{inner}</symbol>'


@cache
def icon_symbols() -> str:
    """Every palette icon as an inline SVG <symbol>, defined once per page."""
    data = palette_data()
    symbols = [
        _symbol(f"i-{prefix}-{key}", entry["icon"])
        for section, prefix in (("verdicts", "v"), ("changes", "c"), ("severities", "s"))
        for key, entry in data[section].items()
    ]
    symbols.append(_symbol("i-gap", data["gap"]["icon"]))
    return (
        '<svg width="0" height="0" '
        'style="position:absolute" aria-hidden="true">' + "".join(symbols) + "</svg>"
    )


def icon(symbol_id: str) -> str:
    """An icon defined by icon_symbols."""
    return f'<svg class="i" aria-hidden="true"><use href="#i-{symbol_id}"/></svg>'


@cache
def verdict_badge(verdict: str) -> str:
    """Icon and word of a verdict (the cell takes the verdict's colour class)."""
    return icon(f"v-{verdict}") + verdict


@cache
def severity_badge(severity: str) -> str:
    """Icon and word of a severity, coloured."""
    key = severity if severity in ("error", "warning", "info") else "info"
    return f'<span class="s-{key}">{icon(f"s-{key}")}{_e(severity)}</span>'


# --------------------------------------------------------------------------------------------
# Page


class _Page:
    """Renders one report; the body first, so the header can give the redaction counts."""

    def __init__(self, report: ReportInput, redactor: Redactor) -> None:
        self.report = report
        self.redactor = redactor
        self.clean = Cleaner(redactor)

    def text(self, value: Any, limit: int = 0) -> str:
        """A string from a file, ready for HTML."""
        return _e(self.clean(value, limit))

    def cell(self, value: str, limit: int = CELL, cls: str = "", words: bool = False) -> str:
        """A table cell holding text from a file, with the full text as a tooltip if clipped."""
        full = self.clean(value)
        shown = full if len(full) <= limit else self.clean(value, limit)
        title = f' title="{_e(full[:2000])}"' if shown != full else ""
        klass = f' class="{cls}"' if cls else ""
        text = self.words(shown) if words else _e(shown)
        return f"<td{klass}{title}>{text}</td>"

    def words(self, value: Any, limit: int = 0) -> str:
        """A snake_case identifier (a type, tool name or code) for HTML, breakable between words.

        A narrow column then breaks it after an underscore (web_search_ / call), not inside a
        word (web_search_ca / ll).
        """
        return _WORD_BREAK.sub(r"\1<wbr>", self.text(value, limit))

    # ---- items -----------------------------------------------------------------------------

    def side_cells(self, result: GateResult, index: int | None, first: str = "") -> str:
        """The five cells of one side of a row: #, verdict, type, name or role, call_id."""
        if index is None:
            return f'<td colspan="5" class="gap{first}">{icon("gap")}</td>'
        item = result.transcript.items[index]
        number, kind, label, call_id = item_cells(item)
        verdict = result.verdicts[index].verdict.value
        type_class = "ns" if item.namespaced else ""
        return (
            f'<td class="n{first}">{number}</td>'
            f'<td class="v v-{verdict}">{verdict_badge(verdict)}</td>'
            + self.cell(kind, cls=type_class, words=True)
            + self.cell(label, words=True)
            + self.cell(call_id)
        )

    def verdict_detail(
        self, side: str, item: Item, verdict: ItemVerdict, with_json: bool = True
    ) -> str:
        """A blocked item's detail, its schema errors and (unless told not to) its JSON."""
        head = f"{side}#{item.index} " if side else ""
        parts = [
            f'<p class="detail"><span class="v-{verdict.verdict.value}">{head}'
            f"{verdict.verdict.value}</span>: {self.text(verdict.detail, DETAIL)}</p>"
        ]
        # One error is the detail itself; a table pays off from two on.
        if len(verdict.errors) > 1:
            rows = "".join(
                f"<tr><td><code>{self.text(e.path or '/', CELL)}</code></td>"
                f"<td>{self.text(e.keyword, CELL)}</td><td>{self.text(e.message, DETAIL)}</td></tr>"
                for e in verdict.errors
            )
            parts.append(
                '<table class="changes"><colgroup><col class="w-k"><col class="w-s"><col>'
                "</colgroup><thead><tr><th>pointer</th><th>keyword</th><th>schema error</th></tr>"
                f"</thead>{rows}</table>"
            )
        if with_json:
            text = self.clean.json(item.raw, ITEM, indent=2)
            parts.append(f'<pre class="json">{_e(text)}</pre>')
        return "".join(parts)

    def change_rows(self, pair: Pair) -> str:
        """A table of a pair's changes, each with severity, code, pointer and both values."""
        rows = []
        for change in pair.changes:
            if change.code in ("only_left", "only_right"):
                value = change.left if change.code == "only_left" else change.right
                values = f'<td colspan="2" class="val"><code>{self.json(value)}</code></td>'
            else:
                values = (
                    f'<td class="val"><code>{self.json(change.left)}</code></td>'
                    f'<td class="val"><code>{self.json(change.right)}</code></td>'
                )
            rows.append(
                f"<tr><td>{severity_badge(str(change.severity))}</td>"
                f"<td>{_e(change.code)}</td>"
                f"<td><code>{self.text(change.pointer or '(item)', CELL)}</code></td>{values}</tr>"
            )
        return (
            '<table class="changes"><colgroup><col class="w-s"><col class="w-k"><col class="w-k">'
            "<col><col></colgroup><thead><tr><th>severity</th><th>change</th><th>pointer</th>"
            f"<th>left</th><th>right</th></tr></thead>{''.join(rows)}</table>"
        )

    def json(self, value: Any) -> str:
        """A JSON value from a file, redacted, clipped and escaped."""
        return "-" if value is None else _e(self.clean.json(value, VALUE))

    def pair_rows(self, diff: DiffResult, pair: Pair) -> str:
        """One side-by-side row, and its expandable changes when it has any."""
        kind = pair_kind(pair)
        mark, word = MARKERS[kind]
        level = LEVELS.get(kind)
        if pair.blocking and kind in ("left", "right"):
            # A call or its output on one side only blocks the replay: marked as such.
            level, word = "major", f"{word}, blocks replay"
        marker = (
            f'<td class="m sep c-{level}" title="{word}">{icon("c-" + level)}{_e(mark)}</td>'
            if level
            else f'<td class="m sep muted" title="{word}">{mark}</td>'
        )
        row = (
            f'<tr class="p-{kind}">{self.side_cells(diff.left, pair.left)}{marker}'
            f"{self.side_cells(diff.right, pair.right, ' sep')}</tr>"
        )
        blocked = [
            (name, result.transcript.items[index], result.verdicts[index])
            for name, result, index in (
                ("left ", diff.left, pair.left),
                ("right ", diff.right, pair.right),
            )
            if index is not None and is_blocked(result.verdicts[index].verdict)
        ]
        if not pair.changes and not blocked:
            return row
        parts = []
        if pair.changes:
            codes = ", ".join(dict.fromkeys(c.code for c in pair.changes))
            count = len(pair.changes)
            parts.append(f"{count} change{'s' if count != 1 else ''}: {_e(codes)}")
        if blocked:
            parts.append("blocked: " + ", ".join(v.verdict.value for _, _, v in blocked))
        body = self.change_rows(pair) if pair.changes else ""
        # Side by side, the changes say what differs; each item's JSON is in its own report.
        body += "".join(self.verdict_detail(n, i, v, with_json=False) for n, i, v in blocked)
        opened = " open" if pair.blocking else ""
        return (
            f'{row}<tr class="more"><td colspan="11"><details{opened}><summary>'
            f"{' · '.join(parts)}</summary>{body}</details></td></tr>"
        )

    def item_row(self, result: GateResult, index: int) -> str:
        """One row of a single transcript; a blocked one expands to its errors and JSON."""
        item = result.transcript.items[index]
        verdict = result.verdicts[index]
        number, kind, label, call_id = item_cells(item)
        word = verdict.verdict.value
        row = (
            f'<tr><td class="n">{number}</td><td class="v v-{word}">{verdict_badge(word)}</td>'
            + self.cell(kind, cls="ns" if item.namespaced else "", words=True)
            + self.cell(label, words=True)
            + self.cell(call_id)
            + self.cell(verdict.detail, DETAIL)
            + "</tr>"
        )
        if not is_blocked(verdict.verdict):
            return row
        count = len(verdict.errors)
        what = f"{count} schema errors and the item" if count > 1 else "the item"
        return (
            f'{row}<tr class="more"><td colspan="6"><details><summary>{what}</summary>'
            f"{self.verdict_detail('', item, verdict)}</details></td></tr>"
        )

    def rows(
        self,
        count: int,
        keep: Callable[[int], bool],
        render: Callable[[int], str],
        describe: Callable[[int], str],
        columns: int,
        kept: str,
    ) -> tuple[str, str]:
        """Every row, or past ROW_LIMIT the kept ones with a counted line per run left out."""
        if count <= ROW_LIMIT:
            return "".join(render(n) for n in range(count)), ""
        out: list[str] = []
        skipped: Counter[str] = Counter()
        total: Counter[str] = Counter()
        start = listed = passed_over = 0

        def flush(end: int) -> None:
            if skipped:
                counts = ", ".join(f"{k} {v:,}" for k, v in skipped.most_common())
                n = sum(skipped.values())
                out.append(
                    f'<tr class="skip"><td colspan="{columns}">{count_text(n, "row")} not shown '
                    f"(rows {start:,}–{end - 1:,}: {_e(counts)})</td></tr>"
                )
                skipped.clear()

        for n in range(count):
            wanted = keep(n)
            if wanted and listed < KEPT_LIMIT:
                flush(n)
                out.append(render(n))
                start = n + 1
                listed += 1
            else:
                passed_over += wanted
                word = describe(n)
                skipped[word] += 1
                total[word] += 1
        flush(count)
        counts = ", ".join(f"{k} {v:,}" for k, v in total.most_common())
        which = f"only the {listed:,} {kept} rows are listed"
        if passed_over:
            which = (
                f"only the first {listed:,} of the {listed + passed_over:,} {kept} rows are listed"
            )
        note = (
            f'<p class="muted">{count:,} rows: more than {ROW_LIMIT:,}, so {which}; '
            f"{sum(total.values()):,} rows are summarised ({_e(counts)}).</p>"
        )
        return "".join(out), note

    def items_section(self) -> str:
        """The items: one transcript, or two side by side along the diff's pairs."""
        report = self.report
        diff = report.diff
        if diff is not None:
            left, right = report.sides
            pairs = diff.pairs

            def keep(n: int) -> bool:
                pair = pairs[n]
                if pair.changed or pair.left is None or pair.right is None:
                    return True
                return is_blocked(diff.left.verdicts[pair.left].verdict) or is_blocked(
                    diff.right.verdicts[pair.right].verdict
                )

            body, note = self.rows(
                len(pairs),
                keep,
                lambda n: self.pair_rows(diff, pairs[n]),
                lambda n: MARKERS[pair_kind(pairs[n])][1],
                11,
                "changed, one-sided or blocked",
            )
            widths = '<col class="w-n"><col class="w-v"><col><col><col class="w-c">'
            legend = " ".join(
                f'<span class="{("c-" + LEVELS[k]) if k in LEVELS else "muted"}">'
                f"{_e(mark)} {word}</span>"
                for k, (mark, word) in MARKERS.items()
            )
            head = (
                f'<p class="legend">{legend}</p>{note}<table class="rows pairs"><colgroup>'
                f'{widths}<col class="w-m">{widths}</colgroup><thead><tr>'
                f'<th colspan="5">left: {self.text(left.path)}</th><th class="sep"></th>'
                f'<th colspan="5" class="sep">right: {self.text(right.path)}</th></tr><tr>'
                + _side_heads()
                + '<th class="sep"></th>'
                + _side_heads(" sep")
                + "</tr></thead>"
            )
            summary = diff.summary()
            title = (
                f"<h2>Items, side by side</h2><p>{len(pairs):,} pairs: same {summary['same']}, "
                f"info only {summary['info']}, changed {summary['changed']}, left only "
                f"{summary['only_left']}, right only {summary['only_right']}.</p>"
            )
            return f"<section>{title}{head}<tbody>{body}</tbody></table></section>"
        side = report.sides[0]
        result = side.result
        body, note = self.rows(
            len(side.items),
            lambda n: is_blocked(result.verdicts[n].verdict),
            lambda n: self.item_row(result, n),
            lambda n: result.verdicts[n].verdict.value,
            6,
            "blocked",
        )
        return (
            f'<section><h2>Items</h2>{note}<table class="rows items"><colgroup>'
            # One side has room for a whole call id (call_ or toolu_ and 24 characters).
            '<col class="w-n"><col class="w-v"><col class="w-tt"><col class="w-tt">'
            '<col class="w-id"><col></colgroup><thead><tr><th>#</th><th>verdict</th><th>type</th>'
            "<th>name / role</th><th>call_id</th><th>detail</th></tr></thead>"
            f"<tbody>{body}</tbody></table></section>"
        )

    # ---- findings ----------------------------------------------------------------------------

    def findings_table(self, findings: Sequence[FindingLike], what: str) -> str:
        """A table of findings, errors first; past FINDING_LIMIT the rest counted by code."""
        if not findings:
            return f'<p class="none">No {what}.</p>'
        order = {"error": 0, "warning": 1, "info": 2}
        ranked = sorted(findings, key=lambda f: order.get(str(f.severity), 3))
        shown, rest = ranked[:FINDING_LIMIT], ranked[FINDING_LIMIT:]
        rows = []
        for finding in shown:
            extras = finding_extras(finding)
            extra = ""
            if extras:
                extra = (
                    '<p class="extras">'
                    + "; ".join(f"{self.text(k, CELL)}: {self.json(v)}" for k, v in extras.items())
                    + "</p>"
                )
            rows.append(
                f"<tr><td>{severity_badge(str(finding.severity))}</td>"
                f"<td>{self.words(finding.code, CELL)}</td>"
                f"<td>{_e(items_text(list(finding.items)))}</td>"
                f"<td>{self.text(finding.message, DETAIL)}{extra}</td></tr>"
            )
        more = ""
        if rest:
            counts = Counter(str(f.code) for f in rest)
            listed = ", ".join(f"{self.text(k, CELL)} {v:,}" for k, v in counts.most_common())
            more = f'<p class="muted">{len(rest):,} more not listed: {listed}.</p>'
        return (
            '<table class="findings"><colgroup><col style="width:7em"><col style="width:16em">'
            '<col style="width:8em"><col></colgroup><thead><tr><th>severity</th><th>code</th>'
            f"<th>items</th><th>message</th></tr></thead>{''.join(rows)}</table>{more}"
        )

    def violations_table(self, side: ReportSide) -> str:
        """A stream's lifecycle violations: severity, code, event, line, sequence, message."""
        violations = side.violations()
        counted = side.violations_left_out()
        if not violations and not counted:
            return '<p class="none">No stream violations.</p>'
        rows = "".join(
            f"<tr><td>{severity_badge(str(v.severity))}</td><td>{self.words(v.code, CELL)}</td>"
            f"<td>{_number(v.event_index)}</td><td>{_number(v.line)}</td>"
            f"<td>{_number(v.sequence_number)}</td><td>{self.text(v.message, DETAIL)}</td></tr>"
            for v in violations[:FINDING_LIMIT]
        )
        more = max(len(violations) - FINDING_LIMIT, 0) + counted
        note = f'<p class="muted">{more:,} more not listed.</p>' if more > 0 else ""
        return (
            '<table class="findings"><colgroup><col style="width:7em"><col style="width:16em">'
            '<col style="width:5em"><col style="width:5em"><col style="width:5em"><col>'
            "</colgroup><thead><tr><th>severity</th><th>code</th><th>event</th><th>line</th>"
            f"<th>seq</th><th>message</th></tr></thead>{rows}</table>{note}"
        )

    def findings_section(self) -> str:
        """Findings, stream violations and further (target) findings, per side."""
        report = self.report
        two = len(report.sides) == 2
        parts = ["<section><h2>Findings</h2>"]
        sides = list(zip(report.side_names, report.sides, strict=True))
        for name, side in sides:
            if two:
                parts.append(f"<h3>{name}: {self.text(side.path)}</h3>")
            parts.append(self.findings_table(side.result.findings, "findings"))
        parts.append("</section>")
        if any(s.result.transcript.stream is not None for _, s in sides):
            parts.append("<section><h2>Stream violations</h2>")
            for name, side in sides:
                if side.result.transcript.stream is None:
                    continue
                if two:
                    parts.append(f"<h3>{name}: {self.text(side.path)}</h3>")
                parts.append(self.violations_table(side))
            parts.append("</section>")
        if report.target or any(s.extra_findings for s in report.sides):
            parts.append(f"<section><h2>{self.text(extra_title(report))}</h2>")
            for name, side in sides:
                if two:
                    parts.append(f"<h3>{name}: {self.text(side.path)}</h3>")
                parts.append(self.findings_table(side.extra_findings, "findings"))
            parts.append("</section>")
        return "".join(parts)

    # ---- header and footer -------------------------------------------------------------------

    def header(self) -> str:
        """Title, decision and reasons, the files with their formats and verdict counts."""
        report = self.report
        decision = report.decision
        state, symbol = _DECISION_STATES[decision_mark(decision)]
        mark = icon(symbol)
        reasons = [
            f"<li>{self.text(r, DETAIL)}</li>"
            for r in (*decision.reason_lines(), *decision.warning_lines())
        ]
        listed = "".join(reasons[:REASONS_SHOWN])
        if len(reasons) > REASONS_SHOWN:
            listed += (
                f"<li><details><summary>{len(reasons) - REASONS_SHOWN:,} more reasons</summary>"
                f"<ul>{''.join(reasons[REASONS_SHOWN:])}</ul></details></li>"
            )
        notes = [n for n in (decision.note, decision.suggestion) if n]
        noted = "".join(f'<p class="note">{self.text(n, DETAIL)}</p>' for n in notes)
        rows = []
        for name, side in zip(report.side_names, report.sides, strict=True):
            chips = "".join(
                f'<span class="chip v-{v}">{verdict_badge(v)} {n:,}</span>'
                for v, n in verdict_counts(side.result)
            )
            blocked = len(side.blocked())
            # A file of several conversations is reported one at a time: say which.
            picked = (
                f'<div class="muted">conversation <code>{self.text(side.conversation)}</code></div>'
                if side.conversation
                else ""
            )
            rows.append(
                f'<tr><th>{name}</th><td class="path"><code>{self.text(side.path)}</code>'
                f"{picked}</td><td>{self.text(side.format)}</td>"
                f"<td>{count_text(len(side.items), 'item')}, "
                f'{blocked:,} blocked</td><td class="chips">'
                f"{chips or '<span class=none>no items</span>'}</td></tr>"
            )
        meta = [f"{name}: <code>{self.text(value)}</code>" for name, value in report.settings()]
        redaction = "on" if self.redactor.enabled else "off"
        return (
            "<header><h1>Replay report</h1>"
            f'<div class="decision {state}">{mark}{self.text(decision.headline, DETAIL)}</div>'
            + noted
            + (f'<ul class="reasons">{listed}</ul>' if reasons else "")
            + f'<table class="files">{"".join(rows)}</table>'
            + (f'<p class="muted">{" · ".join(meta)}</p>' if meta else "")
            + f'<p class="redaction {redaction}">{_e(self.redactor.describe())}</p></header>'
        )

    def footer(self) -> str:
        """The generating version and time, and what the page is."""
        report = self.report
        return (
            f"<footer>Generated by Replay Inspector {_e(report.version)} on "
            f"{_e(report.generated_text())}. {_e(self.redactor.describe())} This page is "
            "self-contained: no scripts, nothing loaded from elsewhere.</footer>"
        )

    def render(self) -> str:
        """The whole page."""
        body = self.items_section() + self.findings_section()
        header = self.header()  # after the body: the redaction counts are complete now
        names = " vs ".join(
            self.clean(s.path.replace("\\", "/").rsplit("/", 1)[-1]) for s in self.report.sides
        )
        return page(
            f"Replay report: {names}",
            f"{header}\n<main>{body}</main>\n{self.footer()}",
            self.report.version,
        )


def page(title: str, body: str, version: str, css: str = "") -> str:
    """The page shell every HTML report shares: CSP, palette CSS (light and dark), icons.

    `title` is plain text (escaped here); `body` is HTML already escaped; `css` adds rules.
    """
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f'<meta name="generator" content="Replay Inspector {_e(version)}">'
        f"<title>{_e(title)}</title>"
        f"<style>\n{stylesheet()}{css}</style></head>\n<body>{icon_symbols()}\n{body}\n"
        "</body></html>\n"
    )


def _side_heads(first: str = "") -> str:
    return (
        f'<th class="n{first}">#</th><th>verdict</th><th>type</th><th>name / role</th>'
        "<th>call_id</th>"
    )


def _number(value: int | None) -> str:
    return "" if value is None else str(int(value))


def render_html(report: ReportInput, redactor: Redactor) -> str:
    """Return the report as one self-contained HTML page."""
    return _Page(report, redactor).render()


__all__ = ["FINDING_LIMIT", "KEPT_LIMIT", "ROW_LIMIT", "page", "render_html", "stylesheet"]
