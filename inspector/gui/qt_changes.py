"""The Changes tab: every reason and change of the diff, grouped by code with counts; a click
selects the pair it is about. The status bar's decision line opens it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QTreeView, QWidget

from inspector.core.diff import DiffResult
from inspector.gui import qt_palette
from inspector.gui.changes_list import ChangeList
from inspector.gui.json_text import label
from inspector.gui.qt_tab_frame import tab_frame
from inspector.gui.qt_text import tooltip

#: The role under which a row gives the number of the pair it is about (None: no pair).
PairRole = Qt.ItemDataRole.UserRole + 20
#: The role under which a row says what it is: 'group', 'reason', 'change' or 'document'.
KindRole = Qt.ItemDataRole.UserRole + 21

HEADERS = ("Code", "Severity", "Count", "Where", "Detail")
#: Groups open by themselves when the diff has at most this many changes.
EXPANDED = 200
_Index = QModelIndex | QPersistentModelIndex


class ChangesModel(QAbstractItemModel):
    """Codes as top-level rows, their reasons and changes as children; texts made on demand."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.changes: ChangeList | None = None
        self._bold = QFont()
        self._bold.setBold(True)
        self._cells = lru_cache(maxsize=4096)(self._make_cells)

    def set_changes(self, changes: ChangeList | None) -> None:
        """Replace every row."""
        self.beginResetModel()
        self.changes = changes
        self._cells.cache_clear()
        self.endResetModel()

    def _make_cells(self, group: int, row: int) -> tuple[str, ...]:
        assert self.changes is not None
        if row < 0:
            return self.changes.group_cells(group)
        return self.changes.entry_cells(self.changes.rows[group][row])

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Top-level rows carry id 0; a child carries its group's number plus one."""
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        return self.createIndex(row, column, parent.row() + 1 if parent.isValid() else 0)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """A child's parent is its code's row."""
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """Codes at the top, a code's rows below it."""
        if self.changes is None:
            return 0
        if not parent.isValid():
            return len(self.changes.groups)
        if parent.internalId() == 0 and parent.column() == 0:
            return len(self.changes.rows[parent.row()])
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        """The headers."""
        return len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Plain cell text, the code's icon and colour, tooltips, pair and kind."""
        if not index.isValid() or self.changes is None:
            return None
        group = index.row() if index.internalId() == 0 else index.internalId() - 1
        row = -1 if index.internalId() == 0 else index.row()
        if role == PairRole:
            if row < 0:
                return self.changes.first_pair(group)
            return self.changes.rows[group][row].pair
        if role == KindRole:
            return "group" if row < 0 else self.changes.rows[group][row].kind
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            cells = self._cells(group, row)
            if role == Qt.ItemDataRole.DisplayRole:
                return label(cells[index.column()])  # long values elided with their length
            text = cells[index.column()] if index.column() != 3 or row < 0 else ""
            return tooltip("\n".join(c for c in (cells[3], text) if c) if row >= 0 else text)
        if index.column() != 0:
            return None
        code = self.changes.groups[group]
        if row < 0 and role == Qt.ItemDataRole.FontRole:
            return self._bold
        if role in (Qt.ItemDataRole.DecorationRole, Qt.ItemDataRole.ForegroundRole):
            severity = code.severity if row < 0 else self._cells(group, row)[1]
            swatch = qt_palette.change_swatch(qt_palette.change_level(code.code, severity))
            if role == Qt.ItemDataRole.ForegroundRole:
                return swatch.foreground
            return swatch.icon if row < 0 else None
        return None


class ChangesPanel(QWidget):
    """Codes as top-level rows (severity, count, pairs), their reasons and changes below."""

    #: the position in `DiffResult.pairs` of the pair a clicked row is about.
    pair_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff: DiffResult | None = None
        column, self.summary = tab_frame(self)
        self.model = ChangesModel(self)
        self.view = QTreeView(self)
        self.view.setObjectName("changes")
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.clicked.connect(self._clicked)
        self.view.activated.connect(self._clicked)
        char = self.view.fontMetrics().averageCharWidth()
        for col, chars in enumerate((34, 10, 7, 44)):
            self.view.setColumnWidth(col, chars * char)
        column.addWidget(self.view, 1)
        self.set_diff(None)

    def set_diff(self, diff: DiffResult | None, comparing: bool = False) -> None:
        """Show a diff's changes grouped by code (None: a hint)."""
        self.diff = diff
        changes = ChangeList(diff) if diff is not None else None
        self.model.set_changes(changes)
        if changes is None:
            self.summary.setText(
                "Comparing…" if comparing else "Open two transcripts to list their changes."
            )
            return
        self.summary.setText(changes.summary())
        if changes.total <= EXPANDED:
            self.view.expandAll()

    def rows(self) -> list[tuple[str, int]]:
        """Each code and its count as shown, in display order (errors first)."""
        model = self.model
        return [
            (model.index(n, 0).data(), int(model.index(n, 2).data()))
            for n in range(model.rowCount())
        ]

    def _clicked(self, index: QModelIndex) -> None:
        number = index.data(PairRole) if index.isValid() else None
        if isinstance(number, int):
            self.pair_activated.emit(number)
