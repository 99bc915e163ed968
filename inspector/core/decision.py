"""Every "may this replay?" answer, computed once: a file, a pair (replay or compare), a report.

A `Decision` is one frozen value; the CLI's exit status, the JSON `replay_safe` and
`verdict_summary`, the text outputs, the window's status line and every report format render it
and decide nothing themselves.

- Replay mode (one file, or the right side of a pair replayed in place of the left):
  `safe` when nothing blocks and no warning applies, `safe_with_warnings` (the warnings are
  listed; exit 0), `unsafe` (exit 1). `strict` makes every warning block.
- Compare mode (did two providers' runs do the same thing?): `equivalent` (information-level
  changes only; exit 0), `different` (warning-level changes), `diverged` (error-level changes: a
  call made on one side only, arguments or results that differ, call ids renamed inconsistently;
  exit 1 for both). Each side's own findings are kept per side and do not flip the outcome;
  `replay_safe` still says whether the right side, on its own, may be replayed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from inspector.core.codes import Severity
from inspector.core.gate import PASSING, GateResult, Verdict, answered_history, item_label

if TYPE_CHECKING:  # `gate` decides without loading the diff (start-up time)
    from inspector.core.diff import DiffResult
    from inspector.core.diff.values import Pair

#: Exit statuses of a decision (2, unreadable input or bad usage, is the commands' own).
EXIT_CLEAN, EXIT_FAILS = 0, 1
#: How many reasons a headline names before it says how many more there are.
HEADLINE_REASONS = 1


class Outcome(StrEnum):
    """The answer, in the words `verdict_summary.outcome` carries."""

    SAFE = "safe"
    SAFE_WITH_WARNINGS = "safe_with_warnings"
    UNSAFE = "unsafe"
    EQUIVALENT = "equivalent"
    DIFFERENT = "different"
    DIVERGED = "diverged"

    @property
    def severity(self) -> Severity:
        """The severity a display gives this outcome (no colours in core)."""
        return _OUTCOME_SEVERITY[self]

    @property
    def fails(self) -> bool:
        """Whether this outcome makes the exit status 1."""
        return self not in (Outcome.SAFE, Outcome.SAFE_WITH_WARNINGS, Outcome.EQUIVALENT)

    @property
    def words(self) -> str:
        """The outcome as the head of a status line or report."""
        return _OUTCOME_TITLE[self]


_OUTCOME_SEVERITY = {
    Outcome.SAFE: Severity.INFO,
    Outcome.EQUIVALENT: Severity.INFO,
    Outcome.SAFE_WITH_WARNINGS: Severity.WARNING,
    Outcome.DIFFERENT: Severity.WARNING,
    Outcome.UNSAFE: Severity.ERROR,
    Outcome.DIVERGED: Severity.ERROR,
}
_OUTCOME_TITLE = {
    Outcome.SAFE: "Replay safe",
    Outcome.SAFE_WITH_WARNINGS: "Replay safe with warnings",
    Outcome.UNSAFE: "Replay UNSAFE",
    Outcome.EQUIVALENT: "Equivalent",
    Outcome.DIFFERENT: "Different",
    Outcome.DIVERGED: "Diverged",
}


class FindingLike(Protocol):
    """A finding from any check (gate, target): what a decision reads of it."""

    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> Any: ...
    @property
    def message(self) -> str: ...


class Reason(msgspec.Struct, frozen=True, gc=False):
    """One thing that decides or colours the outcome: its side, code, severity and words."""

    # The values of this module are msgspec Structs, made in C at import (a frozen dataclass
    # writes out and compiles its methods, about 6 M instructions each: a scan's workers wait
    # for this module).

    #: "file" (one file), "left", "right", or "pair" / "document" for a difference of the two.
    side: str
    code: str
    severity: Severity
    text: str
    #: The pair it concerns (a pair's change), else None.
    pair: int | None = None

    @property
    def line(self) -> str:
        """The reason as one line, naming its side ("right side: …")."""
        if self.side in ("left", "right"):
            return f"{self.side} side: {self.text}"
        return self.text

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "side": self.side,
            "code": self.code,
            "severity": str(self.severity),
            "text": self.line,
            "pair": self.pair,
        }


class SideDecision(msgspec.Struct, frozen=True):
    """One file's own answer in replay mode: what blocks it and what warns about it."""

    side: str
    name: str
    outcome: Outcome
    items: int
    blocked_items: int
    findings: Mapping[str, int]
    stream_violations: Mapping[str, int]
    blocking: tuple[Reason, ...]
    warnings: tuple[Reason, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the CLI's JSON form."""
        return {
            "side": self.side,
            "name": self.name,
            "outcome": str(self.outcome),
            "items": self.items,
            "blocked_items": self.blocked_items,
            "findings": dict(self.findings),
            "stream_violations": dict(self.stream_violations),
            "reasons": [r.line for r in self.blocking],
            "warnings": [r.line for r in self.warnings],
        }


class Decision(msgspec.Struct, frozen=True):
    """The one answer every output renders: outcome, exit status, headline, reasons, warnings."""

    #: "file", "replay" or "compare".
    mode: str
    outcome: Outcome
    strict: bool
    #: Whether the side being replayed (the right one, or the only file) may be replayed.
    replay_safe: bool
    #: What makes the outcome fail (empty when it passes).
    reasons: tuple[Reason, ...]
    #: What does not fail it but a reader must see (safe_with_warnings, different).
    warnings: tuple[Reason, ...]
    #: Each side's own answer (one for a file, left then right for a pair).
    sides: tuple[SideDecision, ...]
    headline: str
    #: A line under the headline: each side's own findings in compare mode, or a suggestion.
    note: str
    #: Pairs with a change above information, and document changes above information.
    differences: int = 0
    #: The one-line suggestion to compare instead (replay mode on two providers' runs).
    suggestion: str = ""

    @property
    def blocks(self) -> bool:
        """Whether the exit status is 1."""
        return self.outcome.fails

    @property
    def exit_status(self) -> int:
        """The CLI's exit status (0 clean, 1 fails; 2 is for unreadable input)."""
        return EXIT_FAILS if self.outcome.fails else EXIT_CLEAN

    @property
    def severity(self) -> Severity:
        """The severity a display gives the decision."""
        return self.outcome.severity

    @property
    def equivalent(self) -> bool:
        """Whether nothing but information-level changes differ (a pair; True for a file)."""
        return not self.differences

    @property
    def replayed(self) -> SideDecision:
        """The side being replayed: the right one of a pair, or the only file."""
        return self.sides[-1]

    @property
    def blocked_items(self) -> int:
        """Items of the replayed side whose verdict blocks."""
        return self.replayed.blocked_items

    @property
    def items(self) -> int:
        """Items of the replayed side."""
        return self.replayed.items

    @property
    def findings(self) -> Mapping[str, int]:
        """The replayed side's findings, counted per severity."""
        return self.replayed.findings

    @property
    def stream_violations(self) -> Mapping[str, int]:
        """The replayed side's stream violations, counted per severity."""
        return self.replayed.stream_violations

    def reason_lines(self) -> list[str]:
        """The reasons, one line each, naming their side."""
        return [r.line for r in self.reasons]

    def warning_lines(self) -> list[str]:
        """The warnings, one line each, naming their side."""
        return [r.line for r in self.warnings]

    def status_line(self) -> str:
        """The window's status line: the headline, then the note or suggestion."""
        extra = self.suggestion or self.note
        return f"{self.headline} — {extra}" if extra else self.headline

    def to_json(self) -> dict[str, Any]:
        """Return `verdict_summary`: the CLI's JSON form of the decision."""
        replayed = self.replayed
        return {
            "outcome": str(self.outcome),
            "severity": str(self.severity),
            "exit_status": self.exit_status,
            "replay_safe": self.replay_safe,
            "strict": self.strict,
            "headline": self.headline,
            "note": self.note,
            "suggestion": self.suggestion,
            "reasons": [r.to_json() for r in self.reasons],
            "warnings": [r.to_json() for r in self.warnings],
            "differences": self.differences,
            "equivalent": self.equivalent,
            "blocked_items": replayed.blocked_items,
            "right_items": replayed.items,
            "blocking_findings": list(
                dict.fromkeys(
                    r.code
                    for r in replayed.blocking
                    if r.severity is Severity.ERROR and r.code != "verdict"
                )
            ),
            "right_reasons": [r.text for r in replayed.blocking],
            "sides": [s.to_json() for s in self.sides],
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _base(path: str) -> str:
    return os.path.basename(path) or path


def _grouped(
    side: str,
    things: Iterable[FindingLike],
    label: str,
    out: dict[Severity, list[Reason]],
    counted: Mapping[tuple[str, Severity], int] | None = None,
) -> None:
    """One reason per code and severity: the first message, and how many more there are.

    `counted`: more of a code and severity, counted but not kept (a stream's violations past
    the ones it holds; the first of each code and severity is always held).
    """
    by_code: dict[tuple[str, Severity], list[FindingLike]] = {}
    for thing in things:
        severity = thing.severity
        if type(severity) is not Severity:
            severity = Severity(str(severity))
        by_code.setdefault((thing.code, severity), []).append(thing)
    for (code, severity), found in by_code.items():
        extra = len(found) - 1 + (counted or {}).get((code, severity), 0)
        more = f" (+{extra} more)" if extra else ""
        text = f"{code}: {found[0].message}{more}"
        if label:
            text = f"{label} {text}"
        out.setdefault(severity, []).append(Reason(side, code, severity, text))


#: The verdicts that block a replay unless `fail_on` says otherwise.
_BLOCKING: frozenset[Verdict] = frozenset(Verdict) - PASSING


def _severities(things: Iterable[FindingLike]) -> dict[str, int]:
    """How many of `things` there are of each severity, in the order they first come."""
    counts: dict[str, int] = {}
    for thing in things:
        word = str(thing.severity)
        counts[word] = counts.get(word, 0) + 1
    return counts


def _blocked_counts(
    result: GateResult, failing: set[Verdict] | frozenset[Verdict], history: frozenset[int]
) -> dict[str, int]:
    """The items that block by their verdict, by word in the order each word first comes:
    from the result's tally (each run's, added up, in a gate by runs) when no call is let
    through as history; else item by item, which history can reorder."""
    if not history:
        return {str(word): n for word, n in result.tallies().items() if word in failing}
    counts = Counter(
        str(word)
        for i, v in enumerate(result.verdicts)
        if (word := v.verdict) in failing and i not in history
    )
    return dict(counts)


def side_decision(
    result: GateResult,
    *,
    side: str = "file",
    name: str = "",
    strict: bool = False,
    fail_on: Iterable[Verdict] | None = None,
    extra_findings: Sequence[FindingLike] = (),
) -> SideDecision:
    """One file's own answer in replay mode: item verdicts, findings, stream violations.

    An item blocks by its verdict (every verdict but `ok` and `not_function_call`, or exactly
    `fail_on` when given), except a call answered in its own request (history that already
    ran, `status_not_recorded`) unless `strict`. A finding or stream violation blocks when it
    is an error, or a warning under `strict`; other warnings are listed.
    """
    failing = set(fail_on) if fail_on is not None else _BLOCKING
    findings = result.findings
    # Most transcripts of a trace have no findings at all: nothing answered, grouped or counted.
    history = answered_history(result) if findings and not strict else frozenset()
    counts = _blocked_counts(result, failing, history)
    blocked = sum(counts.values())
    by_level: dict[Severity, list[Reason]] = {}
    if blocked:
        verdicts = ", ".join(f"{v} {n}" for v, n in counts.items())
        text = (
            f"{blocked} of {_plural(len(result.verdicts), 'item')} block a replay "
            f"(verdicts: {verdicts})"
        )
        by_level[Severity.ERROR] = [Reason(side, "verdict", Severity.ERROR, text)]
    if findings:
        _grouped(side, findings, "", by_level)
    stream = result.transcript.stream
    by_severity: dict[str, int] = {}
    if stream is not None:
        violations = tuple(stream.violations)
        counted = {(c, Severity(str(s))): n for c, s, n in stream.more}
        by_severity = _severities(violations)
        for (_, severity), n in counted.items():
            by_severity[str(severity)] = by_severity.get(str(severity), 0) + n
        _grouped(side, violations, "stream", by_level, counted)
    if extra_findings:
        _grouped(side, extra_findings, "", by_level)
    errors = by_level.get(Severity.ERROR, [])
    warnings = by_level.get(Severity.WARNING, [])
    if strict:
        errors, warnings = errors + warnings, []
    outcome = Outcome.UNSAFE if errors else Outcome.SAFE_WITH_WARNINGS if warnings else Outcome.SAFE
    return SideDecision(
        side=side,
        name=_base(name),
        outcome=outcome,
        items=len(result.verdicts),
        blocked_items=blocked,
        findings=MappingProxyType(_severities(findings) if findings else {}),
        stream_violations=MappingProxyType(by_severity),
        blocking=tuple(errors),
        warnings=tuple(warnings),
    )


def _headline(outcome: Outcome, reasons: Sequence[Reason], what: str) -> str:
    if reasons:
        more = len(reasons) - HEADLINE_REASONS
        tail = f" (+{more} more)" if more > 0 else ""
        return f"{outcome.words}: {reasons[0].line}{tail}"
    return f"{outcome.words}: {what}" if what else outcome.words


def decide_file(
    result: GateResult,
    *,
    name: str = "",
    strict: bool = False,
    fail_on: Iterable[Verdict] | None = None,
    extra_findings: Sequence[FindingLike] = (),
) -> Decision:
    """The answer for one file in replay mode: safe, safe with warnings, or unsafe."""
    own = side_decision(
        result,
        side="file",
        name=name,
        strict=strict,
        fail_on=fail_on,
        extra_findings=extra_findings,
    )
    if own.outcome is Outcome.SAFE:
        what = "nothing blocks a replay"
    elif own.outcome is Outcome.SAFE_WITH_WARNINGS:
        what = "nothing blocks a replay, but " + own.warnings[0].line
        more = len(own.warnings) - 1
        what += f" (+{more} more)" if more > 0 else ""
    else:
        what = ""
    headline = (
        _headline(own.outcome, own.blocking, "")
        if own.outcome is Outcome.UNSAFE
        else f"{own.outcome.words}: {what}"
    )
    return Decision(
        mode="file",
        outcome=own.outcome,
        strict=strict,
        replay_safe=own.outcome is not Outcome.UNSAFE,
        reasons=own.blocking,
        warnings=own.warnings,
        sides=(own,),
        headline=headline,
        note="",
    )


def _differences(diff: DiffResult) -> int:
    pairs = diff.pairs
    return sum(1 for n in pairs.with_changes() if pairs[n].changed) + sum(
        1 for d in diff.document_changes if d.severity != Severity.INFO
    )


def _change_reasons(diff: DiffResult, level: Severity) -> list[Reason]:
    """One reason per pair holding a change of this level (its codes, both items)."""
    out: list[Reason] = []
    litems, ritems = diff.left.transcript.items, diff.right.transcript.items
    for number in diff.pairs.with_changes():  # a pair without changes has no reason
        pair = diff.pairs[number]
        codes = list(dict.fromkeys(c.code for c in pair.changes if c.severity == level))
        if not codes or (level is Severity.WARNING and pair.blocking):
            continue
        out.append(
            Reason(
                "pair",
                codes[0],
                level,
                f"{_pair_label(pair, litems, ritems)}: {', '.join(codes)}",
                number,
            )
        )
    for change in diff.document_changes:
        if change.severity == level and level is Severity.WARNING:
            out.append(Reason("document", change.code, level, change.message))
    return out


def _pair_label(pair: Pair, litems: Sequence[Any], ritems: Sequence[Any]) -> str:
    if pair.left is not None and pair.right is not None:
        return f"{item_label(litems[pair.left])} (right #{pair.right})"
    if pair.left is not None:
        return f"{item_label(litems[pair.left])} (left only)"
    assert pair.right is not None
    return f"right {item_label(ritems[pair.right])} (right only)"


def _blocking_reasons(diff: DiffResult) -> list[Reason]:
    """The diff's own reasons (error-level changes), each naming its pair or the document."""
    return [
        Reason("document" if r.pair is None else "pair", r.code, Severity.ERROR, r.text, r.pair)
        for r in diff.reason_details
    ]


def _renamed_consistently(diff: DiffResult) -> bool:
    """Whether every paired call's call_id changed, one-to-one (two providers' ids)."""
    mapping: dict[Any, Any] = {}
    calls = 0
    pairs = diff.pairs
    # The pairs' own arrays (-1: no item), not a list of integers a pair.
    lefts, rights = pairs.indexes("left"), pairs.indexes("right")
    for number, (i, j) in enumerate(zip(lefts, rights, strict=True)):
        if i < 0 or j < 0:
            continue
        left = diff.left.transcript.items[i]
        if left.type != "function_call":
            continue
        calls += 1
        changes = pairs.changes_at(number)
        change = next((c for c in changes if c.code == "call_id_changed"), None)
        if change is None:
            return False
        if not isinstance(change.left, str) or mapping.setdefault(change.left, change.right) != (
            change.right
        ):
            return False
    return calls > 0 and len(set(mapping.values())) == len(mapping)


#: The one line that suggests compare mode for two providers' runs read in replay mode.
SUGGEST_COMPARE = (
    "these look like two providers' runs of one session: compare them with --mode compare"
)


def decide_pair(
    diff: DiffResult,
    *,
    names: tuple[str, str] = ("", ""),
    strict: bool = False,
    extra_findings: tuple[Sequence[FindingLike], Sequence[FindingLike]] = ((), ()),
) -> Decision:
    """The answer for two files: replay mode (may the right replace the left?) or compare mode."""
    left = side_decision(
        diff.left, side="left", name=names[0], strict=strict, extra_findings=extra_findings[0]
    )
    right = side_decision(
        diff.right, side="right", name=names[1], strict=strict, extra_findings=extra_findings[1]
    )
    differences = _differences(diff)
    if diff.mode == "compare":
        return _compare(diff, left, right, differences, strict)
    foreign = any(f.code.endswith("_envelope") for f in diff.right.findings)
    # foreign_envelope already says it for the document: the right side's own envelope
    # finding would say it twice.
    own = [r for r in right.blocking if not (foreign and r.code.endswith("_envelope"))]
    reasons = [*_blocking_reasons(diff), *own]
    # The left side is the recording the replay starts from: what blocks it only warns here.
    warnings = [
        *_change_reasons(diff, Severity.WARNING),
        *right.warnings,
        *(_as_warning(r) for r in left.blocking),
        *left.warnings,
    ]
    if strict:
        reasons, warnings = reasons + warnings, []
    outcome = (
        Outcome.UNSAFE if reasons else Outcome.SAFE_WITH_WARNINGS if warnings else Outcome.SAFE
    )
    if outcome is Outcome.UNSAFE:
        headline = _headline(outcome, reasons, "")
    else:
        informational = bool(diff.pairs.with_changes() or diff.document_changes)
        if differences:
            agree = f"{_plural(differences, 'difference')}, none blocking"
        elif informational:
            agree = "equivalent (informational changes only)"
        else:
            agree = "no differences"
        headline = f"{outcome.words}: {agree}"
        if warnings:
            more = len(warnings) - 1
            headline += f"; {warnings[0].line}" + (f" (+{more} more)" if more > 0 else "")
    suggestion = SUGGEST_COMPARE if foreign or _renamed_consistently(diff) else ""
    return Decision(
        mode=str(diff.mode),
        outcome=outcome,
        strict=strict,
        replay_safe=outcome is not Outcome.UNSAFE,
        reasons=tuple(reasons),
        warnings=tuple(warnings),
        sides=(left, right),
        headline=headline,
        note="",
        differences=differences,
        suggestion=suggestion,
    )


def _as_warning(reason: Reason) -> Reason:
    return Reason(reason.side, reason.code, Severity.WARNING, reason.text, reason.pair)


def _compare(
    diff: DiffResult, left: SideDecision, right: SideDecision, differences: int, strict: bool
) -> Decision:
    reasons = _blocking_reasons(diff)
    warnings = _change_reasons(diff, Severity.WARNING)
    if reasons:
        outcome = Outcome.DIVERGED
    elif warnings:
        outcome = Outcome.DIFFERENT
    else:
        outcome = Outcome.EQUIVALENT
    if outcome is Outcome.EQUIVALENT:
        informational = bool(diff.pairs.with_changes() or diff.document_changes)
        what = "informational changes only" if informational else "no differences"
        headline = f"{outcome.words}: {what}"
    elif outcome is Outcome.DIFFERENT:
        headline = _headline(outcome, warnings, "")
    else:
        headline = _headline(outcome, reasons, "")
    # Each side's own findings are shown per side; they do not flip the comparison.
    notes = [
        f"{s.side} side on its own: {s.outcome.words.lower()} ({first.text})"
        for s in (left, right)
        if s.outcome is not Outcome.SAFE and (first := (s.blocking or s.warnings)[0])
    ]
    return Decision(
        mode=str(diff.mode),
        outcome=outcome,
        strict=strict,
        replay_safe=right.outcome is not Outcome.UNSAFE,
        reasons=tuple(reasons),
        warnings=tuple(warnings),
        sides=(left, right),
        headline=headline,
        note="; ".join(notes),
        differences=differences,
    )


__all__ = [
    "EXIT_CLEAN",
    "EXIT_FAILS",
    "SUGGEST_COMPARE",
    "Decision",
    "FindingLike",
    "Outcome",
    "Reason",
    "SideDecision",
    "answered_history",
    "decide_file",
    "decide_pair",
    "side_decision",
]
