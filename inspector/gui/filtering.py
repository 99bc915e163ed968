"""The pane filter: a query (`verdict:ok`, `type:`, `name:`, `call_id:`, `id:`, free text) → rows.

Qt-free: the filter decides which rows match; the model only hides the rows it is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from inspector.core.verdicts import PASSING

if TYPE_CHECKING:
    from inspector.core.gate import GateResult, ItemVerdict
    from inspector.core.model import Item

_FIELDS = ("verdict", "type", "name", "role", "call_id", "id", "status", "text")


class Choice(StrEnum):
    """The verdict combo's fixed entries (each verdict is offered too)."""

    ALL = "all"
    PROBLEMS = "problems"
    CHANGED = "changed"


class ItemFilter(NamedTuple):
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
        text: str | None = None
        for key, value in self.fields:
            if key == "text":
                text = text if text is not None else item_text(item)
                if value not in text:
                    return False
            elif value not in _field_text(item, verdict, key):
                return False
        if self.words:
            # The item's JSON holds every field; the verdict and shorthand types are added.
            text = text if text is not None else item_text(item)
            extra = f"{verdict.verdict} {item.type_label.lower()}"
            for word in self.words:
                if word not in text and word not in extra:
                    return False
        return True


def _field_text(item: Item, verdict: ItemVerdict, key: str) -> str:
    if key == "verdict":
        return str(verdict.verdict)
    if key == "type":
        return item.type_label.lower()
    value = item.get(key)
    return value.lower() if isinstance(value, str) else ("" if value is None else str(value))


#: orjson's writer, imported with the first filter or search (the window paints before either).
_dumps: Callable[[Any], bytes] | None = None


def item_text(item: Item) -> str:
    """The item as compact, lower-cased JSON: what free-text filters and searches look in."""
    # The item as compact JSON, lower-cased: orjson writes a 200,000-item log in well under a
    # second, far faster than walking each value in Python. Text inside strings keeps JSON
    # escaping for quotes, backslashes and control characters only.
    global _dumps
    if _dumps is None:
        import orjson

        _dumps = orjson.dumps
    try:
        data = _dumps(item.raw)
    except TypeError:  # integers beyond 64 bits
        return json.dumps(item.raw, ensure_ascii=False, default=repr).lower()
    return data.decode("utf-8", errors="replace").lower()


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
