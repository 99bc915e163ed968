"""Findings as the window lists them (Qt-free): filtered by text, code, severity and side, and
grouped by code with counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from inspector.gui.status import plural
from inspector.gui.tallies import SEVERITIES

if TYPE_CHECKING:
    from inspector.core.gate import Finding, GateResult

_RANK = {s: n for n, s in enumerate(SEVERITIES)}


class Entry(NamedTuple):
    """One finding of one side ('left', 'right' or 'scratch'); unpacks as (side, finding)."""

    side: str
    finding: Finding

    @property
    def severity(self) -> str:
        """The finding's severity word."""
        return str(self.finding.severity)


@dataclass(frozen=True, slots=True)
class Group:
    """A code's heading in the grouped list: how many findings it has, its worst severity."""

    code: str
    count: int
    severity: str
    collapsed: bool


def entries(results: Mapping[str, GateResult]) -> list[Entry]:
    """Every finding of every side, errors first (the core's order kept within a severity)."""
    found = [Entry(side, f) for side, result in results.items() for f in result.findings]
    found.sort(key=lambda e: _RANK.get(e.severity, len(SEVERITIES)))
    return found


@dataclass(frozen=True, slots=True)
class FindingFilter:
    """Which findings show: a text in code or message, and a code, severity and side ('' any)."""

    text: str = ""
    code: str = ""
    severity: str = ""
    side: str = ""

    def matches(self, entry: Entry) -> bool:
        """Whether the finding passes every part of the filter."""
        finding = entry.finding
        if self.code and finding.code != self.code:
            return False
        if self.severity and entry.severity != self.severity:
            return False
        if self.side and entry.side != self.side:
            return False
        needle = self.text.strip().casefold()
        return not needle or needle in f"{finding.code} {finding.message}".casefold()

    def apply(self, found: Iterable[Entry]) -> list[Entry]:
        """The findings that pass, in order."""
        return [e for e in found if self.matches(e)]


def grouped(found: Sequence[Entry], collapsed: Iterable[str] = ()) -> list[Group | Entry]:
    """The findings under one heading per code (codes ordered by their worst severity, then by
    count); a collapsed code shows only its heading."""
    by_code: dict[str, list[Entry]] = {}
    for entry in found:
        by_code.setdefault(entry.finding.code, []).append(entry)
    shut = set(collapsed)

    def order(code: str) -> tuple[int, int, str]:
        worst = min(_RANK.get(e.severity, len(SEVERITIES)) for e in by_code[code])
        return worst, -len(by_code[code]), code

    rows: list[Group | Entry] = []
    for code in sorted(by_code, key=order):
        members = by_code[code]
        worst = min((e.severity for e in members), key=lambda s: _RANK.get(s, len(SEVERITIES)))
        rows.append(Group(code, len(members), worst, code in shut))
        if code not in shut:
            rows.extend(members)
    return rows


def counts(found: Iterable[Entry]) -> Counter[str]:
    """How many findings of each severity."""
    return Counter(e.severity for e in found)


def count_words(found: Sequence[Entry]) -> str:
    """ "2 errors, 1 warning" — the counts of each severity present."""
    tally = counts(found)
    return ", ".join(plural(tally[s], s) for s in SEVERITIES if tally[s])
