"""File → Export Report…: HTML and Markdown from the open files, redacted by default, written
through QSaveFile, never over an open input file."""

from __future__ import annotations

import html
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog

from inspector.cli import run
from inspector.gui.export import FORMATS, clashing_input, with_suffix
from inspector.gui.qt_export import ExportDialog, write_file
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS, digest

#: Key shapes assembled at run time, so no secret-looking string sits in the repository.
OPENAI_KEY = "sk-" + "proj-" + "Zq4" * 9 + "x7"
BEARER = "eyJhbGciOi" + "Jk" * 3 + "." + "eyJzdWIiOi" + "Ab" * 3 + "." + "c2ln" * 4


def _with_secrets(folder: Path) -> Path:
    """provider-a.json with a key pasted into the prompt and a bearer token in a tool output."""
    data = json.loads(PROVIDER_A.read_text())
    data["input"].insert(1, {"role": "user", "content": f"use my key {OPENAI_KEY} please"})
    data["input"].append(
        {"type": "function_call_output", "call_id": "call_131", "output": f"Bearer {BEARER}"}
    )
    # A key the model put into a tool's arguments: the schema error quotes it.
    data["input"].append(
        {
            "type": "function_call",
            "call_id": "call_132",
            "name": "get_latest_sales_report",
            "arguments": json.dumps({"region": OPENAI_KEY}),
            "status": "completed",
        }
    )
    path = folder / "session-with-secrets.json"
    path.write_text(json.dumps(data, indent=2))
    return path


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("#"):
                self.sources.append(value)


@pytest.fixture
def secret_window(window, tmp_path):
    """The window with the secret-laden file beside provider-b, with the sample's tools."""
    window.load_tool_file(str(SALES_TOOLS), regate=False)
    window.open_pair(str(_with_secrets(tmp_path)), str(PROVIDER_B))
    assert window.alignment is not None
    return window


def test_export_report_is_in_the_file_menu(window):
    assert window.export_action in window.file_menu.actions()
    assert window.export_action.text() == "&Export Report…"
    assert not window.export_action.isEnabled()  # nothing open yet
    window.open_file("left", str(PROVIDER_A))
    assert window.export_action.isEnabled()


def test_the_dialog_redacts_by_default_and_suffixes_the_format(window, tmp_path):
    dialog = ExportDialog([str(PROVIDER_A)], str(tmp_path), "session-report", "A report.", window)
    assert dialog.redact and dialog.format == "html"
    assert dialog.path == str(tmp_path / "session-report.html")
    dialog.format_buttons["markdown"].setChecked(True)
    assert dialog.path == str(tmp_path / "session-report.md")
    dialog.path_edit.setText(str(tmp_path / "notes"))
    assert dialog.path == str(tmp_path / "notes.md")
    dialog.deleteLater()


def test_an_html_report_holds_no_raw_secret_and_says_what_was_redacted(secret_window, tmp_path):
    window = secret_window
    out = tmp_path / "report.html"
    assert window.export_report(str(out), "html")
    page = out.read_text(encoding="utf-8")
    assert OPENAI_KEY not in html.unescape(page) and BEARER not in html.unescape(page)
    assert "[redacted:openai]" in page and "[redacted:bearer]" in page
    assert "Redaction on (built-in key shapes): 2 values redacted" in page
    assert "session-with-secrets.json" in page and "provider-b.json" in page
    assert str(tmp_path) not in page  # file names, never the folders they sit in
    tags = _Tags()
    tags.feed(page)
    assert tags.sources == []  # self-contained: nothing fetched
    assert "Report written to" in window.statusBar().currentMessage()


def test_a_markdown_report_without_redaction_says_so(secret_window, tmp_path):
    window = secret_window
    out = tmp_path / "summary.md"
    assert window.export_report(str(out), "markdown", redact=False)
    text = out.read_text(encoding="utf-8").replace("\\", "")  # Markdown escapes dropped
    assert OPENAI_KEY in text  # the blocked call's detail quotes its arguments
    assert "Redaction off" in text
    out_redacted = tmp_path / "summary-redacted.md"
    assert window.export_report(str(out_redacted), "markdown")
    redacted = out_redacted.read_text(encoding="utf-8").replace("\\", "")
    assert OPENAI_KEY not in redacted and "[redacted:openai]" in redacted


def test_the_report_agrees_with_the_report_command(secret_window, tmp_path):
    window = secret_window
    window.set_mode("compare")
    window.set_target("mistral")
    mine = tmp_path / "gui.md"
    assert window.export_report(str(mine), "markdown")
    theirs = tmp_path / "cli.md"
    left = window.session.paths["left"]
    status = run(
        ["report", left, str(PROVIDER_B), "--tools", str(SALES_TOOLS), "--mode", "compare",
         "--target", "mistral", "-o", str(theirs)],
        io.StringIO(), io.StringIO(),
    )  # fmt: skip
    assert status == 1

    def body(text: str) -> str:
        # Paths are shown as given (full on the command line, names in the window); the
        # generation time differs.
        text = text.replace(left, "session-with-secrets.json").replace(
            str(PROVIDER_B), "provider-b.json"
        )
        text = text.replace(str(SALES_TOOLS), "sales-tools.json")
        return re.sub(r"\d{4}\\?-\d\d\\?-\d\d \d\d\\?:\d\d\\?:\d\d UTC", "TIME", text)

    assert body(mine.read_text()) == body(theirs.read_text())
    assert "target_call_id" in mine.read_text()


def test_an_open_input_file_is_never_overwritten(secret_window, tmp_path):
    window = secret_window
    left = window.session.paths["left"]
    before = digest(Path(left))
    assert not window.export_report(left, "html")
    assert "never overwritten" in window.statusBar().currentMessage()
    assert digest(Path(left)) == before
    assert not window.export_report(str(SALES_TOOLS), "markdown")  # tools files are inputs too
    dialog = ExportDialog(window.session.export_inputs(), str(tmp_path), "x", "A report.", window)
    dialog.path_edit.setText(left)  # its .json suffix stays: it is that very file
    dialog.accept()
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert "never overwritten" in dialog.error.text() and not dialog.error.isHidden()
    dialog.deleteLater()


def test_a_comparison_still_running_is_not_exported(make_window, tmp_path):
    window = make_window(synchronous=False)
    assert not window.export_report(str(tmp_path / "early.html"))
    assert "Open a transcript first" in window.statusBar().currentMessage()
    assert not (tmp_path / "early.html").exists()


def test_the_save_goes_through_qsavefile(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("old report")
    assert write_file(str(target), "new report\n") is None
    assert target.read_text() == "new report\n"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left beside it
    reason = write_file(str(tmp_path / "no-such-folder" / "r.md"), "text")
    assert reason  # a reason, not an exception
    assert not (tmp_path / "no-such-folder").exists()


def test_helpers_without_qt(tmp_path):
    (tmp_path / "in.json").write_text("[]")
    assert clashing_input(str(tmp_path / "." / "in.json"), [None, str(tmp_path / "in.json")])
    assert clashing_input(str(tmp_path / "out.html"), [str(tmp_path / "in.json")]) is None
    assert with_suffix("r", "html") == "r.html" and with_suffix("r.HTM", "html") == "r.HTM"
    assert with_suffix("notes.txt", "markdown") == "notes.txt"  # a suffix given is kept
    assert set(FORMATS) == {"html", "markdown"}


def test_the_threaded_window_renders_off_the_gui_thread_and_writes(make_window, qtbot, tmp_path):
    window = make_window(synchronous=False)
    window.open_pair(str(_with_secrets(tmp_path)), str(PROVIDER_B))
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    out = tmp_path / "threaded.md"
    assert window.export_report(str(out), "markdown")
    qtbot.waitUntil(lambda: out.exists() and not window.runner.busy("export"), timeout=60_000)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## ") and "Redaction on" in text
    assert "Report written to" in window.statusBar().currentMessage()


def test_replacing_an_existing_report_is_asked_first(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    old = tmp_path / "old-report.html"
    old.write_text("an earlier report")
    dialog = ExportDialog([str(PROVIDER_A)], str(tmp_path), "x", "A report.", window)
    dialog.path_edit.setText(str(old))
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Yes]
    asked: list[str] = []

    def answer(box) -> QMessageBox.StandardButton:
        asked.append(box.text())
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "exec", answer)
    dialog.accept()
    assert dialog.result() != QDialog.DialogCode.Accepted
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert asked == ["old-report.html exists. Replace it?"] * 2
    dialog.deleteLater()
