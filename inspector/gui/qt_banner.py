"""A one-line verdict banner: icon, the verdict word in its colour, and the gate's reason."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from inspector.core.verdicts import Verdict
from inspector.gui import qt_palette
from inspector.gui.qt_text import ElidedLabel, plain_label, tooltip


class VerdictBanner(QWidget):
    """Shows a verdict as icon + coloured word + detail; colour is never the only signal."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.icon = QLabel(self)
        self.word = plain_label("", self)
        font = self.word.font()
        font.setBold(True)
        self.word.setFont(font)
        self.detail = ElidedLabel("", self)
        row.addWidget(self.icon)
        row.addWidget(self.word)
        row.addWidget(self.detail, 1)

    @property
    def verdict_text(self) -> str:
        """The verdict word shown."""
        return self.word.text()

    def show_verdict(self, verdict: Verdict | None, detail: str) -> None:
        """Show a verdict (None: only the detail, e.g. a hint)."""
        if verdict is None:
            self.icon.clear()
            self.word.setText("")
        else:
            swatch = qt_palette.verdict_swatch(verdict)
            self.icon.setPixmap(qt_palette.pixmap(swatch.icon, 16))
            self.word.setText(str(verdict))
            palette = self.word.palette()
            palette.setBrush(QPalette.ColorRole.WindowText, swatch.foreground)
            self.word.setPalette(palette)
            self.word.setToolTip(tooltip(swatch.meaning))
        self.detail.setText(detail)
        self.detail.setToolTip(tooltip(detail) if detail else "")
