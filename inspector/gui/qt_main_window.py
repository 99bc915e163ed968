"""The main window: two transcript panes, linked by the diff, above the detail tabs.

A view: the state and every background job are the Session's, the actions come from one table
(actions.py), where the keys go is navigation.py and the words of the status line status.py.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from inspector.core.errors import LoadError
from inspector.core.modes import DiffMode
from inspector.gui import navigation, qt_palette, status
from inspector.gui.actions import TAB_NAMES, Tab
from inspector.gui.enum_values import Orientation
from inspector.gui.json_text import visible
from inspector.gui.navigation import SIDES, other, pane_side
from inspector.gui.qt_detail_tabs import DetailTabs
from inspector.gui.qt_legend import Legend
from inspector.gui.qt_pane import TranscriptPane
from inspector.gui.qt_pane_link import PaneLink
from inspector.gui.qt_session import DIFF, Session
from inspector.gui.qt_settings import Settings
from inspector.gui.qt_status_bar import DecisionBar
from inspector.gui.qt_text import window_title
from inspector.resources import SamplePair, sample_pair

if TYPE_CHECKING:  # the gate, targets, diff and reports are imported when first used
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QMenu, QToolBar

    from inspector.core.gate import GateResult
    from inspector.core.targets import Profile
    from inspector.gui import qt_diff_controls as controls
    from inspector.gui.alignment import Alignment
    from inspector.gui.qt_actions import WindowHelp

__all__ = ["SIDES", "TAB_NAMES", "MainWindow", "Tab"]

#: What the open dialog lists (compressed recordings too: the loader reads them).
OPEN_FILTER = (
    "Transcripts (*.json *.jsonl *.ndjson *.sse *.txt *.log *.gz);;Compressed (*.gz);;All files (*)"
)


class MainWindow(QMainWindow):
    """Replay Inspector's window; `furnished=False` leaves the panes' trees, the actions, menus'
    contents, toolbar and status-bar buttons to `furnish()` (called after the first paint)."""

    act: dict[str, QAction]
    mode_switch: controls.ModeSwitch
    target_selector: controls.TargetSelector
    help: WindowHelp
    recent_menu: QMenu
    menus: dict[str, QMenu]
    file_menu: QMenu
    view_menu: QMenu
    toolbar: QToolBar
    toolbar_fit: controls.ToolbarFit
    diff_progress: controls.DiffProgressBar

    def __init__(
        self,
        settings: Settings,
        *,
        synchronous: bool = False,
        samples: SamplePair | bool | None = True,
        furnished: bool = True,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.session = Session(self, synchronous=synchronous)
        # One runner for the session's jobs and the panels' checks and filters.
        self.runner = self.session.runner
        self.samples = sample_pair() if samples is True else (samples or None)
        self.aligned = settings.aligned()
        self.current_side = "left"
        self.setWindowTitle("Replay Inspector")
        self.setWindowIcon(qt_palette.app_icon())
        self.setAcceptDrops(False)

        self.panes = {side: TranscriptPane(side, self, complete=False) for side in SIDES}
        self.left, self.right = self.panes["left"], self.panes["right"]
        self._build_central()
        self.link = PaneLink(
            self.panes, self.pane_split, lambda: self.alignment, lambda: self.aligned
        )
        self.status = DecisionBar(self.statusBar(), lambda: self.tabs.setCurrentIndex(Tab.CHANGES))
        self.decision_icon, self.decision_label = self.status.icon, self.status.label
        for side, pane in self.panes.items():
            self._connect_pane(side, pane)
        self._connect_session()
        self.settings.restore_window(self, self._splitters(), self._header_names())
        self._update_status()
        self.furnished = False
        if furnished:
            self.furnish()

    def furnish(self) -> None:
        """Build the panes' trees, the actions, menus, toolbar and status-bar buttons (once)."""
        if not self.furnished:
            from inspector.gui.qt_actions import furnish

            self.link.complete_panes()
            self.settings.restore_headers(self._header_names())
            furnish(self)
            self.furnished = True
            self._update_actions()

    # ---- construction ---------------------------------------------------------------------

    def _build_central(self) -> None:
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(6, 4, 6, 0)
        column.setSpacing(4)
        self.main_split = QSplitter(parent=central)  # not given a Qt enum: see enum_values
        self.main_split.setProperty("orientation", Orientation.Vertical)
        self.main_split.setObjectName("main-split")
        self.main_split.setChildrenCollapsible(False)
        top = QWidget(self.main_split)
        top_column = QVBoxLayout(top)
        top_column.setContentsMargins(0, 0, 0, 0)
        top_column.setSpacing(2)
        self.pane_split = QSplitter(parent=top)
        self.pane_split.setObjectName("pane-split")
        self.pane_split.setChildrenCollapsible(False)
        self.pane_split.addWidget(self.left)
        self.pane_split.addWidget(self.right)
        self.pane_split.setHandleWidth(10)
        top_column.addWidget(self.pane_split, 1)
        self.legend = Legend(top)
        top_column.addWidget(self.legend)
        self.tabs = self.details = details = DetailTabs(
            self.session.known_tools, lambda: self.results, self.runner, self.main_split
        )
        self.main_split.addWidget(top)
        self.main_split.addWidget(self.tabs)
        self.main_split.setStretchFactor(0, 5)
        self.main_split.setStretchFactor(1, 4)
        column.addWidget(self.main_split, 1)
        self.setCentralWidget(central)
        link = details.link  # each connected when its panel is made
        link(Tab.FINDINGS, "activated", self._finding_activated)
        link(Tab.SCRATCH, "current_changed", lambda i, p: self._show_details("scratch", i, p))
        link(Tab.SCRATCH, "paste_requested", self.paste)
        link(Tab.SEARCH, "hit_chosen", lambda s, i, p: self._show_hit(s, i, p))
        link(Tab.SEARCH, "hit_opened", lambda s, i, p: self._show_hit(s, i, p, open_item=True))
        link(Tab.CHANGES, "pair_activated", self.select_pair)
        details.made_panel.connect(self._restore_split)

    def _connect_pane(self, side: str, pane: TranscriptPane) -> None:
        pane.set_sample_available(self.samples is not None)
        pane.open_requested.connect(lambda: self.choose_file(side))
        pane.sample_requested.connect(self.open_sample_pair)
        pane.files_dropped.connect(lambda paths: self._dropped(side, paths))
        pane.cancel_requested.connect(lambda: self.cancel_load(side))
        pane.conversation_picked.connect(lambda i: self.session.pick_conversation(side, i))
        pane.conversations_listed.connect(self.link.level_conversation_rows)
        pane.current_changed.connect(lambda item, pointer: self._pane_current(side, item, pointer))
        pane.filter_changed.connect(self.refilter)
        pane.columns_menu_requested.connect(self.link.show_columns_menu)

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
        session.busy.connect(
            lambda channel, _on: self._update_status() if channel == DIFF else None
        )
        session.tools_changed.connect(self._update_status)
        session.tools_changed.connect(self._refresh_tools)
        session.tools_checked.connect(self._show_tools)
        session.said.connect(self._say)

    # ---- settings -------------------------------------------------------------------------

    def _splitters(self) -> dict[str, QSplitter]:
        made = self.details.made(Tab.ARGUMENTS)  # else its saved state stays as it was
        arguments = {"arguments": self.details.arguments_panel.splitter} if made else {}
        return {"main": self.main_split, "panes": self.pane_split, **arguments}

    def _restore_split(self, tab: int) -> None:
        saved = self.settings.splitter("arguments") if tab == Tab.ARGUMENTS else None
        if saved is not None:
            self.details.arguments_panel.splitter.restoreState(saved)

    def __getattr__(self, name: str) -> Any:
        """The detail tabs' panels as the window's (`window.find_panel`), made on first use."""
        if name.endswith("_panel") and name != "_panel":
            return getattr(self.details, name)
        raise AttributeError(name)

    def _header_names(self) -> dict[str, Any]:
        return {side: pane.tree.header() for side, pane in self.panes.items() if pane.completed}

    def save_settings(self) -> None:
        """Write geometry, window and splitter state and view options to the settings store."""
        self.settings.set_aligned(self.aligned)
        self.settings.save_window(self, self._splitters(), self._header_names())

    def closeEvent(self, event: QCloseEvent) -> None:
        """Save settings and drop running work before closing."""
        self.save_settings()
        self.details.stop()
        self.session.stop()
        # Running work stops at its next record once cancelled; waiting for it here keeps it
        # from outliving the window (and its signals) when the application quits.
        self.runner.stop_all()
        super().closeEvent(event)

    # ---- files ----------------------------------------------------------------------------

    def choose_file(self, side: str) -> None:
        """Ask for a transcript to open on one side (in the folder of a file open there)."""
        shown = self.session.paths.get(side) or next(
            (p for p in self.session.paths.values() if p), None
        )
        path = self.settings.ask_open(self, f"Open {side.title()} Transcript", OPEN_FILTER, shown)
        if path:
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

    def set_following(self, on: bool) -> None:
        """Follow the left file as it grows (File → Follow), or stop (a refusal unticks it)."""
        self.session.follow("left", on)

    def reload(self) -> None:
        """Read both files again from disk."""
        self.session.reload()

    def cancel_load(self, side: str) -> None:
        """Drop one side's running load; the pane goes back to what it showed."""
        self.session.cancel(side)
        self.panes[side].restore_page()
        self._say("Load cancelled", 4000)

    def _dropped(self, side: str, paths: list[str]) -> None:
        self.open_pair(*paths[:2]) if len(paths) >= 2 else self.open_file(side, paths[0])

    def _show_loaded(self, side: str) -> None:
        loaded = self.session.files[side]
        assert loaded is not None
        pane = self.panes[side]
        # A reload or re-gate of the same file keeps the item the user was looking at.
        keep = pane.current_item() if pane.path == loaded.path else None
        pane.show_loaded(loaded)
        (self._update_status if loaded.reading else self._after_results_changed)()  # Loaded.reading
        count = len(loaded.result.transcript.items)
        if pane.current_item() is None and count:
            pane.select_item(keep if keep is not None and keep < count else 0)

    def _load_failed(self, side: str, path: str, error: LoadError) -> None:
        self.panes[side].show_error(path, error)
        self._say(f"Cannot open {os.path.basename(path)}", 5000)
        self._after_results_changed()

    def _after_results_changed(self) -> None:
        shown = {s: r for s, r in self.results.items() if r is not None}
        self.details.show_results(shown, self.session.streams, self.session.tallies)
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
            # A diff that lands after the selection links the other pane to it now.
            self.link.follow(self.current_side, item)
            self._show_details(self.current_side, -1 if item is None else item, "")
        self._update_status()
        self._update_actions()
        diff = alignment.diff if alignment is not None else None
        self.details.show_diff(diff, comparing=self.session.comparing())
        self._refresh_tools()
        self.act["export"].setEnabled(any(r is not None for r in self.results.values()))

    def choose_tools(self) -> None:
        """Ask for a tools file and re-gate both sides with it."""
        path = self.settings.ask_open(self, "Load Tool Schemas", "JSON (*.json);;All files (*)")
        if path:
            self.load_tool_file(path)

    def load_tool_file(self, path: str, *, regate: bool = True) -> bool:
        """Add the tools of a file (they win over the transcripts' own); re-gate both sides."""
        try:
            self.session.add_tool_file(path)
        except LoadError as exc:
            if not self.runner.synchronous:  # no modal box while rendering a screenshot
                from inspector.gui.qt_actions import message

                message(self, "Cannot load tools", f"{exc.location()}: {exc.message}", warning=True)
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

    def swap_sides(self) -> None:
        """Swap the left and right transcripts."""
        self.session.swap()

    def _swapped(self) -> None:
        for side, pane in self.panes.items():
            loaded = self.session.files[side]
            if loaded is not None:
                pane.show_loaded(loaded)
            elif self.session.paths[side] is None:
                pane.show_empty()
            # else: the session reads that side's unreadable file again and says how it went
        self._after_results_changed()

    # ---- selection and navigation ---------------------------------------------------------

    def _pane_current(self, side: str, item: int, pointer: str) -> None:
        if self.link.following:
            return
        self.current_side = side
        self._show_details(side, item, pointer)
        self.link.follow(side, item if item >= 0 else None)

    def _show_details(self, source: str, item: int, pointer: str) -> None:
        scratch = source == "scratch"
        result = self.details.scratch_panel.result if scratch else self.results.get(source)
        side = source if source in SIDES else None
        self.details.show_item(result, item, pointer, side, self.alignment)

    def select(self, side: str, item: int) -> bool:
        """Select an item on one side (its counterpart follows); False if it is not shown."""
        return self.panes[side].select_item(item)

    def select_pair(self, number: int) -> None:
        """Select the items of one pair of the diff (the tab shown stays)."""
        self.link.show_pair(number, self.refilter)

    def step_difference(self, forward: bool) -> None:
        """Select the next (or previous) changed pair that the filters show (F8, Shift+F8).

        A filter is never dropped behind the user's back: when it hides them all, it says so.
        """
        step = self.link.step_difference(pane_side(self.current_side), forward)
        if step is not None:
            self.tabs.setCurrentIndex(Tab.DIFF)
            count = len(self.alignment.changed) if self.alignment else 0
            self._say(navigation.wrap_words(step, forward, "difference", count), 6000)
        elif self.alignment and any(pane.model.filtered for pane in self.panes.values()):
            self._say(status.hidden_words(len(self.alignment.changed)), 6000)

    def _current_position(self) -> int | None:
        side = pane_side(self.current_side)
        item = self.panes[side].current_item()
        return self.alignment.position(side, item) if self.alignment and item is not None else None

    def next_difference(self) -> None:
        """Select the next changed pair that the filters show (F8)."""
        self.step_difference(True)

    def previous_difference(self) -> None:
        """Select the previous changed pair that the filters show (Shift+F8)."""
        self.step_difference(False)

    def step_problem(self, forward: bool) -> None:
        """Select the next (or previous) item that blocks a replay on the current side (F9)."""
        side = pane_side(self.current_side)
        if self.results[side] is None:
            side = other(side)
        result = self.results[side]
        if result is not None:
            problems = result.problems()
            step = self.link.step_problem(side, problems, forward)
            count = len(problems)
            self._say(navigation.wrap_words(step, forward, "problem item", count), 4000)

    def go_to_counterpart(self) -> None:
        """Focus the other pane at the aligned item."""
        self.link.go_to_counterpart(pane_side(self.current_side))

    def _finding_activated(self, side: str, items: list[int]) -> None:
        if side in self.panes and items:
            self.panes[side].select_items(items)
            self.panes[side].tree.setFocus()
            self.tabs.setCurrentIndex(Tab.ITEM)

    # ---- aligned mode and filters ---------------------------------------------------------

    def set_aligned(self, on: bool) -> None:
        """Show pairs on the same lines (gaps where a side has no item) and scroll together."""
        if on == self.aligned and self.act["aligned"].isChecked() == on:
            return
        self.aligned = on
        self.act["aligned"].setChecked(on)
        self._show_alignment()

    def refilter(self) -> None:
        """Apply each pane's filter; in aligned mode a pair shows when either side matches.
        Matching a large transcript runs on a worker (the Session's); a newer filter wins."""
        self.link.refilter(self.session.match, self.statusBar().clearMessage)

    def focus_filter(self) -> None:
        """Move the focus to the current pane's filter box."""
        edit = self.panes[pane_side(self.current_side)].filter_edit
        edit.setFocus()
        edit.selectAll()

    # ---- paste, copy and search -----------------------------------------------------------

    def paste(self, text: str | None = None) -> None:
        """Route pasted text: items/transcripts to Scratch, arguments and schemas to Arguments."""
        self._say(self.details.paste(text) or "", 4000)

    def copy_item(self) -> None:
        """Copy the current item's JSON to the clipboard."""
        self.details.copy_item()

    def copy_item_with_arguments(self) -> None:
        """Copy the shown item as JSON with the Arguments tab's (edited) arguments in it."""
        self._say(self.details.copy_item_with_arguments() or "", 5000)

    def find_in_contents(self) -> None:
        """Search the current pane's items for a text (Ctrl+Shift+F)."""
        self.tabs.setCurrentIndex(Tab.SEARCH)
        self.details.find_panel.start(pane_side(self.current_side))

    def step_hit(self, forward: bool) -> None:
        """Show the next (or previous) hit of the search in the Item tab (F3 / Shift+F3)."""
        hit = self.details.find_panel.step(forward)
        if hit is None:
            self._say("Nothing found to step through: Ctrl+Shift+F searches the contents", 4000)
            return
        self._show_hit(self.details.find_panel.side, hit.item, hit.pointer, open_item=True)

    def _show_hit(self, side: str, item: int, pointer: str, *, open_item: bool = False) -> None:
        if self.link.reveal(side, item, self.refilter):
            self._say("The filter hid that item, so it was cleared", 4000)
        if open_item:
            self.tabs.setCurrentIndex(Tab.ITEM)
        self.details.item_panel.show_find(pointer)

    # ---- status ---------------------------------------------------------------------------

    def status_line(self) -> status.StatusLine:
        """The status line's words for what is open now (the core decides; status.py words)."""
        return status.window_status(
            self.session.status_sides(),
            self.session.paths,
            lambda side: self.panes[side].showing_error,
            self.session.verdict(),
            len(self.alignment.changed) if self.alignment is not None else 0,
            self.session.comparing(),
        )

    def _update_status(self) -> None:
        self.status.show_line(self.status_line())
        self.status.show_tools(self.session.tool_files)

    def _say(self, text: str, msecs: int = 0) -> None:
        """Show a passing message in the status bar (file names in it shown escaped)."""
        if text:
            self.statusBar().showMessage(visible(text), msecs)

    def _update_actions(self) -> None:
        has_diff = self.alignment is not None and bool(self.alignment.changed)
        any_result = any(r is not None for r in self.results.values())
        for name in ("next_diff", "prev_diff"):
            self.act[name].setEnabled(has_diff)
        for name in ("next_problem", "prev_problem", "swap"):
            self.act[name].setEnabled(any_result)
        self.act["reload"].setEnabled(any(p.path for p in self.panes.values()))
        self.act["counterpart"].setEnabled(self.alignment is not None)

    # ---- help -----------------------------------------------------------------------------

    def shortcut_actions(self) -> list[QAction]:
        """Every action with a key, in table order, the diff mode switch included."""
        return [*self.act.values(), *self.mode_switch.actions.values()]

    def settle(self, rounds: int = 5) -> None:
        """Let layouts, lazy rows and timers settle (used before grabbing the window)."""
        for _ in range(rounds):
            QGuiApplication.processEvents()

    # ---- target, diff mode, tools and export ----------------------------------------------

    def set_mode(self, mode: DiffMode | str) -> None:
        """Compare the two sides in replay or compare mode (the core decides in either)."""
        mode = DiffMode(mode)
        self.mode_switch.set_mode(mode)
        if mode != self.session.mode:
            self.session.set_mode(mode)
            self._show_alignment()  # the old diff's markers go until the new one arrives

    def set_target(self, target: Profile | str | None) -> None:
        """Judge both sides for a target provider too (None: the gate alone)."""
        from inspector.core.targets import get_profile

        profile = get_profile(target) if isinstance(target, str) else target
        self.target_selector.set_target(profile.name if profile is not None else None)
        self.session.set_target(profile)
        self._refresh_tools()

    def _refresh_tools(self) -> None:
        self.session.check_tools(list(self.target_selector.profiles.values()))
        self._show_tools()

    def _show_tools(self) -> None:
        self.details.show_tools(
            self.session.tool_rows,
            [s for s, r in self.results.items() if r is not None],
            list(self.target_selector.profiles),
            self.session.target_name,
            computing=not self.runner.synchronous,
        )

    def choose_export(self) -> None:
        """Ask for a format, the redaction choice and a file, then write the report."""
        from inspector.gui.qt_export import ask_export, export_words

        session = self.session
        problem = session.export_problem()
        if problem is not None:
            from inspector.gui.qt_actions import message

            message(self, "Export Report", problem, warning=True)
            return
        paths = [x.path for x in session.files.values() if x is not None]
        what = export_words(paths, str(session.mode), session.target_name)
        chosen = ask_export(self, self.settings, paths, session.export_inputs(), what)
        if chosen is not None:
            self.export_report(*chosen[:2], redact=chosen[2])

    def export_report(self, path: str, fmt: str = "html", *, redact: bool = True) -> bool:
        """Render the open files' report (on the Session's worker) and write it atomically.

        Returns False when it is refused: nothing open, the comparison still running, or `path`
        is an open input file (an input is never overwritten).
        """
        problem = self.session.export(path, fmt, redact=redact)
        if problem is not None:
            self._say(f"Report not written: {problem}", 8000)
        return problem is None
