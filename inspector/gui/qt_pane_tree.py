"""A pane's transcript tree: its rows' cells, copy menu, field rows and column widths.

Made when a pane is completed (after a window's first paint): naming these Qt classes makes
PySide6 build their enums, which the empty pane painted first does not need, and which are then
built before a file is loaded rather than with its first paint.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QPoint, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QWidget,
)

from inspector.gui import qt_palette
from inspector.gui.json_text import copy_text, pretty
from inspector.gui.qt_transcript_model import (
    FIT_ITEMS,
    HEADERS,
    Column,
    CompactRole,
    ItemRole,
    PointerRole,
    TranscriptModel,
    ValueRole,
    VerdictRole,
)

#: The widest a column is made automatically; the user may widen it further.
_FIT_CAP = 480
#: Room around a cell's text (the delegate's margins and focus frame, with a little air), and
#: for an icon drawn beside it.
_CELL_PADDING = 10
_ICON_ROOM = 22
#: The width of a column that shows its icon alone.
_ICON_ONLY_WIDTH = _ICON_ROOM + 4
#: The narrowest the identifiers (type, name, call_id) are squeezed to once every other column
#: has given way, and the narrowest any column is made when even that is not enough.
_FLEX_FLOOR = 90
_LAST_FLOOR = 40
#: Columns that never lose a character while another column has room to give: what a person
#: matches across the panes.
_IDENTIFIERS = (Column.NAME, Column.CALL_ID)
#: Columns that give way first, down to their short form (the verdict's short word beside its
#: icon, the change's short label, "call" for function_call), and then to their icon alone
#: (the tooltip keeps the words).
_YIELDING = (Column.STATUS, Column.ID, Column.TYPE, Column.VERDICT, Column.CHANGE)
_ICON_ONLY = (Column.VERDICT, Column.CHANGE)
#: Where a cut text keeps its characters: ids differ at their end (call_198 / call_199), so
#: they lose their start; other texts lose their middle, keeping the `.delta` / `.done` end.
_ELIDE: dict[int, Qt.TextElideMode] = {
    Column.CALL_ID: Qt.TextElideMode.ElideLeft,
    Column.ID: Qt.TextElideMode.ElideLeft,
}
#: Columns that take the spare width, and their shares of it.
_FLEXIBLE = {Column.NAME: 2, Column.CALL_ID: 1}


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


def span_field_rows(tree: QTreeView) -> None:
    """Let each field row of an expanded item span the columns, so its key and value read whole."""

    def expanded(index: QModelIndex) -> None:
        model = index.model()
        for row in range(model.rowCount(index)):
            tree.setFirstColumnSpanned(row, index, True)

    tree.expanded.connect(expanded)


class CellDelegate(QStyledItemDelegate):
    """Draws an item row's cells: ids cut at their start, and a column too narrow for a full
    verdict or change shows its short form (the verdict beside its icon)."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """Pick the elision side and, when the full text does not fit, the short text."""
        super().initStyleOption(option, index)
        if index.internalId() != 0:
            return  # a field row spans the row: its key and value read whole
        column = index.column()
        option.textElideMode = _ELIDE.get(column, Qt.TextElideMode.ElideMiddle)
        compact = index.data(CompactRole)
        if not compact or compact == option.text or self._fits(option, option.text):
            return
        decorated = QStyleOptionViewItem.ViewItemFeature.HasDecoration
        if column == Column.VERDICT and not option.features & decorated:
            verdict = index.data(VerdictRole)
            option.icon = qt_palette.verdict_swatch(verdict).icon
            option.features |= decorated
            option.decorationSize = QSize(16, 16)
        # Narrower still, the icon alone speaks (the tooltip has the words).
        fits = self._fits(option, compact) or column not in _ICON_ONLY
        option.text = compact if fits else ""

    @staticmethod
    def _fits(option: QStyleOptionViewItem, text: str) -> bool:
        widget = option.widget
        style = widget.style() if widget is not None else None
        margin = (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) if style else 2) + 1
        # Two pixels more: Qt elides a text whose fractional width rounds to the room exactly.
        room = option.rect.width() - 2 * margin - 2
        if option.features & QStyleOptionViewItem.ViewItemFeature.HasDecoration:
            room -= option.decorationSize.width() + 2 * margin
        return option.fontMetrics.horizontalAdvance(text) <= room


class TranscriptTree(QTreeView):
    """The transcript tree; keyboard moves reach rows the model has not exposed yet."""

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Expose the rows a move needs first: all of them for Ctrl+End, a page more for Down."""
        model = self.model()
        if isinstance(model, TranscriptModel):
            action = QAbstractItemView.CursorAction
            if cursorAction == action.MoveEnd:
                model.ensure_row(model.display_rows - 1)
            elif cursorAction in (action.MoveDown, action.MovePageDown, action.MoveNext):
                current = self.currentIndex()
                while current.parent().isValid():
                    current = current.parent()
                page = max(self.viewport().height() // max(self.sizeHintForRow(0), 1), 1)
                if current.row() + page >= model.fetched_rows:
                    model.ensure_row(min(current.row() + page, model.display_rows - 1))
        return super().moveCursor(cursorAction, modifiers)


def _give_way(
    widths: dict[int, int], columns: list[int], floor: int | dict[int, int], spare: int
) -> int:
    """Narrow `columns` (not below their floor) by up to -`spare`, each in proportion to what it
    has above the floor; return what is still missing (0 when nothing is)."""
    floors = floor if isinstance(floor, dict) else dict.fromkeys(columns, floor)
    room = {c: max(widths[c] - floors.get(c, _LAST_FLOOR), 0) for c in columns}
    total = sum(room.values())
    given = min(-spare, total)
    if given <= 0:
        return spare
    shares = {c: given * r // total for c, r in room.items()}
    # Rounding down leaves a few pixels over: the roomiest column gives them too.
    shares[max(room, key=room.__getitem__)] += given - sum(shares.values())
    for column, give in shares.items():
        widths[column] -= give
    return spare + given


class ColumnFitter(QObject):
    """Sizes a transcript tree's columns to their content, within the width the tree has.

    Each column wants the width of its widest text among the first items (capped); `#` fits the
    digits of the last item number. When they fit, Name and call_id share the spare width; when
    they do not, the status, id, verdict and change columns give way first, down to their
    short forms; only then the identifiers (type, name, call_id), down to a floor; then every
    column. A column the user resizes by hand keeps the width given.
    """

    def __init__(self, tree: QTreeView, model: TranscriptModel) -> None:
        super().__init__(tree)
        self.tree = tree
        self.model = model
        self._wanted: dict[int, int] = {}
        self._least: dict[int, int] = {}
        #: What the measured widths are of: the transcript, its diff and the shown columns.
        self._measured: tuple[object, ...] | None = None
        self._fitting = False
        self.user_sized: set[int] = set()
        tree.header().sectionResized.connect(self._resized)
        #: The tree's viewport, watched for its width changes. Asked for as the tree is made
        #: (after the window's first paint), not at the first fit: asking Qt for a widget it made
        #: makes PySide6 find the widget's type among every QWidget class, building their enums,
        #: once per process, which would otherwise fall on the first loaded file's paint.
        self._viewport: QWidget = tree.viewport()
        self._viewport.installEventFilter(self)

    def refit(self) -> None:
        """Measure the content again (if it changed) and fit."""
        self.fit()

    def _wanted_widths(self) -> dict[int, int]:
        header = self.tree.header()
        hidden = tuple(header.isSectionHidden(c) for c in Column)
        key = (self.model.result, self.model.alignment, hidden, self.model.rows)
        old = self._measured
        # Measuring reads a thousand items: only when the transcript, its diff, its aligned
        # rows (the objects themselves, not their equality) or the shown columns change.
        if (
            old is None
            or old[0] is not key[0]
            or old[1] is not key[1]
            or old[2] != hidden
            or old[3] is not key[3]
        ):
            (self._wanted, self._least), self._measured = self._measure(), key
        return self._wanted

    def needed(self, *, identifiers_only: bool = False) -> int:
        """The width the tree needs to show every shown column whole (0 with nothing shown);
        `identifiers_only`: to show names and call_ids whole, the other columns given way."""
        if self.model.result is None:
            return 0
        wanted = self._wanted_widths()
        header = self.tree.header()

        def width(column: int, full: int) -> int:
            if column in self.user_sized:
                return header.sectionSize(column)
            if not identifiers_only or column in _IDENTIFIERS or column == Column.INDEX:
                return full
            if column in _ICON_ONLY:
                return min(full, _ICON_ONLY_WIDTH)
            least = self._least.get(column, full)
            return min(least, _FLEX_FLOOR) if column == Column.TYPE else least

        columns = sum(width(c, w) for c, w in wanted.items() if not header.isSectionHidden(c))
        scrollbar = self.tree.verticalScrollBar()
        bar = scrollbar.sizeHint().width() if scrollbar.isVisible() else 0
        return columns + bar + 2 * self.tree.frameWidth()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Fit again when the tree's width changes."""
        # Only plain Python comparisons before the event is known to be a resize: filters also
        # see the events of the viewport's destruction, when the tree is half gone.
        if event.type() == QEvent.Type.Resize and watched is self._viewport:
            self.fit()
        return False

    def _resized(self, column: int, _old: int, new: int) -> None:
        if not self._fitting and new > 0 and not self.tree.header().isSectionHidden(column):
            self.user_sized.add(column)

    def _measure(self) -> tuple[dict[int, int], dict[int, int]]:
        """Each shown column's full width, and the least it may give way to first."""
        bold = QFont(self.tree.font())
        bold.setBold(True)  # provider-prefixed items and major changes are drawn bold
        metrics = {False: self.tree.fontMetrics(), True: QFontMetrics(bold)}
        header = self.tree.header()
        wanted: dict[int, int] = {}
        least: dict[int, int] = {}

        def widest(column: int, compact: bool = False) -> int:
            texts = self.model.cell_texts(column, FIT_ITEMS, compact=compact)
            return max((metrics[b].horizontalAdvance(t[:200]) for t, b in texts), default=0)

        for column in Column:
            if header.isSectionHidden(column):
                continue
            title = header.fontMetrics().horizontalAdvance(HEADERS[column]) + _CELL_PADDING
            if column == Column.INDEX:
                digits = len(str(max(self.model.item_count() - 1, 0)))
                text = metrics[False].horizontalAdvance("0" * max(digits, 2))
                # The branch arrow and the verdict icon sit in this column too.
                wanted[column] = self.tree.indentation() + _ICON_ROOM + text + _CELL_PADDING
                continue
            full = widest(column)
            room = _ICON_ROOM if column == Column.CHANGE and full else 0
            wanted[column] = min(max(full + room + _CELL_PADDING, title), _FIT_CAP)
            if column in _YIELDING:
                # The short form, with the icon drawn beside it.
                icon = _ICON_ROOM if column in _ICON_ONLY else 0
                least[column] = min(widest(column, True) + icon + _CELL_PADDING, wanted[column])
        return wanted, least

    def fit(self) -> None:
        """Give each shown column its width for the tree's current width."""
        if self.model.result is None:
            return
        wanted = self._wanted_widths()
        header = self.tree.header()
        widths = {
            c: (header.sectionSize(c) if c in self.user_sized else w)
            for c, w in wanted.items()
            if not header.isSectionHidden(c)
        }
        free = [c for c in widths if c not in self.user_sized]
        flexible = [c for c in _FLEXIBLE if c in free]
        # A tree not shown yet has no real width: it gets what its content wants, and is fitted
        # to its width when it is shown.
        visible = self.tree.isVisible()
        spare = self.tree.viewport().width() - sum(widths.values()) if visible else 0
        if spare >= 0:
            shares = sum(_FLEXIBLE[c] for c in flexible) or 1
            for column in flexible:
                widths[column] += spare * _FLEXIBLE[column] // shares
        else:
            # The yielding columns go to their short forms first; the identifiers are cut only
            # when nothing else can give, and then every column but `#`, so that the columns
            # never need more than the tree's width (no sideways scroll).
            def give(columns: Sequence[int], floor: int | dict[int, int]) -> int:
                return _give_way(widths, [c for c in columns if c in free], floor, spare)

            spare = give(_YIELDING, self._least)
            spare = give(_ICON_ONLY, _ICON_ONLY_WIDTH)
            spare = give((Column.TYPE,), _FLEX_FLOOR)
            spare = give(_IDENTIFIERS, _FLEX_FLOOR)
            give([c for c in free if c != Column.INDEX], _LAST_FLOOR)
        self._fitting = True
        try:
            for section, width in widths.items():
                if header.sectionSize(section) != width:
                    header.resizeSection(section, width)
        finally:
            self._fitting = False
        metrics = header.fontMetrics()
        self.model.set_icon_headers(
            [
                c
                for c in _ICON_ONLY
                if c in widths
                and widths[c] < metrics.horizontalAdvance(HEADERS[Column(c)]) + _CELL_PADDING
            ]
        )
