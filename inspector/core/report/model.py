"""The neutral input of every shared report (HTML, Markdown, JUnit) and what the renderers share.

A report holds one gated transcript, or two with their diff; findings from further checks (a
target profile's, for instance) per side; the replay decision with its reasons; the version and
time it was made. Renderers read this and nothing else, and pass every string from a file
through the redactor, then through `printable`, before it is escaped for its format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from inspector import __version__
from inspector.core.decision import Decision, answered_history, decide_file, decide_pair
from inspector.core.decision import FindingLike as DecidedFinding
from inspector.core.diff import DiffResult, Pair
from inspector.core.gate import PASSING, GateResult, Verdict, item_label
from inspector.core.model import Item
from inspector.core.report.redact import Redactor

#: The fields every finding has; anything else in its `to_json()` is shown as an extra.
FINDING_FIELDS = frozenset({"code", "severity", "items", "message"})
#: How many item numbers a finding lists before it says "and N more".
ITEMS_SHOWN = 12


class FindingLike(DecidedFinding, Protocol):
    """A finding from any check (gate findings, target findings, …): where it is, its JSON."""

    @property
    def items(self) -> Sequence[int]: ...
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class ReportSide:
    """One gated transcript: the path as given, its gate result, findings of further checks."""

    path: str
    result: GateResult
    extra_findings: tuple[FindingLike, ...] = ()

    @property
    def format(self) -> str:
        """The detected format of the transcript."""
        return self.result.transcript.format

    @property
    def conversation(self) -> str | None:
        """The conversation of the file this side shows, when its source names one."""
        return self.result.transcript.conversation

    @property
    def items(self) -> tuple[Item, ...]:
        """The transcript's items."""
        return self.result.transcript.items

    def blocked(self) -> list[int]:
        """Indexes of the items whose verdict blocks a replay."""
        return [n for n, v in enumerate(self.result.verdicts) if v.verdict not in PASSING]

    def violations(self) -> tuple[Any, ...]:
        """The stream's lifecycle violations (none for a file that is not a stream)."""
        stream = self.result.transcript.stream
        return tuple(stream.violations) if stream is not None else ()

    def violations_counted(self) -> tuple[tuple[str, Any, int], ...]:
        """Violations the stream only counted (code, severity, how many): past what it keeps."""
        stream = self.result.transcript.stream
        return tuple(stream.more) if stream is not None else ()

    def violations_left_out(self) -> int:
        """How many violations the stream only counted."""
        stream = self.result.transcript.stream
        return stream.left_out if stream is not None else 0


#: The report's decision is the core's one decision value.
ReportDecision = Decision


@dataclass(frozen=True, slots=True)
class ReportInput:
    """Everything a report shows: one or two sides, the diff of two, the decision, provenance."""

    sides: tuple[ReportSide, ...]
    decision: Decision
    diff: DiffResult | None = None
    tools: str | None = None
    target: str | None = None
    mode: str | None = None
    version: str = __version__
    generated: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __post_init__(self) -> None:
        if len(self.sides) not in (1, 2):
            raise ValueError("a report has one or two sides")
        if (self.diff is not None) != (len(self.sides) == 2):
            raise ValueError("two sides come with their diff, one side without")

    @property
    def side_names(self) -> tuple[str, ...]:
        """'left' and 'right' for a comparison, 'file' for one transcript."""
        return ("left", "right") if len(self.sides) == 2 else ("file",)

    def settings(self) -> list[tuple[str, str]]:
        """The options the report was made with: tools file, diff mode, target (when given)."""
        named = (("tools", self.tools), ("mode", self.mode), ("target", self.target))
        return [(name, value) for name, value in named if value]

    def generated_text(self) -> str:
        """The generation time in UTC, to the second."""
        return self.generated.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def decide(
    sides: Sequence[ReportSide], diff: DiffResult | None, *, strict: bool = False
) -> Decision:
    """The report's decision: the pair's for two sides, the file's for one, with extra findings."""
    if diff is not None:
        return decide_pair(
            diff,
            names=(sides[0].path, sides[1].path),
            strict=strict,
            extra_findings=(sides[0].extra_findings, sides[1].extra_findings),
        )
    side = sides[0]
    return decide_file(
        side.result, name=side.path, strict=strict, extra_findings=side.extra_findings
    )


def deciding_sides(report: ReportInput) -> tuple[bool, ...]:
    """Per side, whether its own findings count towards the decision (the side replayed)."""
    mode = report.decision.mode
    if mode == "file":
        return (True,)
    return (False, mode != "compare")


def failing_items(side: ReportSide, decision: Decision) -> frozenset[int]:
    """The items of a side that block by their verdict (answered history only under strict)."""
    history = frozenset() if decision.strict else answered_history(side.result)
    return frozenset(i for i in side.blocked() if i not in history)


def decision_mark(decision: Decision) -> str:
    """'error', 'warning' or 'info': how a report colours the decision."""
    return str(decision.severity)


def where_text(finding: Any) -> str:
    """Where a finding or stream violation is: its items, or its event and line."""
    items = getattr(finding, "items", None)
    if items is not None:
        return items_text(list(items))
    event = getattr(finding, "event_index", None)
    line = getattr(finding, "line", None)
    parts = [f"event {event}" if event is not None else "", f"line {line}" if line else ""]
    return ", ".join(p for p in parts if p)


def verdict_counts(result: GateResult) -> list[tuple[str, int]]:
    """(verdict, count) in verdict order, zero counts left out."""
    summary = result.summary()
    return [(v.value, summary[v.value]) for v in Verdict if v.value in summary]


def is_blocked(verdict: Verdict) -> bool:
    """Whether a verdict blocks a replay by itself."""
    return verdict not in PASSING


def item_cells(item: Item) -> tuple[str, str, str, str]:
    """Index, type, name (or role) and call_id of an item, '' where absent."""
    label = item.name if isinstance(item.name, str) else item.role
    return (
        str(item.index),
        item.type_label,
        label if isinstance(label, str) else "",
        item.call_id if isinstance(item.call_id, str) else "",
    )


def describe_item(item: Item) -> str:
    """'#index type name' for messages, with the call_id when there is one."""
    text = item_label(item)
    if isinstance(item.call_id, str):
        text += f" {item.call_id}"
    return text


def pair_kind(pair: Pair) -> str:
    """One word per pair: same, info, changed, blocking, left (only) or right (only)."""
    if pair.right is None:
        return "left"
    if pair.left is None:
        return "right"
    if pair.blocking:
        return "blocking"
    if pair.changed:
        return "changed"
    return "info" if pair.changes else "same"


def finding_extras(finding: FindingLike) -> dict[str, Any]:
    """The fields of a finding beyond code, severity, items and message."""
    return {k: v for k, v in finding.to_json().items() if k not in FINDING_FIELDS}


def count_text(count: int, noun: str) -> str:
    """'1 item', '2,500 items'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def items_text(items: Sequence[int]) -> str:
    """'#1, #4, #9' (and how many more when there are many)."""
    shown = ", ".join(f"#{i}" for i in items[:ITEMS_SHOWN])
    if len(items) > ITEMS_SHOWN:
        shown += f" and {len(items) - ITEMS_SHOWN} more"
    return shown


def extra_title(report: ReportInput) -> str:
    """The heading of the further findings (a target profile's when one was asked for)."""
    return f"Target findings ({report.target})" if report.target else "Further findings"


# C0 and C1 controls (tab and newlines kept), the bidi overrides that could reorder what the
# reader sees, lone surrogates (no encoding can write them) and the two non-characters XML
# forbids: shown as escapes, never written raw into a report.
_UNPRINTABLE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
    r"\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Return text with control, bidi, surrogate and non-XML characters as visible escapes."""
    return _UNPRINTABLE.sub(_escape, text)


def clip(text: str, limit: int) -> str:
    """Shorten text to about `limit` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[: max(limit - 20, 1)]}… ({len(text):,} chars)"


class Cleaner:
    """The first step for every string from a file: redact, then make printable, then clip."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    def __call__(self, value: Any, limit: int = 0) -> str:
        """Return a cleaned string (shortened to `limit` characters when limit is given)."""
        text = printable(self.redactor(value if isinstance(value, str) else str(value)))
        return clip(text, limit) if limit else text

    def json(self, value: Any, limit: int = 0, indent: int | None = None) -> str:
        """Return a JSON value as cleaned text (strings redacted before dumping)."""
        redacted = self.redactor.value(value)
        text = json.dumps(redacted, ensure_ascii=False, default=repr, indent=indent)
        text = printable(text)
        return clip(text, limit) if limit else text


__all__ = [
    "Cleaner",
    "FindingLike",
    "ReportDecision",
    "ReportInput",
    "ReportSide",
    "clip",
    "count_text",
    "decide",
    "deciding_sides",
    "decision_mark",
    "describe_item",
    "extra_title",
    "failing_items",
    "finding_extras",
    "is_blocked",
    "item_cells",
    "items_text",
    "pair_kind",
    "printable",
    "verdict_counts",
    "where_text",
]
