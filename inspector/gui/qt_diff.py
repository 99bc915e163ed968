"""The Diff tab: the changes of the selected aligned pair, and both items side by side, compared
as JSON by pointer (key order never matters, `id` is never marked, changed strings are marked
word by word; see `json_diff`).

As in a diff tool, the two texts scroll together (line beside matching line), a pair opens at
its first change, and choosing a change in the table brings it into view on both sides.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.diff import Change, Pair
from inspector.core.gate import item_label
from inspector.gui import qt_palette
from inspector.gui.alignment import Alignment
from inspector.gui.json_diff import LineMap, Mark, compare_pair, follow_key_order, locate_nearest
from inspector.gui.json_text import Display, display, preview
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_records import PayloadRole, Record, RecordsModel, records_view
from inspector.gui.qt_text import dim, plain_label
from inspector.gui.qt_transcript_model import change_description

#: Columns of the change table; Left and Right share the rest of the width evenly.
_CHANGE_COLUMNS = ("Change", "Severity", "Pointer", "Left", "Right")
_VALUE_COLUMNS = (3, 4)
#: The widest share of the table one of the narrow columns is fitted to.
_NARROW_SHARE = 0.22
#: Past this many changes the rows keep one line (wrapping measures every row).
_WRAP_ROWS = 300
#: Where a change is put when scrolled to: a third of the way down, with context above it.
_CONTEXT = 3


class DiffView(JsonView):
    """One side's JSON in the Diff tab: marks drawn in their own text colour, and scrolling by
    text line (the scroll bar counts wrapped lines)."""

    def mark_changes(
        self, group: str, spans: Iterable[tuple[int, int]], mark: qt_palette.Mark
    ) -> None:
        """Paint character spans with a mark's fill and text colour (replacing the group)."""
        self.mark_spans(group, spans, mark.background, mark.foreground)

    def top_line(self) -> int:
        """The text line (block) at the top of the view."""
        return self.cursorForPosition(self.viewport().rect().topLeft()).blockNumber()

    def scroll_to_line(self, line: int) -> None:
        """Put a text line at the top of the view."""
        block = self.document().findBlockByNumber(max(line, 0))
        if block.isValid():
            self.verticalScrollBar().setValue(block.firstLineNumber())

    def bring_into_view(self, position: int) -> None:
        """Scroll a character position into view a third of the way down (cursor untouched)."""
        block = self.document().findBlock(position)
        if not block.isValid():
            return
        line = block.firstLineNumber()
        layout = block.layout()
        if layout is not None and layout.lineCount():
            line += layout.lineForTextPosition(position - block.position()).lineNumber()
        shown = self.viewport().height() // max(self.fontMetrics().lineSpacing(), 1)
        self.verticalScrollBar().setValue(max(line - max(shown // _CONTEXT, 1), 0))


class _Side(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.title = plain_label("", self)
        self.title.setWordWrap(True)  # a long caption wraps rather than widening the window
        dim(self.title)
        self.view = DiffView(self)
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
        self.changes = RecordsModel(_CHANGE_COLUMNS, self)
        self.changes_view = records_view(self.changes, split)
        self.changes_view.setObjectName("diff-changes")
        self.changes_view.selectionModel().currentRowChanged.connect(self._change_selected)
        # Left and Right share the width evenly, and a long value wraps rather than being cut.
        table = self.changes_view.horizontalHeader()
        table.setStretchLastSection(False)
        for value_column in _VALUE_COLUMNS:
            table.setSectionResizeMode(value_column, QHeaderView.ResizeMode.Stretch)
        self.changes_view.setWordWrap(True)
        self.changes_view.setTextElideMode(Qt.TextElideMode.ElideNone)
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
        #: Which line of one text stands beside which of the other (None: nothing to match).
        self.lines: LineMap | None = None
        self._scrolling = False
        for side in (self.left, self.right):
            side.view.verticalScrollBar().valueChanged.connect(
                lambda _value, side=side: self._scrolled(side)
            )
        self.show_pair(None, None)

    # ---- scrolling together ---------------------------------------------------------------

    def _scrolled(self, side: _Side) -> None:
        """Bring the other text to the line beside this one's top line."""
        if self._scrolling or self.lines is None:
            return
        top = side.view.top_line()
        other = self.right if side is self.left else self.left
        line = self.lines.to_right(top) if side is self.left else self.lines.to_left(top)
        self._scrolling = True
        try:
            other.view.scroll_to_line(line)
        finally:
            self._scrolling = False

    def _show_positions(self, left: int | None, right: int | None) -> None:
        """Scroll each text to its own position (each side's mark of the same change)."""
        self._scrolling = True
        try:
            for side, position in ((self.left, left), (self.right, right)):
                if position is not None:
                    side.view.bring_into_view(position)
                else:
                    side.view.scroll_to_line(0)
        finally:
            self._scrolling = False
        # A side with nothing of its own to show follows the other, line beside line.
        if left is None and right is not None:
            self._scrolled(self.right)
        elif right is None and left is not None:
            self._scrolled(self.left)

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
            self.lines = None
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
        self._fit_table()
        lshown = display(litem.raw) if litem is not None else Display("")
        rraw = ritem.raw if ritem is not None else None
        if litem is not None and ritem is not None:
            # Keys in the left's order, so the two items line up; order is never a change.
            rraw = follow_key_order(ritem.raw, litem.raw)
        rshown = display(rraw) if ritem is not None else Display("")
        self._scrolling = True  # the texts are replaced: nothing to follow until both are in
        try:
            self._fill(self.left, diff.left.transcript.path, litem is not None, lshown)
            self._fill(self.right, diff.right.transcript.path, ritem is not None, rshown)
        finally:
            self._scrolling = False
        self.lines = LineMap.of(lshown.text, rshown.text) if litem and ritem else None
        first: tuple[int | None, int | None] = (None, None)
        if litem is not None and ritem is not None:
            marks = compare_pair(litem.raw, ritem.raw, lshown.text, rshown.text, pair.changes)
            self._paint(self.left, marks.left)
            self._paint(self.right, marks.right)
            self.marked = len(marks.pointers) - marks.unmarked
            if marks.unmarked:
                self.title.setText(
                    f"{self.title.text()}   {marks.unmarked} more differing values not marked"
                )
            # The pair opens at its first change, on both sides.
            first = (_first(marks.left), _first(marks.right))
        self._show_positions(*first)

    def _fit_table(self) -> None:
        """Fit the narrow columns to their content; Left and Right share the rest evenly."""
        view = self.changes_view
        cap = max(int(view.viewport().width() * _NARROW_SHARE), 120)
        for column in range(len(_CHANGE_COLUMNS)):
            if column not in _VALUE_COLUMNS:
                wanted = max(
                    view.sizeHintForColumn(column),
                    view.horizontalHeader().sectionSizeHint(column),
                )
                view.setColumnWidth(column, min(wanted, cap))
        rows = view.verticalHeader()
        wrap = self.changes.rowCount() <= _WRAP_ROWS
        view.setWordWrap(wrap)
        rows.setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents if wrap else QHeaderView.ResizeMode.Fixed
        )

    @staticmethod
    def _paint(side: _Side, marks: tuple[Mark, ...]) -> None:
        """Paint each mark in the colour of the core change that covers it (info: unpainted)."""
        groups: dict[qt_palette.ChangeLevel, list[tuple[int, int]]] = {}
        for mark in marks:
            level = qt_palette.change_level(mark.code, mark.severity)
            groups.setdefault(level, []).append((mark.start, mark.end))
        for level, spans in groups.items():
            painted = qt_palette.mark(level)
            if painted is not None:
                side.view.mark_changes(f"diff-{level}", spans, painted)

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
        level = qt_palette.change_level(change.code, change.severity)
        painted = qt_palette.mark(level) or qt_palette.mark(qt_palette.ChangeLevel.MINOR)
        assert painted is not None
        starts: list[int | None] = []
        self._scrolling = True
        try:
            for side in (self.left, self.right):
                # A pointer into parsed arguments marks the `arguments` string that holds it.
                span = locate_nearest(side.view.toPlainText(), change.pointer)
                starts.append(span[0] if span is not None else None)
                if span is None:
                    side.view.clear_marks("pointer")
                    continue
                side.view.mark_changes("pointer", [span], painted)
                side.view.select_span(*span)
        finally:
            self._scrolling = False
        self._show_positions(*starts)


def _first(marks: tuple[Mark, ...]) -> int | None:
    """Where the first mark of a text starts (None: no marks)."""
    return min((m.start for m in marks), default=None)
