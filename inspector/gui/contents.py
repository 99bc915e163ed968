"""Find in contents: a text searched for in every string of every item of a transcript.

Qt-free: the Search tab lists what this finds, and the Item view highlights the same text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.errors import Cancelled
from inspector.gui.filtering import item_text

if TYPE_CHECKING:
    from inspector.core.gate import GateResult

#: Hits listed at most; the count goes on past it.
HIT_LIMIT = 10_000
#: Characters of context shown before and after a hit.
BEFORE, AFTER = 30, 60
#: Items searched between two looks at the cancel flag.
_CHECK_EVERY = 512
#: Characters that JSON writes escaped: a query holding one cannot be pre-checked in JSON text.
_ESCAPED_IN_JSON = frozenset('"\\') | frozenset(chr(c) for c in range(0x20))


@dataclass(frozen=True, slots=True)
class Hit:
    """One occurrence: the item, the JSON Pointer of the string, and the text around it."""

    item: int
    pointer: str
    offset: int
    snippet: str


@dataclass(frozen=True, slots=True)
class Found:
    """What a search found: the first hits, how many there are in all, and in how many items."""

    query: str
    hits: tuple[Hit, ...]
    total: int
    items: int


def _strings(value: Any, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Every string value inside a JSON value, with its pointer (messages, outputs, arguments)."""
    from inspector.core.model import join_pointer  # imported with the first load

    stack = [(value, pointer)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, str):
            yield where, current
        elif isinstance(current, dict):
            stack.extend((v, join_pointer(where, k)) for k, v in reversed(current.items()))
        elif isinstance(current, list):
            stack.extend((v, join_pointer(where, i)) for i, v in reversed(list(enumerate(current))))


def _fold(text: str) -> str:
    """Lower-case text without changing its length (offsets in it are offsets in `text`)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


def _snippet(text: str, at: int, length: int) -> str:
    start, end = max(at - BEFORE, 0), min(at + length + AFTER, len(text))
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


def find_in_contents(
    result: GateResult,
    query: str,
    *,
    limit: int = HIT_LIMIT,
    cancel: threading.Event | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Found:
    """Find `query` (any case) in the strings of every item; Cancelled once `cancel` is set."""
    needle = _fold(query)
    items = result.transcript.items
    hits: list[Hit] = []
    total = matched = 0
    if not needle:
        return Found(query, (), 0, 0)
    # The item's JSON holds every string: an item whose JSON lacks the text is skipped at
    # once (exact for text that JSON writes as it is).
    prefilter = not (set(needle) & _ESCAPED_IN_JSON)
    for index, item in enumerate(items):
        if not index % _CHECK_EVERY:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the search was cancelled")
            if progress is not None:
                progress(index, len(items))
        if prefilter and needle.lower() not in item_text(item):
            continue
        found_here = False
        for pointer, text in _strings(item.raw):
            lowered = _fold(text)
            at = lowered.find(needle)
            while at >= 0:
                total += 1
                found_here = True
                if len(hits) < limit:
                    hits.append(Hit(index, pointer, at, _snippet(text, at, len(needle))))
                at = lowered.find(needle, at + max(len(needle), 1))
        matched += found_here
    return Found(query, tuple(hits), total, matched)


def spans_of(text: str, query: str) -> list[tuple[int, int]]:
    """The (start, end) spans of `query` (any case) in a shown text, for highlighting."""
    needle = _fold(query)
    if not needle:
        return []
    lowered = _fold(text)
    spans = []
    at = lowered.find(needle)
    while at >= 0:
        spans.append((at, at + len(needle)))
        at = lowered.find(needle, at + len(needle))
    return spans
