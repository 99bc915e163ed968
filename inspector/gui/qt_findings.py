"""The Findings tab: both sides' transcript findings, filtered by text, code, severity and side,
flat or grouped by code with counts; Enter or a double-click selects a finding's items."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from inspector.core.gate import GateResult
from inspector.gui import qt_palette
from inspector.gui.findings import (
    SEVERITIES,
    Entry,
    FindingFilter,
    Group,
    count_words,
    entries,
    grouped,
)
from inspector.gui.json_text import visible
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
from inspector.gui.qt_workers import debounce
from inspector.gui.status import plural
from inspector.gui.tallies import worst_severity

#: Milliseconds between the last keystroke in the filter box and the match.
FILTER_DELAY_MS = 150


class FindingsPanel(QWidget):
    """A table of findings: side, severity (icon and word), code, items, message."""

    #: side ('left' / 'right' / 'scratch') and the item indexes of the activated finding.
    activated = Signal(str, list)
    #: the number of findings and their worst severity ('' when there are none): the tab badge.
    counted = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.summary = plain_label("", self)
        dim(self.summary)
        column.addWidget(self.summary)
        column.addLayout(self._build_filter_row())
        self.model = RecordsModel(("Side", "Severity", "Code", "Items", "Message"), self)
        self.view = records_view(self.model, self)
        self.view.setObjectName("findings")
        self.view.doubleClicked.connect(self._activate)
        self.view.installEventFilter(self)
        column.addWidget(self.view, 1)
        # A target finding's rule and sources, under the table while it is selected.
        self.rule = RuleDetail(self)
        column.addWidget(self.rule)
        self.view.selectionModel().currentRowChanged.connect(self._selected)
        self._all: list[Entry] = []
        self._all_words = ""
        self._collapsed: set[str] = set()
        self._opened = False
        self.set_results({})

    def _build_filter_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setObjectName("findings-filter")
        self.filter_edit.setPlaceholderText("Filter by code or message…")
        self.filter_edit.setClearButtonEnabled(True)
        self.severity_combo = QComboBox(self)
        self.code_combo = QComboBox(self)
        self.side_combo = QComboBox(self)
        for combo in (self.severity_combo, self.code_combo, self.side_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.currentIndexChanged.connect(lambda _i: self._refill())
        self.group_box = QCheckBox("Group by code", self)
        self.group_box.toggled.connect(lambda _on: self._refill())
        # Typing waits for a pause: one match of a large log per pause, not per keystroke.
        self._typing = debounce(self, FILTER_DELAY_MS, self._refill)
        self.filter_edit.textChanged.connect(lambda _t: self._typing.start())
        row.addWidget(self.filter_edit, 1)
        for widget in (self.severity_combo, self.code_combo, self.side_combo, self.group_box):
            row.addWidget(widget)
        return row

    # ---- content --------------------------------------------------------------------------

    def set_results(self, results: Mapping[str, GateResult]) -> None:
        """Show the findings of each side's result, errors first."""
        self._all = entries(results)
        self._all_words = count_words(self._all)
        self._opened = bool(results)
        self._fill_choices()
        self._refill()
        self.counted.emit(len(self._all), worst_severity(Counter(e.severity for e in self._all)))

    def _fill_choices(self) -> None:
        found = self._all
        choices = (
            (self.severity_combo, "All severities", Counter(e.severity for e in found)),
            (self.code_combo, "All codes", Counter(e.finding.code for e in found)),
            (self.side_combo, "Both sides", Counter(e.side for e in found)),
        )
        for combo, everything, tally in choices:
            kept = combo.currentData()
            blocked = combo.blockSignals(True)
            try:
                combo.clear()
                combo.addItem(everything, "")
                keys = [s for s in SEVERITIES if s in tally] if combo is self.severity_combo else []
                for key in keys or sorted(tally):
                    combo.addItem(f"{visible(key)} ({tally[key]:,})", key)
                combo.setCurrentIndex(max(combo.findData(kept), 0))
            finally:
                combo.blockSignals(blocked)

    @property
    def finding_filter(self) -> FindingFilter:
        """The filter the box and the three choices describe."""
        return FindingFilter(
            self.filter_edit.text(),
            self.code_combo.currentData() or "",
            self.severity_combo.currentData() or "",
            self.side_combo.currentData() or "",
        )

    def _refill(self) -> None:
        self._typing.stop()
        shown = self.finding_filter.apply(self._all)
        rows: list[Group | Entry] = (
            grouped(shown, self._collapsed) if self.group_box.isChecked() else list(shown)
        )
        self.rule.clear_rule()
        # Built as rows are shown: a large log can have a finding for most of its items.
        self.model.set_records(LazyRecords(len(rows), lambda n: _record(rows[n])))
        fit_columns(self.view)
        if not self._all:
            self.summary.setText("No findings." if self._opened else "No transcript open.")
            return
        words = self._all_words
        if len(shown) != len(self._all):
            words = f"{plural(len(shown), 'finding')} of {len(self._all):,} shown ({words})"
        self.summary.setText(f"{words} — Enter or a double-click selects a finding's items")

    # ---- activation -----------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter or Return on a row activates it (a heading opens or closes its code)."""
        if (
            watched is self.view
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self._activate(self.view.currentIndex())
            return True
        return super().eventFilter(watched, event)

    def _payload(self, row: int) -> object:
        return self.model.index(row, 0).data(PayloadRole)

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        payload = self._payload(current.row()) if current.isValid() else None
        self.rule.show_finding(payload.finding if isinstance(payload, Entry) else None)

    def _activate(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        payload = self._payload(index.row())
        if isinstance(payload, Group):
            self._collapsed ^= {payload.code}
            self._refill()
            self.view.selectRow(index.row())
        elif isinstance(payload, Entry):
            self.activated.emit(payload.side, list(payload.finding.items))


def _record(row: Group | Entry) -> Record:
    if isinstance(row, Group):
        swatch = qt_palette.severity_swatch(row.severity)
        mark = "▸" if row.collapsed else "▾"
        return Record(
            (
                "",
                row.severity,
                f"{mark} {row.code}",
                f"{row.count:,}",
                plural(row.count, "finding"),
            ),
            payload=row,
            icon=swatch.icon,
            icon_column=1,
            foreground=swatch.foreground,
            tip="Enter or a double-click opens or closes this code's findings",
        )
    finding = row.finding
    swatch = qt_palette.severity_swatch(row.severity)
    return Record(
        (
            row.side,
            row.severity,
            finding.code,
            ", ".join(f"#{i}" for i in finding.items),
            finding.message,
        ),
        payload=row,
        icon=swatch.icon,
        icon_column=1,
        foreground=swatch.foreground,
        tip=finding_tip(finding),
    )
