"""Text from files is always plain text: cells, tooltips, labels, panels, dialogs."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QTextDocument
from PySide6.QtGui import Qt as QtGui
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from inspector.gui import qt_app, qt_bug_dialog
from inspector.gui.qt_transcript_model import Column
from tests.gui.conftest import call_stream, model_indexes, write_sse

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

    monkeypatch.setattr(qt_bug_dialog.BugDialog, "exec", fake_exec)
    try:
        raise RuntimeError(BOLD)
    except RuntimeError as exc:
        qt_app.excepthook(type(exc), exc, exc.__traceback__)
    assert len(shown) == 1
    assert f"RuntimeError: {BOLD}" in shown[0]
    assert "Traceback" in shown[0]


# ---- every widget of the window, after loading hostile files --------------------------------

LINK = '<a href="https://example.com">link</a>'
SCRIPT = "<img src=x onerror=alert(1)>"
MARKUP = (BOLD, SCRIPT, LINK)


def _hostile_files(folder: Path) -> dict[str, Path]:
    """A hostile pair, its tools, a hostile stream and a broken file, all with hostile names."""
    left = [
        {"role": "user", "content": BOLD},
        {
            "type": "function_call",
            "id": BOLD,
            "call_id": SCRIPT,
            "name": LINK,
            "status": "completed",
            "arguments": json.dumps({"q": BOLD}),
        },
        {"type": "function_call_output", "call_id": SCRIPT, "output": LINK},
        {"type": BOLD, "id": "x"},
    ]
    right = [
        {"role": "user", "content": BOLD},
        {**left[1], "type": f"{BOLD}:call", "call_id": LINK, "name": SCRIPT},
        {"type": "function_call_output", "call_id": SCRIPT, "output": BOLD},
    ]
    tools = {LINK: {"type": "object", "properties": {"q": {"type": "integer", "title": BOLD}}}}
    item = {"type": "function_call", "id": BOLD, "call_id": SCRIPT, "name": LINK}
    events = call_stream(item, SCRIPT, BOLD, LINK)
    for number, event in enumerate(events):
        event["sequence_number"] = number if number < 2 else number + 1  # a gap after #1
    files = {
        "left": folder / f"{SCRIPT}.json",
        "right": folder / "<b>right.json",
        "tools": folder / "<a href=x>tools.json",
        "stream": folder / "<i>stream.sse",
        "broken": folder / "<b>broken.json",
    }
    files["left"].write_text(json.dumps(left))
    files["right"].write_text(json.dumps(right))
    files["tools"].write_text(json.dumps(tools))
    write_sse(files["stream"], events)
    files["broken"].write_text('{"input": [{"type": "' + BOLD + '",, }]}')
    return files


def _rendered(tip: object) -> str:
    """What a tooltip shows: Qt renders it as rich text when it looks like markup."""
    if not tip:
        return ""
    assert isinstance(tip, str), tip
    if not QtGui.mightBeRichText(tip):
        return tip
    document = QTextDocument()
    document.setHtml(tip)
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fmt = fragments.fragment().charFormat()
            assert not fmt.isImageFormat(), tip
            assert not fmt.isAnchor(), tip
            assert fmt.fontWeight() <= QFont.Weight.Normal and not fmt.fontItalic(), tip
            fragments += 1
        block = block.next()
    return document.toPlainText()


def _shown_texts(window) -> list[str]:
    """Every text the window shows, after checking that none is interpreted as rich text."""
    shown = [window.windowTitle(), window.statusBar().currentMessage()]
    for label in window.findChildren(QLabel):
        if label.text():
            assert label.textFormat() == Qt.TextFormat.PlainText, label.text()
            shown.append(label.text())
    for widget in [window, *window.findChildren(QWidget)]:
        shown.append(_rendered(widget.toolTip()))
    for action in window.findChildren(QAction):
        shown.append(_rendered(action.toolTip()))
    for edit in window.findChildren(QTextEdit):  # none today; a rich editor must stay plain
        assert not edit.acceptRichText()
    for edit in window.findChildren(QPlainTextEdit):
        shown.append(edit.toPlainText())
    for edit in window.findChildren(QLineEdit):
        shown.append(edit.text())
    for view in window.findChildren(QAbstractItemView):
        if isinstance(view, QHeaderView):
            continue  # headers draw their fixed titles as plain text and have no delegate
        # The stock delegates draw DisplayRole as plain text; an HTML delegate would not.
        delegate = view.itemDelegate().metaObject().className()
        assert delegate in _PLAIN_DELEGATES, (view.objectName(), delegate)
        model = view.model()
        if model is None:
            continue
        for index in model_indexes(model, levels=2, rows=200):
            text = index.data(Qt.ItemDataRole.DisplayRole)
            assert text is None or isinstance(text, str), text
            shown.extend([text or "", _rendered(index.data(Qt.ItemDataRole.ToolTipRole))])
    return shown


#: The transcript trees' CellDelegate only picks the elision side and a short text, and leaves
#: the drawing to QStyledItemDelegate (checked below).
_PLAIN_DELEGATES = {
    "QStyledItemDelegate",
    "QComboBoxDelegate",
    "QComboMenuDelegate",
    "CellDelegate",
}


def test_the_cell_delegate_leaves_the_drawing_to_the_stock_delegate():
    from PySide6.QtWidgets import QStyledItemDelegate

    from inspector.gui.qt_pane_tree import CellDelegate

    assert issubclass(CellDelegate, QStyledItemDelegate)
    assert "paint" not in vars(CellDelegate) and "createEditor" not in vars(CellDelegate)


def _visit_tabs(window) -> None:
    for tab in range(window.tabs.count()):
        window.tabs.setCurrentIndex(tab)
        window.settle(2)


def test_no_widget_interprets_hostile_text(make_window, tmp_path, qtbot):
    files = _hostile_files(tmp_path)
    window = make_window()
    window.show()
    window.load_tool_file(str(files["tools"]), regate=False)
    window.open_pair(str(files["left"]), str(files["right"]))
    assert window.alignment is not None
    window.paste(files["right"].read_text())  # into Scratch
    window.next_difference()
    window.select("left", 1)
    _visit_tabs(window)
    assert window.arguments_panel.errors.rowCount() > 0
    shown = "\n".join(_shown_texts(window))
    for markup in MARKUP:
        assert markup in shown, markup  # reached the screen, literally
    assert window.left.name_label.text() == f"{SCRIPT}.json"
    assert window.decision_label.text().startswith("Replay UNSAFE: ")
    assert LINK in window.decision_label.text()
    assert f"{BOLD}:call" in _rendered(window.decision_label.toolTip())
    assert any(BOLD in r.cells[4] for r in window.findings_panel.model.records())
    assert SCRIPT in window.diff_panel.left.view.toPlainText()
    assert window.diff_panel.left.title.text() == f"{SCRIPT}.json"

    # The other surfaces: an error page with a hostile name, and a hostile stream.
    window.open_pair(str(files["broken"]), str(files["stream"]))
    assert window.left.showing_error
    assert window.left.name_label.text() == "<b>broken.json"
    assert str(files["broken"]) in window.left.error_location.text()
    assert window.stream_panel.has_streams
    window.select("right", 0)
    _visit_tabs(window)
    shown = "\n".join(_shown_texts(window))
    for markup in MARKUP:
        assert markup in shown, markup
    timeline = window.stream_panel.timeline
    assert BOLD in [timeline.index(r, 3).data() for r in range(timeline.rowCount())]
    assert f'delta "{SCRIPT}"' in [timeline.index(r, 4).data() for r in range(timeline.rowCount())]
    messages = [r.cells[5] for r in window.stream_panel.violations.records()]
    assert any(BOLD in m for m in messages)
    assert window.stream_panel.side_combo.currentText() == "Right: <i>stream.sse"


def test_mnemonic_and_title_placeholder_characters_show_literally(window, tmp_path):
    path = tmp_path / "a&b[*].json"
    path.write_text(json.dumps([{"role": "user", "content": "hi", "a&b": "x" * 20_000}]))
    window.show()
    window.open_file("left", str(path))
    # '[*]' is Qt's "modified" placeholder in titles; shown, the name keeps it.
    assert window.windowHandle().title().startswith("a&b[*].json — ")
    window.recent_menu.aboutToShow.emit()
    entry = next(a for a in window.recent_menu.actions() if a.statusTip() == str(path))
    assert entry.text() == "a&&b[*].json"  # '&&' shows one '&' rather than a mnemonic
    notice = window.item_panel.notice
    assert notice.menu.actions()[0].text() == "Copy value at /a&&b (20,000 chars)"
