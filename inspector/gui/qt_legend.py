"""The legend strip: every verdict and change marker with its icon, word and meaning."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QWidget,
)

from inspector.gui import qt_palette
from inspector.gui.qt_text import plain_label, tooltip

_CHANGE_WORDS = {
    qt_palette.ChangeLevel.MAJOR: "TYPE / CALL_ID changed",
    qt_palette.ChangeLevel.MINOR: "field changed",
    qt_palette.ChangeLevel.INFO: "reformatted",
}


class FlowLayout(QLayout):
    """Lays its items out left to right and wraps them onto more lines when the width is short.

    Its height follows its width (heightForWidth), so a parent layout gives it the lines it
    needs and the window never has to widen for it. It does not override expandingDirections:
    returning a Qt.Orientation would build the whole `Qt` namespace (enum_values) with the
    first layout; the legend is laid out beside a stretching sibling, which takes the rest.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 10) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing

    def addItem(self, item: QLayoutItem) -> None:
        """Append an item (Qt calls this for addWidget)."""
        self._items.append(item)

    def count(self) -> int:
        """Number of items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        """The item at an index (None past the end)."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        """Remove and return the item at an index."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def hasHeightForWidth(self) -> bool:
        """The height depends on the width (the lines wrap)."""
        return True

    def heightForWidth(self, width: int) -> int:
        """The height the items take when laid out in `width`."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items in `rect`, wrapping as needed."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        """One line holding every item."""
        margins = self.contentsMargins()
        width = sum(i.sizeHint().width() for i in self._items)
        width += self._gap * max(len(self._items) - 1, 0) + margins.left() + margins.right()
        height = max((i.sizeHint().height() for i in self._items), default=0)
        return QSize(width, height + margins.top() + margins.bottom())

    def minimumSize(self) -> QSize:
        """The widest single item: any width above it wraps."""
        margins = self.contentsMargins()
        width = max((i.minimumSize().width() for i in self._items), default=0)
        height = max((i.minimumSize().height() for i in self._items), default=0)
        return QSize(
            width + margins.left() + margins.right(), height + margins.top() + margins.bottom()
        )

    def lines(self) -> int:
        """How many lines the items take at the current width."""
        tops = {item.geometry().top() for item in self._items if not item.isEmpty()}
        return len(tops)

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():
                continue
            size = item.sizeHint()
            if x > area.x() and x + size.width() > area.right() + 1:
                x, y, line = area.x(), y + line + self._gap // 2, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), size))
            x += size.width() + self._gap
            line = max(line, size.height())
        return y + line - rect.y() + margins.bottom()


class Legend(QFrame):
    """A key to the icons and colours used in the trees; it wraps onto a second line rather
    than being cut when the window is narrow."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.flow = FlowLayout(self)
        self.flow.setContentsMargins(2, 1, 2, 1)
        for verdict in qt_palette.all_verdicts():
            swatch = qt_palette.verdict_swatch(verdict)
            self.flow.addWidget(self._entry(swatch, str(verdict), swatch.meaning))
        bar = QFrame(self)
        bar.setFrameShape(QFrame.Shape.VLine)
        bar.setFrameShadow(QFrame.Shadow.Sunken)
        self.flow.addWidget(bar)
        for level, word in _CHANGE_WORDS.items():
            swatch = qt_palette.change_swatch(level)
            self.flow.addWidget(self._entry(swatch, word, swatch.meaning))
        gap = qt_palette.gap_swatch()
        self.flow.addWidget(
            self._entry(gap, "no counterpart", "Aligned mode: the other file has no item here.")
        )
        target = qt_palette.target_swatch("error")
        self.flow.addWidget(self._entry(target, "target rejects", target.meaning))

    def _entry(self, swatch: qt_palette.Swatch, word: str, meaning: str) -> QWidget:
        entry = QWidget(self)
        entry.setToolTip(tooltip(meaning))
        layout = QHBoxLayout(entry)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        icon = QLabel(entry)
        icon.setPixmap(qt_palette.pixmap(swatch.icon, 14))
        text = plain_label(word, entry)
        layout.addWidget(icon)
        layout.addWidget(text)
        return entry
