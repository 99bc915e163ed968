"""The Findings tab: transcript-level findings of both sides; double-click selects the items."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from inspector.core.gate import Finding, GateResult
from inspector.gui import qt_palette
from inspector.gui.qt_records import (
    LazyRecords,
    PayloadRole,
    Record,
    RecordsModel,
    fit_columns,
    records_view,
)
from inspector.gui.qt_rule_detail import RuleDetail, finding_tip
from inspector.gui.qt_text import dim, plain_label

_ORDER = {"error": 0, "warning": 1, "info": 2}


class FindingsPanel(QWidget):
    """A table of findings: side, severity (icon and word), code, items, message."""

    #: side ('left' / 'right' / 'scratch') and the item indexes of the double-clicked finding.
    activated = Signal(str, list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.summary = plain_label("", self)
        dim(self.summary)
        column.addWidget(self.summary)
        self.model = RecordsModel(("Side", "Severity", "Code", "Items", "Message"), self)
        self.view = records_view(self.model, self)
        self.view.setObjectName("findings")
        self.view.doubleClicked.connect(self._activated)
        column.addWidget(self.view, 1)
        # A target finding's rule and sources, under the table while it is selected.
        self.rule = RuleDetail(self)
        column.addWidget(self.rule)
        self.view.selectionModel().currentRowChanged.connect(self._selected)
        self.set_results({})

    def set_results(self, results: dict[str, GateResult]) -> None:
        """Show the findings of each side's result, errors first."""
        rows: list[tuple[int, str, Finding]] = []
        for side, result in results.items():
            rows.extend((_ORDER.get(str(f.severity), 3), side, f) for f in result.findings)
        rows.sort(key=lambda r: r[0])
        self.rule.clear_rule()
        # Built as rows are shown: a large log can have a finding for most of its items.
        self.model.set_records(LazyRecords(len(rows), lambda n: self._record(*rows[n][1:])))
        fit_columns(self.view)
        counts = Counter(str(f.severity) for _o, _s, f in rows)
        if rows:
            self.summary.setText(
                ", ".join(f"{counts[s]} {s}" for s in _ORDER if counts[s])
                + " — double-click a finding to select its items"
            )
        else:
            self.summary.setText("No findings." if results else "No transcript open.")

    @staticmethod
    def _record(side: str, finding: Finding) -> Record:
        swatch = qt_palette.severity_swatch(str(finding.severity))
        return Record(
            (
                side,
                str(finding.severity),
                finding.code,
                ", ".join(f"#{i}" for i in finding.items),
                finding.message,
            ),
            payload=(side, finding),
            icon=swatch.icon,
            icon_column=1,
            foreground=swatch.foreground,
            tip=finding_tip(finding),
        )

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        payload = (
            self.model.index(current.row(), 0).data(PayloadRole) if current.isValid() else None
        )
        self.rule.show_finding(payload[1] if payload is not None else None)

    def _activated(self, index: QModelIndex) -> None:
        payload = self.model.index(index.row(), 0).data(PayloadRole)
        if payload is None:
            return
        side, finding = payload
        self.activated.emit(side, list(finding.items))
