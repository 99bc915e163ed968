"""The Changes tab's rows: the core's code groups, each with its reasons, document changes and
changes, every one with the pair it is about.

Qt-free bookkeeping over `DiffResult.changes_by_code()` (the core groups and counts); a row's
text is made when a view asks for it, so a diff with ten thousand changes lists at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from inspector.core.decision import Decision, decide_pair
from inspector.core.diff import Change, CodeGroup, DiffResult, DocumentChange, Reason
from inspector.core.gate import item_label
from inspector.gui.json_text import preview


@dataclass(frozen=True, slots=True)
class Entry:
    """One row under a code: a reason, a document change or a change, and its pair number."""

    kind: str
    pair: int | None
    subject: Reason | DocumentChange | Change


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class ChangeList:
    """The groups of a diff and the rows under each, in the core's order (errors first)."""

    def __init__(self, diff: DiffResult, decision: Decision | None = None) -> None:
        self.diff = diff
        #: The core's decision for the pair (the window's, when it has one).
        self.decision = decision if decision is not None else decide_pair(diff)
        self.groups: tuple[CodeGroup, ...] = diff.changes_by_code()
        rows: dict[str, list[Entry]] = {g.code: [] for g in self.groups}
        for reason in diff.reason_details:
            rows.setdefault(reason.code, []).append(Entry("reason", reason.pair, reason))
        for document in diff.document_changes:
            numbers = [
                n
                for side, items in (("left", document.left_items), ("right", document.right_items))
                for i in items
                if (n := diff.pair_number(side, i)) is not None
            ]
            rows[document.code].append(Entry("document", numbers[0] if numbers else None, document))
        for number, pair in enumerate(diff.pairs):
            for change in pair.changes:
                rows[change.code].append(Entry("change", number, change))
        self.rows = [rows[g.code] for g in self.groups]

    @cached_property
    def total(self) -> int:
        """How many changes and document changes there are, over every code."""
        return sum(g.count for g in self.groups)

    def summary(self) -> str:
        """One line: the core's headline, then what is listed."""
        return (
            f"{self.decision.headline}   —   {_plural(len(self.groups), 'code')}, "
            f"{_plural(self.total, 'change')} and {_plural(len(self.diff.reasons), 'reason')} "
            f"({self.diff.mode} mode); click a row to select its pair"
        )

    def group_cells(self, n: int) -> tuple[str, str, str, str, str]:
        """Code, severity, count, where (pairs, document) and its reasons."""
        group = self.groups[n]
        where = ["document"] if group.document else []
        if group.pairs:
            where.append(_plural(len(group.pairs), "pair"))
        return (
            group.code,
            group.severity,
            str(group.count),
            ", ".join(where),
            "; ".join(group.reasons),
        )

    def first_pair(self, n: int) -> int | None:
        """The first pair a code concerns (where a click on its row goes)."""
        pairs = self.groups[n].pairs
        return pairs[0] if pairs else None

    def pair_text(self, number: int | None) -> str:
        """The items of a pair, as '#1 function_call name ↔ right #1 function_call name'."""
        if number is None:
            return ""
        pair = self.diff.pairs[number]
        parts = []
        if pair.left is not None:
            parts.append(item_label(self.diff.left.transcript.items[pair.left]))
        if pair.right is not None:
            parts.append("right " + item_label(self.diff.right.transcript.items[pair.right]))
        return " ↔ ".join(parts)

    def entry_cells(self, entry: Entry) -> tuple[str, str, str, str, str]:
        """A row's cells: what it is, severity, (no count), its pair, its text."""
        subject: Any = entry.subject
        where = self.pair_text(entry.pair)
        if entry.kind == "reason":
            severity = self.groups_by_code[subject.code].severity
            return ("reason", severity, "", where, subject.text)
        if entry.kind == "document":
            return ("document", str(subject.severity), "", where, subject.message)
        detail = f"{preview(subject.left, 80)} → {preview(subject.right, 80)}"
        return (subject.pointer or "(item)", str(subject.severity), "", where, detail)

    @cached_property
    def groups_by_code(self) -> dict[str, CodeGroup]:
        """Each code's group."""
        return {g.code: g for g in self.groups}
