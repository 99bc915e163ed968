"""The Search tab: find a text in the contents of every item of a pane, and list the hits."""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from inspector.core.gate import GateResult
from inspector.gui.contents import Found, Hit, find_in_contents
from inspector.gui.qt_records import PayloadRole, Record, RecordsModel, fit_columns, records_view
from inspector.gui.qt_text import dim, plain_label
from inspector.gui.qt_workers import Progress, TaskRunner, debounce

#: Milliseconds between the last keystroke and the search.
SEARCH_DELAY_MS = 300
#: The runner channel of the search.
CHANNEL = "find"


class FindPanel(QWidget):
    """A query box, which pane to search, and the hits (item, where, the text around it)."""

    #: The user picked a hit: side, item index, pointer of the string.
    hit_chosen = Signal(str, int, str)
    #: The user opened a hit (double-click or Enter): show it in the Item tab.
    hit_opened = Signal(str, int, str)
    #: The query changed (the Item view highlights it).
    query_changed = Signal(str)

    def __init__(
        self,
        results: Callable[[], dict[str, GateResult | None]],
        parent: QWidget | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self._results = results
        self.runner = runner if runner is not None else TaskRunner(self)
        self.found: Found | None = None
        self._searched: tuple[str, GateResult] | None = None
        self._timer = debounce(self, SEARCH_DELAY_MS, self.search)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        top = QHBoxLayout()
        self.query_edit = QLineEdit(self)
        self.query_edit.setObjectName("find-query")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setPlaceholderText(
            "Find in the contents of every item: messages, outputs, arguments (Ctrl+Shift+F)"
        )
        self.query_edit.textChanged.connect(self._typed)
        self.query_edit.returnPressed.connect(self.search)
        self.side_combo = QComboBox(self)
        self.side_combo.addItem("Left pane", "left")
        self.side_combo.addItem("Right pane", "right")
        self.side_combo.currentIndexChanged.connect(lambda _i: self.search())
        top.addWidget(self.query_edit, 1)
        top.addWidget(self.side_combo)
        column.addLayout(top)
        self.summary = plain_label("", self)
        dim(self.summary)
        column.addWidget(self.summary)
        self.model = RecordsModel(("#", "Where", "Text"), self)
        self.view = records_view(self.model, self)
        self.view.setObjectName("find-hits")
        self.view.selectionModel().currentRowChanged.connect(self._current)
        self.view.activated.connect(self._opened)
        column.addWidget(self.view, 1)
        self._show(None)

    @property
    def side(self) -> str:
        """The pane searched."""
        return str(self.side_combo.currentData())

    @property
    def query(self) -> str:
        """The text searched for ('' when none)."""
        return self.query_edit.text()

    def start(self, side: str) -> None:
        """Search the given pane: focus the query box (Ctrl+Shift+F)."""
        at = self.side_combo.findData(side)
        if at >= 0 and at != self.side_combo.currentIndex():
            self.side_combo.setCurrentIndex(at)
        self.query_edit.setFocus()
        self.query_edit.selectAll()

    def _typed(self, text: str) -> None:
        self.query_changed.emit(text)
        self._timer.start()

    @property
    def searching(self) -> bool:
        """Whether a search runs."""
        return self.runner.busy(CHANNEL)

    def stop(self) -> None:
        """Cancel the running search."""
        self._timer.stop()
        self.runner.cancel(CHANNEL, notify=False)

    def refresh(self) -> None:
        """Search again if the searched pane now shows another transcript."""
        result = self._results().get(self.side)
        if self._searched is not None and self._searched[1] is not result:
            self.search()

    def search(self) -> None:
        """Search the chosen pane for the query (on a worker; a newer search supersedes it)."""
        self.stop()
        query, side = self.query, self.side
        result = self._results().get(side)
        if not query or result is None:
            self._searched = None
            self._show(None, "" if query else "Type a text to find it in every item of a pane.")
            if query:
                self.summary.setText(f"The {side} pane holds no transcript.")
            return
        cancel = threading.Event()
        self._searched = (query, result)
        self.summary.setText("Searching…")

        def work(progress: Progress) -> Found:
            return find_in_contents(
                result,
                query,
                cancel=cancel,
                progress=lambda done, total: progress("Searching…", done / max(total, 1)),
            )

        self.runner.start(CHANNEL, work, self._show, lambda _error: None, cancel=cancel)

    def _show(self, found: Found | None, hint: str = "") -> None:
        self.found = found
        if found is None:
            self.model.set_records([])
            self.summary.setText(hint)
            return
        self.model.set_records([_record(hit) for hit in found.hits])
        if not found.total:
            self.summary.setText(f"No item of the {self.side} pane holds {found.query!r}.")
        else:
            listed = len(found.hits)
            more = f"; the first {listed:,} are listed" if listed < found.total else ""
            self.summary.setText(
                f"{found.total:,} hit{'s' if found.total != 1 else ''} in {found.items:,} "
                f"item{'s' if found.items != 1 else ''}{more} — Enter or a double-click shows "
                "a hit in the Item tab; F3 steps through them"
            )
        fit_columns(self.view)

    def step(self, forward: bool = True) -> Hit | None:
        """Make the next (or previous) hit current and return it (F3 / Shift+F3)."""
        count = self.model.rowCount()
        if not count:
            return None
        row = self.view.currentIndex().row()
        row = (row + (1 if forward else -1)) % count if row >= 0 else (0 if forward else count - 1)
        self.view.selectRow(row)
        hit = self.model.index(row, 0).data(PayloadRole)
        return hit if isinstance(hit, Hit) else None

    def _current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        hit = self.model.index(current.row(), 0).data(PayloadRole) if current.isValid() else None
        if isinstance(hit, Hit):
            self.hit_chosen.emit(self.side, hit.item, hit.pointer)

    def _opened(self, index: QModelIndex) -> None:
        hit = self.model.index(index.row(), 0).data(PayloadRole)
        if isinstance(hit, Hit):
            self.hit_opened.emit(self.side, hit.item, hit.pointer)


def _record(hit: Hit) -> Record:
    return Record((f"#{hit.item}", hit.pointer or "/", hit.snippet), payload=hit)
