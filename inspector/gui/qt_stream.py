"""The Stream tab: a recorded stream's event timeline beside the core's lifecycle violations."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSplitter, QVBoxLayout, QWidget

from inspector.core.stream import StreamEvent, StreamResult, Violation
from inspector.gui import qt_palette
from inspector.gui.json_text import preview, visible
from inspector.gui.qt_records import (
    LazyRecords,
    PayloadRole,
    Record,
    RecordsModel,
    fit_columns,
    records_view,
)
from inspector.gui.qt_text import dim, plain_label

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_NO_STREAM = "Open a recorded stream (.sse or JSONL events) to see its timeline."


@dataclass(frozen=True, slots=True)
class StreamView:
    """What the tab shows for one file: the core's result and its decoded events."""

    path: str
    result: StreamResult
    events: Sequence[StreamEvent]


def _event_type(event: StreamEvent) -> str:
    data = event.data
    if event.done:
        return "[DONE]"
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return data["type"]
    return event.name or "(no type)"


def _event_detail(event: StreamEvent) -> str:
    data = event.data
    if event.parse_error is not None:
        return f"data is not JSON: {event.parse_error}"
    if not isinstance(data, dict):
        return preview(data, 100) if data is not None else ""
    for key in ("delta", "arguments", "text"):
        if isinstance(data.get(key), str):
            return f"{key} {preview(data[key], 100)}"
    item = data.get("item")
    if isinstance(item, dict):
        bits = [str(item.get(k)) for k in ("type", "name", "status") if item.get(k) is not None]
        return "item " + " ".join(bits)
    response = data.get("response")
    if isinstance(response, dict):
        return f"response status {response.get('status')}"
    return ""


class StreamPanel(QWidget):
    """Timeline of events (violations marked on their event) and the violations table."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._views: dict[str, StreamView] = {}
        self._by_event: dict[int, list[Violation]] = {}
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        top = QHBoxLayout()
        self.side_combo = QComboBox(self)
        self.side_combo.currentIndexChanged.connect(self._side_picked)
        self.summary = plain_label("", self)
        top.addWidget(self.side_combo)
        top.addWidget(self.summary, 1)
        column.addLayout(top)
        self.hint = plain_label(_NO_STREAM, self)
        dim(self.hint)
        column.addWidget(self.hint)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        self.timeline = RecordsModel(("#", "Line", "seq", "Event", "Detail", "Violations"), self)
        self.timeline_view = records_view(self.timeline, split)
        self.timeline_view.setObjectName("stream-timeline")
        self.violations = RecordsModel(("Severity", "Code", "Event", "seq", "Line", "Message"))
        self.violations_view = records_view(self.violations, split)
        self.violations_view.setObjectName("stream-violations")
        self.violations_view.selectionModel().currentRowChanged.connect(self._violation_picked)
        split.addWidget(self.timeline_view)
        split.addWidget(self.violations_view)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        column.addWidget(split, 1)
        self.set_streams({})

    @property
    def has_streams(self) -> bool:
        """Whether any side is a stream."""
        return bool(self._views)

    def set_streams(self, views: dict[str, StreamView]) -> None:
        """Show the streams of the sides that are streams ('left', 'right')."""
        self._views = dict(views)
        blocked = self.side_combo.blockSignals(True)
        self.side_combo.clear()
        for side, view in self._views.items():
            self.side_combo.addItem(visible(f"{side.title()}: {os.path.basename(view.path)}"), side)
        self.side_combo.blockSignals(blocked)
        self.side_combo.setVisible(bool(self._views))
        self.hint.setText(_NO_STREAM)
        self.hint.setVisible(not self._views)
        self._side_picked(0)

    @property
    def side(self) -> str | None:
        """The side whose stream is shown (None when none is)."""
        side = self.side_combo.currentData()
        return side if isinstance(side, str) and side in self._views else None

    def show_side(self, side: str) -> None:
        """Follow the selected side: show its stream, or say that it is not a stream."""
        at = self.side_combo.findData(side)
        if at >= 0:
            self.hint.setVisible(False)
            if at != self.side_combo.currentIndex():
                self.side_combo.setCurrentIndex(at)
            return
        if not self._views:
            return  # the hint already says to open a stream
        self.side_combo.setCurrentIndex(-1)
        self.hint.setText(
            f"The {side} file is not a recorded stream; pick a stream above to see its timeline."
        )
        self.hint.setVisible(True)

    def _side_picked(self, _index: int) -> None:
        side = self.side_combo.currentData()
        view = self._views.get(side) if isinstance(side, str) else None
        if view is None:
            self.summary.setText("")
            self._by_event = {}
            self.timeline.set_records([])
            self.violations.set_records([])
            return
        self.hint.setVisible(False)
        result = view.result
        counts = ", ".join(
            f"{result.count(s)} {s}{'s' if result.count(s) != 1 else ''}"  # type: ignore[arg-type]
            for s in ("error", "warning", "info")
        )
        responses = len(result.responses)
        left_out = ""
        if result.left_out:
            codes = ", ".join(f"{c} {n:,}" for c, n in list(result.left_out_by_code().items())[:5])
            left_out = (
                f"; {len(result.violations):,} listed, … and {result.left_out:,} more "
                f"counted ({codes})"
            )
        self.summary.setText(
            f"{result.events} events, {responses} response{'s' if responses != 1 else ''}, "
            f"status {result.status}; {counts}{left_out}"
        )
        by_event: dict[int, list[Violation]] = defaultdict(list)
        for violation in result.violations:
            if violation.event_index is not None:
                by_event[violation.event_index].append(violation)
        self._by_event = dict(by_event)
        events = view.events
        self.timeline.set_records(
            LazyRecords(len(events), lambda row: self._event_record(events[row]))
        )
        ordered = sorted(
            result.violations,
            key=lambda v: (
                v.event_index if v.event_index is not None else -1,
                _SEVERITY_ORDER.get(str(v.severity), 3),
            ),
        )
        self.violations.set_records([self._violation_record(v) for v in ordered])
        fit_columns(self.timeline_view, stretch=4)  # the detail
        fit_columns(self.violations_view)

    def _event_record(self, event: StreamEvent) -> Record:
        found = self._by_event.get(event.index, [])
        data: Any = event.data
        seq = data.get("sequence_number") if isinstance(data, dict) else None
        worst = min(found, key=lambda v: _SEVERITY_ORDER.get(str(v.severity), 3), default=None)
        swatch = qt_palette.severity_swatch(str(worst.severity)) if worst is not None else None
        return Record(
            (
                str(event.index),
                "" if event.line is None else str(event.line),
                "" if seq is None else preview(seq, 12),
                _event_type(event),
                _event_detail(event),
                ", ".join(v.code for v in found),
            ),
            payload=event,
            icon=swatch.icon if swatch is not None else None,
            icon_column=5,
            foreground=swatch.foreground if swatch is not None else None,
            tip="\n".join(v.message for v in found) or _event_detail(event),
        )

    @staticmethod
    def _violation_record(violation: Violation) -> Record:
        swatch = qt_palette.severity_swatch(str(violation.severity))

        def text(value: int | None) -> str:
            return "" if value is None else str(value)

        return Record(
            (
                str(violation.severity),
                violation.code,
                text(violation.event_index),
                text(violation.sequence_number),
                text(violation.line),
                violation.message,
            ),
            payload=violation,
            icon=swatch.icon,
            foreground=swatch.foreground,
        )

    def _violation_picked(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        violation = self.violations.index(current.row(), 0).data(PayloadRole)
        if not isinstance(violation, Violation) or violation.event_index is None:
            return
        index = self.timeline.index(violation.event_index, 0)
        if index.isValid():
            self.timeline_view.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.timeline_view.scrollTo(index)
