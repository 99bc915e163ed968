"""JUnit XML for CI: one test case per item, per finding, per stream violation and per pair.

The cases fail as the one decision does (`core.decision`): on the side being replayed (the only
file, or the right one in replay mode) a blocked item fails with its detail as the message and
a finding or violation of error severity (or warning, under strict) fails; each pair is a test
case too, failing when its changes block the replay (compare mode: when they are more than
information). The left side in replay mode, and both sides in compare mode, are listed and never
fail: their own findings do not flip the decision. A last case, "decision", fails exactly when
the exit status is 1.
Built with xml.etree, which escapes; characters XML 1.0 forbids never reach it (`printable`
writes them as visible escapes first). Suites follow the common JUnit schema that Jenkins,
GitLab, GitHub actions and Azure read: testsuites > testsuite > testcase > failure.

Each list of cases (items, findings, violations, pairs) stops at CASE_LIMIT; the rest become one
case, "… and N more items", that counts them by verdict or code and fails when any of them would.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence

from inspector.core.diff import DiffResult
from inspector.core.report.model import (
    Cleaner,
    FindingLike,
    ReportInput,
    ReportSide,
    deciding_sides,
    describe_item,
    extra_title,
    failing_items,
    finding_extras,
    items_text,
    pair_kind,
    where_text,
)
from inspector.core.report.redact import Redactor

#: Longest failure message attribute; the full text goes into the element's body.
MESSAGE = 1_000
#: Test cases listed per list (items, findings, violations, pairs) before the rest are counted.
CASE_LIMIT = 10_000


class _LeftOut:
    """The cases of one list past CASE_LIMIT: counted by word, and how many of them fail."""

    def __init__(self) -> None:
        self.words: Counter[str] = Counter()
        self.failing = 0

    def add(self, word: str, fails: bool, count: int = 1) -> None:
        """Count cases that are not listed (one unless told)."""
        self.words[word] += count
        self.failing += count if fails else 0


class _Suites:
    def __init__(self, report: ReportInput, redactor: Redactor) -> None:
        self.report = report
        self.redactor = redactor
        self.clean = Cleaner(redactor)
        self.root = ET.Element("testsuites", name="inspector report")

    def suite(self, name: str, properties: dict[str, str]) -> ET.Element:
        """A new test suite, stamped with the report's time, its properties first."""
        suite = ET.SubElement(
            self.root,
            "testsuite",
            name=name,
            timestamp=self.report.generated.strftime("%Y-%m-%dT%H:%M:%S"),
        )
        props = ET.SubElement(suite, "properties")
        for key, value in properties.items():
            ET.SubElement(props, "property", name=key, value=value)
        return suite

    def case(
        self, suite: ET.Element, classname: str, name: str, failure: tuple[str, str, str] | None
    ) -> None:
        """A test case (every string cleaned); failure is (type, message, body) when it fails."""
        clean = self.clean
        case = ET.SubElement(
            suite, "testcase", classname=clean(classname), name=clean(name), time="0"
        )
        if failure is not None:
            kind, message, body = failure
            element = ET.SubElement(
                case, "failure", type=clean(kind), message=clean(message, MESSAGE)
            )
            element.text = clean(body)

    def failing(self, severity: object, deciding: bool) -> bool:
        """Whether a finding of this severity fails its case (on a side that decides)."""
        levels = ("error", "warning") if self.report.decision.strict else ("error",)
        return deciding and str(severity) in levels

    def left_out(self, suite: ET.Element, classname: str, noun: str, rest: _LeftOut) -> None:
        """One case for the cases past CASE_LIMIT, failing when any of them fails."""
        total = sum(rest.words.values())
        if not total:
            return
        counts = ", ".join(f"{word} {n:,}" for word, n in rest.words.most_common())
        text = f"{total:,} more {noun} not listed ({counts}); {rest.failing:,} of them fail"
        failure = ("not_listed", text, text) if rest.failing else None
        self.case(suite, classname, f"… and {total:,} more {noun}", failure)

    def items(self, side: ReportSide, classname: str, suite: ET.Element, deciding: bool) -> None:
        """One test case per item; a blocked verdict fails (on a side that decides)."""
        failing = failing_items(side, self.report.decision) if deciding else frozenset()
        rest = _LeftOut()
        for index, (item, verdict) in enumerate(zip(side.items, side.result.verdicts, strict=True)):
            if index >= CASE_LIMIT:
                rest.add(verdict.verdict.value, index in failing)
                continue
            failure = None
            if index in failing:
                lines = [verdict.detail]
                for error in verdict.errors:
                    line = f"{error.path or '/'}: {error.keyword}: {error.message}"
                    if line != verdict.detail:
                        lines.append(line)
                failure = (verdict.verdict.value, verdict.detail, "\n".join(lines))
            name = f"{describe_item(item)}: {verdict.verdict.value}"
            self.case(suite, f"{classname}.items", name, failure)
        self.left_out(suite, f"{classname}.items", "items", rest)

    def findings(
        self,
        findings: Sequence[FindingLike],
        classname: str,
        suite: ET.Element,
        deciding: bool = True,
    ) -> None:
        """One test case per finding; error severity fails (on a side that decides)."""
        rest = _LeftOut()
        for number, finding in enumerate(findings):
            if number >= CASE_LIMIT:
                rest.add(str(finding.code), self.failing(finding.severity, deciding))
                continue
            where = items_text(list(finding.items))
            name = f"{finding.code} {where}".strip()
            failure = None
            if self.failing(finding.severity, deciding):
                extras = "".join(
                    f"\n{k}: {self.clean.json(v)}" for k, v in finding_extras(finding).items()
                )
                failure = (str(finding.code), finding.message, f"{finding.message}{extras}")
            self.case(suite, classname, f"{name} ({finding.severity})", failure)
        self.left_out(suite, classname, "findings", rest)

    def violations(
        self, side: ReportSide, classname: str, suite: ET.Element, deciding: bool
    ) -> None:
        """One test case per stream violation; error severity fails (on a side that decides)."""
        rest = _LeftOut()
        for number, v in enumerate(side.violations()):
            failing = self.failing(v.severity, deciding)
            if number >= CASE_LIMIT:
                rest.add(v.code, failing)
                continue
            failure = (v.code, v.message, v.message) if failing else None
            self.case(suite, classname, f"{v.code} {where_text(v)} ({v.severity})", failure)
        # Past what a stream keeps, violations are only counted: they join the left-out case.
        for code, severity, count in side.violations_counted():
            rest.add(code, self.failing(severity, deciding), count)
        self.left_out(suite, classname, "violations", rest)

    def pairs(self, diff: DiffResult, suite: ET.Element) -> None:
        """One test case per aligned pair; a change that decides the outcome fails."""
        decision = self.report.decision
        # Replay mode: errors block (warnings too under strict); compare: anything above info.
        counted = decision.mode == "compare" or decision.strict
        litems, ritems = diff.left.transcript.items, diff.right.transcript.items
        rest = _LeftOut()
        for number, pair in enumerate(diff.pairs):
            fails = pair.blocking or (counted and pair.changed)
            if number >= CASE_LIMIT:
                rest.add(pair_kind(pair), fails)
                continue
            left = describe_item(litems[pair.left]) if pair.left is not None else "-"
            right = describe_item(ritems[pair.right]) if pair.right is not None else "-"
            name = f"{left} | {right}: {pair_kind(pair)}"
            failure = None
            if fails:
                lines = [
                    f"{c.severity} {c.code} {c.pointer or '(item)'}: "
                    f"{self.clean.json(c.left, 300)} -> {self.clean.json(c.right, 300)}"
                    for c in pair.changes
                ]
                codes = ", ".join(c.code for c in pair.changes if c.severity != "info")
                failure = (str(decision.outcome), f"{decision.outcome}: {codes}", "\n".join(lines))
            self.case(suite, "diff.pairs", name, failure)
        self.left_out(suite, "diff.pairs", "pairs", rest)

    def render(self) -> str:
        report = self.report
        decision = report.decision
        for name, side, deciding in zip(
            report.side_names, report.sides, deciding_sides(report), strict=True
        ):
            classname = f"{name}" if len(report.sides) == 2 else "gate"
            properties = {"path": self.clean(side.path), "format": self.clean(side.format)}
            if side.conversation:
                properties["conversation"] = self.clean(side.conversation)
            suite = self.suite(f"{name}: {self.clean(side.path)}", properties)
            self.items(side, classname, suite, deciding)
            self.findings(side.result.findings, f"{classname}.findings", suite, deciding)
            self.violations(side, f"{classname}.stream", suite, deciding)
            if side.extra_findings or report.target:
                title = self.clean(extra_title(report))
                self.findings(side.extra_findings, f"{classname}.{title}", suite, deciding)
        suite = self.suite(
            "replay decision",
            {
                "replay_safe": str(decision.replay_safe).lower(),
                "outcome": str(decision.outcome),
                "mode": report.mode or "",
            },
        )
        if report.diff is not None:
            self.pairs(report.diff, suite)
        failure = None
        if decision.blocks:
            listed = [*decision.reason_lines(), *decision.warning_lines()]
            body = "\n".join([decision.headline, *listed])
            failure = (str(decision.outcome), decision.headline, body)
        self.case(suite, "decision", f"decision: {decision.outcome}", failure)
        self.count()
        # Last, once every string has passed the redactor: the counts are complete.
        stamp = {
            "generator": f"Replay Inspector {report.version}",
            "decision": decision_text(report, self.clean),
            "redaction": self.redactor.describe(),
        }
        for suite in self.root:
            found = suite.find("properties")
            assert found is not None
            for key, value in stamp.items():
                ET.SubElement(found, "property", name=key, value=value)
        ET.indent(self.root)
        text = ET.tostring(self.root, encoding="unicode")
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{text}\n'

    def count(self) -> None:
        """Fill in the tests and failures counts of every suite and of the whole."""
        total = failed = 0
        for suite in self.root:
            cases = suite.findall("testcase")
            failures = sum(1 for c in cases if c.find("failure") is not None)
            suite.set("tests", str(len(cases)))
            suite.set("failures", str(failures))
            suite.set("errors", "0")
            suite.set("skipped", "0")
            total += len(cases)
            failed += failures
        self.root.set("tests", str(total))
        self.root.set("failures", str(failed))
        self.root.set("errors", "0")


def decision_text(report: ReportInput, clean: Cleaner) -> str:
    """The decision and its reasons on one line."""
    decision = report.decision
    # The headline already says its first reason: on one line it is not said twice.
    said = [line for line in decision.reason_lines() if line not in decision.headline]
    lines = [decision.headline, *said, *decision.warning_lines()]
    return clean("; ".join(lines), MESSAGE * 4)


def render_junit(report: ReportInput, redactor: Redactor) -> str:
    """Return the report as JUnit XML."""
    return _Suites(report, redactor).render()


__all__ = ["CASE_LIMIT", "render_junit"]
