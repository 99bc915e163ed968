"""The detail tabs under the panes (Item … Tools): what they show of the selected item, and the
clipboard's way into them (copy the item or its edited arguments, paste a schema).

Only the Item tab's panel, shown first, is built with the window: every other panel, and the
modules behind it, is made when it is first shown or asked for. What it would have been told
meanwhile is kept (the latest of each kind) and told when it is made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from inspector.gui import qt_palette
from inspector.gui.actions import TAB_NAMES, Tab
from inspector.gui.qt_item_panel import ItemPanel
from inspector.gui.qt_text import tooltip
from inspector.gui.qt_workers import TaskRunner
from inspector.gui.status import plural

if TYPE_CHECKING:
    from inspector.core.diff import DiffResult
    from inspector.core.gate import GateResult
    from inspector.core.model import Derivation, Item, Tool
    from inspector.gui.alignment import Alignment
    from inspector.gui.qt_changes import ChangesPanel
    from inspector.gui.qt_diff import DiffPanel
    from inspector.gui.qt_find import FindPanel
    from inspector.gui.qt_findings import FindingsPanel
    from inspector.gui.qt_schema_panel import ArgumentsPanel
    from inspector.gui.qt_scratch import ScratchPanel
    from inspector.gui.qt_stream import StreamPanel, StreamView
    from inspector.gui.qt_tools_tab import ToolsPanel
    from inspector.gui.tallies import Tallies
    from inspector.gui.tools_matrix import ToolRow

P = TypeVar("P", bound=QWidget)


class _Panel(Generic[P]):
    """A tab's panel as an attribute: built on first access."""

    def __init__(self, tab: int) -> None:
        self.tab = tab

    def __get__(self, tabs: DetailTabs, owner: type | None = None) -> P:
        return cast(P, tabs.panel(self.tab))


class DetailTabs(QTabWidget):
    """The nine detail tabs, in Tab order, and the panels in them (made on first use)."""

    #: a tab's panel has just been made (its tab index).
    made_panel = Signal(int)

    item_panel: _Panel[ItemPanel] = _Panel(Tab.ITEM)
    arguments_panel: _Panel[ArgumentsPanel] = _Panel(Tab.ARGUMENTS)
    diff_panel: _Panel[DiffPanel] = _Panel(Tab.DIFF)
    findings_panel: _Panel[FindingsPanel] = _Panel(Tab.FINDINGS)
    stream_panel: _Panel[StreamPanel] = _Panel(Tab.STREAM)
    scratch_panel: _Panel[ScratchPanel] = _Panel(Tab.SCRATCH)
    find_panel: _Panel[FindPanel] = _Panel(Tab.SEARCH)
    changes_panel: _Panel[ChangesPanel] = _Panel(Tab.CHANGES)
    tools_panel: _Panel[ToolsPanel] = _Panel(Tab.TOOLS)

    def __init__(
        self,
        tools: Callable[[], Mapping[str, Tool]],
        results: Callable[[], dict[str, GateResult | None]],
        runner: TaskRunner,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("detail-tabs")
        self.setDocumentMode(True)
        self._tools = tools
        self._results = results
        self._runner = runner
        self._made: dict[int, QWidget] = {}
        #: Per tab not made yet: what it is to be told when made, the latest of each kind.
        self._pending: dict[int, dict[str, Callable[[Any], None]]] = {}
        #: Signals of panels to connect when they are made: (tab, signal name, slot).
        self._links: list[tuple[int, str, Callable[..., Any]]] = []
        for name in TAB_NAMES:
            page = QWidget(self)
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self.addTab(page, name)
        self.panel(Tab.ITEM)
        self.currentChanged.connect(self.panel)

    def made(self, tab: int) -> bool:
        """Whether a tab's panel has been made."""
        return tab in self._made

    def panel(self, tab: int) -> QWidget:
        """A tab's panel, made (and told what it missed) on first use."""
        panel = self._made.get(tab)
        if panel is None:
            page = self.widget(tab)
            assert page is not None, tab  # every tab has its page from the start
            panel = self._made[tab] = self._make(tab, page)
            layout = page.layout()
            assert layout is not None
            layout.addWidget(panel)
            panel.show()  # at once, not at the next event-loop turn, so no empty frame is seen
            for at, signal, slot in self._links:
                if at == tab:
                    getattr(panel, signal).connect(slot)
            for tell in self._pending.pop(tab, {}).values():
                tell(panel)
            self.made_panel.emit(tab)
        return panel

    def link(self, tab: int, signal: str, slot: Callable[..., Any]) -> None:
        """Connect a signal of a tab's panel to `slot`, now or when the panel is made."""
        self._links.append((tab, signal, slot))
        if tab in self._made:
            getattr(self._made[tab], signal).connect(slot)

    def _tell(self, tab: int, kind: str, tell: Callable[[Any], None]) -> None:
        """Tell a panel something now, or (the latest of each `kind`) when it is made."""
        if tab in self._made:
            tell(self._made[tab])
        else:
            self._pending.setdefault(tab, {})[kind] = tell

    def _make(self, tab: int, page: QWidget) -> QWidget:
        # Each panel's module is imported here, when the panel is first needed.
        if tab == Tab.ITEM:
            return ItemPanel(page)
        if tab == Tab.ARGUMENTS:
            from inspector.gui.qt_schema_panel import ArgumentsPanel

            return ArgumentsPanel(page, self._runner)
        if tab == Tab.DIFF:
            from inspector.gui.qt_diff import DiffPanel

            return DiffPanel(page)
        if tab == Tab.FINDINGS:
            from inspector.gui.qt_findings import FindingsPanel

            findings = FindingsPanel(page)
            findings.counted.connect(
                lambda count, worst: self.set_badge(Tab.FINDINGS, count, worst, "finding")
            )
            return findings
        if tab == Tab.STREAM:
            from inspector.gui.qt_stream import StreamPanel

            return StreamPanel(page)
        if tab == Tab.SCRATCH:
            from inspector.gui.qt_scratch import ScratchPanel

            scratch = ScratchPanel(self._tools, page, self._runner)
            scratch.arguments_requested.connect(self.check_bare_arguments)
            scratch.item_requested.connect(self.open_scratch_item)
            return scratch
        if tab == Tab.SEARCH:
            from inspector.gui.qt_find import FindPanel

            find = FindPanel(self._results, page, self._runner)
            find.query_changed.connect(self.item_panel.set_find)
            return find
        if tab == Tab.CHANGES:
            from inspector.gui.qt_changes import ChangesPanel

            return ChangesPanel(page)
        from inspector.gui.qt_tools_tab import ToolsPanel

        return ToolsPanel(page)

    def stop(self) -> None:
        """Cancel the tabs' running checks, gating and searches (the window is closing)."""
        for tab in (Tab.ARGUMENTS, Tab.SCRATCH, Tab.SEARCH):
            if tab in self._made:
                self._made[tab].stop()  # type: ignore[attr-defined]

    def set_badge(self, tab: int, count: int, severity: str, what: str) -> None:
        """Show a count after a tab's title with its worst severity's icon (nothing at 0)."""
        name = TAB_NAMES[tab]
        self.setTabText(tab, f"{name} ({count:,})" if count else name)
        icon = qt_palette.severity_swatch(severity).icon if count and severity else None
        self.setTabIcon(tab, icon if icon is not None else QIcon())
        self.setTabToolTip(tab, tooltip(plural(count, what)) if count else "")

    def show_results(
        self,
        results: Mapping[str, GateResult],
        streams: Mapping[str, StreamView],
        tallies: Mapping[str, Tallies] | None = None,
    ) -> None:
        """The sides' gated files changed: findings (their badge), streams, Scratch and Search;
        `tallies` has each side's counts, counted with its load (else counted here)."""
        from inspector.gui.tallies import severity_counts, worst_severity  # with the first file

        shown = dict(results)
        # The Findings tab lists them when it is first shown; until then its badge comes from
        # the counts alone (a large log may have a finding for most of its items).
        self._tell(Tab.FINDINGS, "results", lambda panel: panel.set_results(shown))
        if Tab.FINDINGS not in self._made:
            severities: Counter[str] = Counter()
            for side, result in shown.items():
                counted = tallies.get(side) if tallies is not None else None
                severities.update(
                    counted.severities if counted is not None else severity_counts(result)
                )
            worst = worst_severity(severities)
            self.set_badge(Tab.FINDINGS, sum(severities.values()), worst, "finding")
        self.show_streams(streams)
        if Tab.SCRATCH in self._made:  # pasted items are gated again with the new tools
            self.scratch_panel.regate()
        if Tab.SEARCH in self._made:  # a search not made yet has nothing to refresh
            self.find_panel.refresh()

    def show_streams(self, views: Mapping[str, StreamView]) -> None:
        """Give the Stream tab the recorded streams; its badge counts their violations."""
        shown = dict(views)
        self._tell(Tab.STREAM, "streams", lambda panel: panel.set_streams(shown))
        from inspector.gui.tallies import worst_severity  # streams come after the first paint

        tally = Counter(str(v.severity) for view in views.values() for v in view.result.violations)
        self.set_badge(Tab.STREAM, sum(tally.values()), worst_severity(tally), "stream violation")

    def show_diff(self, diff: DiffResult | None, *, comparing: bool) -> None:
        """Give the Changes tab the diff (None: none yet), unless it already has it."""

        def tell(panel: ChangesPanel) -> None:
            if diff is None or panel.diff is not diff:
                panel.set_diff(diff, comparing=comparing)

        self._tell(Tab.CHANGES, "diff", tell)

    def show_tools(
        self, rows: list[ToolRow] | None, sides: Sequence[str], targets: Sequence[str],
        target: str | None, *, computing: bool,
    ) -> None:  # fmt: skip
        """Show the tools matrix (None: not worked out yet; `computing` says it is under way);
        the badge counts the tools the chosen target rejects."""
        if rows is None:
            if computing:
                self._tell(
                    Tab.TOOLS,
                    "matrix",
                    lambda panel: panel.set_matrix([], sides, targets, target, computing=True),
                )
            return
        self._tell(
            Tab.TOOLS, "matrix", lambda panel: panel.set_matrix(rows, sides, targets, target)
        )
        verdicts = [r.verdicts.get(target) for r in rows] if target is not None else []
        rejected = sum(1 for v in verdicts if v is not None and not v.accepted)
        self.set_badge(Tab.TOOLS, rejected, "error", f"tool {target} rejects")

    def show_item(
        self, result: GateResult | None, item: int, pointer: str, side: str | None,
        alignment: Alignment | None,
    ) -> None:  # fmt: skip
        """Show an item of a result (a pane's `side`, or Scratch's with None) in every tab."""
        if result is None or not 0 <= item < len(result.transcript.items):
            self.item_panel.clear()
            self._tell(Tab.ARGUMENTS, "item", lambda panel: panel.clear())
            self._tell(Tab.DIFF, "pair", lambda panel: panel.show_pair(alignment, None))
            return
        core_item = result.transcript.items[item]
        verdict = result.verdicts[item]
        self.item_panel.show_item(core_item, verdict, pointer)
        toolset = result.toolset
        derived = _derived_arguments(core_item)
        self._tell(
            Tab.ARGUMENTS,
            "item",
            lambda panel: panel.set_item(core_item.raw, verdict, toolset, derived),
        )
        if side is not None:
            pair = alignment.pair_of(side, item) if alignment is not None else None
            self._tell(Tab.DIFF, "pair", lambda panel: panel.show_pair(alignment, pair))
            # The Stream tab follows the selected side.
            self._tell(Tab.STREAM, "side", lambda panel: panel.show_side(side))

    def check_bare_arguments(self, text: str, tool: str | None) -> None:
        """Check an arguments object with no item around it in the Arguments tab."""
        from inspector.core.gate import make_toolset

        toolset, _overridden = make_toolset(None, self._tools())
        self.arguments_panel.set_bare_arguments(text, toolset, tool)
        self.setCurrentIndex(Tab.ARGUMENTS)

    def open_scratch_item(self, item: int) -> None:
        """Open a pasted item (Scratch's) in the Arguments tab."""
        result = self.scratch_panel.result
        if result is not None and 0 <= item < len(result.verdicts):
            shown = result.transcript.items[item]
            self.arguments_panel.set_item(
                shown.raw, result.verdicts[item], result.toolset, _derived_arguments(shown)
            )
            self.setCurrentIndex(Tab.ARGUMENTS)

    def paste(self, text: str | None = None) -> str | None:
        """Route pasted text (the clipboard's by default): items and transcripts to Scratch,
        arguments and schemas to Arguments; the reason when there is nothing to paste."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        if not text.strip():
            return "The clipboard holds no text"
        from inspector.gui.paste import PasteKind, route_paste

        pasted = route_paste(text)
        if pasted.kind == PasteKind.TRANSCRIPT:
            self.scratch_panel.set_text(pasted.text)
            self.setCurrentIndex(Tab.SCRATCH)
        elif pasted.kind == PasteKind.ARGUMENTS:
            self.check_bare_arguments(pasted.text, None)
        else:
            self.paste_schema(pasted.text, pasted.tool)
        return None

    def paste_schema(self, text: str | None = None, tool: str | None = None) -> None:
        """Put a schema into the Arguments tab's schema box (it then overrides the tool's)."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        if tool is not None:
            at = self.arguments_panel.tool_combo.findData(tool)
            if at >= 0:
                self.arguments_panel.tool_combo.setCurrentIndex(at)
        self.arguments_panel.set_schema_text(text)
        self.setCurrentIndex(Tab.ARGUMENTS)

    def copy_item(self) -> None:
        """Copy the current item's JSON to the clipboard."""
        text = self.item_panel.full_json()  # the view may show long strings shortened
        if text:
            QGuiApplication.clipboard().setText(text)

    def copy_arguments(self) -> None:
        """Copy the Arguments tab's (edited) arguments as the escaped `arguments` string."""
        QGuiApplication.clipboard().setText(self.arguments_panel.arguments_string())

    def copy_item_with_arguments(self) -> str | None:
        """Copy the shown item as JSON with the edited arguments in it; the reason if not."""
        text = self.arguments_panel.item_with_arguments()
        if text is None:
            return "Pasted arguments belong to no item: copy them as a string instead"
        QGuiApplication.clipboard().setText(text)
        return None


def _derived_arguments(item: Item) -> Derivation | None:
    """How a converted item's arguments were made, when the source held no text of them."""
    if item.conversion is None:
        return None
    return next((d for d in item.conversion.derived if d.field == "arguments"), None)
