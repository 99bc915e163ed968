"""The Scratch tab: pasted items or transcripts, gated at once and again as they are edited.

A bare arguments object (no item around it) is recognised too: it is checked against the tool
picked beside it, or sent to the Arguments tab. Gating runs on a worker: pasted text may be
large, or name tools whose schemas take the core's whole time budget per call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.core.formats import load_text
from inspector.core.gate import (
    GateResult,
    ItemVerdict,
    arguments_verdict,
    gate_transcript,
    make_toolset,
)
from inspector.core.model import LoadError, Tool
from inspector.core.schema import DEFAULT_BUDGET
from inspector.gui.json_text import visible
from inspector.gui.paste import PasteKind, route_paste
from inspector.gui.qt_banner import VerdictBanner
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_pane_tree import add_copy_menu, span_field_rows
from inspector.gui.qt_records import Record, RecordsModel, fit_columns, records_view
from inspector.gui.qt_schema_panel import NO_TOOLS
from inspector.gui.qt_text import dim, plain_label, tooltip
from inspector.gui.qt_transcript_model import Column, IndexRole, PointerRole, TranscriptModel
from inspector.gui.qt_workers import BUSY_DELAY_MS, Progress, TaskRunner, debounce

#: Milliseconds between the last keystroke and the re-gate.
GATE_DELAY_MS = 250
#: The name pasted text is loaded under (shown in error locations).
PASTED = "<pasted>"
#: The runner channel of the gating.
CHANNEL = "scratch"
#: Longest text looked at as a possible bare arguments object.
BARE_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class _Gated:
    """What gating the scratch text produced: a result, the loader's error, or the verdict of
    a bare arguments object."""

    result: GateResult | None
    error: LoadError | None
    arguments: ItemVerdict | None = None


def _gate(text: str, tools: dict[str, Tool], budget: float, cancel: threading.Event) -> _Gated:
    try:
        transcript = load_text(text, PASTED)
    except LoadError as exc:
        return _Gated(None, exc)
    return _Gated(gate_transcript(transcript, tools, budget=budget, cancel=cancel), None)


def _check(
    text: str, tool: str, tools: dict[str, Tool], budget: float, cancel: threading.Event
) -> _Gated:
    toolset, _overridden = make_toolset(None, tools)
    return _Gated(None, None, arguments_verdict(text, tool, toolset, budget=budget, cancel=cancel))


class ScratchPanel(QWidget):
    """An editable box for pasted JSON and the gated items it holds."""

    #: The current scratch item changed: item index (-1 for none) and pointer inside it.
    current_changed = Signal(int, str)
    #: The user asked to paste from the clipboard.
    paste_requested = Signal()
    #: The user sent a bare arguments object to the Arguments tab: its text and the tool picked.
    arguments_requested = Signal(str, object)
    #: The user sent a pasted item (its index) to the Arguments tab.
    item_requested = Signal(int)

    def __init__(
        self,
        tools: Callable[[], Mapping[str, Tool]],
        parent: QWidget | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self._tools = tools
        self.runner = runner if runner is not None else TaskRunner(self)
        #: Seconds the core may spend on one item's schema check.
        self.budget = DEFAULT_BUDGET
        self.result: GateResult | None = None
        #: Whether the text is a bare arguments object (checked against the picked tool).
        self.bare_arguments = False
        self.error: LoadError | None = None
        self._detail_item = -1
        self._timer = debounce(self, GATE_DELAY_MS, self.regate)
        self._busy_timer = debounce(self, BUSY_DELAY_MS, self._show_busy)

        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        top = QHBoxLayout()
        self.banner = VerdictBanner(self)
        paste = QPushButton("Paste", self)
        paste.setToolTip("Paste from the clipboard (Ctrl+Shift+V)")
        paste.clicked.connect(self.paste_requested.emit)
        top.addWidget(self.banner, 1)
        top.addWidget(paste)
        column.addLayout(top)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        left = QWidget(split)
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 4, 0)
        hint = plain_label(
            "Paste or type an item, an array of items or a whole transcript; it is gated as you "
            "edit. Nothing here is saved.",
            left,
        )
        hint.setWordWrap(True)
        dim(hint)
        self.editor = JsonView(left, read_only=False)
        self.editor.setObjectName("scratch-editor")
        self.editor.textChanged.connect(self._timer.start)
        left_column.addWidget(hint)
        left_column.addWidget(self._build_arguments_row(left))
        left_column.addWidget(self.editor, 1)
        self.model = TranscriptModel(self)
        self.tree = QTreeView(split)
        self.tree.setObjectName("scratch-tree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for hidden in (Column.ID, Column.STATUS, Column.CHANGE):
            self.tree.header().hideSection(hidden)
        char = self.tree.fontMetrics().averageCharWidth()
        for col, chars in ((Column.INDEX, 8), (Column.TYPE, 28), (Column.NAME, 22)):
            self.tree.header().resizeSection(col, chars * char + 12)
        self.tree.selectionModel().currentRowChanged.connect(self._row_changed)
        add_copy_menu(self.tree)
        span_field_rows(self.tree)
        right = QSplitter(Qt.Orientation.Vertical, split)
        right.setChildrenCollapsible(False)
        right.addWidget(self.tree)
        right.addWidget(self._build_detail(right))
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        column.addWidget(split, 1)
        self.regate()

    def _build_detail(self, parent: QWidget) -> QWidget:
        """The selected pasted item's verdict, its reason in full, and its schema errors."""
        pane = QWidget(parent)
        pane.setObjectName("scratch-detail")
        column = QVBoxLayout(pane)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(3)
        row = QHBoxLayout()
        self.item_banner = VerdictBanner(pane)
        self.open_item_button = QPushButton("Open in Arguments", pane)
        self.open_item_button.setObjectName("scratch-open-arguments")
        self.open_item_button.setToolTip(
            tooltip("Edit and check this item's arguments in the Arguments tab")
        )
        self.open_item_button.clicked.connect(self._open_item)
        row.addWidget(self.item_banner, 1)
        row.addWidget(self.open_item_button)
        column.addLayout(row)
        self.reason = plain_label("", pane)
        self.reason.setObjectName("scratch-reason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.reason)
        self.issues = RecordsModel(("Pointer", "Keyword", "Message"), self)
        self.issues_view = records_view(self.issues, pane)
        self.issues_view.setObjectName("scratch-errors")
        column.addWidget(self.issues_view, 1)
        self._show_item_detail(-1)
        return pane

    def _show_item_detail(self, item: int) -> None:
        result = self.result
        shown = result is not None and 0 <= item < len(result.verdicts)
        verdict = result.verdicts[item] if result is not None and shown else None
        self._detail_item = item if verdict is not None else -1
        self.open_item_button.setEnabled(verdict is not None)
        if verdict is None:
            self.item_banner.show_verdict(None, "")
            self.reason.setText("Select a pasted item to see its verdict and reason.")
            self.issues.set_records([])
            self.issues_view.hide()
            return
        self.item_banner.show_verdict(verdict.verdict, "")
        self.reason.setText(visible(verdict.detail, lines=True) or str(verdict.verdict))
        rows = [Record((i.path or "/", i.keyword, i.message), payload=i) for i in verdict.errors]
        if verdict.parse_error is not None:
            rows.append(Record(("", "parse", verdict.parse_error.describe())))
        self.issues.set_records(rows)
        self.issues_view.setVisible(bool(rows))
        fit_columns(self.issues_view)

    def _open_item(self) -> None:
        if self._detail_item >= 0:
            self.item_requested.emit(self._detail_item)

    def _build_arguments_row(self, parent: QWidget) -> QWidget:
        row_widget = QWidget(parent)
        row = QHBoxLayout(row_widget)
        row.setContentsMargins(0, 0, 0, 0)
        self.arguments_label = plain_label("A bare arguments object — check it against", row_widget)
        self.tool_combo = QComboBox(row_widget)
        self.tool_combo.setObjectName("scratch-tool-picker")
        self.tool_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.tool_combo.currentIndexChanged.connect(lambda _i: self._tool_picked())
        self.arguments_button = QPushButton("Open in the Arguments Tab", row_widget)
        self.arguments_button.clicked.connect(
            lambda: self.arguments_requested.emit(self.editor.toPlainText(), self.tool)
        )
        row.addWidget(self.arguments_label)
        row.addWidget(self.tool_combo, 1)
        row.addWidget(self.arguments_button)
        row_widget.hide()
        self.arguments_row = row_widget
        return row_widget

    @property
    def tool(self) -> str | None:
        """The tool a bare arguments object is checked against (None: none picked or known)."""
        data = self.tool_combo.currentData()
        return data if isinstance(data, str) else None

    def _fill_tools(self, tools: Mapping[str, Tool]) -> None:
        current = self.tool
        blocked = self.tool_combo.blockSignals(True)
        try:
            self.tool_combo.clear()
            for name in sorted(tools):
                self.tool_combo.addItem(visible(name), name)
            at = self.tool_combo.findData(current) if current is not None else -1
            self.tool_combo.setCurrentIndex(max(at, 0) if tools else -1)
        finally:
            self.tool_combo.blockSignals(blocked)

    def _tool_picked(self) -> None:
        if self.bare_arguments:
            self.regate()

    def set_text(self, text: str) -> None:
        """Replace the scratch text and gate it at once."""
        blocked = self.editor.blockSignals(True)
        try:
            self.editor.set_text(text)
        finally:
            self.editor.blockSignals(blocked)
        self.regate()

    @property
    def gating(self) -> bool:
        """Whether the text is being gated (its result not yet shown)."""
        return self.runner.busy(CHANNEL)

    def stop(self) -> None:
        """Cancel the running gating; its result is dropped."""
        self._timer.stop()
        self._busy_timer.stop()
        self.runner.cancel(CHANNEL, notify=False)

    def regate(self) -> None:
        """Load the text with the core loader and gate it with every known tool (on a worker)."""
        self.stop()
        text = self.editor.toPlainText()
        # Arguments objects are small: a large text is a transcript, and is parsed once only,
        # on the worker.
        bare = len(text) <= BARE_LIMIT and route_paste(text).kind == PasteKind.ARGUMENTS
        self.bare_arguments = bare
        self.arguments_row.setVisible(bare)
        if not text.strip():
            self._show(_Gated(None, None))
            return
        tools, budget, cancel = dict(self._tools()), self.budget, threading.Event()
        if bare:
            self._fill_tools(tools)
            self.tool_combo.setVisible(bool(tools))
            tool = self.tool
            if tool is None:
                self._show(_Gated(None, None))
                self.banner.show_verdict(None, NO_TOOLS)
                return

            def work(_progress: Progress) -> _Gated:
                return _check(text, tool, tools, budget, cancel)
        else:

            def work(_progress: Progress) -> _Gated:
                return _gate(text, tools, budget, cancel)

        self._busy_timer.start()
        self.runner.start(
            CHANNEL, work, self._show, lambda error: self._show(_Gated(None, None)), cancel=cancel
        )

    def _show_busy(self) -> None:
        if self.gating:
            self.banner.show_verdict(None, "Gating…")

    def _show(self, gated: _Gated) -> None:
        self._busy_timer.stop()
        self.result, self.error = gated.result, gated.error
        self._show_item_detail(-1)  # until a row of the new result is current
        if gated.arguments is not None:
            self.model.set_result(None)
            verdict = gated.arguments
            self.banner.show_verdict(verdict.verdict, verdict.detail)
            return
        if self.error is not None:
            self.model.set_result(None)
            self.banner.show_verdict(None, f"{self.error.location()}: {self.error.message}")
            return
        if self.result is None:
            self.model.set_result(None)
            self.banner.show_verdict(None, "Nothing pasted yet.")
            return
        transcript = self.result.transcript
        self.model.set_result(self.result)
        if len(self.result.verdicts) == 1:
            verdict = self.result.verdicts[0]
            self.banner.show_verdict(verdict.verdict, verdict.detail)
        else:
            counts = ", ".join(f"{k} {v}" for k, v in self.result.summary().items())
            count = len(self.result.verdicts)
            self.banner.show_verdict(
                None, f"{transcript.format}: {count} item{'s' if count != 1 else ''}; {counts}"
            )
        if self.model.rowCount() > 0:
            self.tree.setCurrentIndex(self.model.index(0, 0))

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self._show_item_detail(-1)
            self.current_changed.emit(-1, "")
            return
        item = current.data(IndexRole)
        self._show_item_detail(-1 if item is None else int(item))
        self.current_changed.emit(
            -1 if item is None else int(item), current.data(PointerRole) or ""
        )
