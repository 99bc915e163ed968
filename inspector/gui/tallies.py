"""What the window counts over every item or finding of a gated transcript (Qt-free).

Counted once, where the transcript is gated (a worker thread), and handed to the window with
it: showing a 200,000-item file then walks none of its items or findings on the GUI thread.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

if TYPE_CHECKING:
    from inspector.core.gate import GateResult
    from inspector.core.targets import TargetFinding
    from inspector.core.verdicts import Verdict

#: Severities in the order they are listed (errors first).
SEVERITIES = ("error", "warning", "info")


def is_target_finding(finding: object) -> TypeGuard[TargetFinding]:
    """Whether a finding is a target profile's. The targets are imported when a target is first
    chosen, not with the window: until then no finding can be one."""
    targets = sys.modules.get("inspector.core.targets")
    return targets is not None and isinstance(finding, targets.TargetFinding)


CallCounts = Mapping[str, Mapping["Verdict", int]]


class Tallies(NamedTuple):
    """One gated transcript's counts: its calls per tool name by verdict, its findings per
    severity word, and the target findings naming each item."""

    calls: CallCounts
    severities: Mapping[str, int]
    #: item → the target findings that name it, in the findings' order.
    targets: Mapping[int, tuple[TargetFinding, ...]]
    #: The targets whose findings the transcript carries, sorted, and how many are errors.
    target_names: tuple[str, ...] = ()
    target_errors: int = 0
    #: The texts the tree's columns are fitted to, by (column, short) (`fit_texts` of the
    #: transcript model; empty: not gathered).
    fitted: Mapping[tuple[int, bool], frozenset[tuple[str, bool]]] = MappingProxyType({})

    @property
    def findings(self) -> int:
        """How many findings the transcript has."""
        return sum(self.severities.values())


def call_counts(result: GateResult) -> CallCounts:
    """Count the calls per tool name and verdict.

    A call is a `function_call`, or a provider-prefixed item that names a tool (a call that
    became `openai:web_search_call` still counts for its tool, with the verdict it now gets).
    """
    pairs: Counter[tuple[str, Verdict]] = Counter(
        (item.name, verdict.verdict)
        for item, verdict in zip(result.transcript.items, result.verdicts, strict=True)
        if isinstance(item.name, str) and (item.type == "function_call" or item.namespaced)
    )
    counts: dict[str, dict[Verdict, int]] = {}
    for (name, verdict), count in pairs.items():
        counts.setdefault(name, {})[verdict] = count
    return MappingProxyType({name: MappingProxyType(c) for name, c in counts.items()})


def tally(result: GateResult, before: Tallies | None = None) -> Tallies:
    """Count a gated transcript's calls and findings; `before` was counted for the same items and
    verdicts (a target adds findings, never changes a verdict): its calls and texts are kept."""
    severities = severity_counts(result)
    targets: dict[int, list[TargetFinding]] = {}
    names: set[str] = set()
    errors = 0
    if "inspector.core.targets" in sys.modules:  # otherwise no finding can be a target's
        for finding in result.findings:
            if is_target_finding(finding):
                names.add(finding.target)
                errors += str(finding.severity) == "error"
                for item in finding.items:
                    targets.setdefault(item, []).append(finding)
    return Tallies(
        call_counts(result) if before is None else before.calls,
        severities,
        MappingProxyType({item: tuple(found) for item, found in targets.items()}),
        tuple(sorted(names)),
        errors,
        before.fitted if before is not None else MappingProxyType({}),
    )


def severity_counts(result: GateResult) -> Mapping[str, int]:
    """How many findings of each severity word the transcript has."""
    return MappingProxyType(dict(Counter(str(f.severity) for f in result.findings)))


def worst_severity(severities: Mapping[str, int]) -> str:
    """The worst severity with a finding ('' when there is none)."""
    return next((s for s in SEVERITIES if severities.get(s)), "")
