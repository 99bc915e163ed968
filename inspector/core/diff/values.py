"""The values a diff is made of: changes, pairs, the mode, document changes, reasons."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.core.model import Severity

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


class DiffMode(StrEnum):
    """What the right side is: the planned replay of the left, or another run to compare."""

    REPLAY = "replay"
    COMPARE = "compare"

    @property
    def description(self) -> str:
        """One line saying how the two sides are read."""
        if self is DiffMode.COMPARE:
            return (
                "two providers' runs of one session; calls align by order and name, "
                "call_ids may be renamed consistently"
            )
        return "RIGHT is what you plan to replay in place of LEFT; call_ids must match"


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
