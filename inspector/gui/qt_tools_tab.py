"""The Tools tab: the portability matrix of the known tools (rows) against every target profile
(columns), with each tool's calls by verdict; a cell lists its problems and marks them in the
tool's schema."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from inspector.core.gate import PASSING, Verdict
from inspector.core.targets import ToolProblem
from inspector.gui import qt_palette
from inspector.gui.json_diff import locate_nearest
from inspector.gui.json_text import display, label, visible
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_records import PayloadRole, Record, RecordsModel, records_view
from inspector.gui.qt_rule_detail import RuleDetail
from inspector.gui.qt_tab_frame import tab_frame
from inspector.gui.qt_text import dim, plain_label, tooltip
from inspector.gui.tools_matrix import ToolRow

MARK_WORDS = {"✓": "accepted", "~": "accepted, silently changed", "✗": "rejected"}


def _mark_swatch(mark: str) -> qt_palette.Swatch:
    if mark == "✗":
        return qt_palette.severity_swatch("error")
    if mark == "~":
        return qt_palette.severity_swatch("warning")
    return qt_palette.verdict_swatch(Verdict.OK)


def _worst(counts: dict[Verdict, int] | Any) -> Verdict | None:
    blocked = [v for v in Verdict if counts.get(v) and v not in PASSING]
    if blocked:
        return blocked[0]
    return Verdict.OK if counts.get(Verdict.OK) else None


class MatrixModel(QAbstractTableModel):
    """Rows: tools. Columns: tool name, calls per side, then one per target (✓ ~ ✗)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[ToolRow] = []
        self.sides: list[str] = []
        self.targets: list[str] = []
        self.current: str | None = None

    def set_matrix(
        self, rows: list[ToolRow], sides: Sequence[str], targets: Sequence[str], current: str | None
    ) -> None:
        """Replace the matrix; `current` is the chosen target (its column header is bold)."""
        self.beginResetModel()
        self.rows, self.sides, self.targets = rows, list(sides), list(targets)
        self.current = current
        self.endResetModel()

    @property
    def first_target_column(self) -> int:
        """The column of the first target."""
        return 1 + len(self.sides)

    def target_at(self, column: int) -> str | None:
        """The target of a column (None for the name and call columns)."""
        at = column - self.first_target_column
        return self.targets[at] if 0 <= at < len(self.targets) else None

    def column_of(self, target: str) -> int | None:
        """The column of a target."""
        return (
            self.first_target_column + self.targets.index(target)
            if target in self.targets
            else None
        )

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Number of tools."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Name, calls per side, targets."""
        return 0 if parent.isValid() else 1 + len(self.sides) + len(self.targets)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles; the chosen target's is bold."""
        if orientation != Qt.Orientation.Horizontal:
            return None
        target = self.target_at(section)
        if role == Qt.ItemDataRole.DisplayRole:
            if section == 0:
                return "Tool"
            if target is None:
                return f"{self.sides[section - 1]} calls"
            return target
        if role == Qt.ItemDataRole.FontRole and target is not None and target == self.current:
            font = QFont()
            font.setBold(True)
            font.setUnderline(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and target is not None:
            return tooltip(f"What {target} does with each tool's definition")
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Cell text, colour, tooltip and, under PayloadRole, the row."""
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        target = self.target_at(column)
        if role == PayloadRole:
            return row
        if column == 0:
            # A name that reads as another row's says so: the two rows must not look the same.
            if role == Qt.ItemDataRole.DisplayRole:
                return label(row.name) + (f"  ⚠ {visible(row.lookalike)}" if row.lookalike else "")
            if role == Qt.ItemDataRole.ForegroundRole and row.lookalike:
                return qt_palette.severity_swatch("warning").foreground
            if role == Qt.ItemDataRole.ToolTipRole:
                note = "" if row.tool is not None else "\n(no definition: only calls name it)"
                return tooltip(row.name + note + (f"\n{row.lookalike}" if row.lookalike else ""))
            return None
        if target is None:
            side = self.sides[column - 1]
            counts = row.calls.get(side, {})
            if role == Qt.ItemDataRole.DisplayRole:
                return row.call_text(side) or "—"
            if role == Qt.ItemDataRole.ToolTipRole:
                calls = row.call_text(side)
                return tooltip(f"{side}: {calls}" if calls else f"{side}: no call of {row.name}")
            worst = _worst(counts)
            if role == Qt.ItemDataRole.DecorationRole and worst is not None:
                return qt_palette.verdict_swatch(worst).icon
            if role == Qt.ItemDataRole.ForegroundRole and worst is not None:
                return qt_palette.verdict_swatch(worst).foreground
            return None
        verdict = row.verdicts.get(target)
        if verdict is None:
            if role == Qt.ItemDataRole.DisplayRole:
                return "—"
            if role == Qt.ItemDataRole.ToolTipRole:
                return tooltip("No definition of this tool is known")
            return None
        mark = verdict.mark
        if role == Qt.ItemDataRole.DisplayRole:
            return mark
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            return _mark_swatch(mark).foreground
        if role == Qt.ItemDataRole.FontRole and mark != "✓":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            count = len(verdict.problems)
            return tooltip(
                f"{target}: {MARK_WORDS[mark]} ({verdict.mode} mode); "
                f"{count} problem{'s' if count != 1 else ''}"
            )
        return None


class ToolsPanel(QWidget):
    """The matrix above, the selected cell's problems and the tool's schema below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column, self.summary = tab_frame(self)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.setChildrenCollapsible(False)
        self.matrix = MatrixModel(self)
        self.matrix_view = QTableView(split)
        self.matrix_view.setObjectName("tools-matrix")
        self.matrix_view.setModel(self.matrix)
        self.matrix_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.matrix_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.matrix_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix_view.verticalHeader().setVisible(False)
        self.matrix_view.verticalHeader().setDefaultSectionSize(
            self.matrix_view.fontMetrics().height() + 8
        )
        self.matrix_view.setWordWrap(False)
        self.matrix_view.setShowGrid(False)
        self.matrix_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.matrix_view.selectionModel().currentChanged.connect(self._cell_selected)
        bottom = QSplitter(Qt.Orientation.Horizontal, split)
        bottom.setChildrenCollapsible(False)
        problems_box = QWidget(bottom)
        problems_column = QVBoxLayout(problems_box)
        problems_column.setContentsMargins(0, 0, 0, 0)
        self.cell_title = plain_label("", problems_box)
        self.cell_title.setWordWrap(True)  # wraps rather than widening the window
        problems_column.addWidget(self.cell_title)
        self.problems = RecordsModel(("Severity", "Code", "Pointer", "Rule", "Message"), self)
        self.problems_view = records_view(self.problems, problems_box)
        self.problems_view.setObjectName("tool-problems")
        char = self.problems_view.fontMetrics().averageCharWidth()
        for col, chars in enumerate((10, 26, 26, 30)):
            self.problems_view.setColumnWidth(col, chars * char)
        self.problems_view.selectionModel().currentRowChanged.connect(self._problem_selected)
        problems_column.addWidget(self.problems_view, 1)
        self.rule = RuleDetail(problems_box)
        problems_column.addWidget(self.rule)
        schema_box = QWidget(bottom)
        schema_column = QVBoxLayout(schema_box)
        schema_column.setContentsMargins(0, 0, 0, 0)
        self.schema_title = plain_label("", schema_box)
        self.schema_title.setWordWrap(True)
        dim(self.schema_title)
        schema_column.addWidget(self.schema_title)
        self.schema_view = JsonView(schema_box)
        self.schema_view.setObjectName("tool-schema")
        schema_column.addWidget(self.schema_view, 1)
        bottom.addWidget(problems_box)
        bottom.addWidget(schema_box)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 2)
        split.addWidget(self.matrix_view)
        split.addWidget(bottom)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        self.splitter = split
        column.addWidget(split, 1)
        self.set_matrix([], [], [], None)

    # ---- matrix ---------------------------------------------------------------------------

    def set_matrix(
        self,
        rows: list[ToolRow],
        sides: Sequence[str],
        targets: Sequence[str],
        current: str | None,
        *,
        computing: bool = False,
    ) -> None:
        """Show the matrix; the chosen target's column is marked and its first cell selected."""
        previous = self._selected()
        self.matrix.set_matrix(rows, sides, targets, current)
        defined = sum(1 for r in rows if r.tool is not None)
        if computing:
            self.summary.setText("Checking the tools against every target…")
        elif not rows:
            self.summary.setText(
                "No tools known: open a transcript that carries tools, or load a tools file."
            )
        else:
            rejected = sum(1 for r in rows if any(not v.accepted for v in r.verdicts.values()))
            self.summary.setText(
                f"{defined} tool definition{'s' if defined != 1 else ''} × {len(targets)} targets"
                f"{f'; chosen target: {current}' if current else ''}; "
                f"{rejected} rejected by some target.   "
                "✓ accepted   ~ accepted but silently changed   ✗ rejected   — select a cell"
            )
        view = self.matrix_view
        char = view.fontMetrics().averageCharWidth()
        view.setColumnWidth(0, 28 * char)
        for n in range(len(sides)):
            view.setColumnWidth(1 + n, 24 * char)
        for n, target in enumerate(targets):
            view.setColumnWidth(self.matrix.first_target_column + n, max(len(target) + 3, 6) * char)
        self._restore(previous, current)

    def _selected(self) -> tuple[str, int] | None:
        index = self.matrix_view.currentIndex()
        if not index.isValid():
            return None
        return self.matrix.rows[index.row()].name, index.column()

    def _restore(self, previous: tuple[str, int] | None, current: str | None) -> None:
        names = [r.name for r in self.matrix.rows]
        if previous is not None and previous[0] in names:
            self.select_cell(names.index(previous[0]), previous[1])
            return
        column = self.matrix.column_of(current) if current else None
        if column is not None and self.matrix.rows:
            # The chosen target's first problem, else its first cell.
            row = next((n for n, r in enumerate(self.matrix.rows) if r.problems(current or "")), 0)
            self.select_cell(row, column)
            return
        self._show_cell(None, None)

    def select_cell(self, row: int, column: int) -> None:
        """Select one cell of the matrix (its problems and schema are shown)."""
        index = self.matrix.index(row, column)
        if not index.isValid():
            return
        self.matrix_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self._show_cell(self.matrix.rows[row], self.matrix.target_at(column))

    def _cell_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self._show_cell(None, None)
            return
        self._show_cell(self.matrix.rows[current.row()], self.matrix.target_at(current.column()))

    # ---- the selected cell ----------------------------------------------------------------

    def _show_cell(self, row: ToolRow | None, target: str | None) -> None:
        self.rule.clear_rule()
        if row is None:
            self.cell_title.setText("")
            self.problems.set_records([])
            self.schema_title.setText("")
            self.schema_view.set_text("")
            return
        tool = row.tool
        if tool is None:
            self.schema_title.setText(f"{row.name}: no definition is known")
            self.schema_view.set_text("")
        else:
            where = f"  ({tool.origin.describe()})" if tool.origin is not None else ""
            self.schema_title.setText(f"{tool.name} — parameters{where}")
            self.schema_view.set_text(display(tool.parameters).text if tool.has_schema else "")
        if target is None:
            self.cell_title.setText(f"{row.name}: select a target's cell to see its problems")
            self.problems.set_records([])
            return
        problems = row.problems(target)
        verdict = row.verdicts.get(target)
        if verdict is None:
            self.cell_title.setText(f"{row.name} × {target}: no definition to judge")
        else:
            count = len(problems)
            self.cell_title.setText(
                f"{row.name} × {target}: {verdict.mark} {MARK_WORDS[verdict.mark]} "
                f"({verdict.mode} mode), {count} problem{'s' if count != 1 else ''}"
            )
        self.problems.set_records([self._record(p) for p in problems])
        text = self.schema_view.toPlainText()
        brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MINOR).background
        if brush is not None:
            spans = [locate_nearest(text, p.pointer) for p in problems]
            self.schema_view.mark_spans("problems", [s for s in spans if s is not None], brush)
        if problems:
            self.problems_view.selectRow(0)

    @staticmethod
    def _record(problem: ToolProblem) -> Record:
        swatch = qt_palette.severity_swatch(str(problem.severity))
        pointer = "(name)" if problem.pointer is None else (problem.pointer or "(schema root)")
        return Record(
            (str(problem.severity), problem.code, pointer, problem.rule.id, problem.message),
            payload=problem,
            icon=swatch.icon,
            foreground=swatch.foreground,
            tip=f"{problem.message}\n\nrule {problem.rule.id}\nsource: {problem.rule.source}",
        )

    def _problem_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        problem = current.siblingAtColumn(0).data(PayloadRole) if current.isValid() else None
        if not isinstance(problem, ToolProblem):
            self.rule.clear_rule()
            return
        target = self.matrix.target_at(self.matrix_view.currentIndex().column()) or ""
        pointer = "(name)" if problem.pointer is None else (problem.pointer or "(schema root)")
        self.rule.show_rule(target, problem.rule.id, problem.rule.source, pointer)
        brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MAJOR).background
        span = locate_nearest(self.schema_view.toPlainText(), problem.pointer)
        if span is None or brush is None:
            self.schema_view.clear_marks("selected")
            return
        self.schema_view.mark_spans("selected", [span], brush)
        self.schema_view.select_span(*span)
