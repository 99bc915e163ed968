"""One side of the window: a header, a filter, and the transcript tree (or empty/loading/error)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    QSize,
    Signal,
)
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QKeyEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.verdicts import PASSING, Verdict
from inspector.gui import qt_palette
from inspector.gui.conversations import conversation_labels
from inspector.gui.enum_values import AlignmentFlag
from inspector.gui.filtering import Choice, ItemFilter, matching_rows
from inspector.gui.qt_text import ElidedLabel, PointingHand, dim, plain_label, tooltip
from inspector.gui.qt_transcript_model import (
    HEADERS,
    Column,
    IndexRole,
    PointerRole,
    TranscriptModel,
)
from inspector.gui.qt_workers import debounce

if TYPE_CHECKING:  # what a pane shows comes with a load, after the window's first paint
    from PySide6.QtWidgets import QHeaderView, QMenu, QTreeView

    from inspector.core.gate import GateResult
    from inspector.core.model import LoadError
    from inspector.gui.qt_pane_tree import ColumnFitter
    from inspector.gui.qt_session import Loaded
    from inspector.gui.tallies import Tallies

#: Milliseconds between the last keystroke in the filter box and the filter running.
FILTER_DELAY_MS = 200

#: Hidden until the user shows them from the header menu (they rarely decide a replay). A
#: pair's changes are the same seen from either side, so they are marked on the right only,
#: as in the window sketch; the left pane's changed cells are still coloured.
_HIDDEN_BY_DEFAULT = {
    "left": (Column.ID, Column.STATUS, Column.CHANGE),
    "right": (Column.ID, Column.STATUS),
}


class CountsMode(IntEnum):
    """How much room the verdict counts take: word and count, icon and count, one summary."""

    FULL, COMPACT, SUMMARY = range(3)


class VerdictCounts(QWidget):
    """A file's verdict counts as chips that give way to the width they are given.

    The pane header picks the widest mode that leaves the file name whole; the tooltip always
    lists every count with its meaning, so nothing is lost in the compact forms.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = CountsMode.FULL
        self._groups: dict[CountsMode, QWidget] = {}
        self.summary: dict[str, int] = {}

    def set_counts(
        self, summary: dict[str, int] | None, target: tuple[str, int] | None = None
    ) -> None:
        """Show these verdict counts (None: none), and a target's error count when it has any
        (the gate may pass items the target rejects)."""
        for group in self._groups.values():
            group.hide()  # deleteLater waits for the event loop; a screenshot may not
            group.deleteLater()
        self._groups = {}
        self.summary = dict(summary or {})
        #: The target's name and how many of its findings are errors (None: none).
        self.target = target if target is not None and target[1] > 0 else None
        if not self.summary:
            self.setToolTip("")
            self.updateGeometry()
            return
        chips = [(Verdict(v), n) for v, n in self.summary.items()]
        extra: list[tuple[object, str, str]] = []
        compact_extra: list[tuple[object, str, str]] = []
        lines = [f"{v} {n:,} — {qt_palette.verdict_swatch(v).meaning}" for v, n in chips]
        if self.target is not None:
            name, errors = self.target
            icon = qt_palette.target_swatch("error").icon
            words = f"{name}: {errors:,} error{'s' if errors != 1 else ''}"
            extra = [(icon, words, "count-target")]
            compact_extra = [(icon, f"{errors:,}", "count-target")]
            lines.append(f"{words} — the target provider rejects items the gate passes")
        self._groups[CountsMode.FULL] = self._group(
            [(qt_palette.verdict_swatch(v).icon, f"{v} {n}", f"count-{v}") for v, n in chips]
            + extra
        )
        self._groups[CountsMode.COMPACT] = self._group(
            [(qt_palette.verdict_swatch(v).icon, f"{n:,}", f"count-{v}") for v, n in chips]
            + compact_extra
        )
        total = sum(self.summary.values())
        blocked = sum(n for v, n in chips if v not in PASSING)
        swatch = qt_palette.severity_swatch("error") if blocked else qt_palette.verdict_swatch("ok")
        words = f"{total:,} items, {blocked:,} blocked"
        self._groups[CountsMode.SUMMARY] = self._group(
            [(swatch.icon, words, "count-summary"), *compact_extra]
        )
        self.setToolTip(tooltip("\n".join(lines)))
        self.set_mode(self.mode)

    def _group(self, chips: list[tuple[object, str, str]]) -> QWidget:
        group = QWidget(self)
        row = QHBoxLayout(group)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        for icon, text, name in chips:
            chip = QWidget(group)
            chip.setObjectName(name)
            chip_row = QHBoxLayout(chip)
            chip_row.setContentsMargins(0, 0, 0, 0)
            chip_row.setSpacing(3)
            picture = QLabel(chip)
            picture.setPixmap(qt_palette.pixmap(icon, 14))  # type: ignore[arg-type]
            chip_row.addWidget(picture)
            chip_row.addWidget(plain_label(text, chip))
            row.addWidget(chip)
        group.hide()
        return group

    def width_for(self, mode: CountsMode) -> int:
        """The width the counts take in a mode (0 when there are none)."""
        group = self._groups.get(mode)
        return group.sizeHint().width() if group is not None else 0

    def set_mode(self, mode: CountsMode) -> None:
        """Show the counts in one mode."""
        self.mode = mode
        for each, group in self._groups.items():
            group.setVisible(each == mode)
            if each == mode:
                group.setGeometry(0, 0, group.sizeHint().width(), self.height())
        self.updateGeometry()

    def shown_texts(self) -> list[str]:
        """The chip texts shown in the current mode."""
        group = self._groups.get(self.mode)
        if group is None:
            return []
        return [label.text() for label in group.findChildren(QLabel) if label.text()]

    def sizeHint(self) -> QSize:
        """The current mode's width."""
        group = self._groups.get(self.mode)
        return group.sizeHint() if group is not None else QSize(0, 0)

    def minimumSizeHint(self) -> QSize:
        """Never a reason for the window to grow: the header picks a mode that fits."""
        return QSize(0, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Keep the shown group at the counts' height."""
        group = self._groups.get(self.mode)
        if group is not None:
            group.setGeometry(0, 0, group.sizeHint().width(), event.size().height())
        super().resizeEvent(event)


class PaneHeader(QWidget):
    """File name (left), format and verdict counts (right), laid out to the width given.

    The name is shown whole whenever it can be: the counts give way first (full chips, compact
    chips, one summary chip), then the name is elided. The header never asks for more width
    than it has, so no transcript can make the window grow.
    """

    _GAP = 8

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setContentsMargins(2, 2, 2, 0)
        self.name_label = ElidedLabel("", self)
        font = self.name_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.08)
        self.name_label.setFont(font)
        self.format_label = plain_label("", self)
        self.format_label.setObjectName("format-label")
        dim(self.format_label)
        self.counts = VerdictCounts(self)

    def set_content(
        self,
        name: str,
        path: str,
        fmt: str,
        summary: dict[str, int] | None,
        target: tuple[str, int] | None = None,
    ) -> None:
        """Show a file's name (path in the tooltip), format, verdict counts and target errors."""
        self.name_label.setText(name)
        self.name_label.setToolTip(tooltip(path))
        self.format_label.setText(fmt)
        self.counts.set_counts(summary, target)
        self.arrange()

    def sizeHint(self) -> QSize:
        """The width that shows everything in full."""
        height = max(self.name_label.sizeHint().height(), self.counts.sizeHint().height())
        return QSize(self._wanted(CountsMode.FULL), height + 2)

    def minimumSizeHint(self) -> QSize:
        """Any width will do: the content is compacted and elided to it."""
        return QSize(0, self.sizeHint().height())

    def _name_width(self) -> int:
        label = self.name_label
        return label.fontMetrics().horizontalAdvance(label.text()) + 4

    def _format_width(self) -> int:
        return self.format_label.sizeHint().width() if self.format_label.text() else 0

    def _wanted(self, mode: CountsMode) -> int:
        margins = self.contentsMargins()
        return (
            margins.left()
            + self._name_width()
            + self._GAP
            + self._format_width()
            + self._GAP
            + self.counts.width_for(mode)
            + margins.right()
        )

    def arrange(self) -> None:
        """Pick the counts' mode for the current width and place the three parts."""
        rect = self.contentsRect()
        mode = next((m for m in CountsMode if self._wanted(m) <= self.width()), CountsMode.SUMMARY)
        self.counts.set_mode(mode)
        right = rect.right() + 1
        width = min(self.counts.width_for(mode), rect.width())
        self.counts.setGeometry(right - width, rect.y(), width, rect.height())
        right -= width + (self._GAP if width else 0)
        width = min(self._format_width(), max(right - rect.x(), 0))
        self.format_label.setGeometry(right - width, rect.y(), width, rect.height())
        right -= width + (self._GAP if width else 0)
        self.name_label.setGeometry(rect.x(), rect.y(), max(right - rect.x(), 0), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Lay the parts out again for the new width."""
        super().resizeEvent(event)
        self.arrange()


class _Page:
    EMPTY, TREE, LOADING, ERROR = range(4)


class TranscriptPane(QFrame):
    """A transcript side: header with file name, format and counts; filter; tree.

    `complete=False` makes only what an empty pane shows (header, filter row, drop target);
    `complete()` adds the tree, loading and error pages.
    """

    #: The user asked to open a file into this pane.
    open_requested = Signal()
    #: Files were dropped on this pane.
    files_dropped = Signal(list)
    #: The user asked for the bundled sample pair.
    sample_requested = Signal()
    #: The user cancelled this pane's load.
    cancel_requested = Signal()
    #: The current row changed: item index (-1 for none) and the JSON Pointer inside it.
    current_changed = Signal(int, str)
    #: The filter text or choice changed.
    filter_changed = Signal()
    #: The column header was right-clicked (global position).
    columns_menu_requested = Signal(QPoint)
    #: The columns were sized to new content (the width the tree needs may have changed).
    columns_fitted = Signal()
    #: The user picked another conversation of the file (its position in the file).
    conversation_picked = Signal(int)
    #: The file's conversations were listed again (the window levels both panes' rows).
    conversations_listed = Signal()

    def __init__(self, side: str, parent: QWidget | None = None, *, complete: bool = True) -> None:
        super().__init__(parent)
        self.side = side
        self.setObjectName(f"pane-{side}")
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.model = TranscriptModel(self)
        self.path: str | None = None
        self.completed = False
        self._filter_timer = debounce(self, FILTER_DELAY_MS, self.filter_changed.emit)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self._build_header())
        layout.addWidget(self._build_conversation_row())
        layout.addWidget(self._build_filter_row())
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self._build_empty_page())
        layout.addWidget(self.stack, 1)
        self.show_empty()
        if complete:
            self.complete()

    def complete(self) -> None:
        """Build the pages the empty pane does not show: the tree, the loading and the error
        page (once; a window's start-up paints the empty pane first)."""
        if not self.completed:
            self.stack.addWidget(self._build_tree())
            self.stack.addWidget(self._build_loading_page())
            self.stack.addWidget(self._build_error_page())
            self.completed = True

    # ---- construction ---------------------------------------------------------------------

    def _build_header(self) -> QWidget:
        self.header = PaneHeader(self)
        self.name_label = self.header.name_label
        self.format_label = self.header.format_label
        self.counts = self.header.counts
        return self.header

    def _build_filter_row(self) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.filter_edit = QLineEdit(box)
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setPlaceholderText("Filter: text, verdict:, type:, name:, call_id:")
        self.filter_edit.setToolTip(
            tooltip(
                "Words match any field or text of an item; field:value restricts one field "
                "(verdict, type, name, role, call_id, id, status, text)."
            )
        )
        self.filter_edit.textChanged.connect(lambda _text: self._filter_timer.start())
        self.filter_edit.installEventFilter(self)
        self.match_label = plain_label("", box)
        self.match_label.setObjectName("match-count")
        dim(self.match_label)
        self.verdict_combo = QComboBox(box)
        self.verdict_combo.addItem("All verdicts", str(Choice.ALL))
        self.verdict_combo.addItem("Problems only", str(Choice.PROBLEMS))
        self.verdict_combo.addItem("Changed only", str(Choice.CHANGED))
        self.verdict_combo.insertSeparator(self.verdict_combo.count())
        for verdict in qt_palette.all_verdicts():
            self.verdict_combo.addItem(
                qt_palette.verdict_swatch(verdict).icon, str(verdict), str(verdict)
            )
        self.verdict_combo.currentIndexChanged.connect(lambda _i: self.filter_changed.emit())
        self.verdict_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        row.addWidget(self.filter_edit, 1)
        row.addWidget(self.match_label)
        row.addWidget(self.verdict_combo)
        self.filter_row = box
        return box

    def _build_conversation_row(self) -> QWidget:
        # A file of several conversations (a trace, an eval log, a capture) picks one here, on
        # a row of its own: beside the filter, a trace id left the filter no room at 1100 px.
        box = QWidget(self)
        box.setObjectName("conversation-row")
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        caption = plain_label("Conversation", box)
        dim(caption)
        row.addWidget(caption)
        self.conversation_combo = QComboBox(box)
        self.conversation_combo.setObjectName("conversation-picker")
        self.conversation_combo.setToolTip(tooltip("The conversation of the file shown here"))
        self.conversation_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.conversation_combo.activated.connect(self.conversation_picked.emit)
        row.addWidget(self.conversation_combo)
        # Shown when only the other pane's file has several: the rows stay level across panes.
        self.conversation_note = plain_label("", box)
        self.conversation_note.setObjectName("conversation-note")
        dim(self.conversation_note)
        row.addWidget(self.conversation_note)
        row.addStretch(1)
        # As tall with the note as with the picker, or the other pane's rows sit lower.
        box.setMinimumHeight(self.conversation_combo.sizeHint().height())
        box.hide()
        self.conversation_row = box
        return box

    def _build_empty_page(self) -> QWidget:
        page = QFrame(self)
        page.setObjectName("drop-target")
        page.setFrameShape(QFrame.Shape.StyledPanel)
        page.setFrameShadow(QFrame.Shadow.Sunken)
        column = QVBoxLayout(page)
        column.addStretch(2)
        title = plain_label("Drop a transcript here", page)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        title.setFont(font)
        title.set_alignment(AlignmentFlag.AlignCenter)
        hint = plain_label(
            "Open Responses request, response or item list, JSONL log, or recorded SSE stream",
            page,
        )
        hint.set_alignment(AlignmentFlag.AlignCenter)
        hint.setWordWrap(True)
        dim(hint)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        open_button = QPushButton(f"Open {self.side.title()}…", page)
        open_button.clicked.connect(self.open_requested.emit)
        buttons.addWidget(open_button)
        self.sample_button = QPushButton("Open the sample pair", page)
        self.sample_button.setFlat(True)
        PointingHand(self.sample_button)
        self.sample_button.setToolTip(
            tooltip("provider-a.json and provider-b.json with their tool schemas")
        )
        # Drawn as a link: underlined, in the palette's link colour.
        link_font = self.sample_button.font()
        link_font.setUnderline(True)
        self.sample_button.setFont(link_font)
        link_palette = self.sample_button.palette()
        link_palette.setColor(
            QPalette.ColorRole.ButtonText, link_palette.color(QPalette.ColorRole.Link)
        )
        self.sample_button.setPalette(link_palette)
        self.sample_button.clicked.connect(self.sample_requested.emit)
        buttons.addWidget(self.sample_button)
        buttons.addStretch(1)
        column.addWidget(title)
        column.addWidget(hint)
        column.addSpacing(8)
        column.addLayout(buttons)
        column.addStretch(3)
        return page

    def _build_tree(self) -> QTreeView:
        # Imported here, with the Qt classes only a tree names (see qt_pane_tree).
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QAbstractItemView, QHeaderView

        from inspector.gui.qt_pane_tree import (
            CellDelegate,
            ColumnFitter,
            TranscriptTree,
            add_copy_menu,
            span_field_rows,
        )

        tree = TranscriptTree(self)
        tree.setObjectName(f"tree-{self.side}")
        tree.setUniformRowHeights(True)  # lets Qt lay out 200,000 rows without asking each one
        tree.setAlternatingRowColors(True)
        tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        tree.setAllColumnsShowFocus(True)
        tree.setExpandsOnDoubleClick(True)
        tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tree.setItemDelegate(CellDelegate(tree))
        tree.setModel(self.model)
        self.model.wants_rows = self._near_last_rows
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(24)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(
            lambda pos: self.columns_menu_requested.emit(header.mapToGlobal(pos))
        )
        for column in _HIDDEN_BY_DEFAULT.get(self.side, _HIDDEN_BY_DEFAULT["right"]):
            header.hideSection(column)
        self.tree = tree
        self.fitter = ColumnFitter(tree, self.model)
        tree.selectionModel().currentRowChanged.connect(self._current_row_changed)
        add_copy_menu(tree)
        span_field_rows(tree)
        # The counterpart row is made current silently by the linked selection; when the
        # user then moves into this tree, its current row becomes the one shown in detail.
        tree.installEventFilter(self)
        return tree

    def _build_loading_page(self) -> QWidget:
        page = QWidget(self)
        column = QVBoxLayout(page)
        column.addStretch(1)
        self.loading_label = plain_label("", page)
        self.loading_label.set_alignment(AlignmentFlag.AlignCenter)
        self.loading_label.setWordWrap(True)
        from PySide6.QtWidgets import QProgressBar  # only a loading page names it

        self.progress = QProgressBar(page)
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumWidth(320)
        self.progress.setMinimumWidth(160)
        cancel = QPushButton("Cancel", page)
        cancel.clicked.connect(self.cancel_requested.emit)
        self.cancel_button = cancel
        column.addWidget(self.loading_label)
        centre = QHBoxLayout()
        centre.addStretch(1)
        centre.addWidget(self.progress)
        centre.addWidget(cancel)
        centre.addStretch(1)
        column.addLayout(centre)
        column.addStretch(2)
        return page

    def _build_error_page(self) -> QWidget:
        from PySide6.QtCore import Qt  # made after the first paint, which names no `Qt` enum

        page = QFrame(self)
        page.setObjectName("error-page")
        page.setFrameShape(QFrame.Shape.StyledPanel)
        column = QVBoxLayout(page)
        column.setContentsMargins(16, 16, 16, 16)
        top = QHBoxLayout()
        icon = QLabel(page)
        icon.setPixmap(qt_palette.pixmap(qt_palette.severity_swatch("error").icon, 24))
        title = plain_label("Cannot open this file", page)
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        top.addWidget(icon)
        top.addWidget(title, 1)
        self.error_location = plain_label("", page)
        self.error_location.setWordWrap(True)
        self.error_location.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        mono = QFont(self.error_location.font())
        mono.setFamily("monospace")
        self.error_location.setFont(mono)
        self.error_message = plain_label("", page)
        self.error_message.setWordWrap(True)
        self.error_message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QHBoxLayout()
        retry = QPushButton("Open Another File…", page)
        retry.clicked.connect(self.open_requested.emit)
        buttons.addWidget(retry)
        buttons.addStretch(1)
        column.addLayout(top)
        column.addWidget(self.error_location)
        column.addWidget(self.error_message)
        column.addSpacing(8)
        column.addLayout(buttons)
        column.addStretch(1)
        return page

    # ---- states ---------------------------------------------------------------------------

    def set_sample_available(self, available: bool) -> None:
        """Show or hide the sample-pair link (hidden when the samples are not installed)."""
        self.sample_button.setVisible(available)

    def show_empty(self) -> None:
        """Show the drop target."""
        self.path = None
        self.model.set_result(None)
        self._set_header("No file", "", None)
        self.stack.setCurrentIndex(_Page.EMPTY)
        self.filter_row.setEnabled(False)
        self.set_conversations((), 0)

    def show_loading(self, path: str) -> None:
        """Show the busy page for a file being read (its name in the header meanwhile)."""
        self.header.set_content(os.path.basename(path), path, "loading…", None)
        self.loading_label.setText(f"Loading {os.path.basename(path)}…")
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.stack.setCurrentIndex(_Page.LOADING)

    def set_stage(self, stage: str, fraction: float | None = None) -> None:
        """Show what the running load is doing, and how far it has got (None: unknown)."""
        if self.path is None or self.stack.currentIndex() == _Page.LOADING:
            self.loading_label.setText(stage)
            if fraction is None:
                self.progress.setRange(0, 0)
                self.progress.setTextVisible(False)
            else:
                self.progress.setRange(0, 1000)
                self.progress.setValue(round(min(max(fraction, 0.0), 1.0) * 1000))
                self.progress.setFormat("%p%")
                self.progress.setTextVisible(True)

    def show_error(self, path: str, error: LoadError) -> None:
        """Show why a file could not be read; the pane keeps no transcript."""
        self.path = path
        self.model.set_result(None)
        self._set_header(os.path.basename(path), "unreadable", None)
        self.error_location.setText(error.location())
        self.error_message.setText(error.message)
        self.stack.setCurrentIndex(_Page.ERROR)
        self.filter_row.setEnabled(False)
        self.set_conversations((), 0)

    def show_result(
        self,
        path: str,
        result: GateResult,
        summary: dict[str, int],
        tallies: Tallies | None = None,
    ) -> None:
        """Show a gated transcript and its verdict counts (and its other counts, `tallies`,
        when its load counted them)."""
        self.path = path
        self.model.set_result(result, tallies)
        self._set_header(os.path.basename(path), result.transcript.format, summary)
        self.stack.setCurrentIndex(_Page.TREE)
        self.filter_row.setEnabled(True)
        self.fit_columns()

    def show_loaded(self, loaded: Loaded) -> None:
        """Show a loaded file: its gated transcript, verdict counts and conversations."""
        self.show_result(loaded.path, loaded.result, loaded.summary, loaded.tallies)
        if loaded.reading:  # the first rows of a large file: the rest is still being read
            fmt = f"{loaded.result.transcript.format}, reading on…"
            self._set_header(os.path.basename(loaded.path), fmt, loaded.summary)
        self.set_conversations(conversation_labels(loaded.conversations), loaded.picked)

    def set_conversations(self, labels: Sequence[str], picked: int) -> None:
        """List the file's conversations in the picker (shown only when there are several)."""
        combo = self.conversation_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItems(list(labels))
        combo.setCurrentIndex(picked if 0 <= picked < len(labels) else 0)
        combo.blockSignals(False)
        self.show_conversation_row(self.conversation_row.isVisibleTo(self))
        self.conversations_listed.emit()

    def several_conversations(self) -> bool:
        """Whether the file shown holds several conversations (the picker lists them)."""
        return self.conversation_combo.count() > 1

    def show_conversation_row(self, on: bool) -> None:
        """Show the conversation row (when this pane's file or the other's has several)."""
        several = self.several_conversations()
        self.conversation_combo.setVisible(several)
        one = self.path is not None and self.model.result is not None
        self.conversation_note.setText("" if several or not one else "one conversation")
        self.conversation_row.setVisible(on or several)

    def _near_last_rows(self, exposed: int) -> bool:
        """Whether the tree shows rows within two pages of the last of `exposed` rows."""
        from PySide6.QtWidgets import QAbstractItemView

        bar = self.tree.verticalScrollBar()
        if self.tree.verticalScrollMode() != QAbstractItemView.ScrollMode.ScrollPerItem:
            return True
        # Per item, the bar's value is the first row in view (expanded fields count as rows,
        # so it errs towards fetching).
        return bar.value() + 2 * max(bar.pageStep(), 1) >= exposed

    def fit_columns(self) -> None:
        """Size the columns to the content again (after a diff arrives or a column is shown)."""
        self.fitter.refit()
        self.columns_fitted.emit()

    def restore_page(self) -> None:
        """Leave the loading page after a cancel (back to the tree, error or empty state)."""
        if self.stack.currentIndex() != _Page.LOADING:
            return
        result = self.model.result
        if result is not None:
            self._set_header(
                os.path.basename(self.path or ""), result.transcript.format, result.summary()
            )
            self.stack.setCurrentIndex(_Page.TREE)
        elif self.path is not None and self.error_location.text():
            self._set_header(os.path.basename(self.path), "unreadable", None)
            self.stack.setCurrentIndex(_Page.ERROR)
        else:
            self._set_header("No file", "", None)
            self.stack.setCurrentIndex(_Page.EMPTY)

    @property
    def showing_error(self) -> bool:
        """Whether the pane shows a load error."""
        return self.stack.currentIndex() == _Page.ERROR

    def _set_header(self, name: str, fmt: str, summary: dict[str, int] | None) -> None:
        target = None
        if summary is not None and self.model.result is not None:
            names = self.model.target_names()
            if names:
                target = (", ".join(names), self.model.target_errors())
        self.header.set_content(name, self.path or "", fmt, summary, target)

    # ---- filter ---------------------------------------------------------------------------

    def item_filter(self) -> ItemFilter:
        """The filter the box and combo describe."""
        choice = self.verdict_combo.currentData() or str(Choice.ALL)
        return ItemFilter.parse(self.filter_edit.text(), choice)

    def filter_job(self) -> Callable[[], frozenset[int]] | None:
        """Work that finds the display rows the filter keeps (None when nothing is filtered).

        It reads only frozen core values, so it may run on a worker thread.
        """
        result = self.model.result
        item_filter = self.item_filter()
        if result is None or not item_filter.active:
            return None
        rows, changed = self.model.rows, self.model.changed
        return lambda: matching_rows(result, rows, item_filter, changed)

    def matching_rows(self) -> frozenset[int] | None:
        """The display rows this pane's filter keeps (None when nothing is filtered)."""
        job = self.filter_job()
        return job() if job is not None else None

    def set_visible_rows(self, rows: frozenset[int] | None) -> None:
        """Show only these display rows (None: all); keeps the current item when it stays."""
        current = self.current_item()
        self.model.set_filter(rows)
        if current is not None:
            self.select_item(current, notify=False)
        self._show_match_count()

    def _show_match_count(self) -> None:
        if not self.model.filtered:
            self.match_label.setText("")
            return
        shown = self.model.display_rows
        total = len(self.model.rows) if self.model.rows is not None else self.model.item_count()
        self.match_label.setText(f"{shown:,} of {total:,}")

    def clear_filter(self) -> None:
        """Drop the filter text and verdict choice (Esc in the filter box)."""
        self.filter_edit.clear()
        self.verdict_combo.setCurrentIndex(0)

    # ---- selection ------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Announce the current row when the tree gains the focus; Esc clears the filter."""
        if self.completed and watched is self.tree and event.type() == QEvent.Type.FocusIn:
            self.announce_current()
        elif watched is self.filter_edit and event.type() == QEvent.Type.KeyPress:
            from PySide6.QtCore import Qt  # a key is pressed after the first paint

            if (
                isinstance(event, QKeyEvent)
                and event.key() == Qt.Key.Key_Escape
                and self.item_filter().active
            ):
                self.clear_filter()
                return True
        return super().eventFilter(watched, event)

    def announce_current(self) -> None:
        """Emit current_changed for the tree's current row."""
        self._current_row_changed(self.tree.currentIndex(), QModelIndex())

    def _current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self.current_changed.emit(-1, "")
            return
        item = current.data(IndexRole)
        pointer = current.data(PointerRole) or ""
        self.current_changed.emit(-1 if item is None else int(item), pointer)

    def current_item(self) -> int | None:
        """The item of the current row, or None."""
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        item = index.data(IndexRole)
        return None if item is None else int(item)

    def select_item(self, item: int | None, *, notify: bool = True) -> bool:
        """Make an item's row current and selected, scrolled into view; False if not shown."""
        from PySide6.QtCore import QItemSelectionModel
        from PySide6.QtWidgets import QAbstractItemView

        selection = self.tree.selectionModel()
        if item is None:
            self._silently(notify, selection.clear)
            return False
        index = self.model.index_of_item(item)
        if not index.isValid():
            self._silently(notify, selection.clear)
            return False
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        already = index == self.tree.currentIndex()
        self._silently(notify, lambda: selection.setCurrentIndex(index, flags))
        if notify and already:
            self.announce_current()  # no currentRowChanged for a row that was current
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        return True

    def select_items(self, items: list[int]) -> None:
        """Select several items (the first becomes current)."""
        if not items:
            return
        from PySide6.QtCore import QItemSelectionModel

        self.select_item(items[0])
        selection = self.tree.selectionModel()
        for item in items[1:]:
            index = self.model.index_of_item(item)
            if index.isValid():
                selection.select(
                    index,
                    QItemSelectionModel.SelectionFlag.Select
                    | QItemSelectionModel.SelectionFlag.Rows,
                )

    def _silently(self, notify: bool, change: Callable[[], None]) -> None:
        if notify:
            change()
            return
        blocked = self.tree.selectionModel().blockSignals(True)
        try:
            change()
        finally:
            self.tree.selectionModel().blockSignals(blocked)
        self.tree.viewport().update()

    # ---- header menu ----------------------------------------------------------------------

    # ---- drag and drop --------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept local files."""
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        """Open dropped local files."""
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.files_dropped.emit(paths)


def fill_column_menu(
    menu: QMenu, headers: Sequence[QHeaderView], changed: Callable[[], None] | None = None
) -> None:
    """Fill a menu with entries that show or hide each column in every given header at once."""
    menu.clear()

    def toggle(column: Column, on: bool) -> None:
        for header in headers:
            header.setSectionHidden(column, not on)
        if changed is not None:
            changed()

    for column in Column:
        if column == Column.INDEX:
            continue
        action = menu.addAction(HEADERS[column])
        action.setCheckable(True)
        action.setChecked(any(not h.isSectionHidden(column) for h in headers))
        action.toggled.connect(lambda on, c=column: toggle(c, on))


def twin_index(model: TranscriptModel, index: QModelIndex) -> QModelIndex:
    """The index at the same place (the same rows from the top) in another pane's model: in
    aligned mode both panes have the same rows at every level."""
    rows = []
    while index.isValid():
        rows.append(index.row())
        index = index.parent()
    twin = QModelIndex()
    for row in reversed(rows):
        twin = model.index(row, 0, twin)
        if not twin.isValid():
            return QModelIndex()
    return twin


def left_share(total: int, left: ColumnFitter, right: ColumnFitter) -> int:
    """How much of `total` the left pane gets: each its whole columns and half the rest when
    both fit; else each the width that keeps its names and call_ids whole, and the rest in
    proportion to what each still lacks; else in proportion to those widths."""
    full = [left.needed(), right.needed()]
    if sum(full) <= total:
        return full[0] + (total - sum(full)) // 2
    least = [left.needed(identifiers_only=True), right.needed(identifiers_only=True)]
    if sum(least) <= total:
        lack = [max(f - n, 0) for f, n in zip(full, least, strict=True)]
        return least[0] + (total - sum(least)) * lack[0] // max(sum(lack), 1)
    return total * least[0] // max(sum(least), 1)
