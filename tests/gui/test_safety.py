"""Text from files is always plain text: cells, tooltips, labels, panels, dialogs."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from inspector.gui import app
from inspector.gui.qt_transcript_model import Column

BOLD = "<b>x</b>"
IMAGE = '<img src="file:///etc/passwd">'
HOSTILE = [
    {
        "type": "function_call",
        "id": BOLD,
        "call_id": IMAGE,
        "name": BOLD,
        "status": "completed",
        "arguments": json.dumps({"q": BOLD}),
    },
    {"type": "function_call_output", "call_id": BOLD, "output": IMAGE},
]


def _labels_are_plain(window) -> None:
    for label in window.findChildren(QLabel):
        if "<" in label.text():
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()


def test_markup_in_an_item_shows_literally(window, tmp_path):
    path = tmp_path / "<i>hostile.json"
    path.write_text(json.dumps(HOSTILE))
    window.open_file("left", str(path))
    model = window.left.model
    assert model.index(0, Column.NAME).data() == BOLD
    assert model.index(0, Column.CALL_ID).data() == IMAGE
    tip = model.index(0, Column.VERDICT).data(Qt.ItemDataRole.ToolTipRole)
    assert BOLD in window.results["left"].verdicts[0].detail
    assert "&lt;b&gt;x&lt;/b&gt;" in tip and BOLD not in tip
    field_tip = model.index(2, Column.TYPE, model.index(1, 0)).data(Qt.ItemDataRole.ToolTipRole)
    assert "&lt;img" in field_tip and "<img" not in field_tip
    window.select("left", 0)
    assert BOLD in window.item_panel.view.toPlainText()
    assert window.item_panel.banner.detail.text() == window.results["left"].verdicts[0].detail
    assert window.left.name_label.text() == "<i>hostile.json"
    assert f'"q": "{BOLD}"' in window.arguments_panel.editor.toPlainText()
    _labels_are_plain(window)
    findings = window.findings_panel.model
    messages = [findings.index(r, 4).data() for r in range(findings.rowCount())]
    assert any(IMAGE in m or BOLD in m for m in messages)
    for row in range(findings.rowCount()):
        tip = findings.index(row, 4).data(Qt.ItemDataRole.ToolTipRole)
        assert "<img" not in tip and BOLD not in tip


def test_markup_in_an_error_shows_literally(window, tmp_path):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({IMAGE: 1}))
    window.open_file("right", str(path))
    assert window.right.showing_error
    assert IMAGE in window.right.error_message.text()
    _labels_are_plain(window)


def test_markup_in_pasted_text_shows_literally(window):
    window.paste(json.dumps({"type": BOLD, "id": "x"}))
    assert window.scratch_panel.model.index(0, Column.TYPE).data() == BOLD
    _labels_are_plain(window)


def test_bug_dialog_shows_the_traceback_as_plain_text(qtbot, monkeypatch):
    shown: list[str] = []

    def fake_exec(dialog) -> int:
        shown.append(dialog.findChild(QPlainTextEdit, "traceback").toPlainText())
        return 0

    monkeypatch.setattr(app.BugDialog, "exec", fake_exec)
    try:
        raise RuntimeError(BOLD)
    except RuntimeError as exc:
        app.excepthook(type(exc), exc, exc.__traceback__)
    assert len(shown) == 1
    assert f"RuntimeError: {BOLD}" in shown[0]
    assert "Traceback" in shown[0]
