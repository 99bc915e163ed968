"""JSON syntax highlighting: pygments lexes each block; Qt applies cached formats per token type."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter

from inspector.gui import qt_palette

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from pygments.token import _TokenType
    from PySide6.QtGui import QTextCharFormat, QTextDocument

#: Only the first this many characters of a document are highlighted; later blocks are plain.
#: Re-lexing every block of a multi-megabyte text on each change would stall the GUI thread.
HIGHLIGHT_LIMIT = 400_000
#: Only the first this many characters of a block (a line) are lexed; the rest stays plain.
#: pygments on one 200 MB line would take minutes.
BLOCK_LIMIT = 20_000


class JsonHighlighter(QSyntaxHighlighter):
    """Highlights JSON in a QTextDocument using a pygments lexer and style (qtconsole pattern)."""

    def __init__(self, document: QTextDocument, style: str | None = None) -> None:
        super().__init__(document)
        self._lexer: Lexer | None = None
        self._formats: dict[_TokenType, QTextCharFormat] = {}
        self._style_name = style
        self._style: Any = None

    def highlightBlock(self, text: str) -> None:
        """Lex the bounded start of one block and apply the cached format of each token."""
        if not text or self.currentBlock().position() >= HIGHLIGHT_LIMIT:
            return
        if self._lexer is None:
            # pygments is imported with the first text to highlight: empty views at start-up
            # (the window's first paint) never pay for it.
            from pygments.lexers import JsonLexer
            from pygments.styles import get_style_by_name

            self._style = get_style_by_name(self._style_name or qt_palette.syntax_style())
            self._lexer = JsonLexer(stripnl=False, ensurenl=False)
        index = 0
        for token, value in self._lexer.get_tokens(text[:BLOCK_LIMIT]):
            length = len(value)
            fmt = self._format(token)
            if fmt is not None:
                self.setFormat(index, length, fmt)
            index += length

    def _format(self, token: _TokenType) -> QTextCharFormat | None:
        if token in self._formats:
            return self._formats[token]
        style = self._style.style_for_token(token)
        fmt: QTextCharFormat | None = None
        if style["color"] or style["bold"] or style["italic"]:
            from PySide6.QtGui import QTextCharFormat  # its enums are made when first named

            fmt = QTextCharFormat()
            if style["color"]:
                fmt.setForeground(QColor("#" + style["color"]))
            if style["bold"]:
                fmt.setFontWeight(QFont.Weight.Bold)
            if style["italic"]:
                fmt.setFontItalic(True)
        self._formats[token] = fmt  # type: ignore[assignment]
        return fmt
