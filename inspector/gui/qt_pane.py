"""One side of the window: a header, a filter, and the transcript tree (or empty/loading/error)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, QPoint, Qt, Signal
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from inspector.core.gate import GateResult, Verdict
from inspector.core.model import LoadError
from inspector.gui import qt_palette
from inspector.gui.filtering import Choice, ItemFilter, matching_rows
from inspector.gui.json_text import copy_text, pretty
from inspector.gui.qt_text import ElidedLabel, dim, plain_label, tooltip
from inspector.gui.qt_transcript_model import (
    HEADERS,
    Column,
    IndexRole,
    ItemRole,
    PointerRole,
    TranscriptModel,
    ValueRole,
)
from inspector.gui.qt_workers import debounce

#: Milliseconds between the last keystroke in the filter box and the filter running.
FILTER_DELAY_MS = 200

#: Column widths as the text they must show whole, plus room for an icon where one is drawn.
#: The tree never sizes columns to their contents, which would read every row of a large
#: transcript; the name column takes whatever width is left.
_COLUMN_SAMPLES = {
    Column.INDEX: ("0000", 40, False),
    Column.TYPE: ("function_call_output", 10, True),
    Column.CALL_ID: ("call_0000", 10, False),
    Column.ID: ("fc_00000", 10, False),
    Column.STATUS: ("in_progress", 10, False),
    Column.VERDICT: ("arguments_schema", 12, False),
    Column.CHANGE: ("CALL_ID CHANGED", 30, False),
}
#: How many items the Type column is fitted to, and the widest it is made automatically.
_FIT_ITEMS = 2000
_FIT_CAP = 240
#: Hidden until the user shows them from the header menu (they rarely decide a replay).
_HIDDEN_BY_DEFAULT = (Column.ID, Column.STATUS)


class _Page:
    EMPTY, TREE, LOADING, ERROR = range(4)


class TranscriptPane(QFrame):
    """A transcript side: header with file name, format and counts; filter; tree."""

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

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.setObjectName(f"pane-{side}")
        self.setAcceptDrops(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.model = TranscriptModel(self)
        self.path: str | None = None
        self._filter_timer = debounce(self, FILTER_DELAY_MS, self.filter_changed.emit)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self._build_header())
        layout.addWidget(self._build_filter_row())
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self._build_empty_page())
        self.stack.addWidget(self._build_tree())
        self.stack.addWidget(self._build_loading_page())
        self.stack.addWidget(self._build_error_page())
        layout.addWidget(self.stack, 1)
        self.show_empty()

    # ---- construction ---------------------------------------------------------------------

    def _build_header(self) -> QWidget:
        header = QWidget(self)
        row = QHBoxLayout(header)
        row.setContentsMargins(2, 2, 2, 0)
        row.setSpacing(8)
        self.name_label = ElidedLabel("", header)
        font = self.name_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.08)
        self.name_label.setFont(font)
        self.format_label = plain_label("", header)
        self.format_label.setObjectName("format-label")
        dim(self.format_label)
        self.counts = QWidget(header)
        self.counts_layout = QHBoxLayout(self.counts)
        self.counts_layout.setContentsMargins(0, 0, 0, 0)
        self.counts_layout.setSpacing(10)
        row.addWidget(self.name_label, 1)
        row.addWidget(self.format_label)
        row.addWidget(self.counts)
        return header

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
        row.addWidget(self.verdict_combo)
        self.filter_row = box
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
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = plain_label(
            "Open Responses request, response or item list, JSONL log, or recorded SSE stream",
            page,
        )
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setWordWrap(True)
        dim(hint)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        open_button = QPushButton(f"Open {self.side.title()}…", page)
        open_button.clicked.connect(self.open_requested.emit)
        buttons.addWidget(open_button)
        self.sample_button = QPushButton("Open the sample pair", page)
        self.sample_button.setFlat(True)
        self.sample_button.setCursor(Qt.CursorShape.PointingHandCursor)
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
        tree = QTreeView(self)
        tree.setObjectName(f"tree-{self.side}")
        tree.setUniformRowHeights(True)  # lets Qt lay out 200,000 rows without asking each one
        tree.setAlternatingRowColors(True)
        tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        tree.setAllColumnsShowFocus(True)
        tree.setExpandsOnDoubleClick(True)
        tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tree.setModel(self.model)
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(Column.NAME, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(24)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(
            lambda pos: self.columns_menu_requested.emit(header.mapToGlobal(pos))
        )
        bold = QFont(tree.font())
        bold.setBold(True)
        for column, (sample, extra, strong) in _COLUMN_SAMPLES.items():
            metrics = QFontMetrics(bold) if strong else tree.fontMetrics()
            header.resizeSection(column, metrics.horizontalAdvance(sample) + extra)
        for column in _HIDDEN_BY_DEFAULT:
            header.hideSection(column)
        self.tree = tree
        tree.selectionModel().currentRowChanged.connect(self._current_row_changed)
        add_copy_menu(tree)
        # The counterpart row is made current silently by the linked selection; when the
        # user then moves into this tree, its current row becomes the one shown in detail.
        tree.installEventFilter(self)
        return tree

    def _build_loading_page(self) -> QWidget:
        page = QWidget(self)
        column = QVBoxLayout(page)
        column.addStretch(1)
        self.loading_label = plain_label("", page)
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading_label.setWordWrap(True)
        self.progress = QProgressBar(page)
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumWidth(320)
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

    def show_loading(self, path: str) -> None:
        """Show the busy page for a file being read."""
        self.loading_label.setText(f"Loading {os.path.basename(path)}…")
        self.stack.setCurrentIndex(_Page.LOADING)

    def set_stage(self, stage: str) -> None:
        """Show what the running load is doing."""
        if self.path is None or self.stack.currentIndex() == _Page.LOADING:
            self.loading_label.setText(stage)

    def show_error(self, path: str, error: LoadError) -> None:
        """Show why a file could not be read; the pane keeps no transcript."""
        self.path = path
        self.model.set_result(None)
        self._set_header(os.path.basename(path), "unreadable", None)
        self.error_location.setText(error.location())
        self.error_message.setText(error.message)
        self.stack.setCurrentIndex(_Page.ERROR)
        self.filter_row.setEnabled(False)

    def show_result(self, path: str, result: GateResult, summary: dict[str, int]) -> None:
        """Show a gated transcript and its verdict counts."""
        self.path = path
        self.model.set_result(result)
        self._fit_type_column(result)
        self._set_header(os.path.basename(path), result.transcript.format, summary)
        self.stack.setCurrentIndex(_Page.TREE)
        self.filter_row.setEnabled(True)

    def _fit_type_column(self, result: GateResult) -> None:
        # A provider-prefixed type is the thing to see, so widen the column to the longest
        # type among the first items (never narrower than the user left it, within a cap).
        bold = QFont(self.tree.font())
        bold.setBold(True)
        metrics = QFontMetrics(bold)
        labels = {item.type_label for item in result.transcript.items[:_FIT_ITEMS]}
        wanted = max((metrics.horizontalAdvance(label[:60]) for label in labels), default=0) + 16
        header = self.tree.header()
        current = header.sectionSize(Column.TYPE)
        if wanted > current:
            header.resizeSection(Column.TYPE, min(wanted, _FIT_CAP))

    def restore_page(self) -> None:
        """Leave the loading page after a cancel (back to the tree, error or empty state)."""
        if self.stack.currentIndex() != _Page.LOADING:
            return
        if self.model.result is not None:
            self.stack.setCurrentIndex(_Page.TREE)
        elif self.path is not None and self.error_location.text():
            self.stack.setCurrentIndex(_Page.ERROR)
        else:
            self.stack.setCurrentIndex(_Page.EMPTY)

    @property
    def showing_error(self) -> bool:
        """Whether the pane shows a load error."""
        return self.stack.currentIndex() == _Page.ERROR

    def _set_header(self, name: str, fmt: str, summary: dict[str, int] | None) -> None:
        self.name_label.setText(name)
        self.name_label.setToolTip(tooltip(self.path or ""))
        self.format_label.setText(fmt)
        while self.counts_layout.count():
            child = self.counts_layout.takeAt(0).widget()
            if child is not None:
                child.hide()  # deleteLater waits for the event loop; a screenshot may not
                child.deleteLater()
        if summary is None:
            return
        for verdict in Verdict:
            count = summary.get(str(verdict))
            if not count:
                continue
            swatch = qt_palette.verdict_swatch(verdict)
            chip = QWidget(self.counts)
            chip.setObjectName(f"count-{verdict}")
            chip_row = QHBoxLayout(chip)
            chip_row.setContentsMargins(0, 0, 0, 0)
            chip_row.setSpacing(3)
            icon = QLabel(chip)
            icon.setPixmap(qt_palette.pixmap(swatch.icon, 14))
            text = plain_label(f"{verdict} {count}", chip)
            chip_row.addWidget(icon)
            chip_row.addWidget(text)
            chip.setToolTip(tooltip(swatch.meaning))
            self.counts_layout.addWidget(chip)

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

    # ---- selection ------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Announce the current row when the tree gains the focus."""
        if watched is self.tree and event.type() == QEvent.Type.FocusIn:
            self.announce_current()
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


def copy_actions(index: QModelIndex, menu: QMenu) -> None:
    """Add the copy entries for a tree row: its value in full, and its whole item as JSON."""
    if not index.isValid() or index.data(ItemRole) is None:
        return
    value = index.data(ValueRole)
    pointer = index.data(PointerRole) or ""
    if pointer:
        size = f" ({len(value):,} chars)" if isinstance(value, str) else ""
        copy = menu.addAction(f"Copy Value{size}")
        copy.triggered.connect(lambda _c=False: _to_clipboard(copy_text(value)))
    item = index.data(ItemRole)
    whole = menu.addAction("Copy Item JSON")
    whole.triggered.connect(lambda _c=False: _to_clipboard(pretty(item.raw)))


def add_copy_menu(tree: QTreeView) -> None:
    """Give a transcript tree a context menu that copies a row's full value or item."""
    tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show(pos: QPoint) -> None:
        menu = QMenu(tree)
        copy_actions(tree.indexAt(pos), menu)
        if not menu.isEmpty():
            menu.exec(tree.viewport().mapToGlobal(pos))
        menu.deleteLater()

    tree.customContextMenuRequested.connect(show)


def _to_clipboard(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


def fill_column_menu(menu: QMenu, headers: Sequence[QHeaderView]) -> None:
    """Fill a menu with entries that show or hide each column in every given header at once."""
    menu.clear()
    for column in Column:
        if column == Column.INDEX:
            continue
        action = menu.addAction(HEADERS[column])
        action.setCheckable(True)
        action.setChecked(not headers[0].isSectionHidden(column))
        action.toggled.connect(
            lambda on, c=column: [h.setSectionHidden(c, not on) for h in headers]
        )
