"""A line under a table that names a target rule and its sources (the Findings and Tools tabs),
with a button that opens a source in the browser: where a provider rule is documented is one
click away. Text stays plain (a tool name or pointer comes from a file)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QMenu, QSizePolicy, QToolButton, QWidget

from inspector.core.targets import TargetFinding
from inspector.gui.qt_text import menu_text, plain_label


def web_sources(source: str) -> list[str]:
    """The web addresses among a rule's sources ('; '-separated)."""
    pieces = (p.strip() for p in source.split(";"))
    return [p for p in pieces if p.startswith(("https://", "http://"))]


def rule_text(target: str, rule: str, source: str, where: str = "") -> str:
    """Two lines naming a target's rule, what it concerns, and its sources."""
    head = f"{target} rule {rule}"
    if where:
        head += f" — {where}"
    return f"{head}\nsource: {source}"


def finding_where(finding: TargetFinding) -> str:
    """The tool and schema pointer a target finding is about, as words ('' when none)."""
    if finding.tool is None:
        return ""
    pointer = "(name)" if finding.pointer is None else (finding.pointer or "(schema root)")
    return f"tool {finding.tool} {pointer}"


def finding_tip(finding: object) -> str | None:
    """A finding's tooltip: its message, and for a target finding its rule and sources."""
    if not isinstance(finding, TargetFinding):
        return None
    rule = rule_text(finding.target, finding.rule, finding.source, finding_where(finding))
    return f"{finding.message}\n\n{rule}"


class RuleDetail(QWidget):
    """Rule id and sources of the selected target finding or tool problem (hidden otherwise)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rule-detail")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = plain_label("", self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.open_button = QToolButton(self)
        self.open_button.setText("Open Source")
        self.open_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.open_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.open_button.setMenu(QMenu(self.open_button))
        row.addWidget(self.label, 1)
        row.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        self.sources: list[str] = []
        self.hide()

    def text(self) -> str:
        """The shown text ('' when hidden)."""
        return self.label.text()

    def show_rule(self, target: str, rule: str, source: str, where: str = "") -> None:
        """Show one rule with its sources."""
        self.label.setText(rule_text(target, rule, source, where))
        self.sources = web_sources(source)
        menu = self.open_button.menu()
        menu.clear()
        for url in self.sources:
            action = menu.addAction(menu_text(url))
            action.triggered.connect(lambda _c=False, u=url: QDesktopServices.openUrl(QUrl(u)))
        self.open_button.setVisible(bool(self.sources))
        self.show()

    def show_finding(self, finding: object) -> None:
        """Show a target finding's rule (any other finding hides the line)."""
        if isinstance(finding, TargetFinding):
            self.show_rule(finding.target, finding.rule, finding.source, finding_where(finding))
        else:
            self.clear_rule()

    def clear_rule(self) -> None:
        """Hide the line."""
        self.label.clear()
        self.sources = []
        self.hide()
