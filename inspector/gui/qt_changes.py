"""The Changes tab: every reason and change of the diff, grouped by code with counts; a click
selects the pair it is about. The status bar's decision line opens it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QTreeView, QVBoxLayout, QWidget

from inspector.core.diff import CodeGroup, DiffResult
from inspector.core.gate import item_label
from inspector.gui import qt_palette
from inspector.gui.json_text import label, preview
from inspector.gui.qt_text import dim, plain_label, tooltip

#: The role under which a row keeps the number of the pair it is about (None: no pair).
PairRole = Qt.ItemDataRole.UserRole + 20
#: The role under which a row keeps what it is: 'group', 'reason', 'change' or 'document'.
KindRole = Qt.ItemDataRole.UserRole + 21

HEADERS = ("Code", "Severity", "Count", "Where", "Detail")
#: Groups open by themselves when the diff has at most this many changes.
EXPANDED = 200


def _row(cells: tuple[str, ...], pair: int | None, kind: str, tip: str = "") -> list[QStandardItem]:
    row = []
    for text in cells:
        cell = QStandardItem(label(text))  # item views show plain text; long values elided
        cell.setEditable(False)
        cell.setData(pair, PairRole)
        cell.setData(kind, KindRole)
        if tip:
            cell.setToolTip(tooltip(tip))
        row.append(cell)
    return row


class ChangesPanel(QWidget):
    """Codes as top-level rows (severity, count, pairs), their reasons and changes below."""

    #: the position in `DiffResult.pairs` of the pair a clicked row is about.
    pair_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff: DiffResult | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.summary = plain_label("", self)
        dim(self.summary)
        column.addWidget(self.summary)
        self.model = QStandardItemModel(self)
        self.view = QTreeView(self)
        self.view.setObjectName("changes")
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.clicked.connect(self._clicked)
        self.view.activated.connect(self._clicked)
        column.addWidget(self.view, 1)
        self.set_diff(None)

    def set_diff(self, diff: DiffResult | None, comparing: bool = False) -> None:
        """Show a diff's changes grouped by code (None: a hint)."""
        self.diff = diff
        self.model.clear()
        self.model.setHorizontalHeaderLabels(list(HEADERS))
        if diff is None:
            self.summary.setText(
                "Comparing…" if comparing else "Open two transcripts to list their changes."
            )
            return
        groups = diff.changes_by_code()
        root = self.model.invisibleRootItem()
        for group in groups:
            root.appendRow(self._group(diff, group))
        total = sum(g.count for g in groups)
        verdict = diff.verdict_summary()
        self.summary.setText(
            f"{verdict.headline}   —   {len(groups)} code{'s' if len(groups) != 1 else ''}, "
            f"{total} change{'s' if total != 1 else ''} and {len(diff.reasons)} "
            f"reason{'s' if len(diff.reasons) != 1 else ''} ({diff.mode} mode); "
            "click a row to select its pair"
        )
        if total <= EXPANDED:
            self.view.expandAll()
        char = self.view.fontMetrics().averageCharWidth()
        for col, chars in enumerate((34, 10, 7, 44)):
            self.view.setColumnWidth(col, chars * char)

    def _group(self, diff: DiffResult, group: CodeGroup) -> list[QStandardItem]:
        level = qt_palette.change_level(group.code, group.severity)
        swatch = qt_palette.change_swatch(level)
        pairs = len(group.pairs)
        where = "document" if group.document else ""
        if pairs:
            where = f"{where}, " if where else ""
            where += f"{pairs} pair{'s' if pairs != 1 else ''}"
        first = group.pairs[0] if group.pairs else None
        head = _row(
            (group.code, group.severity, str(group.count), where, "; ".join(group.reasons)),
            first,
            "group",
        )
        head[0].setIcon(swatch.icon)
        head[0].setForeground(swatch.foreground)
        font = QFont(head[0].font())
        font.setBold(True)
        head[0].setFont(font)
        for text in group.reasons:
            number = next(
                (r.pair for r in diff.reason_details if r.code == group.code and r.text == text),
                None,
            )
            head[0].appendRow(_row(("reason", group.severity, "", "", text), number, "reason"))
        for change in diff.document_changes:
            if change.code == group.code:
                numbers = [
                    n
                    for side, items in (("left", change.left_items), ("right", change.right_items))
                    for i in items
                    if (n := diff.pair_number(side, i)) is not None
                ]
                head[0].appendRow(
                    _row(
                        ("document", str(change.severity), "", "", change.message),
                        numbers[0] if numbers else None,
                        "document",
                    )
                )
        for number in group.pairs:
            pair = diff.pairs[number]
            where = self._pair_text(diff, number)
            for change in pair.changes:
                if change.code != group.code:
                    continue
                detail = f"{preview(change.left, 80)} → {preview(change.right, 80)}"
                head[0].appendRow(
                    _row(
                        (change.pointer or "(item)", str(change.severity), "", where, detail),
                        number,
                        "change",
                        tip=f"{where}  {change.pointer or '(item)'}\n{detail}",
                    )
                )
        return head

    @staticmethod
    def _pair_text(diff: DiffResult, number: int) -> str:
        pair = diff.pairs[number]
        parts = []
        if pair.left is not None:
            parts.append(item_label(diff.left.transcript.items[pair.left]))
        if pair.right is not None:
            parts.append("right " + item_label(diff.right.transcript.items[pair.right]))
        return " ↔ ".join(parts)

    def rows(self) -> list[tuple[str, int]]:
        """Each group's code and count, in display order (errors first)."""
        root = self.model.invisibleRootItem()
        return [
            (root.child(n, 0).text(), int(root.child(n, 2).text())) for n in range(root.rowCount())
        ]

    def _clicked(self, index: QModelIndex) -> None:
        number = index.siblingAtColumn(0).data(PairRole) if index.isValid() else None
        if isinstance(number, int):
            self.pair_activated.emit(number)


class ClickOpens(QObject):
    """Makes a label (the status bar's decision line) run a callback when it is clicked."""

    def __init__(self, widget: QWidget, callback: Callable[[], Any]) -> None:
        super().__init__(widget)
        self._callback = callback
        widget.setCursor(Qt.CursorShape.PointingHandCursor)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Run the callback on a left-button release over the widget."""
        if (
            event.type() == QEvent.Type.MouseButtonRelease
            and getattr(event, "button", lambda: None)() == Qt.MouseButton.LeftButton
        ):
            self._callback()
            return True
        return super().eventFilter(watched, event)
