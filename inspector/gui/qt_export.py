"""File → Export Report…: the dialog (format, redaction, file) and the atomic write (QSaveFile)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import QIODevice, QSaveFile, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from inspector.gui.export import FORMATS, clashing_input, with_suffix
from inspector.gui.qt_settings import Settings
from inspector.gui.qt_text import dim, plain_label


def write_file(path: str, text: str) -> str | None:
    """Write UTF-8 text atomically (QSaveFile: a failed write leaves the old file as it was).

    Returns None when written, else the reason it was not.
    """
    target = QSaveFile(path)
    if not target.open(QIODevice.OpenModeFlag.WriteOnly):
        return target.errorString() or "cannot open the file for writing"
    data = text.encode("utf-8")
    if target.write(data) != len(data):
        reason = target.errorString()
        target.cancelWriting()
        return reason or "the write was cut short"
    if not target.commit():
        return target.errorString() or "cannot replace the file"
    return None


class ExportDialog(QDialog):
    """Asks for the report's format, whether to redact secrets (on by default) and its file."""

    def __init__(
        self,
        inputs: Sequence[str | None],
        folder: str,
        stem: str,
        what: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export Report")
        self._inputs = [p for p in inputs if p]
        self._folder = folder
        column = QVBoxLayout(self)
        about = plain_label(what, self)
        about.setWordWrap(True)
        column.addWidget(about)
        self.format_group = QButtonGroup(self)
        self.format_buttons: dict[str, QRadioButton] = {}
        for number, (name, fmt) in enumerate(FORMATS.items()):
            button = QRadioButton(fmt.title, self)
            self.format_group.addButton(button, number)
            self.format_buttons[name] = button
            column.addWidget(button)
        self.format_buttons["html"].setChecked(True)
        self.format_group.idToggled.connect(lambda _id, on: self._format_changed() if on else None)
        self.redact_box = QCheckBox(
            "Redact secrets (API keys, tokens, JWTs, private keys, Authorization values)", self
        )
        self.redact_box.setChecked(True)
        column.addWidget(self.redact_box)
        redact_note = plain_label(
            "Each one becomes [redacted:<kind>]; the report says how many were redacted, or "
            "that redaction was off.",
            self,
        )
        redact_note.setWordWrap(True)
        dim(redact_note)
        column.addWidget(redact_note)
        row = QHBoxLayout()
        self.path_edit = QLineEdit(self)
        self.path_edit.setObjectName("export-path")
        self.path_edit.setText(os.path.join(folder, stem + FORMATS["html"].suffix))
        browse = QPushButton("Choose…", self)
        browse.clicked.connect(self.choose_path)
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        column.addLayout(row)
        self.error = plain_label("", self)
        self.error.setObjectName("export-error")
        self.error.setWordWrap(True)
        self.error.hide()
        column.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

    @property
    def format(self) -> str:
        """The chosen format ('html' or 'markdown')."""
        return next(name for name, b in self.format_buttons.items() if b.isChecked())

    @property
    def redact(self) -> bool:
        """Whether secrets are redacted."""
        return self.redact_box.isChecked()

    @property
    def path(self) -> str:
        """The chosen file, with the format's suffix when it has none."""
        text = self.path_edit.text().strip()
        return with_suffix(os.path.abspath(text), self.format) if text else ""

    def _format_changed(self) -> None:
        text = self.path_edit.text().strip()
        if not text:
            return
        stem, suffix = os.path.splitext(text)
        known = {f.suffix for f in FORMATS.values()} | {".htm", ".markdown"}
        if suffix.lower() in known:
            self.path_edit.setText(stem + FORMATS[self.format].suffix)

    def choose_path(self) -> None:
        """Ask for the file in a save dialog."""
        fmt = FORMATS[self.format]
        path, _filter = QFileDialog.getSaveFileName(
            self, "Export Report", self.path_edit.text() or self._folder, fmt.file_filter
        )
        if path:
            self.path_edit.setText(path)

    def problem(self) -> str | None:
        """Why the chosen file cannot be written (None when it can)."""
        path = self.path
        if not path:
            return "Choose a file to write the report to."
        if os.path.isdir(path):
            return f"{path} is a folder."
        clash = clashing_input(path, self._inputs)
        if clash is not None:
            return f"{os.path.basename(clash)} is an open input file; it is never overwritten."
        return None

    def accept(self) -> None:
        """Close only when the file can be written; else say why, in the dialog."""
        problem = self.problem()
        if problem is not None:
            self.error.setText(problem)
            self.error.show()
            return
        if os.path.exists(self.path) and not self._replace_confirmed():
            return
        super().accept()

    def _replace_confirmed(self) -> bool:
        # The save dialog asks before replacing a file; a name typed in the box is asked here.
        box = QMessageBox(self)
        box.setWindowTitle("Export Report")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"{os.path.basename(self.path)} exists. Replace it?")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Yes


def report_name(paths: Sequence[str]) -> str:
    """The file name a report of these inputs is proposed under (both names for a pair)."""
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return "-vs-".join(stems) + "-report"


def export_words(paths: Sequence[str], mode: str, target: str | None) -> str:
    """What the export dialog says it will describe."""
    names = [os.path.basename(p) for p in paths]
    settings = [f"{mode} mode"] if len(names) == 2 else []
    if target:
        settings.append(f"target {target}")
    extra = f" ({', '.join(settings)})" if settings else ""
    return "A report of " + " ↔ ".join(names) + extra + "."


def ask_export(
    parent: QWidget, settings: Settings, paths: Sequence[str], inputs: Sequence[str], what: str
) -> tuple[str, str, bool] | None:
    """Ask for the file, format and redaction of a report of `paths` (None: cancelled); the
    folder proposed is the last report's, never an input's unless the user chose it there."""
    folder = settings.export_directory()
    dialog = ExportDialog(inputs, folder, report_name(paths), what, parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        settings.set_export_directory(os.path.dirname(dialog.path))
        return dialog.path, dialog.format, dialog.redact
    finally:
        dialog.deleteLater()
