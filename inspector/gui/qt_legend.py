"""The legend strip: every verdict and change marker with its icon, word and meaning."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QWidget

from inspector.gui import qt_palette
from inspector.gui.qt_text import plain_label, tooltip

_CHANGE_WORDS = {
    qt_palette.ChangeLevel.MAJOR: "TYPE / CALL_ID changed",
    qt_palette.ChangeLevel.MINOR: "field changed",
    qt_palette.ChangeLevel.INFO: "reformatted",
}


class Legend(QFrame):
    """A one-line key to the icons and colours used in the trees."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        row = QHBoxLayout(self)
        row.setContentsMargins(2, 1, 2, 1)
        row.setSpacing(10)
        # The legend must never make the window wider: past its width it is simply cut.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        for verdict in qt_palette.all_verdicts():
            swatch = qt_palette.verdict_swatch(verdict)
            row.addWidget(self._entry(swatch, str(verdict), swatch.meaning))
        bar = QFrame(self)
        bar.setFrameShape(QFrame.Shape.VLine)
        bar.setFrameShadow(QFrame.Shadow.Sunken)
        row.addWidget(bar)
        for level, word in _CHANGE_WORDS.items():
            swatch = qt_palette.change_swatch(level)
            row.addWidget(self._entry(swatch, word, swatch.meaning))
        gap = qt_palette.gap_swatch()
        row.addWidget(
            self._entry(gap, "no counterpart", "Aligned mode: the other file has no item here.")
        )
        row.addStretch(1)

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
