"""The dialog an unexpected exception is shown in (imported when one happens: naming
QDialog and QDialogButtonBox makes PySide6 build their enums, which a start-up never needs)."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from inspector.gui.qt_text import monospace_font, plain_label


class BugDialog(QDialog):
    """Shows an unexpected exception's traceback as plain text."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replay Inspector — unexpected error")
        self.resize(760, 420)
        column = QVBoxLayout(self)
        column.addWidget(
            plain_label(
                "Something went wrong inside Replay Inspector. This is a bug, not a problem "
                "with your file; the details below help to fix it.",
                self,
            )
        )
        view = QPlainTextEdit(self)
        view.setReadOnly(True)
        view.setFont(monospace_font())
        view.setPlainText(text)
        view.setObjectName("traceback")
        column.addWidget(view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(text))
        column.addWidget(buttons)
