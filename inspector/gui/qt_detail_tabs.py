"""The detail tabs under the panes (Item … Tools): what they show of the selected item, and the
clipboard's way into them (copy the item or its edited arguments, paste a schema)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QTabWidget, QWidget

from inspector.core.gate import GateResult, make_toolset
from inspector.core.model import Tool
from inspector.gui import qt_palette
from inspector.gui.actions import TAB_NAMES, Tab
from inspector.gui.alignment import Alignment
from inspector.gui.findings import SEVERITIES
from inspector.gui.paste import PasteKind, route_paste
from inspector.gui.qt_changes import ChangesPanel
from inspector.gui.qt_diff import DiffPanel
from inspector.gui.qt_find import FindPanel
from inspector.gui.qt_findings import FindingsPanel
from inspector.gui.qt_item_panel import ItemPanel
from inspector.gui.qt_schema_panel import ArgumentsPanel
from inspector.gui.qt_scratch import ScratchPanel
from inspector.gui.qt_stream import StreamPanel, StreamView
from inspector.gui.qt_text import tooltip
from inspector.gui.qt_tools_tab import ToolsPanel
from inspector.gui.qt_workers import TaskRunner
from inspector.gui.status import plural
from inspector.gui.tools_matrix import ToolRow


class DetailTabs(QTabWidget):
    """The nine detail tabs, in Tab order, and the panels in them."""

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
        self.item_panel = ItemPanel(self)
        self.arguments_panel = ArgumentsPanel(self, runner)
        self.diff_panel = DiffPanel(self)
        self.findings_panel = FindingsPanel(self)
        self.stream_panel = StreamPanel(self)
        self.scratch_panel = ScratchPanel(tools, self, runner)
        self.find_panel = FindPanel(results, self, runner)
        self.changes_panel = ChangesPanel(self)
        self.tools_panel = ToolsPanel(self)
        panels = (
            self.item_panel, self.arguments_panel, self.diff_panel, self.findings_panel,
            self.stream_panel, self.scratch_panel, self.find_panel, self.changes_panel,
            self.tools_panel,
        )  # fmt: skip
        for panel, name in zip(panels, TAB_NAMES, strict=True):
            self.addTab(panel, name)
        self.find_panel.query_changed.connect(self.item_panel.set_find)
        self.findings_panel.counted.connect(
            lambda count, worst: self.set_badge(Tab.FINDINGS, count, worst, "finding")
        )
        self.scratch_panel.arguments_requested.connect(self.check_bare_arguments)
        self.scratch_panel.item_requested.connect(self.open_scratch_item)

    def stop(self) -> None:
        """Cancel the tabs' running checks, gating and searches (the window is closing)."""
        self.arguments_panel.stop()
        self.scratch_panel.stop()
        self.find_panel.stop()

    def set_badge(self, tab: int, count: int, severity: str, what: str) -> None:
        """Show a count after a tab's title with its worst severity's icon (nothing at 0)."""
        name = TAB_NAMES[tab]
        self.setTabText(tab, f"{name} ({count:,})" if count else name)
        icon = qt_palette.severity_swatch(severity).icon if count and severity else None
        self.setTabIcon(tab, icon if icon is not None else QIcon())
        self.setTabToolTip(tab, tooltip(plural(count, what)) if count else "")

    def show_streams(self, views: Mapping[str, StreamView]) -> None:
        """Give the Stream tab the recorded streams; its badge counts their violations."""
        self.stream_panel.set_streams(dict(views))
        tally = Counter(str(v.severity) for view in views.values() for v in view.result.violations)
        worst = next((s for s in SEVERITIES if tally[s]), "")
        self.set_badge(Tab.STREAM, sum(tally.values()), worst, "stream violation")

    def show_tools(
        self, rows: list[ToolRow] | None, sides: Sequence[str], targets: Sequence[str],
        target: str | None, *, computing: bool,
    ) -> None:  # fmt: skip
        """Show the tools matrix (None: not worked out yet; `computing` says it is under way);
        the badge counts the tools the chosen target rejects."""
        if rows is None:
            if computing:
                self.tools_panel.set_matrix([], sides, targets, target, computing=True)
            return
        self.tools_panel.set_matrix(rows, sides, targets, target)
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
            self.arguments_panel.clear()
            self.diff_panel.show_pair(alignment, None)
            return
        core_item = result.transcript.items[item]
        verdict = result.verdicts[item]
        self.item_panel.show_item(core_item, verdict, pointer)
        self.arguments_panel.set_item(core_item.raw, verdict, result.toolset)
        if side is not None:
            pair = alignment.pair_of(side, item) if alignment is not None else None
            self.diff_panel.show_pair(alignment, pair)
            self.stream_panel.show_side(side)  # the Stream tab follows the selected side

    def check_bare_arguments(self, text: str, tool: str | None) -> None:
        """Check an arguments object with no item around it in the Arguments tab."""
        toolset, _overridden = make_toolset(None, self._tools())
        self.arguments_panel.set_bare_arguments(text, toolset, tool)
        self.setCurrentIndex(Tab.ARGUMENTS)

    def open_scratch_item(self, item: int) -> None:
        """Open a pasted item (Scratch's) in the Arguments tab."""
        result = self.scratch_panel.result
        if result is not None and 0 <= item < len(result.verdicts):
            raw = result.transcript.items[item].raw
            self.arguments_panel.set_item(raw, result.verdicts[item], result.toolset)
            self.setCurrentIndex(Tab.ARGUMENTS)

    def paste(self, text: str | None = None) -> str | None:
        """Route pasted text (the clipboard's by default): items and transcripts to Scratch,
        arguments and schemas to Arguments; the reason when there is nothing to paste."""
        if text is None:
            text = QGuiApplication.clipboard().text()
        if not text.strip():
            return "The clipboard holds no text"
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
