"""The pane filter: a query (`verdict:ok`, `type:`, `name:`, `call_id:`, `id:`, free text) → rows.

Qt-free: the filter decides which items match; the Qt proxy only hides the rows it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.core.gate import PASSING, GateResult, ItemVerdict
from inspector.core.model import Item

_FIELDS = ("verdict", "type", "name", "role", "call_id", "id", "status", "text")


class Choice(StrEnum):
    """The verdict combo's fixed entries (each verdict is offered too)."""

    ALL = "all"
    PROBLEMS = "problems"
    CHANGED = "changed"


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """A parsed filter: field terms, free-text terms and the verdict-combo choice."""

    fields: tuple[tuple[str, str], ...] = ()
    words: tuple[str, ...] = ()
    choice: str = Choice.ALL

    @classmethod
    def parse(cls, query: str, choice: str = Choice.ALL) -> ItemFilter:
        """Parse the filter box text; `field:value` terms restrict one field, words search all."""
        fields: list[tuple[str, str]] = []
        words: list[str] = []
        for term in query.split():
            key, sep, value = term.partition(":")
            if sep and key.lower() in _FIELDS and value:
                fields.append((key.lower(), value.lower()))
            else:
                words.append(term.lower())
        return cls(tuple(fields), tuple(words), choice)

    @property
    def active(self) -> bool:
        """Whether this filter hides anything at all."""
        return bool(self.fields or self.words) or self.choice != Choice.ALL

    def matches_gap(self) -> bool:
        """Whether an aligned gap row passes: it stands for a one-sided pair, a change."""
        return self.choice == Choice.CHANGED and not (self.fields or self.words)

    def matches(self, item: Item, verdict: ItemVerdict, changed: bool) -> bool:
        """Whether an item passes the combo choice and every term."""
        if self.choice == Choice.PROBLEMS:
            if verdict.verdict in PASSING:
                return False
        elif self.choice == Choice.CHANGED:
            if not changed:
                return False
        elif self.choice != Choice.ALL and verdict.verdict != self.choice:
            return False
        for key, value in self.fields:
            if key == "text":
                if value not in _item_text(item):
                    return False
            elif value not in _field_text(item, verdict, key):
                return False
        if self.words:
            summary = " ".join(_field_text(item, verdict, key) for key in _FIELDS if key != "text")
            for word in self.words:
                if word not in summary and word not in _item_text(item):
                    return False
        return True


def _field_text(item: Item, verdict: ItemVerdict, key: str) -> str:
    if key == "verdict":
        return str(verdict.verdict)
    if key == "type":
        return item.type_label.lower()
    value = item.get(key)
    return value.lower() if isinstance(value, str) else ("" if value is None else str(value))


def _item_text(item: Item) -> str:
    # Every key and scalar of the raw item, lower-cased; walked with a stack, not recursion,
    # because items come from untrusted files and may be nested very deeply.
    parts: list[str] = []
    stack: list[Any] = [item.raw]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            parts.extend(str(k) for k in value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts).lower()


def matching_rows(
    result: GateResult,
    rows: Sequence[int | None] | None,
    item_filter: ItemFilter,
    changed: Callable[[int], bool],
) -> frozenset[int]:
    """Return the display rows whose item passes the filter (rows: display row → item index)."""
    items, verdicts = result.transcript.items, result.verdicts
    if rows is None:
        return frozenset(
            i for i in range(len(items)) if item_filter.matches(items[i], verdicts[i], changed(i))
        )
    gap = item_filter.matches_gap()
    return frozenset(
        row
        for row, i in enumerate(rows)
        if (gap if i is None else item_filter.matches(items[i], verdicts[i], changed(i)))
    )
