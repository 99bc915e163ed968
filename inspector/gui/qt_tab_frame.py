"""The frame most detail tabs share: a column with a dim one-line summary on top."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from inspector.gui.qt_text import dim, plain_label


def tab_frame(widget: QWidget) -> tuple[QVBoxLayout, QLabel]:
    """Lay a tab out as a column and put a dim plain-text summary line at its top."""
    column = QVBoxLayout(widget)
    column.setContentsMargins(6, 6, 6, 6)
    column.setSpacing(4)
    summary = plain_label("", widget)
    # Reasons quote file names and values: the line wraps rather than widening the window.
    summary.setWordWrap(True)
    dim(summary)
    column.addWidget(summary)
    return column, summary
