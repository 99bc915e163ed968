"""Untrusted text into Qt safely: plain-text labels, escaped tooltips, monospace panels.

Every text set here goes through `visible`, so no invisible or direction-changing character
from a file reaches the screen raw.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontDatabase, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from inspector.gui.json_text import elide, visible

#: Tooltips longer than this are cut; a tooltip is a glance, the panels show everything.
TOOLTIP_LIMIT = 2000


def tooltip(text: str) -> str:
    """Return a tooltip that shows `text` literally (Qt would otherwise guess rich text)."""
    text = visible(elide(text, TOOLTIP_LIMIT), lines=True)
    # Escaped HTML is the only way to pin a tooltip to literal text: Qt sniffs plain strings
    # with mightBeRichText, so `<b>x</b>` from a file would otherwise render bold.
    return f'<p style="white-space:pre-wrap">{html.escape(text, quote=False)}</p>'


def menu_text(text: str) -> str:
    """Return text for a menu entry or button that shows `&` literally (not as a mnemonic)."""
    return visible(text).replace("&", "&&")


def window_title(text: str) -> str:
    """Return a window title that shows `[*]` literally (Qt's modified-marker placeholder)."""
    return visible(text).replace("[*]", "[*][*]")


class PlainLabel(QLabel):
    """A QLabel that shows its text literally: never rich text, invisible characters escaped."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show `text` with its invisible characters escaped."""
        super().setText(visible(text, lines=True))


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """Return a QLabel that never interprets its text as rich text."""
    return PlainLabel(text, parent)


def monospace_font() -> QFont:
    """Return the system fixed-width font."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def dim(widget: QWidget) -> None:
    """Draw a widget's text in the palette's secondary (placeholder) colour."""
    palette = widget.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    widget.setPalette(palette)


class ElidedLabel(PlainLabel):
    """A plain-text label that shrinks to any width and elides its text with '…'."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:
        """Allow the label to shrink to nothing; the text is elided instead."""
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the text elided to the label's width."""
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        if not text:
            return
        painter = QPainter(self)
        if self.isEnabled():
            # What QStyle.drawItemText does for enabled text, without naming QStyle (PySide6
            # builds its eleven enums when it is first named; a label is painted at start-up).
            pen = painter.pen()
            painter.setPen(QPen(self.palette().brush(self.foregroundRole()), pen.widthF()))
            painter.drawText(rect, int(self.alignment()), text)
        else:
            self.style().drawItemText(
                painter, rect, int(self.alignment()), self.palette(), False, text,
                self.foregroundRole(),
            )  # fmt: skip
        painter.end()
