"""The values a diff is made of: changes, pairs, the mode, document changes, reasons."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from inspector.core.codes import Severity
from inspector.core.modes import DiffMode as DiffMode  # its home until the window named it

#: Item fields that always differ between providers and are never compared.
VOLATILE_FIELDS: frozenset[str] = frozenset({"id"})
#: Item types that pair by call_id before any alignment, and whose one-sided presence blocks.
CALL_TYPES: frozenset[str] = frozenset({"function_call", "function_call_output"})

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Change:
    """One difference within a pair: a code, a JSON Pointer into the item, both values."""

    code: str
    pointer: str
    left: Any
    right: Any
    severity: str

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "pointer": self.pointer,
            "left": self.left,
            "right": self.right,
            "severity": str(self.severity),
        }


@dataclass(frozen=True, slots=True)
class Pair:
    """An item on the left, on the right, or both, and what changed between them."""

    left: int | None
    right: int | None
    changes: tuple[Change, ...]

    @property
    def changed(self) -> bool:
        """Whether any change is more than informational."""
        return any(c.severity != INFO for c in self.changes)

    @property
    def blocking(self) -> bool:
        """Whether any change blocks a replay."""
        return any(c.severity == ERROR for c in self.changes)

    @property
    def codes(self) -> frozenset[str]:
        """The change codes of this pair."""
        return frozenset(c.code for c in self.changes)

    @property
    def type_changed(self) -> bool:
        """Whether the item type differs (whatever the more specific code)."""
        return any(c.pointer == "/type" for c in self.changes)


class SideRows(Sequence[int | None]):
    """One side's item in each pair, in order (None: no item there), read from `Pairs`."""

    __slots__ = ("_held",)

    def __init__(self, held: array[int]) -> None:
        self._held = held

    def __len__(self) -> int:
        return len(self._held)

    @overload
    def __getitem__(self, at: int) -> int | None: ...

    @overload
    def __getitem__(self, at: slice) -> list[int | None]: ...

    def __getitem__(self, at: int | slice) -> int | list[int | None] | None:
        if isinstance(at, slice):
            return [None if i < 0 else i for i in self._held[at]]
        index = self._held[at]
        return None if index < 0 else index


class Pairs(Sequence[Pair]):
    """A diff's pairs in display order, held compactly: two machine integers a pair (-1: no
    item on that side), and the `Pair` itself only of the pairs with changes (few); a pair
    without changes is made when it is asked for. (A Pair object and its two integers took
    about 100 bytes a pair.)"""

    __slots__ = ("_changes", "_lefts", "_rights")

    def __init__(self, pairs: Iterable[Pair] = ()) -> None:
        self._lefts = array("i")
        self._rights = array("i")
        self._changes: dict[int, Pair] = {}
        for pair in pairs:
            self.append(pair.left, pair.right, pair.changes)

    @classmethod
    def held(cls, lefts: array[int], rights: array[int], changed: dict[int, Pair]) -> Pairs:
        """The pairs of each position's two items (-1: none) and the `Pair` of each position
        with changes (the arrays and the dict are taken, not copied)."""
        pairs = cls()
        pairs._lefts, pairs._rights, pairs._changes = lefts, rights, changed
        return pairs

    def append(self, left: int | None, right: int | None, changes: tuple[Change, ...]) -> None:
        """Add a pair at the end (while the diff is made)."""
        if changes:
            self._changes[len(self._lefts)] = Pair(left, right, changes)
        self._lefts.append(-1 if left is None else left)
        self._rights.append(-1 if right is None else right)

    def __len__(self) -> int:
        return len(self._lefts)

    @overload
    def __getitem__(self, at: int) -> Pair: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[Pair, ...]: ...

    def __getitem__(self, at: int | slice) -> Pair | tuple[Pair, ...]:
        if isinstance(at, slice):
            return tuple(self[n] for n in range(*at.indices(len(self))))
        left, right = self._lefts[at], self._rights[at]  # IndexError as a tuple's
        made = self._changes.get(at if at >= 0 else at + len(self))
        if made is not None:
            return made
        return Pair(None if left < 0 else left, None if right < 0 else right, ())

    def __iter__(self) -> Iterator[Pair]:
        made = self._changes
        for number, (left, right) in enumerate(zip(self._lefts, self._rights, strict=True)):
            pair = made.get(number)
            if pair is None:
                pair = Pair(None if left < 0 else left, None if right < 0 else right, ())
            yield pair

    def sides(self, side: str) -> list[int | None]:
        """The item of one side ("left" or "right") in each pair, in order (None: no item)."""
        held = self._lefts if side == "left" else self._rights
        return [None if i < 0 else i for i in held]

    def rows(self, side: str) -> SideRows:
        """`sides` without a list: each item read when asked for."""
        return SideRows(self._lefts if side == "left" else self._rights)

    def indexes(self, side: str) -> array[int]:
        """The item of one side in each pair, in order (-1: no item); the held array itself."""
        return self._lefts if side == "left" else self._rights

    def with_changes(self) -> list[int]:
        """The positions of the pairs that have changes, in order."""
        return sorted(self._changes)

    def changes_at(self, number: int) -> tuple[Change, ...]:
        """The changes of the pair at a position (none for most)."""
        made = self._changes.get(number)
        return made.changes if made is not None else ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Pairs):
            return (self._lefts, self._rights, self._changes) == (
                other._lefts,
                other._rights,
                other._changes,
            )
        if isinstance(other, tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Pairs({list(self)!r})"


@dataclass(frozen=True, slots=True)
class DocumentChange:
    """A difference between the two documents as a whole, with the items it concerns."""

    code: str
    severity: str
    left: Any
    right: Any
    message: str
    left_items: tuple[int, ...] = ()
    right_items: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "left": self.left,
            "right": self.right,
            "message": self.message,
            "left_items": list(self.left_items),
            "right_items": list(self.right_items),
        }


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason the switch is unsafe: its change code, its text, the pair (None: document)."""

    code: str
    text: str
    pair: int | None


@dataclass(frozen=True, slots=True)
class CodeGroup:
    """Every change, document change and reason of one code: counts and the pairs they are in."""

    code: str
    severity: str
    count: int
    pairs: tuple[int, ...]
    reasons: tuple[str, ...]
    document: bool

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "code": self.code,
            "severity": str(self.severity),
            "count": self.count,
            "pairs": list(self.pairs),
            "reasons": list(self.reasons),
            "document": self.document,
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
