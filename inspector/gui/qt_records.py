"""A small read-only table model for the detail tabs (errors, findings, changes, stream events)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QIcon
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from inspector.gui.json_text import label
from inspector.gui.qt_text import tooltip

#: The role under which a record's payload (the core value behind the row) is returned.
PayloadRole = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True, slots=True)
class Record:
    """One table row: its cell texts, an optional icon and colour for one column, a payload."""

    cells: tuple[str, ...]
    payload: Any = None
    icon: QIcon | None = None
    icon_column: int = 0
    foreground: QBrush | None = None
    background: QBrush | None = None
    tip: str | None = None


class LazyRecords(Sequence[Record]):
    """Records built on demand from a row function (long tables such as stream timelines)."""

    def __init__(self, count: int, build: Callable[[int], Record]) -> None:
        self._count = count
        # A view asks each visible cell for several roles; the cache spares rebuilding the row.
        self._build = lru_cache(maxsize=1024)(build)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, row: int) -> Record:  # type: ignore[override]
        if not 0 <= row < self._count:
            raise IndexError(row)
        return self._build(row)


class RecordsModel(QAbstractTableModel):
    """Rows of plain text with optional icons; the payload of each row under PayloadRole."""

    def __init__(self, headers: Sequence[str], parent: Any = None) -> None:
        super().__init__(parent)
        self._headers = tuple(headers)
        self._records: Sequence[Record] = []

    def set_records(self, records: Sequence[Record]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._records = records if isinstance(records, LazyRecords) else list(records)
        self.endResetModel()

    def record(self, row: int) -> Record | None:
        """Return a row's record."""
        return self._records[row] if 0 <= row < len(self._records) else None

    def records(self) -> Sequence[Record]:
        """Return every record."""
        return self._records

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Number of records."""
        return 0 if parent.isValid() else len(self._records)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Number of headers."""
        return 0 if parent.isValid() else len(self._headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles."""
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self._headers)
        ):
            return self._headers[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Cell text, icon, colours, tooltip and payload."""
        if not index.isValid():
            return None
        record = self._records[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return label(record.cells[column]) if column < len(record.cells) else ""
        if role == Qt.ItemDataRole.DecorationRole and column == record.icon_column:
            return record.icon
        if role == Qt.ItemDataRole.ForegroundRole and column == record.icon_column:
            return record.foreground
        if role == Qt.ItemDataRole.BackgroundRole:
            return record.background
        if role == Qt.ItemDataRole.ToolTipRole:
            text = record.tip if record.tip is not None else record.cells[column]
            return tooltip(text) if text else None
        if role == PayloadRole:
            return record.payload
        return None


#: The widest share of a table's width one column is fitted to (the last one stretches).
_FIT_SHARE = 0.4
#: ... and never narrower than this cap, for a table not laid out yet.
_FIT_FLOOR = 240
#: Rows a column is fitted to: the first screenfuls (each row is built to be measured).
_FIT_ROWS = 200


def fit_columns(view: QTableView, stretch: int | None = None) -> None:
    """Size each column but one to its content, within a share of the table's width, so that
    pointers, codes and event names read whole; the `stretch` column (the last one unless
    given) takes the rest."""
    model = view.model()
    if model is None:
        return
    cap = max(int(view.viewport().width() * _FIT_SHARE), _FIT_FLOOR)
    header = view.horizontalHeader()
    last = model.columnCount() - 1
    stretch = last if stretch is None else stretch
    header.setStretchLastSection(stretch == last)
    if stretch != last:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    for column in range(model.columnCount()):
        if column == stretch or header.isSectionHidden(column):
            continue
        # Qt reads at most resizeContentsPrecision() rows (set in records_view), so a long
        # table costs no more than a short one.
        wanted = max(view.sizeHintForColumn(column), header.sectionSizeHint(column))
        view.setColumnWidth(column, min(wanted, cap))


def records_view(model: RecordsModel, parent: QWidget | None = None) -> QTableView:
    """Return a compact, row-selecting table for a RecordsModel; the last column stretches."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setShowGrid(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    header = view.horizontalHeader()
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setResizeContentsPrecision(_FIT_ROWS)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return view
