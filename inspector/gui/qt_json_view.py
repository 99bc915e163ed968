"""A highlighted JSON text panel that can mark spans (a pointer's value) and whole lines."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QPlainTextEdit, QWidget

from inspector.gui.json_text import locate, visible
from inspector.gui.qt_text import monospace_font

if TYPE_CHECKING:  # the text classes' enums are made when first named: with the first marks
    from PySide6.QtGui import QBrush, QColor
    from PySide6.QtWidgets import QTextEdit

    from inspector.gui.qt_highlight import JsonHighlighter


class JsonView(QPlainTextEdit):
    """Plain-text JSON with pygments highlighting and named groups of marks."""

    def __init__(self, parent: QWidget | None = None, *, read_only: bool = True) -> None:
        super().__init__(parent)
        self.setReadOnly(read_only)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabChangesFocus(read_only)
        self.highlighter: JsonHighlighter | None = None
        if not read_only:  # typed into: highlighted from the first key
            self._highlight()
        self._marks: dict[str, list[QTextEdit.ExtraSelection]] = {}

    def set_text(self, text: str) -> None:
        """Replace the text and drop every mark; invisible characters show as JSON escapes.

        Inside JSON strings an escape is the same value, so an editor's text still parses to
        what the file holds.
        """
        if self._marks:
            self._marks.clear()
            self._apply()
        if text:
            self._highlight()
        self.setPlainText(visible(text, lines=True))

    def _highlight(self) -> None:
        # A read-only view takes its monospace font, tab stops and highlighter with its first
        # text: the empty Item tab painted at start-up shows no text, so it makes no highlighter
        # and names neither QFontDatabase nor the Qt classes behind them.
        if self.highlighter is None:
            from inspector.gui.qt_highlight import JsonHighlighter

            self.setFont(monospace_font())
            self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 2)
            self.highlighter = JsonHighlighter(self.document())

    def clear_marks(self, group: str) -> None:
        """Remove one group of marks."""
        self._marks.pop(group, None)
        self._apply()

    def marks(self, group: str) -> list[QTextEdit.ExtraSelection]:
        """The marks of one group (empty when it has none)."""
        return list(self._marks.get(group, ()))

    def mark_spans(
        self,
        group: str,
        spans: Iterable[tuple[int, int]],
        brush: QBrush,
        foreground: QBrush | None = None,
        *,
        underline: QColor | None = None,
    ) -> None:
        """Give character spans a background, and a text colour and a wavy underline in
        `underline` if given (replacing the group's earlier marks)."""
        from PySide6.QtGui import QTextCharFormat, QTextCursor
        from PySide6.QtWidgets import QTextEdit

        marks = []
        for start, end in spans:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(brush)
            if foreground is not None:
                fmt.setForeground(foreground)
            if underline is not None:
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(underline)
            selection.cursor = cursor
            selection.format = fmt
            marks.append(selection)
        self._marks[group] = marks
        self._apply()

    def mark_lines(self, group: str, lines: Iterable[int], brush: QBrush) -> None:
        """Give whole lines (0-based block numbers) a full-width background."""
        from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextFormat
        from PySide6.QtWidgets import QTextEdit

        marks = []
        document = self.document()
        for line in lines:
            block = document.findBlockByNumber(line)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setBackground(brush)
            fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
            cursor = QTextCursor(block)
            selection.cursor = cursor
            selection.format = fmt
            marks.append(selection)
        self._marks[group] = marks
        self._apply()

    def _apply(self) -> None:
        self.setExtraSelections([m for group in self._marks.values() for m in group])

    def select_span(self, start: int, end: int) -> None:
        """Select a span and scroll it into view."""
        from PySide6.QtGui import QTextCursor

        cursor = self.textCursor()
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def show_pointer(self, pointer: str, group: str, brush: QBrush) -> tuple[int, int] | None:
        """Mark and select the value a JSON Pointer names in the text; return its span."""
        span = locate(self.toPlainText(), pointer)
        if span is None:
            self.clear_marks(group)
            return None
        self.mark_spans(group, [span], brush)
        self.select_span(*span)
        return span

    def position_of(self, line: int, column: int) -> int | None:
        """The text offset of a 1-based line and column (None past the last line)."""
        block = self.document().findBlockByNumber(max(line - 1, 0))
        if not block.isValid():
            return None
        return block.position() + min(max(column - 1, 0), max(block.length() - 1, 0))

    def mark_position(
        self, line: int, column: int, group: str, brush: QBrush, underline: QColor | None = None
    ) -> int | None:
        """Mark the character at a 1-based line and column, leaving the cursor where it is (an
        automatic re-check must not move what the user is typing); return its offset."""
        start = self.position_of(line, column)
        if start is None:
            return None
        # At the end of the text the mark covers the last character, so that it shows.
        end = min(start + 1, self.document().characterCount() - 1)
        begin = min(start, max(end - 1, 0))
        self.mark_spans(group, [(begin, max(end, begin + 1))], brush, underline=underline)
        return start

    def show_position(self, line: int, column: int, group: str, brush: QBrush) -> None:
        """Mark and move to a 1-based line and column (a parse error row the user chose)."""
        start = self.mark_position(line, column, group, brush)
        if start is None:
            return
        cursor = self.textCursor()
        cursor.setPosition(start)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()
