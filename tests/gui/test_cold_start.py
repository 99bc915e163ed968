"""Cold start: the window paints before the heavy modules behind its tabs are imported, and
each tab's panel, made when it is first shown, still shows what was selected before."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolBar

from inspector.gui.actions import MENUS, TAB_NAMES, Tab
from inspector.gui.qt_app import build_parser, open_window
from inspector.gui.qt_item_panel import ItemPanel
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_main_window import MainWindow
from inspector.gui.qt_settings import Settings
from inspector.gui.qt_text import escape_html, monospace_font
from inspector.gui.qt_transcript_model import Column
from inspector.resources import sample_pair
from tests.conftest import SAMPLES

ROOT = SAMPLES.parent

#: Modules the first paint must not need: the panels other than Item's, the engines behind
#: them (formats, diff, stream, targets, reports, the decisions made of a load), the gate and
#: the loading behind the panes (the parsers, the validators, the item records: a pane shows
#: rows only once a file is loaded, after the first paint) and the libraries they use (the regex
#: engine is the tool-name look-alike check's and the escaping of non-ASCII text, both first
#: needed by a loaded file).
HEAVY = (
    "inspector.gui.qt_schema_panel",
    "inspector.gui.qt_scratch",
    "inspector.gui.qt_findings",
    "inspector.gui.qt_diff",
    "inspector.gui.qt_stream",
    "inspector.gui.qt_find",
    "inspector.gui.qt_changes",
    "inspector.gui.qt_tools_tab",
    "inspector.gui.export",
    "inspector.cli",
    "inspector.commands.common",
    "inspector.gui.qt_actions",
    "inspector.gui.qt_records",
    "inspector.gui.qt_diff_controls",
    "inspector.gui.qt_highlight",
    "inspector.gui.qt_pane_tree",
    "inspector.gui.qt_bug_dialog",
    "PySide6.QtSvg",
    "inspector.core.formats",
    "inspector.core.diff.compute",
    "inspector.core.diff.align",
    "inspector.core.diff.keys",
    "inspector.core.stream",
    "inspector.core.targets",
    "inspector.core.report",
    "inspector.core.decision",
    "inspector.core.gate",
    "inspector.core.model",
    "inspector.core.jsonio",
    "inspector.core.schema",
    "msgspec",
    "orjson",
    "jsonschema_rs",
    "pygments",
    "jsonschema",
    "regex",
    # The diff's values (the window names only its mode, from core.modes), the Search and
    # Findings tabs' words, the aligned rows, and the html package (a tooltip escapes as
    # html.escape does, without its entity table).
    "inspector.core.diff",
    "inspector.gui.contents",
    "inspector.gui.findings",
    "inspector.gui.alignment",
    "html",
    # The resources' paths are taken from the package's folder (importlib.resources only for a
    # package that is not plain files).
    "importlib.resources",
)

#: The only dataclasses made before the first paint: each costs about 4.5 M instructions to
#: make (callgrind), so the window's own records are NamedTuples or plain classes (and the
#: codes' Code and the errors' Location are plain frozen classes, codes.FrozenValue).
DATACLASSES_THEN: list[str] = []

#: Qt classes the first paint does not need: PySide6 builds the Python enums of a class when it
#: is first named (QStyle's eleven cost more than a whole pane's widgets), so they are named
#: where they are used (a cell's compact text, text marks and highlighting, a screenshot, the
#: actions, menus and toolbar built after the first paint, a file dialog).
QT_LATER = (
    # The `Qt` namespace: its 93 enums are made together with its first use, which the first
    # frame avoids (gui/enum_values.py).
    "Qt",
    "QStyle",
    "QTextCharFormat",
    "QSaveFile",
    "QAction",
    "QKeySequence",
    "QToolBar",
    "QMessageBox",
    "QFileDialog",
    "QStandardPaths",
    "QSyntaxHighlighter",
    "QTextDocument",
    # The panes' trees, loading and error pages: an empty pane shows its drop target alone.
    "QTreeView",
    "QAbstractItemView",
    "QHeaderView",
    "QStyledItemDelegate",
    "QStyleOptionViewItem",
    "QItemSelectionModel",
    "QProgressBar",
    # The bug dialog, and the text classes of a view's marks (the Item tab is empty at first).
    "QDialog",
    "QDialogButtonBox",
    "QTextCursor",
    "QTextFormat",
    "QTextEdit",
    # An item view's monospace font (with its first text), the shortened-value notice's button
    # and the toolbar icons' images.
    "QFontDatabase",
    "QToolButton",
    "QImage",
)

# The window is started by the entry point as `replay-inspector --tools T LEFT RIGHT` starts it;
# at its first paint the modules are listed, then the pair it opens after that paint is awaited
# and the modules listed again.
_CHILD = """
import enum, json, sys, tempfile
from pathlib import Path
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
from inspector.__main__ import main
from inspector.gui import qt_app
from inspector.resources import sample_pair

seen = {}
make_window = qt_app.open_window

def loaded(names):
    inside = tuple(n + "." for n in names)
    return sorted(m for m in sys.modules if m in names or m.startswith(inside))

def enum_classes():
    # Every enum class PySide6 has made so far (it makes a class's when the class is first used).
    found, todo = set(), [enum.Enum]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted(f"{c.__module__}.{c.__qualname__}" for c in found
                  if c.__module__.startswith("PySide6."))

def dataclasses_made():
    import dataclasses
    return sorted(
        f"{name}.{value.__qualname__}"
        for name, module in list(sys.modules.items()) if name.startswith("inspector")
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
    )

def watched(*args, **kwargs):
    window = make_window(*args, **kwargs)

    class Painted(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint and "painted" not in seen:
                seen["painted"] = loaded(sys.argv[1:])
                seen["files_then"] = [p for p in window.session.paths.values() if p]
                seen["furnished_then"] = [window.furnished, hasattr(window, "toolbar")]
                seen["panes_then"] = [p.isVisible() for p in window.panes.values()]
                seen["trees_then"] = [hasattr(p, "tree") for p in window.panes.values()]
                qt = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
                seen["qt_named"] = sorted(n for m in qt for n in vars(sys.modules[m]))
                seen["enums_then"] = enum_classes()
                seen["dataclasses_then"] = dataclasses_made()
            return False

    window.installEventFilter(Painted(window))

    def diffed():
        seen["diffed"] = loaded(sys.argv[1:])
        seen["furnished"] = [window.furnished, len(window.toolbar.actions()), len(window.menus)]
        seen["rows"] = [p.tree.model().rowCount() for p in window.panes.values()]
        seen["enums"] = enum_classes()
        print(json.dumps(seen))
        QApplication.quit()

    window.session.diffed.connect(diffed)
    QTimer.singleShot(120_000, QApplication.quit)
    return window

qt_app.open_window = watched
pair = sample_pair()
settings = str(Path(tempfile.mkdtemp()) / "s.ini")
main(["--settings", settings, "--tools", str(pair.tools), str(pair.left), str(pair.right)])
"""


def test_the_first_paint_imports_none_of_the_heavy_modules() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, *HEAVY],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=True,
    )
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    # Painted with nothing behind the panes; the files named were not even being opened yet,
    # nor the actions, menus and toolbar made (they come in the next frame).
    assert seen["painted"] == []
    assert seen["files_then"] == []
    assert seen["furnished_then"] == [False, False]
    assert seen["panes_then"] == [True, True]
    assert seen["trees_then"] == [False, False]
    assert seen["dataclasses_then"] == DATACLASSES_THEN
    assert sorted(set(QT_LATER) & set(seen["qt_named"])) == []
    assert "TranscriptPane" not in seen["qt_named"] and "QStackedWidget" in seen["qt_named"]
    # None of the `Qt` namespace's enum classes was made for it, though others were.
    assert [e for e in seen["enums_then"] if e.startswith("PySide6.QtCore.Qt.")] == []
    assert "PySide6.QtCore.QEvent.Type" in seen["enums_then"]
    # Then the pair was opened, read and diffed: the engines came with it.
    assert {"inspector.core.formats", "inspector.core.diff.compute"} <= set(seen["diffed"])
    assert {"inspector.gui.qt_highlight", "pygments"} <= set(seen["diffed"])  # items shown
    furnished, tools, menus = seen["furnished"]
    assert furnished and tools > 5 and menus == 5
    assert all(rows > 0 for rows in seen["rows"])  # each pane's tree made, the pair's rows in it
    assert "PySide6.QtCore.Qt.ItemDataRole" in seen["enums"]  # named once the trees are shown


def test_a_started_window_is_furnished_after_its_first_paint_and_works(qtbot, tmp_path) -> None:
    # As `replay-inspector --tools T LEFT RIGHT` starts: the panes first, the rest after.
    pair = sample_pair()
    argv = ["--tools", str(pair.tools), str(pair.left), str(pair.right)]
    window = open_window(build_parser().parse_args(argv), Settings.open(tmp_path / "s.ini"))
    qtbot.addWidget(window)
    assert not window.furnished and not window.findChildren(QToolBar)
    assert window.menuBar().actions() == []
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    assert window.furnished
    (toolbar,) = window.findChildren(QToolBar)
    assert toolbar.isVisible() and window.act["open_left"] in toolbar.actions()
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles == list(MENUS) and all(a.menu().actions() for a in window.menuBar().actions())
    assert window.target_selector.count() >= 1 and window.mode_switch.mode == "replay"
    # Its keys work: F8 steps to the first difference, as in a window built whole.
    window.activateWindow()  # shortcuts reach the active window only
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.left.tree.setFocus()
    qtbot.keyClick(window.left.tree, Qt.Key.Key_F8)
    first = window.alignment.diff.pairs[window.alignment.changed[0]]
    assert window.left.current_item() == first.left
    window.runner.wait()


def _click_tab(qtbot, window, tab: int) -> None:
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(tab).center())
    assert window.tabs.currentIndex() == tab


def test_each_tab_is_made_when_first_shown_with_what_was_selected(qtbot, pair_window) -> None:
    window = pair_window
    window.show()
    qtbot.waitExposed(window)
    details = window.details
    # Loading and selecting made only the Item tab: the badges come from the loads' counts.
    assert details.made(Tab.ITEM)
    for tab in (
        Tab.ARGUMENTS, Tab.DIFF, Tab.FINDINGS, Tab.STREAM, Tab.SCRATCH, Tab.SEARCH, Tab.CHANGES
    ):  # fmt: skip
        assert not details.made(tab), TAB_NAMES[tab]
    result = window.results["left"]
    assert result is not None
    findings = sum(len(r.findings) for r in window.results.values() if r is not None)
    assert findings and window.tabs.tabText(Tab.FINDINGS) == f"Findings ({findings:,})"
    blocked = next(i for i, v in enumerate(result.verdicts) if v.verdict == "arguments_schema")
    window.select("left", blocked)
    item = result.transcript.items[blocked]

    _click_tab(qtbot, window, Tab.ARGUMENTS)
    arguments = window.arguments_panel
    assert details.made(Tab.ARGUMENTS) and arguments.isVisible()
    assert arguments.raw_view.text() == json.dumps(item.get("arguments"))
    qtbot.waitUntil(lambda: arguments.errors.rowCount() > 0)

    _click_tab(qtbot, window, Tab.DIFF)
    assert window.diff_panel.isVisible() and window.diff_panel.title.text()

    _click_tab(qtbot, window, Tab.CHANGES)
    assert window.changes_panel.diff is window.alignment.diff
    assert window.changes_panel.model.rowCount() > 0

    _click_tab(qtbot, window, Tab.STREAM)
    assert window.stream_panel.isVisible() and not window.stream_panel.has_streams

    _click_tab(qtbot, window, Tab.TOOLS)
    assert window.tools_panel.isVisible()

    _click_tab(qtbot, window, Tab.FINDINGS)
    assert window.findings_panel.model.rowCount() == findings
    assert window.tabs.tabText(Tab.FINDINGS) == f"Findings ({findings:,})"

    _click_tab(qtbot, window, Tab.SCRATCH)
    window.paste(json.dumps(item.raw))
    assert window.scratch_panel.result is not None


def test_the_main_window_module_stays_under_600_lines() -> None:
    # A view: panels live in their own modules, made by the detail tabs (DESIGN.md).
    source = ROOT / "inspector" / "gui" / "qt_main_window.py"
    assert len(source.read_text(encoding="utf-8").splitlines()) < 600


def test_the_item_view_is_highlighted_from_its_first_text(qtbot, pair_window) -> None:
    # The empty Item tab painted at start-up makes no highlighter; the first item shown is
    # highlighted (a string's colour differs from a key's), as are the items after it.
    window = pair_window
    view = ItemPanel(window).view
    assert view.highlighter is None
    view.set_text('{"role": "user"}')
    assert view.highlighter is not None
    block = view.document().firstBlock()
    colours = {r.format.foreground().color().name() for r in block.layout().formats()}
    assert len(colours) >= 2
    editor = JsonView(window, read_only=False)  # typed into: highlighted from the first key
    assert editor.highlighter is not None


def test_a_started_window_puts_back_a_hidden_toolbar_once_it_is_made(qtbot, tmp_path) -> None:
    # The toolbar is made after the first paint: the saved window state is put back then too.
    path = tmp_path / "s.ini"
    first = MainWindow(Settings.open(path))
    qtbot.addWidget(first)
    first.toolbar.hide()
    first.save_settings()
    first.close()
    window = open_window(build_parser().parse_args([]), Settings.open(path))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.furnished)
    assert window.toolbar.isHidden() and window.left.isVisible()
    window.runner.wait()


def test_a_started_window_makes_its_trees_after_the_first_paint_with_saved_columns(
    qtbot, tmp_path
) -> None:
    # The panes are painted empty first; their trees come with furnish(), the columns as saved.
    path = tmp_path / "s.ini"
    first = MainWindow(Settings.open(path))
    qtbot.addWidget(first)
    first.left.tree.header().showSection(Column.ID)
    first.right.tree.header().resizeSection(Column.NAME, 333)
    first.save_settings()
    first.close()
    window = open_window(build_parser().parse_args([]), Settings.open(path))
    qtbot.addWidget(window)
    assert not any(pane.completed for pane in window.panes.values())
    assert all(pane.stack.count() == 1 for pane in window.panes.values())  # the drop target
    window.close()  # closed before its trees are made: the saved columns stay as they were
    window = open_window(build_parser().parse_args([]), Settings.open(path))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.furnished)
    assert all(pane.completed and pane.stack.count() == 4 for pane in window.panes.values())
    assert not window.left.tree.header().isSectionHidden(Column.ID)
    assert window.right.tree.header().sectionSize(Column.NAME) == 333
    # The trees work: the sample pair opened in them shows rows, in step in aligned mode.
    window.open_sample_pair()
    qtbot.waitUntil(lambda: window.alignment is not None, timeout=60_000)
    assert window.left.tree.model().rowCount() > 0 and window.select("left", 1)
    window.runner.wait()


def test_a_tooltip_escapes_as_html_escape_does() -> None:
    import html

    for text in ("<b>x</b> & y", "&amp; <<>> \"quoted\" 'single'", "", "a\nb", "&&&<>"):
        assert escape_html(text) == html.escape(text, quote=False)


def test_an_item_view_takes_its_monospace_font_with_its_first_text(qtbot, pair_window) -> None:
    view = ItemPanel(pair_window).view
    mono = monospace_font()
    assert view.highlighter is None and view.font().family() != mono.family()
    view.set_text('{"a": 1}')
    assert view.font().family() == mono.family()
    assert view.tabStopDistance() == view.fontMetrics().horizontalAdvance(" ") * 2
