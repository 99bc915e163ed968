"""Untrusted text into Qt safely: plain-text labels, escaped tooltips, monospace panels.

Every text set here goes through `visible`, so no invisible or direction-changing character
from a file reaches the screen raw.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QFont, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from inspector.gui.enum_values import AlignmentFlag, TextFormat
from inspector.gui.json_text import elide, visible

#: Tooltips longer than this are cut; a tooltip is a glance, the panels show everything.
TOOLTIP_LIMIT = 2000


def tooltip(text: str) -> str:
    """Return a tooltip that shows `text` literally (Qt would otherwise guess rich text)."""
    text = visible(elide(text, TOOLTIP_LIMIT), lines=True)
    # Escaped HTML is the only way to pin a tooltip to literal text: Qt sniffs plain strings
    # with mightBeRichText, so `<b>x</b>` from a file would otherwise render bold.
    return f'<p style="white-space:pre-wrap">{escape_html(text)}</p>'


def escape_html(text: str) -> str:
    """Return `text` with &, < and > escaped: what html.escape(text, quote=False) returns.

    Its three replacements, written here: importing the html package (its entity table and a
    regular expression) would cost the window's start about 10 M instructions (callgrind).
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def menu_text(text: str) -> str:
    """Return text for a menu entry or button that shows `&` literally (not as a mnemonic)."""
    return visible(text).replace("&", "&&")


def window_title(text: str) -> str:
    """Return a window title that shows `[*]` literally (Qt's modified-marker placeholder)."""
    return visible(text).replace("[*]", "[*][*]")


class PlainLabel(QLabel):
    """A QLabel that shows its text literally: never rich text, invisible characters escaped.

    Its text format and alignment are set through Qt properties, with ints: the setters taking
    Qt's enums would make PySide6 build the whole `Qt` namespace (see enum_values).
    """

    #: The alignment as an int (QLabel's default until `set_alignment`).
    alignment_flags = AlignmentFlag.AlignLeft | AlignmentFlag.AlignVCenter

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("textFormat", TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        """Show `text` with its invisible characters escaped."""
        super().setText(visible(text, lines=True))

    def set_alignment(self, flags: int) -> None:
        """Align the text (Qt.AlignmentFlag values as an int)."""
        self.setProperty("alignment", flags)
        self.alignment_flags = flags

    def setAlignment(self, alignment: object) -> None:
        """Align the text as `set_alignment` does (given Qt.AlignmentFlag values)."""
        self.set_alignment(int(alignment))  # type: ignore[call-overload]


class PointingHand(QObject):
    """Gives a widget that acts as a link the pointing-hand cursor as the mouse first enters it.

    A QCursor of that shape is made of a Qt.CursorShape, and the window's first frame names no
    enum of the `Qt` namespace (see enum_values): a cursor is not part of the frame.
    """

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """On the first enter event, set the cursor (Qt shows it at once) and stop watching."""
        if event.type() == QEvent.Type.Enter and isinstance(watched, QWidget):
            from PySide6.QtCore import Qt

            watched.removeEventFilter(self)
            watched.setCursor(Qt.CursorShape.PointingHandCursor)
        return False


def plain_label(text: str = "", parent: QWidget | None = None) -> PlainLabel:
    """Return a QLabel that never interprets its text as rich text."""
    return PlainLabel(text, parent)


def monospace_font() -> QFont:
    """Return the system fixed-width font."""
    from PySide6.QtGui import QFontDatabase  # the first frame shows no monospace text

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
        text = self.text()
        # A text narrower than the label is what elidedText returns: its width rounded is
        # below the label's, so unrounded it fits too. Only a longer one names Qt's elide mode
        # (and with it the `Qt` namespace, which the labels of a start-up need not build).
        if text and not self.fontMetrics().horizontalAdvance(text) < rect.width():
            from PySide6.QtCore import Qt

            text = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        if not text:
            return
        painter = QPainter(self)
        if self.isEnabled():
            # What QStyle.drawItemText does for enabled text, without naming QStyle (PySide6
            # builds its eleven enums when it is first named; a label is painted at start-up).
            # Its pen, QPen(the palette's foreground brush, 1), is the one a painter begun on a
            # widget starts with; setting it would name Qt.PenStyle (QPainter.setPen's first
            # overload), and with it the `Qt` namespace.
            painter.drawText(rect, self.alignment_flags, text)
        else:
            self.style().drawItemText(
                painter, rect, self.alignment_flags, self.palette(), False, text,
                self.foregroundRole(),
            )  # fmt: skip
        painter.end()
