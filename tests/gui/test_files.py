"""Files: threaded loads, superseded and cancelled loads, errors in their pane, drag and drop,
reload, recent files, persisted settings, and input files left byte-identical."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from inspector.gui import qt_app, qt_session
from inspector.gui.qt_transcript_model import Column
from inspector.gui.qt_workers import TaskRunner
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS, digest


def test_threaded_load_shows_progress_then_the_pair(make_window, qtbot):
    window = make_window(synchronous=False)
    window.load_tool_file(str(SALES_TOOLS), regate=False)
    window.open_pair(str(PROVIDER_A), str(PROVIDER_B))
    assert window.left.stack.currentIndex() == 2  # the loading page, until the worker reports
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    assert window.left.model.rowCount() == window.right.model.rowCount() == 10
    assert window.decision_label.text().startswith("Replay UNSAFE")


def test_a_superseded_load_is_dropped(make_window, qtbot, tmp_path):
    window = make_window(synchronous=False)
    window.open_file("left", str(PROVIDER_A))
    window.open_file("left", str(PROVIDER_B))  # supersedes the first before it lands
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    window.runner.wait()
    qtbot.wait(50)  # let any late signal of the first load arrive (it must be ignored)
    assert window.results["left"].transcript.path == str(PROVIDER_B)
    assert window.left.path == str(PROVIDER_B)


def test_runner_drops_superseded_and_cancelled_results(qtbot):
    runner = TaskRunner()
    release = threading.Event()
    got: list[str] = []

    def slow(_progress):
        release.wait(5)
        return "slow"

    runner.start("x", slow, got.append, got.append)
    runner.start("x", lambda _p: "fast", got.append, got.append)
    qtbot.waitUntil(lambda: got == ["fast"], timeout=60_000)
    runner.start("y", slow, got.append, got.append)
    assert runner.busy("y")
    runner.cancel("y")
    assert not runner.busy("y")
    release.set()
    runner.wait()
    qtbot.wait(50)
    assert got == ["fast"]


def test_cancel_returns_the_pane_to_what_it_showed(make_window, qtbot):
    window = make_window(synchronous=False)
    window.open_file("left", str(PROVIDER_A))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    window.open_file("left", str(PROVIDER_B))
    window.left.cancel_button.click()
    assert window.left.stack.currentIndex() == 1  # the tree of provider-a again
    window.runner.wait()
    qtbot.wait(50)
    assert window.results["left"].transcript.path == str(PROVIDER_A)


def test_unreadable_file_shows_its_error_while_the_other_pane_works(window, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "input": [\n    {"type": "message",, "role": "user"}\n  ]\n}\n')
    window.open_pair(str(broken), str(PROVIDER_B))
    left = window.left
    assert left.showing_error
    assert left.error_location.text() == f"{broken}:3:24"
    assert left.error_message.text().startswith("invalid JSON")
    assert left.name_label.text() == "broken.json"
    assert window.results["left"] is None
    assert window.alignment is None
    assert window.select("right", 5)
    assert window.item_panel.banner.verdict_text == "namespaced"
    assert "provider-b.json" in window.decision_label.text()
    window.open_file("left", str(tmp_path / "missing.json"))
    assert left.error_message.text() == "no such file"
    window.open_file("left", str(PROVIDER_A))
    assert not left.showing_error and window.alignment is not None


def _drop(widget, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    widget.dropEvent(event)


def test_drop_one_file_on_a_pane_or_two_on_either(window):
    _drop(window.right, [PROVIDER_A])
    assert window.right.path == str(PROVIDER_A)
    _drop(window.right, [PROVIDER_B, PROVIDER_A])
    assert (window.left.path, window.right.path) == (str(PROVIDER_B), str(PROVIDER_A))


def test_reload_reads_the_file_again(window, tmp_path):
    copy = tmp_path / "a.json"
    shutil.copy(PROVIDER_A, copy)
    window.open_file("left", str(copy))
    assert window.left.model.rowCount() == 10
    copy.write_text('[{"type": "function_call", "name": "x", "status": "in_progress"}]')
    window.reload_action.trigger()
    assert window.left.model.rowCount() == 1
    assert window.left.model.index(0, 6).data() == "status"


def test_settings_persist_in_the_ini_store(make_window, settings_path):
    first = make_window()
    first.open_pair(str(PROVIDER_A), str(PROVIDER_B))
    first.set_aligned(False)
    first.resize(1300, 850)
    first.pane_split.setSizes([300, 700])
    first.left.tree.header().showSection(Column.STATUS)
    saved = first.pane_split.saveState()
    geometry = first.saveGeometry()
    first.close()
    assert settings_path.is_file()
    second = make_window()
    assert second.aligned is False
    assert second.settings.recent_files()[:2] == [str(PROVIDER_B), str(PROVIDER_A)]
    assert second.pane_split.saveState() == saved
    assert not second.left.tree.header().isSectionHidden(Column.STATUS)
    assert second.right.tree.header().isSectionHidden(Column.STATUS)
    # The offscreen screen is small, so restoring clamps the size; the stored bytes are exact.
    assert second.settings.geometry() == geometry
    second.recent_menu.aboutToShow.emit()
    entries = [a for a in second.recent_menu.actions() if a.statusTip() == str(PROVIDER_A)]
    entries[0].trigger()
    assert second.left.path == str(PROVIDER_A)


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_input_files_are_byte_identical_after_a_session(make_window, qtbot, tmp_path):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for source in (PROVIDER_A, PROVIDER_B, SALES_TOOLS):
        shutil.copy(source, inputs / source.name)
    left, right, tools = (inputs / p.name for p in (PROVIDER_A, PROVIDER_B, SALES_TOOLS))
    before = _tree(inputs)
    window = make_window(synchronous=False)
    window.show()
    window.load_tool_file(str(tools), regate=False)
    window.open_pair(str(left), str(right))
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    # Edit arguments: the panel re-checks, the file stays as it was.
    window.select("left", 7)
    panel = window.arguments_panel
    panel.editor.selectAll()
    panel.editor.insertPlainText('{"region": "apac"}')
    qtbot.waitUntil(lambda: panel.verdict == "ok", timeout=60_000)
    panel.set_schema_text('{"type": "object"}')
    # Paste into Scratch, walk the differences, copy, reload, re-gate, swap, close.
    window.paste(left.read_text(encoding="utf-8"))
    for _ in range(3):
        window.next_difference()
    window.previous_difference()
    window.go_to_counterpart()
    window.copy_item()
    window.reload_action.trigger()
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    window.load_tool_file(str(tools))
    qtbot.waitUntil(lambda: not window.runner.busy("left"), timeout=60_000)
    window.swap_action.trigger()
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    window.close()
    window.runner.wait()
    assert _tree(inputs) == before  # same bytes, and nothing created beside them
    # The settings store is the only thing written, and no temporary file is left behind.
    written = {p.name for p in tmp_path.iterdir() if p.is_file()}
    assert written <= {"settings.ini", "settings.ini.lock"} and "settings.ini" in written


def test_a_failed_screenshot_leaves_the_earlier_file(qapp, tmp_path, monkeypatch):
    target = tmp_path / "shot.png"
    target.write_bytes(b"the earlier screenshot")
    monkeypatch.setattr(qt_app.QPixmap, "save", lambda *_args: False)
    assert not qt_app.save_png(qt_app.QPixmap(10, 10), str(target))
    assert target.read_bytes() == b"the earlier screenshot"
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]  # no temporary file left
    monkeypatch.undo()
    assert qt_app.save_png(qt_app.QPixmap(10, 10), str(target))
    assert target.read_bytes().startswith(b"\x89PNG")


def test_large_filters_run_on_a_worker(make_window, qtbot, monkeypatch):
    monkeypatch.setattr(qt_session, "ASYNC_FILTER_ITEMS", 1)  # treat the sample as large
    window = make_window(synchronous=False)
    window.open_pair(str(PROVIDER_A), str(PROVIDER_B))
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    window.set_aligned(False)
    window.left.filter_edit.setText("verdict:ok")
    window.refilter()
    assert window.runner.busy("filter")  # the result arrives through the event loop
    qtbot.waitUntil(lambda: window.left.model.rowCount() == 3, timeout=60_000)
    window.left.filter_edit.setText("call_129")
    window.refilter()
    window.left.filter_edit.setText("verdict:namespaced")  # supersedes the previous filter
    window.refilter()
    qtbot.waitUntil(lambda: not window.runner.busy("filter"), timeout=60_000)
    window.runner.wait()
    qtbot.wait(50)
    assert window.left.model.rowCount() == 0


def test_reload_keeps_the_selected_item(pair_window):
    window = pair_window
    window.select("right", 6)
    window.reload_action.trigger()
    assert window.right.current_item() == 6


def test_a_filter_stays_applied_to_a_reloaded_file(window):
    window.open_file("left", str(PROVIDER_A))  # one side: no diff comes to refilter it
    window.left.filter_edit.setText("verdict:ok")
    window.refilter()
    assert window.left.model.rowCount() == 3
    window.reload_action.trigger()
    assert window.left.model.rowCount() == 3
