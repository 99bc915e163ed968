"""The status line's answer for a diff: `Outcome`, `DiffVerdict` and `verdict_summary`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from inspector.core.diff.values import (
    ERROR,
    INFO,
    WARNING,
    DiffMode,
    DocumentChange,
    Pair,
    Severity,
    _plural,
)
from inspector.core.gate import GateResult, decide


class Outcome(StrEnum):
    """The status line's answer: safe, safe but the right side blocks on its own, or unsafe."""

    SAFE = "safe"
    BLOCKED = "blocked"
    UNSAFE = "unsafe"

    @property
    def severity(self) -> Severity:
        """The severity a display gives this outcome (no colours in core)."""
        return {"safe": INFO, "blocked": WARNING, "unsafe": ERROR}[self.value]


@dataclass(frozen=True, slots=True)
class DiffVerdict:
    """The facts a status line needs: the decision, its reasons, what blocks on the right."""

    mode: DiffMode
    outcome: Outcome
    replay_safe: bool
    reasons: tuple[str, ...]
    #: Pairs with a change above info, and document changes above info.
    differences: int
    #: Whether nothing but informational changes (renamed ids, formats, layout) differ.
    equivalent: bool
    #: Right items whose own verdict blocks a replay (the gate's decision for the right file).
    blocked_items: int
    right_items: int
    #: Codes of the right side's error findings, in order, each once.
    blocking_findings: tuple[str, ...]
    #: Why the right file blocks by itself (`gate.decide`), empty when it does not.
    right_reasons: tuple[str, ...]
    headline: str

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "outcome": str(self.outcome),
            "severity": str(self.outcome.severity),
            "headline": self.headline,
            "differences": self.differences,
            "equivalent": self.equivalent,
            "blocked_items": self.blocked_items,
            "right_items": self.right_items,
            "blocking_findings": list(self.blocking_findings),
            "right_reasons": list(self.right_reasons),
        }


def verdict_summary(
    *,
    mode: DiffMode,
    pairs: Sequence[Pair],
    document_changes: Sequence[DocumentChange],
    replay_safe: bool,
    reasons: tuple[str, ...],
    right_result: GateResult,
) -> DiffVerdict:
    """The status line's facts: "Replay safe" only when neither diff nor right side blocks.

    What blocks on the right is the gate's own decision for that file (`gate.decide`), so
    the status line and `gate RIGHT` cannot disagree.
    """
    differences = sum(1 for p in pairs if p.changed) + sum(
        1 for d in document_changes if d.severity != INFO
    )
    informational = any(p.changes for p in pairs) or bool(document_changes)
    right = decide(right_result)
    findings = tuple(dict.fromkeys(f.code for f in right_result.findings if f.severity == ERROR))
    if not replay_safe:
        outcome = Outcome.UNSAFE
        more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
        headline = f"Replay UNSAFE: {reasons[0]}{more}" if reasons else ""
        headline = headline or "Replay UNSAFE"
    else:
        if differences:
            agree = f"{_plural(differences, 'difference')}, none blocking"
        elif informational:
            agree = "equivalent (informational changes only)"
        else:
            agree = "no differences"
        if right.blocks:
            outcome = Outcome.BLOCKED
            headline = f"{agree[0].upper()}{agree[1:]}, but {'; '.join(right.reasons)}"
        else:
            outcome = Outcome.SAFE
            headline = f"Replay safe: {agree}"
    return DiffVerdict(
        mode=mode,
        outcome=outcome,
        replay_safe=replay_safe,
        reasons=reasons,
        differences=differences,
        equivalent=not differences,
        blocked_items=right.blocked_items,
        right_items=right.items,
        blocking_findings=findings,
        right_reasons=right.reasons,
        headline=headline,
    )
