"""A Markdown summary for a pull-request comment: decision, verdict counts, blocked items, findings.

Every string from a file is redacted and made printable, then either put in a code span
(identifiers: type, name, call_id, code, path) or escaped as text (details, messages, reasons):
Markdown punctuation is backslash-escaped, `<` and `>` included, so no raw HTML can come from a
file. A word joiner (U+2060) goes after `@` and after a `#` before a digit, so a value from a
file neither mentions anyone nor links an issue on GitHub, which does both even after a
backslash. Table cells lose their line breaks and escape their pipes.

The whole summary stays under LIMIT characters (GitHub refuses comments over 65,536): sections
are written row by row until the room is used up, and a note says what was left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from inspector.core.gate import Verdict
from inspector.core.report.model import (
    Cleaner,
    FindingLike,
    ReportInput,
    ReportSide,
    count_text,
    decision_mark,
    describe_item,
    extra_title,
    is_blocked,
    item_cells,
    pair_kind,
    verdict_counts,
    where_text,
)
from inspector.core.report.redact import Redactor

#: Longest summary, note and footer included.
LIMIT = 60_000
#: Longest text in one table cell.
CELL = 200
#: Reasons listed under the decision (each up to 2 × CELL characters, so the head stays small).
REASONS_SHOWN = 40
#: Room kept for the footer and the truncation note.
RESERVE = 2_000

_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&:$^=])")
_NO_LINK = re.compile(r"(@|#(?=\d))")
_LINE_BREAKS = re.compile(r"[\r\n\t]+")
_BACKTICKS = re.compile(r"`+")
_JOINER = "\u2060"
_RANK = {"error": 0, "warning": 1, "info": 2}
#: The headline's mark per decision severity.
_MARKS = {"error": "❌", "warning": "⚠️", "info": "✅"}


def escape(text: str) -> str:
    """Escape text so Markdown shows it literally, on one line, and links or mentions nothing."""
    text = _SPECIAL.sub(r"\\\1", _LINE_BREAKS.sub(" ", text))
    return _NO_LINK.sub(r"\1" + _JOINER, text)


def code(text: str, in_table: bool = True) -> str:
    """Put text in a code span (one line; pipes escaped in a table cell); '' stays empty."""
    text = _LINE_BREAKS.sub(" ", text)
    if not text:
        return ""
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(text)), default=0) + 1)
    if text.startswith("`") or text.endswith("`") or (text[0] == text[-1] == " "):
        text = f" {text} "
    return f"{fence}{text}{fence}"


@dataclass
class _Section:
    """A titled table whose rows are made only as far as there is room."""

    title: str
    head: Sequence[str]
    total: int
    rows: Iterator[Sequence[str]]
    shown: int = 0


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return [_row(head), "|" + "---|" * len(head), *(_row(r) for r in rows)]


class _Summary:
    def __init__(self, report: ReportInput, redactor: Redactor) -> None:
        self.report = report
        self.redactor = redactor
        self.clean = Cleaner(redactor)
        self.names = list(zip(report.side_names, report.sides, strict=True))

    def text(self, value: object, limit: int = CELL) -> str:
        """A string from a file as escaped text."""
        return escape(self.clean(value, limit))

    def code(self, value: object, in_table: bool = True) -> str:
        """A string from a file as a code span."""
        return code(self.clean(value, CELL), in_table)

    # ---- head ------------------------------------------------------------------------------

    def counts_table(self) -> list[str]:
        """Verdict counts, one column per side."""
        sides = self.report.sides
        verdicts: dict[str, list[int]] = {v.value: [0] * len(sides) for v in Verdict}
        for number, side in enumerate(sides):
            for verdict, count in verdict_counts(side.result):
                verdicts[verdict][number] = count
        names = [f"{n} ({count_text(len(s.items), 'item')})" for n, s in self.names]
        rows = [
            [
                code(verdict),
                *(f"{c:,}" for c in counts),
                "yes" if is_blocked(Verdict(verdict)) else "",
            ]
            for verdict, counts in verdicts.items()
            if any(counts)
        ]
        return _table(["verdict", *names, "blocks replay"], rows)

    def head(self) -> list[str]:
        """The decision, the files, the reasons and the verdict counts."""
        report = self.report
        decision = report.decision
        mark = _MARKS[decision_mark(decision)]
        lines = [f"## {mark} {self.text(decision.headline, CELL * 2)}", ""]
        lines += [f"*{self.text(n, CELL * 2)}*" for n in (decision.note, decision.suggestion) if n]
        if decision.note or decision.suggestion:
            lines.append("")
        for name, side in self.names:
            picked = (
                f", conversation {self.code(side.conversation, False)}" if side.conversation else ""
            )
            lines.append(f"- {name}: {self.code(side.path, False)} ({escape(side.format)}{picked})")
        lines.extend(f"- {name}: {self.code(value, False)}" for name, value in report.settings())
        for title, listed in (
            ("Reasons", decision.reason_lines()),
            ("Warnings", decision.warning_lines()),
        ):
            if not listed:
                continue
            lines += ["", f"**{title}**", ""]
            lines.extend(f"- {self.text(r, CELL * 2)}" for r in listed[:REASONS_SHOWN])
            if len(listed) > REASONS_SHOWN:
                lines.append(f"- … and {len(listed) - REASONS_SHOWN:,} more")
        return [*lines, "", *self.counts_table()]

    # ---- sections ----------------------------------------------------------------------------

    def blocked(self, name: str, side: ReportSide) -> _Section:
        """The blocked items of a side with their reasons."""
        blocked = side.blocked()

        def rows() -> Iterator[list[str]]:
            for index in blocked:
                number, kind, label, call_id = item_cells(side.items[index])
                verdict = side.result.verdicts[index]
                yield [
                    number,
                    self.code(kind),
                    self.code(label),
                    self.code(call_id),
                    code(verdict.verdict.value),
                    self.text(verdict.detail),
                ]

        title = f"Blocked items, {name}" if name else "Blocked items"
        head = ["#", "type", "name / role", "call_id", "verdict", "reason"]
        return _Section(title, head, len(blocked), rows())

    def changed(self) -> _Section | None:
        """The pairs that changed more than informationally, or exist on one side only."""
        diff = self.report.diff
        if diff is None:
            return None
        pairs = [p for p in diff.pairs if pair_kind(p) not in ("same", "info")]
        left, right = diff.left.transcript.items, diff.right.transcript.items

        def rows() -> Iterator[list[str]]:
            for pair in pairs:
                codes = dict.fromkeys(c.code for c in pair.changes if c.severity != "info")
                yield [
                    self.code(describe_item(left[pair.left])) if pair.left is not None else "",
                    self.code(describe_item(right[pair.right])) if pair.right is not None else "",
                    "**yes**" if pair.blocking else "",
                    ", ".join(code(c) for c in codes),
                ]

        head = ["left", "right", "blocks replay", "changes"]
        return _Section("Changed pairs", head, len(pairs), rows())

    def findings(
        self, title: str, groups: Sequence[tuple[str, Sequence[FindingLike]]], counted: int = 0
    ) -> _Section:
        """Findings of every side, errors first (and `counted` more that were only counted)."""
        ranked = [
            (name, f)
            for name, findings in groups
            for f in sorted(findings, key=lambda f: _RANK.get(str(f.severity), 3))
        ]

        def rows() -> Iterator[list[str]]:
            for name, f in ranked:
                yield [
                    name,
                    str(f.severity),
                    self.code(f.code),
                    escape(where_text(f)),
                    self.text(f.message),
                ]

        head = ["side", "severity", "code", "items", "message"]
        return _Section(title, head, len(ranked) + counted, rows())

    def sections(self) -> list[_Section]:
        """Every section in the order a reader wants them."""
        names = self.names
        two = len(names) == 2
        sections = [self.blocked(name if two else "", side) for name, side in names]
        changed = self.changed()
        if changed is not None:
            sections.append(changed)
        sections.append(self.findings("Findings", [(n, s.result.findings) for n, s in names]))
        counted = sum(s.violations_left_out() for _, s in names)
        violations = [(n, s.violations()) for n, s in names]
        sections.append(self.findings("Stream violations", violations, counted))
        extra = [(n, s.extra_findings) for n, s in names]
        sections.append(self.findings(extra_title(self.report), extra))
        return [s for s in sections if s.total]

    # ---- assembly ----------------------------------------------------------------------------

    def render(self) -> str:
        """The whole summary, under LIMIT characters."""
        lines = self.head()
        used = sum(len(line) + 1 for line in lines)
        room = LIMIT - RESERVE
        sections = self.sections()
        full = False
        for section in sections:
            heading = [
                "",
                f"### {section.title} ({section.total:,})",
                "",
                *_table(section.head, []),
            ]
            cost = sum(len(line) + 1 for line in heading)
            for cells in section.rows:
                row = _row(cells)
                if used + cost + len(row) + 1 > room:
                    full = True
                    break
                if not section.shown:
                    lines.extend(heading)
                    used += cost
                    cost = 0
                lines.append(row)
                used += len(row) + 1
                section.shown += 1
            if full:
                break
        left_out = "; ".join(
            f"{escape(s.title)}: {s.shown:,} of {s.total:,} shown"
            for s in sections
            if s.shown < s.total
        )
        if full:
            lines += [
                "",
                f"*Truncated to stay under {LIMIT:,} characters ({left_out}). The HTML "
                "report (`--format html`) lists the rest of what was kept.*",
            ]
        elif left_out:
            # Rows were all written, yet a stream counted violations past what it keeps.
            lines += ["", f"*Not every row is listed ({left_out}): the rest were only counted.*"]
        # The rows are made; the redaction counts are complete.
        report = self.report
        lines += [
            "",
            "---",
            f"{escape(self.redactor.describe())} Replay Inspector {escape(report.version)}, "
            f"{escape(report.generated_text())}.",
        ]
        return "\n".join(lines) + "\n"


def render_markdown(report: ReportInput, redactor: Redactor) -> str:
    """Return the Markdown summary of a report."""
    return _Summary(report, redactor).render()


__all__ = ["LIMIT", "code", "escape", "render_markdown"]
