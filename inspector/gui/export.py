"""File → Export Report: the window's gated files and diff as a shared report (HTML, Markdown).

Qt-free: the report input is assembled as the `report` command assembles it (target findings
as the side's extra findings, the decision from `core.report.model.decide`), rendered by the
core's renderers, redacted by the core's redactor. Writing the file is the panel's part.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from inspector.core.diff import DiffResult
from inspector.core.gate import GateResult
from inspector.core.report.html import render_html
from inspector.core.report.markdown import render_markdown
from inspector.core.report.model import ReportInput, ReportSide, decide
from inspector.core.report.redact import Redactor
from inspector.core.targets import TargetFinding


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """One export format: its renderer, file suffix and the name the dialog shows."""

    name: str
    title: str
    suffix: str
    render: Callable[[ReportInput, Redactor], str]

    @property
    def file_filter(self) -> str:
        """The file dialog's filter for this format."""
        return f"{self.title} (*{self.suffix})"


FORMATS: dict[str, ReportFormat] = {
    "html": ReportFormat("html", "HTML page", ".html", render_html),
    "markdown": ReportFormat("markdown", "Markdown summary", ".md", render_markdown),
}


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered report and the redaction note it carries."""

    text: str
    redaction: str


def _split_targets(result: GateResult) -> tuple[GateResult, tuple[TargetFinding, ...]]:
    # The window adds target findings to each side's result; a report lists them apart, as
    # the `report --target` command does, so they are not counted twice.
    found = tuple(f for f in result.findings if isinstance(f, TargetFinding))
    gated = tuple(f for f in result.findings if not isinstance(f, TargetFinding))
    return replace(result, findings=gated), found


def report_input(
    sides: Sequence[tuple[str, GateResult]],
    diff: DiffResult | None,
    *,
    tool_files: Sequence[str] = (),
    target: str | None = None,
) -> ReportInput:
    """The report of one gated file, or of two with their diff (file names, not full paths)."""
    shown = []
    for path, result in sides:
        gated, found = _split_targets(result)
        shown.append(ReportSide(os.path.basename(path), gated, found))
    names = ", ".join(os.path.basename(p) for p in tool_files)
    return ReportInput(
        sides=tuple(shown),
        decision=decide(shown, diff),
        diff=diff,
        tools=names or None,
        target=target,
        mode=str(diff.mode) if diff is not None else None,
    )


def render_report(report: ReportInput, fmt: str, *, redact: bool = True) -> Rendered:
    """Render a report in a format ('html' or 'markdown'), secrets redacted unless told not."""
    redactor = Redactor(enabled=redact)
    text = FORMATS[fmt].render(report, redactor)
    return Rendered(text, redactor.describe())


def clashing_input(output: str, inputs: Iterable[str | None]) -> str | None:
    """The open input file that `output` would overwrite (None when it is none of them)."""
    for path in inputs:
        if path and _same_file(output, path):
            return path
    return None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def with_suffix(path: str, fmt: str) -> str:
    """The path with the format's suffix when its name has no suffix at all."""
    return path if os.path.splitext(path)[1] else path + FORMATS[fmt].suffix
