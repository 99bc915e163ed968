"""The Diff tab's comparison of one pair: both items as JSON, compared by JSON Pointer.

Key order never matters (values are compared per pointer, and the right item is shown with its
keys in the left's order), `id` is never marked, numbers compare by value, and a changed string
is marked word by word. Which spans of the two texts to mark is worked out here, Qt-free; the
panel only paints them. Each mark carries the core change that covers its pointer, so its colour
says what the core says about it (an informational change, such as reformatted arguments, is not
painted), and the GUI decides nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.diff import VOLATILE_FIELDS, Change, json_changes
from inspector.core.model import join_pointer
from inspector.gui.json_text import locate, pointer_tokens

#: How many characters of text the pointer lookups may scan for one pair (each lookup walks
#: the text from its start); differences past it are counted, not marked.
SCAN_BUDGET = 20_000_000
#: Strings with more tokens than this are marked whole (difflib is quadratic in the worst case).
WORD_LIMIT = 4000

_RANK = {"error": 0, "warning": 1, "info": 2}
#: JSON string literal tokens: escapes, words, runs of space, single other characters.
_TOKEN = re.compile(r"\\u[0-9a-fA-F]{4}|\\.|\w+|\s+|[^\w\s]")
_INDENT = re.compile(r" *")


@dataclass(frozen=True, slots=True)
class Mark:
    """A span of one side's text to paint, and the core change that covers it."""

    start: int
    end: int
    pointer: str
    #: The covering change's code and severity ("" and "warning" when no change names it).
    code: str
    severity: str
    #: A changed word inside a changed string (painted as the word-level highlight).
    word: bool = False


@dataclass(frozen=True, slots=True)
class PairMarks:
    """The marks of both texts, every differing pointer, and how many could not be marked."""

    left: tuple[Mark, ...]
    right: tuple[Mark, ...]
    pointers: tuple[str, ...]
    unmarked: int = 0


def follow_key_order(value: Any, model: Any) -> Any:
    """Return `value` with each object's keys in `model`'s order (its own keys after them).

    Only the order changes, so the two items of a pair line up when shown side by side.
    """
    if isinstance(value, dict) and isinstance(model, dict):
        ordered = {k: follow_key_order(value[k], model[k]) for k in model if k in value}
        ordered.update((k, v) for k, v in value.items() if k not in model)
        return ordered
    if isinstance(value, list) and isinstance(model, list):
        return [follow_key_order(v, model[n]) if n < len(model) else v for n, v in enumerate(value)]
    return value


def locate_nearest(text: str, pointer: str | None) -> tuple[int, int] | None:
    """The span of a pointer's value in JSON text, or of its nearest parent that is there.

    A pointer into parsed `arguments` (shown as the string it is), or to a keyword a schema
    lacks, marks the value that holds it.
    """
    if pointer is None:
        return None
    tokens = pointer_tokens(pointer)
    while True:
        span = locate(text, join_pointer("", *tokens))
        if span is not None or not tokens:
            return span
        tokens.pop()


def differences(left: Any, right: Any) -> list[Change]:
    """Every pointer whose value differs between two items, in document order, `id` left out."""
    # Only the pointers and values count here: each mark takes its code from the core's change
    # that covers it, so these carry the registry's generic field change.
    found = json_changes("field_changed", "", left, right, "info")
    return [c for c in found if not _volatile(c.pointer)]


def _volatile(pointer: str) -> bool:
    tokens = pointer_tokens(pointer)
    return bool(tokens) and tokens[0] in VOLATILE_FIELDS


def _related(outer: str, inner: str) -> bool:
    """Whether one pointer is the other or inside it (the item itself relates to nothing)."""
    if not outer or not inner:
        return outer == inner
    return outer == inner or inner.startswith(outer + "/") or outer.startswith(inner + "/")


def covering(pointer: str, changes: Sequence[Change]) -> Change | None:
    """The most severe core change at, inside or around a pointer (None when none names it)."""
    related = [c for c in changes if _related(c.pointer, pointer)]
    if not related:
        return None
    return min(related, key=lambda c: _RANK.get(str(c.severity), 3))


def word_spans(left: str, right: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The changed words of two texts, as spans of each (difflib over word tokens).

    Runs of space alone are not marked; Non-empty spans next to each other are merged.
    """
    ltokens = [m.span() for m in _TOKEN.finditer(left)]
    rtokens = [m.span() for m in _TOKEN.finditer(right)]
    if len(ltokens) > WORD_LIMIT or len(rtokens) > WORD_LIMIT:
        return [(0, len(left))], [(0, len(right))]
    lwords = [left[a:b] for a, b in ltokens]
    rwords = [right[a:b] for a, b in rtokens]
    matcher = difflib.SequenceMatcher(None, lwords, rwords, autojunk=False)
    ours: list[tuple[int, int]] = []
    theirs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        _add_span(ours, ltokens[i1:i2], lwords[i1:i2])
        _add_span(theirs, rtokens[j1:j2], rwords[j1:j2])
    return ours, theirs


def _add_span(
    spans: list[tuple[int, int]], tokens: list[tuple[int, int]], words: list[str]
) -> None:
    if not tokens or all(not w.strip() for w in words):
        return
    start, end = tokens[0][0], tokens[-1][1]
    if spans and spans[-1][1] == start:
        start = spans.pop()[0]
    spans.append((start, end))


def _member_start(text: str, start: int) -> int:
    """The start of the line holding a value, after its indentation (so a key is included)."""
    line = text.rfind("\n", 0, start) + 1
    return min(_INDENT.match(text, line).end(), start)  # type: ignore[union-attr]


def compare_pair(
    left: Any, right: Any, left_text: str, right_text: str, changes: Sequence[Change]
) -> PairMarks:
    """Mark what differs between two items in their displayed JSON texts.

    `left_text` and `right_text` are the items as shown (possibly with long strings shortened);
    `changes` are the core's changes of the pair, which give each mark its code and severity.
    """
    found = differences(left, right)
    marks: dict[str, list[Mark]] = {"left": [], "right": []}
    texts = {"left": left_text, "right": right_text}
    budget = SCAN_BUDGET
    unmarked = 0
    for change in found:
        cost = len(left_text) + len(right_text)
        if cost > budget:
            unmarked += 1
            continue
        budget -= cost
        cover = covering(change.pointer, changes)
        code = cover.code if cover is not None else ""
        severity = str(cover.severity) if cover is not None else "warning"
        spans = {side: locate(text, change.pointer) for side, text in texts.items()}
        lspan, rspan = spans["left"], spans["right"]
        if lspan is None and rspan is None:
            unmarked += 1
            continue
        both_strings = isinstance(change.left, str) and isinstance(change.right, str)
        if both_strings and lspan is not None and rspan is not None:
            ours, theirs = word_spans(left_text[slice(*lspan)], right_text[slice(*rspan)])
            if ours or theirs:
                for side, offset, words in (("left", lspan[0], ours), ("right", rspan[0], theirs)):
                    marks[side].extend(
                        Mark(offset + a, offset + b, change.pointer, code, severity, True)
                        for a, b in words
                    )
                continue
        for side, span in spans.items():
            if span is None:
                continue
            start, end = span
            other = rspan if side == "left" else lspan
            if other is None:  # a member on this side only: mark it with its key
                start = _member_start(texts[side], start)
            marks[side].append(Mark(start, end, change.pointer, code, severity))
    return PairMarks(
        tuple(marks["left"]),
        tuple(marks["right"]),
        tuple(c.pointer for c in found),
        unmarked,
    )


def _line_key(line: str) -> str:
    # The last member of an object has no comma: `"a": 1` and `"a": 1,` are the same line.
    return line.strip().removesuffix(",")


@dataclass(frozen=True, slots=True)
class LineMap:
    """Which line of the right text stands beside each line of the left (and back), for
    scrolling the two texts of a pair together as a diff tool does.

    Equal runs map line for line; a changed run maps in proportion, so a side with more lines
    there moves the other through its shorter run evenly.
    """

    #: Matching runs of lines, in order: (left start, left end, right start, right end).
    blocks: tuple[tuple[int, int, int, int], ...]

    @classmethod
    def of(cls, left: str, right: str) -> LineMap:
        """Match the lines of two texts (trailing commas and indentation aside)."""
        lkeys = [_line_key(line) for line in left.split("\n")]
        rkeys = [_line_key(line) for line in right.split("\n")]
        matcher = difflib.SequenceMatcher(None, lkeys, rkeys, autojunk=False)
        return cls(tuple((i1, i2, j1, j2) for _tag, i1, i2, j1, j2 in matcher.get_opcodes()))

    def to_right(self, line: int) -> int:
        """The right line beside a left line."""
        return self._map(line, [(a, b, c, d) for a, b, c, d in self.blocks])

    def to_left(self, line: int) -> int:
        """The left line beside a right line."""
        return self._map(line, [(c, d, a, b) for a, b, c, d in self.blocks])

    @staticmethod
    def _map(line: int, blocks: list[tuple[int, int, int, int]]) -> int:
        if not blocks:
            return line
        for start, end, other_start, other_end in blocks:
            if start <= line < end:
                span = max(other_end - other_start - 1, 0)
                return other_start + min((line - start) * (span + 1) // max(end - start, 1), span)
        _start, end, _other_start, other_end = blocks[-1]
        return max(other_end - 1, 0) + max(line - end + 1, 0)
