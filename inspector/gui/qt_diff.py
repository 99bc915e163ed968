"""The Diff tab: the changes of the selected aligned pair, and both items side by side, compared
as JSON by pointer (key order never matters, `id` is never marked, changed strings are marked
word by word; see `json_diff`)."""

from __future__ import annotations

import os

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QVBoxLayout, QWidget

from inspector.core.diff import Change, Pair
from inspector.core.gate import item_label
from inspector.gui import qt_palette
from inspector.gui.alignment import Alignment
from inspector.gui.json_diff import Mark, compare_pair, follow_key_order, locate_nearest
from inspector.gui.json_text import Display, display, preview
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_records import PayloadRole, Record, RecordsModel, fit_columns, records_view
from inspector.gui.qt_text import dim, plain_label
from inspector.gui.qt_transcript_model import change_description


class _Side(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.title = plain_label("", self)
        self.title.setWordWrap(True)  # a long caption wraps rather than widening the window
        dim(self.title)
        self.view = JsonView(self)
        # Long lines wrap: a changed word far right in a long string must be seen.
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        column.addWidget(self.title)
        column.addWidget(self.view, 1)


class DiffPanel(QWidget):
    """Changes of one pair (table) above the two items' JSON with differing values marked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._alignment: Alignment | None = None
        self._pair: Pair | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.title = plain_label("", self)
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        column.addWidget(self.title)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.setChildrenCollapsible(False)
        self.changes = RecordsModel(("Change", "Severity", "Pointer", "Left", "Right"), self)
        self.changes_view = records_view(self.changes, split)
        self.changes_view.setObjectName("diff-changes")
        self.changes_view.selectionModel().currentRowChanged.connect(self._change_selected)
        sides = QSplitter(Qt.Orientation.Horizontal, split)
        sides.setChildrenCollapsible(False)
        self.left = _Side(sides)
        self.right = _Side(sides)
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        split.addWidget(self.changes_view)
        split.addWidget(sides)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setObjectName("diff-split")
        # The handle resizes the table; it keeps room for a few rows whatever the window size.
        self.changes_view.setMinimumHeight(
            4 * self.changes_view.verticalHeader().defaultSectionSize()
        )
        self.splitter = split
        column.addWidget(split, 1)
        self.show_pair(None, None)

    def show_pair(self, alignment: Alignment | None, pair: Pair | None) -> None:
        """Show one aligned pair (None: a hint)."""
        self._alignment = alignment
        self._pair = pair
        #: How many differing values the two texts mark (the JSON-by-pointer comparison).
        self.marked = 0
        if alignment is None or pair is None:
            self.title.setText(
                "Open two transcripts to compare them; select an item to see its pair."
                if alignment is None
                else "Select an item to see how it differs from its counterpart."
            )
            self.changes.set_records([])
            for side in (self.left, self.right):
                side.title.setText("")
                side.view.set_text("")
            return
        diff = alignment.diff
        litem = diff.left.transcript.items[pair.left] if pair.left is not None else None
        ritem = diff.right.transcript.items[pair.right] if pair.right is not None else None
        lname = item_label(litem) if litem is not None else "—"
        rname = item_label(ritem) if ritem is not None else "—"
        state = "changed" if pair.changed else ("informational changes" if pair.changes else "same")
        count = len(pair.changes)
        self.title.setText(
            f"left {lname}  ↔  right {rname}   ({state}; {count} change{'s' if count != 1 else ''})"
            "   compared by JSON Pointer: key order and id never count"
        )
        self.changes.set_records([self._record(c) for c in pair.changes])
        fit_columns(self.changes_view)
        lshown = display(litem.raw) if litem is not None else Display("")
        rraw = ritem.raw if ritem is not None else None
        if litem is not None and ritem is not None:
            # Keys in the left's order, so the two items line up; order is never a change.
            rraw = follow_key_order(ritem.raw, litem.raw)
        rshown = display(rraw) if ritem is not None else Display("")
        self._fill(self.left, diff.left.transcript.path, litem is not None, lshown)
        self._fill(self.right, diff.right.transcript.path, ritem is not None, rshown)
        if litem is not None and ritem is not None:
            marks = compare_pair(litem.raw, ritem.raw, lshown.text, rshown.text, pair.changes)
            self._paint(self.left, marks.left)
            self._paint(self.right, marks.right)
            self.marked = len(marks.pointers) - marks.unmarked
            if marks.unmarked:
                self.title.setText(
                    f"{self.title.text()}   {marks.unmarked} more differing values not marked"
                )

    @staticmethod
    def _paint(side: _Side, marks: tuple[Mark, ...]) -> None:
        """Paint each mark in the colour of the core change that covers it (info: unpainted)."""
        groups: dict[qt_palette.ChangeLevel, list[tuple[int, int]]] = {}
        for mark in marks:
            level = qt_palette.change_level(mark.code, mark.severity)
            groups.setdefault(level, []).append((mark.start, mark.end))
        for level, spans in groups.items():
            brush = qt_palette.change_swatch(level).background
            if brush is not None:
                side.view.mark_spans(f"diff-{level}", spans, brush)

    @staticmethod
    def _fill(side: _Side, path: str | None, present: bool, shown: Display) -> None:
        name = os.path.basename(path) if path else "(pasted)"
        if not present:
            name += ": no counterpart for this item"
        elif not shown.complete:
            # Lines are compared as shown; the changes table above compares the full values.
            name += "  (long strings shortened; compared in full in the table)"
        side.title.setText(name)
        side.view.set_text(shown.text)

    @staticmethod
    def _record(change: Change) -> Record:
        level = qt_palette.change_level(change.code, change.severity)
        swatch = qt_palette.change_swatch(level)
        return Record(
            (
                change.code,
                str(change.severity),
                change.pointer or "/",
                preview(change.left, 120),
                preview(change.right, 120),
            ),
            payload=change,
            icon=swatch.icon,
            foreground=swatch.foreground,
            tip=change_description(change),
        )

    def _change_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        change = self.changes.index(current.row(), 0).data(PayloadRole)
        if not isinstance(change, Change):
            return
        brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MAJOR).background
        if brush is None:
            return
        for side in (self.left, self.right):
            # A pointer into parsed arguments marks the `arguments` string that holds it.
            span = locate_nearest(side.view.toPlainText(), change.pointer)
            if span is None:
                side.view.clear_marks("pointer")
                continue
            side.view.mark_spans("pointer", [span], brush)
            side.view.select_span(*span)
