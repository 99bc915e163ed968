"""The main window: two transcript panes, linked by the diff, above the detail tabs."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QPalette,
    QPixmap,
)
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector import __version__
from inspector.core.diff import DiffMode, DiffVerdict, Outcome
from inspector.core.gate import Decision, GateResult, make_toolset
from inspector.core.model import LoadError
from inspector.core.targets import Profile, get_profile
from inspector.gui import qt_palette
from inspector.gui.alignment import Alignment, wrap_words, wrapped
from inspector.gui.export import Rendered, clashing_input, render_report, report_input
from inspector.gui.json_text import visible
from inspector.gui.paste import PasteKind, route_paste
from inspector.gui.qt_changes import ChangesPanel, ClickOpens
from inspector.gui.qt_diff import DiffPanel
from inspector.gui.qt_diff_controls import DiffProgressBar, ModeSwitch, TargetSelector, ToolbarFit
from inspector.gui.qt_export import ExportDialog, write_file
from inspector.gui.qt_find import FindPanel
from inspector.gui.qt_findings import FindingsPanel
from inspector.gui.qt_item_panel import ItemPanel
from inspector.gui.qt_legend import Legend
from inspector.gui.qt_pane import TranscriptPane, fill_column_menu, left_share, twin_index
from inspector.gui.qt_schema_panel import ArgumentsPanel
from inspector.gui.qt_scratch import ScratchPanel
from inspector.gui.qt_session import DIFF, SIDES, Session
from inspector.gui.qt_settings import Settings
from inspector.gui.qt_stream import StreamPanel
from inspector.gui.qt_text import ElidedLabel, menu_text, plain_label, tooltip, window_title
from inspector.gui.qt_tools_tab import ToolsPanel
from inspector.gui.qt_workers import Progress, debounce
from inspector.gui.tools_matrix import ToolRow, build_matrix
from inspector.resources import SamplePair, sample_pair

#: The smallest share of the width a pane is given when the panes are balanced.
PANE_SHARE_FLOOR = 0.4
#: Transcripts with more items than this are filtered on a worker thread.
ASYNC_FILTER_ITEMS = 20_000
#: Files larger than this are filtered on a worker whatever their item count (the filter
#: searches each item's JSON, and one item may hold a 200 MB string).
ASYNC_FILTER_BYTES = 4 * 1024 * 1024


class Tab:
    """Indexes of the detail tabs."""

    ITEM, ARGUMENTS, DIFF, FINDINGS, STREAM, SCRATCH, SEARCH, CHANGES, TOOLS = range(9)


#: The titles of the tabs made with the window, in Tab order (Changes and Tools come after).
TAB_NAMES = ("Item", "Arguments", "Diff", "Findings", "Stream", "Scratch", "Search")


def decision_words(decision: Decision) -> str:
    """The status bar's words for one file's replay decision (the core decides, never the GUI)."""
    if decision.blocks:
        return f"blocks a replay — {decision.headline()}"
    return decision.headline()


class MainWindow(QMainWindow):
    """Replay Inspector's window."""

    def __init__(
        self,
        settings: Settings,
        *,
        synchronous: bool = False,
        samples: SamplePair | bool | None = True,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.session = Session(self, synchronous=synchronous)
        # One runner for the session's jobs and the panels' checks and filters.
        self.runner = self.session.runner
        self.samples = sample_pair() if samples is True else (samples or None)
        self.aligned = settings.aligned()
        self.current_side = "left"
        #: Whether the user has moved the splitter between the panes (then it stays put).
        self.panes_user_sized = False
        self._linking = False
        self._syncing_scroll = False
        self.setWindowTitle("Replay Inspector")
        self.setWindowIcon(qt_palette.app_icon())
        self.setAcceptDrops(False)

        self.panes = {side: TranscriptPane(side, self) for side in SIDES}
        self.left, self.right = self.panes["left"], self.panes["right"]
        self._build_central()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_status_bar()
        self._build_extras()
        for side, pane in self.panes.items():
            self._connect_pane(side, pane)
        self._connect_session()
        self._connect_extras()
        self._restore_settings()
        self._update_status()
        self._update_actions()

    # ---- construction ---------------------------------------------------------------------

    def _build_central(self) -> None:
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(6, 4, 6, 0)
        column.setSpacing(4)
        self.main_split = QSplitter(Qt.Orientation.Vertical, central)
        self.main_split.setObjectName("main-split")
        self.main_split.setChildrenCollapsible(False)
        top = QWidget(self.main_split)
        top_column = QVBoxLayout(top)
        top_column.setContentsMargins(0, 0, 0, 0)
        top_column.setSpacing(2)
        self.pane_split = QSplitter(Qt.Orientation.Horizontal, top)
        self.pane_split.setObjectName("pane-split")
        self.pane_split.setChildrenCollapsible(False)
        self.pane_split.addWidget(self.left)
        self.pane_split.addWidget(self.right)
        self.pane_split.setHandleWidth(10)
        self.pane_split.splitterMoved.connect(self._panes_moved)
        self._balance_timer = debounce(self, 0, self.balance_panes)
        self.pane_split.installEventFilter(self)
        top_column.addWidget(self.pane_split, 1)
        self.legend = Legend(top)
        top_column.addWidget(self.legend)
        self.tabs = QTabWidget(self.main_split)
        self.tabs.setObjectName("detail-tabs")
        self.tabs.setDocumentMode(True)
        self.item_panel = ItemPanel(self.tabs)
        self.arguments_panel = ArgumentsPanel(self.tabs, self.runner)
        self.diff_panel = DiffPanel(self.tabs)
        self.findings_panel = FindingsPanel(self.tabs)
        self.stream_panel = StreamPanel(self.tabs)
        self.scratch_panel = ScratchPanel(self.session.known_tools, self.tabs, self.runner)
        self.find_panel = FindPanel(lambda: self.results, self.tabs, self.runner)
        panels = (
            self.item_panel, self.arguments_panel, self.diff_panel, self.findings_panel,
            self.stream_panel, self.scratch_panel, self.find_panel,
        )  # fmt: skip
        for panel, name in zip(panels, TAB_NAMES, strict=True):
            self.tabs.addTab(panel, name)
        self.main_split.addWidget(top)
        self.main_split.addWidget(self.tabs)
        self.main_split.setStretchFactor(0, 5)
        self.main_split.setStretchFactor(1, 4)
        column.addWidget(self.main_split, 1)
        self.setCentralWidget(central)
        self.findings_panel.activated.connect(self._finding_activated)
        self.scratch_panel.current_changed.connect(
            lambda item, pointer: self._show_details("scratch", item, pointer)
        )
        self.scratch_panel.paste_requested.connect(self.paste)
        self.scratch_panel.arguments_requested.connect(self._check_bare_arguments)
        self.find_panel.query_changed.connect(self.item_panel.set_find)
        self.find_panel.hit_chosen.connect(lambda side, item, ptr: self._show_hit(side, item, ptr))
        self.find_panel.hit_opened.connect(
            lambda side, item, ptr: self._show_hit(side, item, ptr, open_item=True)
        )

    def _action(
        self,
        text: str,
        slot: Callable[[], Any],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
        tip: str | None = None,
        icon: str | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tooltip(tip))
        if icon is not None:
            action.setIcon(qt_palette.action_icon(icon))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        self.open_left_action = self._action(
            "Open &Left…", lambda: self.choose_file("left"), "Ctrl+O",
            "Open a transcript in the left pane", "open-left",
        )  # fmt: skip
        self.open_right_action = self._action(
            "Open &Right…", lambda: self.choose_file("right"), "Ctrl+Shift+O",
            "Open a transcript in the right pane", "open-right",
        )  # fmt: skip
        self.sample_action = self._action(
            "Open the &Sample Pair", self.open_sample_pair, None,
            "Open provider-a.json and provider-b.json with their tools",
        )  # fmt: skip
        self.sample_action.setVisible(self.samples is not None)
        self.reload_action = self._action(
            "Re&load", self.reload, QKeySequence.StandardKey.Refresh,
            "Read both files again from disk", "reload",
        )  # fmt: skip
        self.tools_action = self._action(
            "Load &Tools…", self.choose_tools, "Ctrl+T",
            "Load tool schemas (a tools array, a request, or a {name: schema} object)", "tools",
        )  # fmt: skip
        self.swap_action = self._action("S&wap Sides", self.swap_sides, "Ctrl+Shift+W")
        self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.paste_action = self._action(
            "&Paste into Scratch", self.paste, "Ctrl+Shift+V",
            "Paste an item, items, a transcript, arguments or a schema from the clipboard", "paste",
        )  # fmt: skip
        self.paste_schema_action = self._action(
            "Paste as Tool &Schema", self.paste_schema, None,
            "Put the clipboard into the Arguments tab's schema box",
        )  # fmt: skip
        self.copy_action = self._action(
            "&Copy Item JSON", self.copy_item, None, "Copy the selected item as JSON"
        )
        self.copy_arguments_action = self._action(
            "Copy Edited &Arguments as String", self.copy_arguments, None,
            "Copy the Arguments tab's arguments as the escaped string an item's arguments holds",
        )  # fmt: skip
        self.copy_item_arguments_action = self._action(
            "Copy Item with &Edited Arguments", self.copy_item_with_arguments, None,
            "Copy the selected item as JSON, with the Arguments tab's arguments in it",
        )  # fmt: skip
        self.find_action = self._action(
            "&Filter…", self.focus_filter, QKeySequence.StandardKey.Find,
            "Filter the current pane",
        )  # fmt: skip
        self.find_contents_action = self._action(
            "Find in C&ontents…", self.find_in_contents, "Ctrl+Shift+F",
            "Find a text in every item of the current pane: messages, outputs, arguments",
        )  # fmt: skip
        self.find_next_action = self._action(
            "Find &Next", lambda: self.step_hit(True), "F3", "Show the next hit of the search"
        )
        self.find_previous_action = self._action(
            "Find Pre&vious", lambda: self.step_hit(False), "Shift+F3",
            "Show the previous hit of the search",
        )  # fmt: skip
        self.revert_action = self._action(
            "Re&vert Arguments", self.arguments_panel.revert, None,
            "Put back the selected item's arguments as they are in the file",
        )  # fmt: skip
        self.aligned_action = QAction("&Aligned Mode", self)
        self.aligned_action.setCheckable(True)
        self.aligned_action.setChecked(self.aligned)
        self.aligned_action.setShortcut(QKeySequence("Ctrl+L"))
        self.aligned_action.setStatusTip("Show aligned pairs on the same line and scroll together")
        self.aligned_action.setIcon(qt_palette.action_icon("aligned"))
        self.aligned_action.toggled.connect(self.set_aligned)
        self.legend_action = QAction("&Legend", self)
        self.legend_action.setCheckable(True)
        self.legend_action.setChecked(True)
        self.legend_action.toggled.connect(self.legend.setVisible)
        self.next_diff_action = self._action(
            "&Next Difference", self.next_difference, "F8",
            "Select the next changed pair", "next",
        )  # fmt: skip
        self.prev_diff_action = self._action(
            "&Previous Difference", self.previous_difference, "Shift+F8",
            "Select the previous changed pair", "previous",
        )  # fmt: skip
        self.next_problem_action = self._action(
            "Next Pro&blem", self.next_problem, "F9",
            "Select the next item that blocks a replay", "problem",
        )  # fmt: skip
        self.prev_problem_action = self._action(
            "Previous Prob&lem", self.previous_problem, "Shift+F9",
            "Select the previous item that blocks a replay",
        )  # fmt: skip
        self.counterpart_action = self._action(
            "Go to &Counterpart", self.go_to_counterpart, "Ctrl+J",
            "Move the focus to the aligned item in the other pane",
        )  # fmt: skip
        self.about_action = self._action("&About Replay Inspector", self.about)
        self.keys_action = self._action("&Keyboard Shortcuts", self.show_shortcuts)
        self.legend_help_action = self._action("&Verdicts and Markers", self.show_verdict_help)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = self.file_menu = bar.addMenu("&File")
        file_menu.addAction(self.open_left_action)
        file_menu.addAction(self.open_right_action)
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addMenu(self.recent_menu)
        file_menu.addAction(self.sample_action)
        file_menu.addSeparator()
        file_menu.addAction(self.reload_action)
        file_menu.addAction(self.tools_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(self.copy_action)
        edit_menu.addAction(self.copy_arguments_action)
        edit_menu.addAction(self.copy_item_arguments_action)
        edit_menu.addAction(self.paste_action)
        edit_menu.addAction(self.paste_schema_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.revert_action)
        edit_menu.addAction(self.find_action)
        edit_menu.addAction(self.find_contents_action)
        edit_menu.addAction(self.find_next_action)
        edit_menu.addAction(self.find_previous_action)
        view_menu = self.view_menu = bar.addMenu("&View")
        view_menu.addAction(self.aligned_action)
        view_menu.addAction(self.legend_action)
        view_menu.addAction(self.swap_action)
        columns = view_menu.addMenu("&Columns")
        columns.aboutToShow.connect(
            lambda: fill_column_menu(columns, self._headers(), self._fit_columns)
        )
        view_menu.addSeparator()
        for number, name in enumerate(TAB_NAMES):
            action = self._action(
                f"{name} Tab", lambda n=number: self.tabs.setCurrentIndex(n), f"Alt+{number + 1}"
            )
            view_menu.addAction(action)
        go_menu = bar.addMenu("&Go")
        go_menu.addAction(self.next_diff_action)
        go_menu.addAction(self.prev_diff_action)
        go_menu.addSeparator()
        go_menu.addAction(self.next_problem_action)
        go_menu.addAction(self.prev_problem_action)
        go_menu.addSeparator()
        go_menu.addAction(self.counterpart_action)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.legend_help_action)
        help_menu.addAction(self.keys_action)
        help_menu.addSeparator()
        help_menu.addAction(self.about_action)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main", self)
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.setIconSize(QSize(16, 16))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.addAction(self.open_left_action)
        bar.addAction(self.open_right_action)
        bar.addAction(self.reload_action)
        bar.addSeparator()
        bar.addAction(self.aligned_action)
        bar.addAction(self.prev_diff_action)
        bar.addAction(self.next_diff_action)
        bar.addAction(self.next_problem_action)
        bar.addSeparator()
        bar.addAction(self.tools_action)
        bar.addAction(self.paste_action)
        self.addToolBar(bar)
        self.toolbar = bar

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.decision_icon = QLabel(status)
        self.decision_label = ElidedLabel("", status)
        font = self.decision_label.font()
        font.setBold(True)
        self.decision_label.setFont(font)
        status.addWidget(self.decision_icon)
        status.addWidget(self.decision_label, 1)
        self.tools_label = plain_label("", status)
        status.addPermanentWidget(self.tools_label)
        self.diff_progress = DiffProgressBar(self.session, status)
        status.addPermanentWidget(self.diff_progress)
        for action in (self.prev_diff_action, self.next_diff_action):
            button = QToolButton(status)
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            status.addPermanentWidget(button)

    def _connect_pane(self, side: str, pane: TranscriptPane) -> None:
        pane.set_sample_available(self.samples is not None)
        pane.open_requested.connect(lambda: self.choose_file(side))
        pane.sample_requested.connect(self.open_sample_pair)
        pane.files_dropped.connect(lambda paths: self._dropped(side, paths))
        pane.cancel_requested.connect(lambda: self.cancel_load(side))
        pane.current_changed.connect(lambda item, pointer: self._pane_current(side, item, pointer))
        pane.filter_changed.connect(self.refilter)
        pane.columns_fitted.connect(self.balance_panes)
        pane.columns_menu_requested.connect(self._columns_menu)
        pane.tree.verticalScrollBar().valueChanged.connect(
            lambda value: self._sync_scroll(side, value)
        )
        pane.model.rowsInserted.connect(lambda parent, _first, _last: self._sync_rows(side, parent))
        pane.tree.expanded.connect(lambda index: self._sync_expand(side, index, True))
        pane.tree.collapsed.connect(lambda index: self._sync_expand(side, index, False))

    def _connect_session(self) -> None:
        session = self.session
        session.loading.connect(self._loading)
        session.progress.connect(
            lambda side, stage, fraction: self.panes[side].set_stage(
                stage, fraction if fraction >= 0 else None
            )
        )
        session.loaded.connect(self._show_loaded)
        session.failed.connect(self._load_failed)
        session.swapped.connect(self._swapped)
        session.diffed.connect(self._show_alignment)
        session.diff_failed.connect(lambda error: self._say(f"Cannot compare: {error}", 8000))
        session.busy.connect(self._busy)
        session.tools_changed.connect(self._update_status)

    # ---- settings -------------------------------------------------------------------------

    def _restore_settings(self) -> None:
        geometry = self.settings.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        state = self.settings.window_state()
        if state is not None:
            self.restoreState(state)
        for name, splitter in self._splitters().items():
            saved = self.settings.splitter(name)
            if saved is not None:
                splitter.restoreState(saved)
            elif name == "main":
                splitter.setSizes([500, 400])
        for side, pane in self.panes.items():
            header = self.settings.header(side)
            if header is not None:
                pane.tree.header().restoreState(header)

    def _splitters(self) -> dict[str, QSplitter]:
        return {
            "main": self.main_split,
            "panes": self.pane_split,
            "arguments": self.arguments_panel.splitter,
        }

    def save_settings(self) -> None:
        """Write geometry, window and splitter state and view options to the settings store."""
        self.settings.set_geometry(self.saveGeometry())
        self.settings.set_window_state(self.saveState())
        for name, splitter in self._splitters().items():
            self.settings.set_splitter(name, splitter.saveState())
        for side, pane in self.panes.items():
            self.settings.set_header(side, pane.tree.header().saveState())
        self.settings.set_aligned(self.aligned)
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Save settings and drop running work before closing."""
        self.save_settings()
        self.arguments_panel.stop()
        self.scratch_panel.stop()
        self.find_panel.stop()
        self.session.stop()
        # Running work stops at its next record once cancelled; waiting for it here keeps it
        # from outliving the window (and its signals) when the application quits.
        self.runner.stop_all()
        super().closeEvent(event)

    # ---- files ----------------------------------------------------------------------------

    def choose_file(self, side: str) -> None:
        """Ask for a transcript to open on one side."""
        path, _filter = QFileDialog.getOpenFileName(
            self,
            f"Open {side.title()} Transcript",
            self.settings.last_directory(),
            "Transcripts (*.json *.jsonl *.ndjson *.sse *.txt *.log);;All files (*)",
        )
        if path:
            self.settings.set_last_directory(os.path.dirname(path))
            self.open_file(side, path)

    def open_file(self, side: str, path: str) -> None:
        """Load and gate a file off the GUI thread and show it on one side."""
        self.session.open(side, path)

    def _loading(self, side: str, path: str) -> None:
        self.settings.add_recent_file(path)
        self.panes[side].show_loading(path)

    def open_pair(self, left: str | None, right: str | None) -> None:
        """Open files on both sides (either may be None)."""
        if left:
            self.open_file("left", left)
        if right:
            self.open_file("right", right)

    def open_sample_pair(self) -> None:
        """Open the bundled sample pair with its tools file."""
        if self.samples is None:
            return
        self.load_tool_file(str(self.samples.tools), regate=False)
        self.open_pair(str(self.samples.left), str(self.samples.right))

    def reload(self) -> None:
        """Read both files again from disk."""
        self.session.reload()

    def cancel_load(self, side: str) -> None:
        """Drop one side's running load; the pane goes back to what it showed."""
        self.session.cancel(side)
        self.panes[side].restore_page()
        self._say("Load cancelled", 4000)

    def _dropped(self, side: str, paths: list[str]) -> None:
        if len(paths) >= 2:
            self.open_pair(paths[0], paths[1])
        else:
            self.open_file(side, paths[0])

    def _busy(self, channel: str, _running: bool) -> None:
        if channel == DIFF:  # the status line says "comparing…" while it runs
            self._update_status()

    def _show_loaded(self, side: str) -> None:
        loaded = self.session.files[side]
        assert loaded is not None
        pane = self.panes[side]
        # A reload or re-gate of the same file keeps the item the user was looking at.
        keep = pane.current_item() if pane.path == loaded.path else None
        pane.show_result(loaded.path, loaded.result, loaded.summary)
        self._after_results_changed()
        count = len(loaded.result.transcript.items)
        if pane.current_item() is None and count:
            pane.select_item(keep if keep is not None and keep < count else 0)

    def _load_failed(self, side: str, path: str, error: LoadError) -> None:
        self.panes[side].show_error(path, error)
        self._say(f"Cannot open {os.path.basename(path)}", 5000)
        self._after_results_changed()

    def _after_results_changed(self) -> None:
        self.findings_panel.set_results({s: r for s, r in self.results.items() if r is not None})
        self.stream_panel.set_streams(self.session.streams)
        self.scratch_panel.regate()
        self.find_panel.refresh()
        names = [os.path.basename(p.path) for p in self.panes.values() if p.path]
        self.setWindowTitle(
            window_title(" ↔ ".join(names)) + " — Replay Inspector" if names else "Replay Inspector"
        )
        self._show_alignment()  # the session dropped the diff: a new one comes with `diffed`

    def _show_alignment(self) -> None:
        """Attach the session's diff (or none) to both panes, keeping each pane's item."""
        alignment = self.alignment
        current = {side: pane.current_item() for side, pane in self.panes.items()}
        for side, pane in self.panes.items():
            before = pane.model.alignment
            pane.model.set_alignment(alignment, side, self.aligned)
            if pane.model.alignment is not before:
                pane.fit_columns()  # the change column's texts came or went
        self.refilter()
        for side, pane in self.panes.items():
            if current[side] is not None:
                pane.select_item(current[side], notify=False)
        if self.current_side in SIDES:  # a scratch item in the detail tabs stays there
            item = current[self.current_side]
            if alignment is not None and item is not None:
                # A diff that lands after the selection links the other pane to it now.
                other = "right" if self.current_side == "left" else "left"
                counterpart = alignment.counterpart(self.current_side, item)
                self.panes[other].select_item(counterpart, notify=False)
            self._show_details(self.current_side, -1 if item is None else item, "")
        self._update_status()
        self._update_actions()
        self._refresh_extras()

    def choose_tools(self) -> None:
        """Ask for a tools file and re-gate both sides with it."""
        path, _filter = QFileDialog.getOpenFileName(
            self,
            "Load Tool Schemas",
            self.settings.last_directory(),
            "JSON (*.json);;All files (*)",
        )
        if path:
            self.load_tool_file(path)

    def load_tool_file(self, path: str, *, regate: bool = True) -> bool:
        """Add the tools of a file (they win over the transcripts' own); re-gate both sides."""
        try:
            self.session.add_tool_file(path)
        except LoadError as exc:
            if not self.runner.synchronous:  # no modal box while rendering a screenshot
                self._message("Cannot load tools", f"{exc.location()}: {exc.message}", warning=True)
            self._say(f"Cannot load tools: {exc}", 8000)
            return False
        if regate:
            self.session.regate()
        return True

    @property
    def results(self) -> dict[str, GateResult | None]:
        """Each side's gated transcript (None where nothing is loaded)."""
        return self.session.results

    @property
    def alignment(self) -> Alignment | None:
        """The diff of the two sides, with its display order (None until both are compared)."""
        return self.session.alignment

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        if not files:
            empty = self.recent_menu.addAction("No recent files")
            empty.setEnabled(False)
            return
        target = self.current_side if self.current_side in SIDES else "left"
        note = self.recent_menu.addAction(f"Opens in the {target} pane")
        note.setEnabled(False)
        for path in files:
            action = self.recent_menu.addAction(menu_text(os.path.basename(path)))
            action.setToolTip(tooltip(path))
            action.setStatusTip(visible(path))
            action.triggered.connect(lambda _c=False, p=path, s=target: self.open_file(s, p))
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("Clear Recent Files")
        clear.triggered.connect(self.settings.clear_recent_files)

    def _panes_moved(self, _position: int, _index: int) -> None:
        self.panes_user_sized = True

    def balance_panes(self) -> None:
        """Share the width between the panes by what their columns need (until the user moves
        the splitter): a pane whose names are longer gets the room to show them whole."""
        needs = [pane.fitter.needed() for pane in (self.left, self.right)]
        total = sum(self.pane_split.sizes())
        if self.panes_user_sized or not all(needs) or total <= 0:
            return
        first = left_share(total, self.left.fitter, self.right.fitter)
        # Neither side drops below a share that keeps a comparison in view.
        low = int(total * PANE_SHARE_FLOOR)
        first = min(max(first, low), total - low)
        if self.pane_split.sizes() != [first, total - first]:
            self.pane_split.setSizes([first, total - first])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Share the splitter's new width between the panes by what they need."""
        # The event type first: filters also see the events of the splitter's destruction.
        if event.type() == QEvent.Type.Resize and watched is self.pane_split:
            self._balance_timer.start()  # once the splitter has laid its panes out
        return super().eventFilter(watched, event)

    def _headers(self) -> list[Any]:
        return [pane.tree.header() for pane in self.panes.values()]

    def _fit_columns(self) -> None:
        for pane in self.panes.values():
            pane.fit_columns()

    def _columns_menu(self, pos: Any) -> None:
        # One menu drives both panes so their columns stay in step.
        menu = QMenu(self)
        fill_column_menu(menu, self._headers(), self._fit_columns)
        menu.exec(pos)
        menu.deleteLater()

    def swap_sides(self) -> None:
        """Swap the left and right transcripts."""
        self.session.swap()

    def _swapped(self) -> None:
        for side, pane in self.panes.items():
            loaded = self.session.files[side]
            if loaded is not None:
                pane.show_result(loaded.path, loaded.result, loaded.summary)
            elif self.session.paths[side] is None:
                pane.show_empty()
            # else: the session reads that side's unreadable file again and says how it went
        self._after_results_changed()

    # ---- selection and linking ------------------------------------------------------------

    def _pane_current(self, side: str, item: int, pointer: str) -> None:
        if self._linking:
            return
        self.current_side = side
        self._show_details(side, item, pointer)
        if item < 0 or self.alignment is None:
            return
        other = "right" if side == "left" else "left"
        counterpart = self.alignment.counterpart(side, item)
        self._linking = True
        try:
            self.panes[other].select_item(counterpart, notify=False)
        finally:
            self._linking = False

    def _result_of(self, source: str) -> GateResult | None:
        if source == "scratch":
            return self.scratch_panel.result
        return self.results.get(source)

    def _show_details(self, source: str, item: int, pointer: str) -> None:
        result = self._result_of(source)
        if result is None or not 0 <= item < len(result.transcript.items):
            self.item_panel.clear()
            self.arguments_panel.clear()
            self.diff_panel.show_pair(self.alignment, None)
            return
        core_item = result.transcript.items[item]
        verdict = result.verdicts[item]
        self.item_panel.show_item(core_item, verdict, pointer)
        self.arguments_panel.set_item(core_item.raw, verdict, result.toolset)
        if source in SIDES and self.alignment is not None:
            self.diff_panel.show_pair(self.alignment, self.alignment.pair_of(source, item))
        elif source in SIDES:
            self.diff_panel.show_pair(None, None)
        if source in SIDES:
            self.stream_panel.show_side(source)  # the Stream tab follows the selected side

    def select(self, side: str, item: int) -> bool:
        """Select an item on one side (its counterpart follows); False if it is not shown."""
        return self.panes[side].select_item(item)

    def _select_pair_at(self, position: int, tab: int | None = Tab.DIFF) -> None:
        assert self.alignment is not None
        pair = self.alignment.diff.pairs[position]
        side = "left" if pair.left is not None else "right"
        item = pair.left if pair.left is not None else pair.right
        assert item is not None
        for pane in self.panes.values():
            # Filters could hide either row; a difference must be reachable, so they go.
            if pane.matching_rows() is not None:
                pane.filter_edit.clear()
                pane.verdict_combo.setCurrentIndex(0)
        self.refilter()
        self.panes[side].select_item(item)
        if tab is not None:
            self.tabs.setCurrentIndex(tab)

    def _shown_side_of(self, position: int) -> str | None:
        """A side whose pane shows an item of the pair at `position` (filters may hide it)."""
        assert self.alignment is not None
        pair = self.alignment.diff.pairs[position]
        for side, item in (("left", pair.left), ("right", pair.right)):
            if item is not None and self.panes[side].model.row_of_item(item) is not None:
                return side
        return None

    def _step_difference(self, forward: bool) -> None:
        # Only differences the filters show are stepped to: a filter is never dropped behind
        # the user's back, and when it hides them all the status bar says so.
        alignment = self.alignment
        if alignment is None or not alignment.changed:
            return
        current = self._current_position()
        step = alignment.next_changed if forward else alignment.previous_changed
        position = step(current)
        for _ in range(len(alignment.changed)):
            assert position is not None
            side = self._shown_side_of(position)
            if side is not None and (position != current or len(alignment.changed) == 1):
                pair = alignment.diff.pairs[position]
                item = pair.left if side == "left" else pair.right
                assert item is not None
                self.panes[side].select_item(item)
                self.tabs.setCurrentIndex(Tab.DIFF)
                if wrapped(current, position, forward):
                    self._say(wrap_words(forward, len(alignment.changed)), 6000)
                return
            position = step(position)
        if any(pane.model.filtered for pane in self.panes.values()):
            self._say(
                f"The filter hides the other differences ({len(alignment.changed):,} in all): "
                "Esc in the filter box clears it",
                6000,
            )

    def _current_position(self) -> int | None:
        if self.alignment is None:
            return None
        side = self.current_side if self.current_side in SIDES else "left"
        item = self.panes[side].current_item()
        return self.alignment.position(side, item) if item is not None else None

    def next_difference(self) -> None:
        """Select the next changed pair that the filters show (F8)."""
        self._step_difference(True)

    def previous_difference(self) -> None:
        """Select the previous changed pair that the filters show (Shift+F8)."""
        self._step_difference(False)

    def _step_problem(self, forward: bool) -> None:
        side = self.current_side if self.current_side in SIDES else "left"
        if self.results[side] is None:
            side = "right" if side == "left" else "left"
        result = self.results[side]
        if result is None:
            return
        problems = result.problems()
        if not problems:
            self._say("No item blocks a replay on this side", 4000)
            return
        current = self.panes[side].current_item()
        if forward:
            later = [i for i in problems if current is None or i > current]
            target = later[0] if later else problems[0]
        else:
            earlier = [i for i in problems if current is None or i < current]
            target = earlier[-1] if earlier else problems[-1]
        self.panes[side].select_item(target)

    def next_problem(self) -> None:
        """Select the next item that blocks a replay on the current side (F9)."""
        self._step_problem(True)

    def previous_problem(self) -> None:
        """Select the previous item that blocks a replay on the current side (Shift+F9)."""
        self._step_problem(False)

    def go_to_counterpart(self) -> None:
        """Focus the other pane at the aligned item."""
        side = self.current_side if self.current_side in SIDES else "left"
        other = "right" if side == "left" else "left"
        item = self.panes[side].current_item()
        if self.alignment is None or item is None:
            return
        counterpart = self.alignment.counterpart(side, item)
        if counterpart is not None:
            self.panes[other].select_item(counterpart)
            self.panes[other].tree.setFocus()

    def _finding_activated(self, side: str, items: list[int]) -> None:
        if side in self.panes and items:
            self.panes[side].select_items(items)
            self.panes[side].tree.setFocus()
            self.tabs.setCurrentIndex(Tab.ITEM)

    # ---- aligned mode, filter and scrolling -----------------------------------------------

    def set_aligned(self, on: bool) -> None:
        """Show pairs on the same lines (gaps where a side has no item) and scroll together."""
        if on == self.aligned and self.aligned_action.isChecked() == on:
            return
        self.aligned = on
        self.aligned_action.setChecked(on)
        self._show_alignment()

    def refilter(self) -> None:
        """Apply each pane's filter; in aligned mode a pair shows when either side matches.

        Matching a large transcript runs on a worker; a newer filter supersedes it.
        """
        jobs = {side: pane.filter_job() for side, pane in self.panes.items()}
        shown = {side: (p.model.result, p.model.rows) for side, p in self.panes.items()}

        def work(progress: Progress) -> dict[str, frozenset[int] | None]:
            progress("Filtering…")
            return {side: (job() if job is not None else None) for side, job in jobs.items()}

        def apply(rows: dict[str, frozenset[int] | None]) -> None:
            if shown != {side: (p.model.result, p.model.rows) for side, p in self.panes.items()}:
                self.refilter()  # the transcripts changed while matching: match again
                return
            self._apply_filter(rows)

        sizes = {side: (x.size if x is not None else 0) for side, x in self.session.files.items()}
        large = any(
            job is not None
            and (
                self.panes[side].model.item_count() > ASYNC_FILTER_ITEMS
                or sizes[side] > ASYNC_FILTER_BYTES
            )
            for side, job in jobs.items()
        )
        if large and not self.runner.synchronous:
            self._say("Filtering…")
            self.runner.start("filter", work, apply, lambda _error: None)
        else:
            self.runner.cancel("filter", notify=False)
            apply(work(lambda _stage: None))

    def _apply_filter(self, rows: dict[str, frozenset[int] | None]) -> None:
        self.statusBar().clearMessage()
        if self.aligned and self.alignment is not None:
            active = [r for r in rows.values() if r is not None]
            union = frozenset().union(*active) if active else None
            for pane in self.panes.values():
                pane.set_visible_rows(union)
        else:
            for side, pane in self.panes.items():
                pane.set_visible_rows(rows[side])

    def _sync_scroll(self, side: str, value: int) -> None:
        if not self.aligned or self.alignment is None or self._syncing_scroll:
            return
        other = self.panes["right" if side == "left" else "left"]
        self._syncing_scroll = True
        try:
            other.tree.verticalScrollBar().setValue(value)
        finally:
            self._syncing_scroll = False

    def _sync_rows(self, side: str, parent: Any) -> None:
        # In aligned mode both panes must expose the same rows for their lines to match.
        if not self.aligned or self.alignment is None or parent.isValid():
            return
        other = self.panes["right" if side == "left" else "left"]
        other.model.ensure_row(self.panes[side].model.fetched_rows - 1)

    def _sync_expand(self, side: str, index: Any, expanded: bool) -> None:
        if not self.aligned or self.alignment is None or self._syncing_scroll:
            return
        # Aligned rows are padded at every level, so the twin is at the same rows in the other.
        other = self.panes["right" if side == "left" else "left"]
        twin = twin_index(other.model, index)
        self._syncing_scroll = True
        try:
            other.tree.setExpanded(twin, expanded)
        finally:
            self._syncing_scroll = False

    def focus_filter(self) -> None:
        """Move the focus to the current pane's filter box."""
        side = self.current_side if self.current_side in SIDES else "left"
        self.panes[side].filter_edit.setFocus()
        self.panes[side].filter_edit.selectAll()

    # ---- paste and copy -------------------------------------------------------------------

    def paste(self, text: str | None = None) -> None:
        """Route pasted text: items/transcripts to Scratch, arguments and schemas to Arguments."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        if not text.strip():
            self._say("The clipboard holds no text", 4000)
            return
        pasted = route_paste(text)
        if pasted.kind == PasteKind.TRANSCRIPT:
            self.scratch_panel.set_text(pasted.text)
            self.tabs.setCurrentIndex(Tab.SCRATCH)
        elif pasted.kind == PasteKind.ARGUMENTS:
            toolset, _overridden = make_toolset(None, self.session.known_tools())
            self.arguments_panel.set_bare_arguments(pasted.text, toolset)
            self.tabs.setCurrentIndex(Tab.ARGUMENTS)
        else:
            self.paste_schema(pasted.text, pasted.tool)

    def paste_schema(self, text: str | None = None, tool: str | None = None) -> None:
        """Put a schema into the Arguments tab's schema box (it then overrides the tool's)."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        if tool is not None:
            at = self.arguments_panel.tool_combo.findData(tool)
            if at >= 0:
                self.arguments_panel.tool_combo.setCurrentIndex(at)
        self.arguments_panel.set_schema_text(text)
        self.tabs.setCurrentIndex(Tab.ARGUMENTS)

    def copy_item(self) -> None:
        """Copy the current item's JSON to the clipboard."""
        text = self.item_panel.full_json()  # the view may show long strings shortened
        if text:
            QGuiApplication.clipboard().setText(text)

    def copy_arguments(self) -> None:
        """Copy the Arguments tab's (edited) arguments as the escaped `arguments` string."""
        QGuiApplication.clipboard().setText(self.arguments_panel.arguments_string())

    def copy_item_with_arguments(self) -> None:
        """Copy the shown item as JSON with the Arguments tab's (edited) arguments in it."""
        text = self.arguments_panel.item_with_arguments()
        if text is None:
            self._say("Pasted arguments belong to no item: copy them as a string instead", 5000)
            return
        QGuiApplication.clipboard().setText(text)

    def _check_bare_arguments(self, text: str, tool: str | None) -> None:
        toolset, _overridden = make_toolset(None, self.session.known_tools())
        self.arguments_panel.set_bare_arguments(text, toolset, tool)
        self.tabs.setCurrentIndex(Tab.ARGUMENTS)

    # ---- find in contents -----------------------------------------------------------------

    def find_in_contents(self) -> None:
        """Search the current pane's items for a text (Ctrl+Shift+F)."""
        side = self.current_side if self.current_side in SIDES else "left"
        self.tabs.setCurrentIndex(Tab.SEARCH)
        self.find_panel.start(side)

    def step_hit(self, forward: bool) -> None:
        """Show the next (or previous) hit of the search in the Item tab (F3 / Shift+F3)."""
        hit = self.find_panel.step(forward)
        if hit is None:
            self._say("Nothing found to step through: Ctrl+Shift+F searches the contents", 4000)
            return
        self._show_hit(self.find_panel.side, hit.item, hit.pointer, open_item=True)

    def _show_hit(self, side: str, item: int, pointer: str, *, open_item: bool = False) -> None:
        pane = self.panes[side]
        if pane.model.row_of_item(item) is None and pane.model.filtered:
            pane.clear_filter()  # the user asked for this item: show it
            self.refilter()
            self._say("The filter hid that item, so it was cleared", 4000)
        pane.select_item(item)
        if open_item:
            self.tabs.setCurrentIndex(Tab.ITEM)
        self.item_panel.show_find(pointer)

    # ---- status ---------------------------------------------------------------------------

    def _update_status(self) -> None:
        alignment = self.alignment
        loaded = {s: x for s, x in self.session.files.items() if x is not None}
        # Each file's replay answer is the core's decision, worded once for label and tooltip.
        answers = [
            f"{os.path.basename(x.path or side)}: {decision_words(x.decision)}"
            for side, x in loaded.items()
        ]
        severity = None
        if alignment is not None:
            icon, text, severity = self._diff_status(alignment, answers)
        elif loaded:
            blocked = any(x.decision.blocks for x in loaded.values())
            icon = qt_palette.severity_swatch("error" if blocked else "info").icon
            text = "   ".join(
                f"{answer} ({', '.join(f'{k} {v}' for k, v in x.summary.items())})"
                for answer, x in zip(answers, loaded.values(), strict=True)
            )
            if len(loaded) == 1:
                text += "   — " + self._other_side_words(next(iter(loaded)))
            elif self.session.comparing():
                text += "   — comparing…"
            self.decision_label.setToolTip(tooltip(text))
        else:
            icon = None
            text = "Open two transcripts to see what may be replayed to another model."
            self.decision_label.setToolTip("")
        self.decision_icon.setPixmap(qt_palette.pixmap(icon, 16) if icon is not None else QPixmap())
        self.decision_label.setText(text)
        self._colour_decision(severity)
        tool_files = self.session.tool_files
        if tool_files:
            names = ", ".join(os.path.basename(p) for p in tool_files)
            self.tools_label.setText(f"tools: {names}")
            self.tools_label.setToolTip(tooltip("\n".join(tool_files)))
        else:
            self.tools_label.setText("")

    def _other_side_words(self, side: str) -> str:
        """What the status bar says about the side without a transcript."""
        other = "right" if side == "left" else "left"
        path = self.session.paths[other]
        if path is None:
            return "open a second transcript to compare"
        name = os.path.basename(path)
        if self.panes[other].showing_error:
            return f"the {other} file {name} could not be read, so there is nothing to compare"
        return f"loading {name}…"

    def _say(self, text: str, msecs: int = 0) -> None:
        """Show a passing message in the status bar (file names in it shown escaped)."""
        self.statusBar().showMessage(visible(text), msecs)

    def _update_actions(self) -> None:
        has_diff = self.alignment is not None and bool(self.alignment.changed)
        self.next_diff_action.setEnabled(has_diff)
        self.prev_diff_action.setEnabled(has_diff)
        any_result = any(r is not None for r in self.results.values())
        self.next_problem_action.setEnabled(any_result)
        self.prev_problem_action.setEnabled(any_result)
        self.reload_action.setEnabled(any(p.path for p in self.panes.values()))
        self.counterpart_action.setEnabled(self.alignment is not None)
        self.swap_action.setEnabled(any_result)

    # ---- help -----------------------------------------------------------------------------

    def _message(self, title: str, text: str, *, warning: bool = False) -> None:
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setTextFormat(Qt.TextFormat.PlainText)  # text may come from a file
        box.setText(visible(text, lines=True))
        if warning:
            box.setIcon(QMessageBox.Icon.Warning)
        else:
            box.setIconPixmap(qt_palette.pixmap(qt_palette.app_icon(), 48))
        box.exec()

    def about(self) -> None:
        """Show the About box."""
        self._message(
            "About Replay Inspector",
            f"Replay Inspector {__version__}\n\n"
            "Checks logged Open Responses items before they are replayed to another model "
            "provider: the replay gate per item, two providers' transcripts side by side, "
            "tool-argument validation with JSON Schema, and recorded stream checks.",
        )

    def show_shortcuts(self) -> None:
        """List the keyboard shortcuts."""
        actions = [
            self.open_left_action, self.open_right_action, self.reload_action,
            self.tools_action, self.paste_action, self.find_action, self.aligned_action,
            self.next_diff_action, self.prev_diff_action, self.next_problem_action,
            self.prev_problem_action, self.counterpart_action,
        ]  # fmt: skip
        actions += [*self.mode_switch.actions.values(), self.export_action]
        lines = [
            f"{a.shortcut().toString(QKeySequence.SequenceFormat.NativeText):<16}"
            f"{a.text().replace('&', '')}"
            for a in actions
        ]
        self._message("Keyboard Shortcuts", "\n".join(lines))

    def show_verdict_help(self) -> None:
        """Explain every verdict and marker."""
        lines = [f"{v}: {qt_palette.verdict_swatch(v).meaning}" for v in qt_palette.all_verdicts()]
        lines.append("")
        for level in qt_palette.ChangeLevel:
            lines.append(f"{level} change: {qt_palette.change_swatch(level).meaning}")
        self._message("Verdicts and Markers", "\n".join(lines))

    # ---- screenshots ----------------------------------------------------------------------

    def settle(self, rounds: int = 5) -> None:
        """Let layouts, lazy rows and timers settle (used before grabbing the window)."""
        app = QGuiApplication.instance()
        for _ in range(rounds):
            app.processEvents()

    # ---- target, diff mode, changes, tools and export -------------------------------------

    def _build_extras(self) -> None:
        """The Changes and Tools tabs, the mode switch, the target selector, Export Report."""
        self.changes_panel = ChangesPanel(self.tabs)
        self.tools_panel = ToolsPanel(self.tabs)
        self.tabs.addTab(self.changes_panel, "Changes")
        self.tabs.addTab(self.tools_panel, "Tools")
        self._tools_key: tuple[Any, ...] | None = None
        self._tools_rows: list[ToolRow] = []
        self._verdict: tuple[Alignment, DiffVerdict] | None = None
        self.mode_switch = ModeSwitch(self)
        self.target_selector = TargetSelector(self)
        bar = self.toolbar
        for action in self.mode_switch.actions.values():
            bar.insertAction(self.prev_diff_action, action)
        bar.insertSeparator(self.prev_diff_action)
        bar.addSeparator()
        bar.addWidget(plain_label(" Target: ", bar))
        bar.addWidget(self.target_selector)
        self.toolbar_fit = ToolbarFit(bar)
        modes = QMenu("Diff &Mode", self)
        for action in self.mode_switch.actions.values():
            modes.addAction(action)
        self.view_menu.insertMenu(self.legend_action, modes)
        for number, name in ((Tab.CHANGES, "Changes"), (Tab.TOOLS, "Tools")):
            self.view_menu.addAction(
                self._action(
                    f"{name} Tab",
                    lambda n=number: self.tabs.setCurrentIndex(n),
                    f"Alt+{number + 1}",
                )
            )
        self.export_action = self._action(
            "&Export Report…", self.choose_export, "Ctrl+E",
            "Write an HTML page or a Markdown summary of the open files, secrets redacted",
        )  # fmt: skip
        self.export_action.setEnabled(False)  # until a file is open
        self.file_menu.insertAction(self.quit_action, self.export_action)
        self.file_menu.insertSeparator(self.quit_action)
        # The reasons line opens the Changes tab, where every reason is listed with its pair.
        ClickOpens(self.decision_label, self.show_changes)

    def _connect_extras(self) -> None:
        self.changes_panel.pair_activated.connect(self.select_pair)
        self.mode_switch.changed.connect(self.set_mode)
        self.target_selector.target_changed.connect(self.set_target)
        self.session.tools_changed.connect(self._refresh_tools)

    def _refresh_extras(self) -> None:
        alignment = self.alignment
        diff = alignment.diff if alignment is not None else None
        if diff is None or self.changes_panel.diff is not diff:
            self.changes_panel.set_diff(diff, comparing=self.session.comparing())
        self._refresh_tools()
        self.export_action.setEnabled(any(r is not None for r in self.results.values()))

    def set_mode(self, mode: DiffMode | str) -> None:
        """Compare the two sides in replay or compare mode (the core decides in either)."""
        mode = DiffMode(mode)
        self.mode_switch.set_mode(mode)
        if mode != self.session.mode:
            self.session.set_mode(mode)
            self._show_alignment()  # the old diff's markers go until the new one arrives

    def set_target(self, target: Profile | str | None) -> None:
        """Judge both sides for a target provider too (None: the gate alone)."""
        profile = get_profile(target) if isinstance(target, str) else target
        self.target_selector.set_target(profile.name if profile is not None else None)
        self.session.set_target(profile)
        self._refresh_tools()

    def show_changes(self) -> None:
        """Show the Changes tab."""
        self.tabs.setCurrentIndex(Tab.CHANGES)

    def select_pair(self, number: int) -> None:
        """Select the items of one pair of the diff (the tab shown stays)."""
        if self.alignment is not None and 0 <= number < len(self.alignment.diff.pairs):
            self._select_pair_at(number, tab=None)

    def _diff_status(self, alignment: Alignment, answers: list[str]) -> tuple[Any, str, str]:
        """The status line for a diff: icon, text and severity, from the core's verdict."""
        if self._verdict is None or self._verdict[0] is not alignment:
            self._verdict = (alignment, alignment.diff.verdict_summary())
        verdict = self._verdict[1]
        if verdict.outcome is Outcome.UNSAFE:
            icon = qt_palette.severity_swatch("error").icon
            text = "Replay UNSAFE: " + "; ".join(verdict.reasons)
        elif verdict.outcome is Outcome.BLOCKED:
            icon = qt_palette.severity_swatch("warning").icon
            text = verdict.headline
        else:
            icon = qt_palette.verdict_swatch("ok").icon
            text = verdict.headline
        changed = len(alignment.changed)
        text += f"   ({verdict.mode} mode; {changed} changed pair{'s' if changed != 1 else ''})"
        lines = [*verdict.reasons] if verdict.reasons else [verdict.headline]
        lines += ["", *answers, "", "Click to list every reason and change by code."]
        self.decision_label.setToolTip(tooltip("\n".join(lines)))
        return icon, text, str(verdict.outcome.severity)

    def _colour_decision(self, severity: str | None) -> None:
        palette = self.statusBar().palette()
        if severity in ("error", "warning"):
            colour = qt_palette.severity_swatch(severity).foreground.color()
            palette.setColor(QPalette.ColorRole.WindowText, colour)
        self.decision_label.setPalette(palette)

    def _refresh_tools(self) -> None:
        results = {s: r for s, r in self.results.items() if r is not None}
        tools = self.session.known_tools()
        current = self.session.target_name
        # The matrix is worked out again only when the results or the tools are new objects.
        key = (*results, *results.values(), None, *tools.values(), None, current)
        if _same(key, self._tools_key):
            return
        names = list(self.target_selector.profiles)
        sides = list(results)
        same_inputs = _same(key[:-1], (self._tools_key or (None,))[:-1])
        self._tools_key = key
        if same_inputs:  # only the chosen target changed: its column is marked
            self.tools_panel.set_matrix(self._tools_rows, sides, names, current)
            return
        profiles = list(self.target_selector.profiles.values())

        def work(progress: Progress) -> list[ToolRow]:
            progress("Checking the tools against every target…")
            return build_matrix(tools, profiles, results)

        def done(rows: list[ToolRow]) -> None:
            self._tools_rows = rows
            self.tools_panel.set_matrix(rows, sides, names, self.session.target_name)

        if not self.runner.synchronous:
            self.tools_panel.set_matrix([], sides, names, current, computing=True)
        self.runner.start(
            "tools",
            work,
            done,
            lambda error: self.statusBar().showMessage(f"Cannot check the tools: {error}", 8000),
        )

    def _export_inputs(self) -> list[str | None]:
        return [*self.session.paths.values(), *self.session.tool_files]

    def _export_problem(self) -> str | None:
        loaded = [x for x in self.session.files.values() if x is not None]
        if not loaded:
            return "Open a transcript first: a report describes the open files."
        if len(loaded) == 2 and self.alignment is None:
            return "The two files are still being compared; export when the comparison is done."
        return None

    def choose_export(self) -> None:
        """Ask for a format, the redaction choice and a file, then write the report."""
        problem = self._export_problem()
        if problem is not None:
            self._message("Export Report", problem, warning=True)
            return
        names = [os.path.basename(x.path) for x in self.session.files.values() if x is not None]
        settings = [f"{self.session.mode} mode"] if len(names) == 2 else []
        if self.session.target_name:
            settings.append(f"target {self.session.target_name}")
        what = (
            "A report of " + " ↔ ".join(names) + (f" ({', '.join(settings)})" if settings else "")
        )
        stem = os.path.splitext(names[0])[0] + "-report"
        dialog = ExportDialog(
            self._export_inputs(), self.settings.last_directory(), stem, what + ".", self
        )
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.settings.set_last_directory(os.path.dirname(dialog.path))
            self.export_report(dialog.path, dialog.format, redact=dialog.redact)
        dialog.deleteLater()

    def export_report(self, path: str, fmt: str = "html", *, redact: bool = True) -> bool:
        """Render the open files' report (on a worker) and write it through QSaveFile.

        Returns False when it is refused: nothing open, the comparison still running, or `path`
        is an open input file (an input is never overwritten).
        """
        problem = self._export_problem()
        clash = clashing_input(path, self._export_inputs())
        if clash is not None:
            problem = f"{os.path.basename(clash)} is an open input file; it is never overwritten."
        if problem is not None:
            self.statusBar().showMessage(f"Report not written: {problem}", 8000)
            return False
        loaded = [x for x in self.session.files.values() if x is not None]
        diff = self.alignment.diff if len(loaded) == 2 and self.alignment is not None else None
        report = report_input(
            [(x.path, x.result) for x in loaded],
            diff,
            tool_files=self.session.tool_files,
            target=self.session.target_name,
        )

        def work(progress: Progress) -> Rendered:
            progress("Writing the report…")
            return render_report(report, fmt, redact=redact)

        def done(rendered: Rendered) -> None:
            error = write_file(path, rendered.text)
            if error is not None:
                self.statusBar().showMessage(f"Cannot write {path}: {error}", 8000)
                return
            self.statusBar().showMessage(f"Report written to {path}. {rendered.redaction}", 8000)

        self.runner.start(
            "export",
            work,
            done,
            lambda error: self.statusBar().showMessage(f"Cannot write the report: {error}", 8000),
        )
        return True


def _same(key: tuple[Any, ...], other: tuple[Any, ...] | None) -> bool:
    """Whether two keys hold the same objects (names compare by value, the rest by identity)."""
    if other is None or len(key) != len(other):
        return False
    return all(a is b or (isinstance(a, str) and a == b) for a, b in zip(key, other, strict=True))
