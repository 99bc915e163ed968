"""One QAbstractItemModel per transcript: a row per item, its fields as lazily built children.

The model holds only the core GateResult; every role is computed on demand from the core
values, and tree nodes exist only for rows whose children were asked for, so a 200,000-item
transcript costs no Qt or Python object per item.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QFont

from inspector.core.codes import Severity
from inspector.core.verdicts import Verdict
from inspector.gui import qt_palette
from inspector.gui.enum_values import ItemDataRole
from inspector.gui.json_text import CELL_LIMIT, elide, label, preview, visible
from inspector.gui.qt_text import tooltip

if TYPE_CHECKING:
    from PySide6.QtCore import Qt

    from inspector.core.diff import Change, Pair
    from inspector.core.gate import GateResult
    from inspector.core.model import Item
    from inspector.core.targets import TargetFinding
    from inspector.gui.alignment import Alignment
    from inspector.gui.tallies import Tallies

ModelIndex = QModelIndex | QPersistentModelIndex


#: Custom roles shared by every view and panel that reads the model.
VerdictRole = ItemDataRole.UserRole + 1  # the item's Verdict (top-level rows)
ItemRole = ItemDataRole.UserRole + 2  # the core Item (None on a gap row)
IndexRole = ItemDataRole.UserRole + 3  # the item's index in the transcript
PointerRole = ItemDataRole.UserRole + 4  # JSON Pointer of a field inside its item
ValueRole = ItemDataRole.UserRole + 5  # the raw JSON value of a field row
ChangesRole = ItemDataRole.UserRole + 6  # the diff changes of the item's pair
CompactRole = ItemDataRole.UserRole + 7  # the cell's short text for a narrow column
TargetRole = ItemDataRole.UserRole + 8  # the target findings that name the item

#: What a gap row says in the name column (aligned mode: the other file has an item here).
GAP_TEXT = "no item here"
#: A field the item does not have (its counterpart does: aligned mode shows a gap row).
_MISSING: Any = object()


class Column(IntEnum):
    """Columns of the transcript tree."""

    INDEX = 0
    TYPE = 1
    NAME = 2
    CALL_ID = 3
    ID = 4
    STATUS = 5
    VERDICT = 6
    CHANGE = 7


_COLUMNS = len(Column)

HEADERS = {
    Column.INDEX: "#",
    Column.TYPE: "Type",
    Column.NAME: "Name / role",
    Column.CALL_ID: "call_id",
    Column.ID: "id",
    Column.STATUS: "Status",
    Column.VERDICT: "Verdict",
    Column.CHANGE: "Change",
}

HEADER_TIPS = {
    Column.INDEX: "Position of the item in the file (field rows show their key and value)",
    Column.VERDICT: "The replay gate's verdict for the item",
    Column.CHANGE: "How the item differs from its aligned counterpart in the other file",
}

#: Which change codes mark which cell most prominently.
_CELL_OF_CHANGE = {
    "type_changed": Column.TYPE,
    "became_namespaced": Column.TYPE,
    "became_portable": Column.TYPE,
    "became_non_portable": Column.TYPE,
    "call_id_changed": Column.CALL_ID,
    "name_changed": Column.NAME,
    "status_changed": Column.STATUS,
    "verdict_changed": Column.VERDICT,
}

#: Short cell texts; the prominent changes are upper-case, like the window sketch.
_CHANGE_LABELS = {
    "type_changed": "TYPE CHANGED",
    "became_namespaced": "→ NAMESPACED",
    "became_portable": "→ PORTABLE",
    "became_non_portable": "→ NON-PORTABLE",
    "call_id_changed": "CALL_ID CHANGED",
    "only_left": "no counterpart",
    "only_right": "no counterpart",
    "arguments_reformatted": "reformatted",
}

#: The same, for a narrow Change column: what changed, without the word "changed".
_SHORT_CHANGE_LABELS = {
    "became_namespaced": "→ NS",
    "became_portable": "→ PORT",
    "became_non_portable": "→ NON-PORT",
    "only_left": "alone",
    "only_right": "alone",
    "arguments_reformatted": "reformat",
}


#: The portable types' words for a narrow Type column (a prefixed type keeps its prefix).
_SHORT_TYPES = {
    "function_call": "call",
    "function_call_output": "output",
    "custom_tool_call": "custom call",
    "custom_tool_call_output": "custom output",
    "item_reference": "reference",
}


def _short_type(item: Item) -> str | None:
    kind = item.type
    if not isinstance(kind, str) or ":" in kind:
        return None
    return _SHORT_TYPES.get(kind, kind.removesuffix("_call"))


def _type_text(item: Item) -> str:
    # Item.type_label is repr() for a non-string type, which could be any size.
    kind = item.type
    if isinstance(kind, str):
        return label(kind)
    return item.type_label if kind is None else preview(kind)


def _key_text(key: Any) -> str:
    return f"[{key}]" if isinstance(key, int) else visible(elide(str(key), CELL_LIMIT))


def _cell_text(item: Item, verdict: Verdict, i: int, column: int) -> str | None:
    """An item row's text in any column but Change (which needs the diff)."""
    if column == Column.INDEX:
        return str(i)
    if column == Column.TYPE:
        return _type_text(item)
    if column == Column.NAME:
        return label(item.name if item.name is not None else item.role)
    if column == Column.CALL_ID:
        return label(item.call_id)
    if column == Column.ID:
        return label(item.id)
    if column == Column.STATUS:
        return label(item.status)
    if column == Column.VERDICT:
        return str(verdict)
    return None


def _short_cell(item: Item, verdict: Verdict, column: int) -> str | None:
    """The short text of an item row's verdict or type cell for a narrow column (None: none)."""
    if column == Column.VERDICT:
        return qt_palette.short_verdict(verdict)
    if column == Column.TYPE:
        return _short_type(item)
    return None


#: How many items the columns are fitted to (Qt's own fit would read every row of a large
#: transcript).
FIT_ITEMS = 1000

FitTexts = dict[tuple[int, bool], frozenset[tuple[str, bool]]]


def fit_texts(result: GateResult, limit: int = FIT_ITEMS) -> FitTexts:
    """The distinct texts of each item column but Change over the first `limit` items, by
    (column, short), each with whether it is drawn bold without a diff (a provider-prefixed
    item): what `TranscriptModel.cell_texts` gives, gathered where the transcript is gated, off
    the GUI thread. Only Verdict and Type have short texts; the other columns' are their own."""
    items, verdicts = result.transcript.items, result.verdicts
    shown = [(items[i], verdicts[i].verdict, i) for i in range(min(len(items), limit))]
    texts: FitTexts = {}
    for column in Column:
        if column == Column.CHANGE:
            continue
        for short in (False, True) if column in (Column.VERDICT, Column.TYPE) else (False,):
            found: dict[tuple[str, bool], None] = {}
            for item, verdict, i in shown:
                text = _short_cell(item, verdict, column) if short else None
                if text is None:
                    text = _cell_text(item, verdict, i, column)
                found[text or "", item.namespaced] = None
            texts[column, short] = frozenset(found)
        texts.setdefault((column, True), texts[column, False])
    return texts


def change_label(change: Change, *, short: bool = False) -> str:
    """Return a change's cell text (`short`: the narrow column's, e.g. CALL_ID for a call_id
    change)."""
    if short:
        text = _SHORT_CHANGE_LABELS.get(change.code)
        if text is not None:
            return text
        # What changed, without how: call_id_renamed and call_id_changed are both "call_id".
        code = change.code
        for ending in ("_changed", "_renamed", "_reformatted", "_mismatch"):
            code = code.removesuffix(ending)
        return code.upper() if change.code in qt_palette.PROMINENT_CHANGES else code
    return _CHANGE_LABELS.get(change.code, change.code.replace("_", " "))


def change_description(change: Change) -> str:
    """Return one line describing a change: code, pointer and both values."""
    where = f" at {change.pointer}" if change.pointer else ""
    return f"{change.code}{where}: {preview(change.left, 80)} → {preview(change.right, 80)}"


class TranscriptModel(QAbstractItemModel):
    """The items of one gated transcript (optionally in aligned display order) as a tree."""

    #: Top-level rows exposed before the view asks for more (fetchMore doubles it each time):
    #: a few screens of rows, each of which the tree lays out (in Python) before it paints.
    initial_rows = 256

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._result: GateResult | None = None
        self._rows: Sequence[int | None] | None = None
        self._filter: list[int] | None = None
        self._alignment: Alignment | None = None
        self._side = "left"
        self._total = 0
        self._shown = 0
        # Node 0 stands for "a top-level row". A node's id is the internalId of its children:
        # nodes[id] = (parent node id, row, path), path = (top-level row, key, key, ...).
        self._nodes: list[tuple[int, int, tuple[Any, ...]]] = [(0, 0, ())]
        self._node_ids: dict[tuple[int, int], int] = {}
        self._keys: dict[int, list[Any]] = {}
        #: The transcript's counts, with the target findings naming each item (a target's
        #: verdicts sit beside the gate's); None without a transcript.
        self._tallies: Tallies | None = None
        #: Columns titled with an icon rather than a word (too narrow for it).
        self._icon_headers: frozenset[int] = frozenset()
        #: Asked by `fetchMore` with the rows exposed: whether the view shows rows near the
        #: last of them (None: always grow). Qt's tree asks for more on every full layout,
        #: wherever it is scrolled; two linked panes would then double each other's rows.
        self.wants_rows: Callable[[int], bool] | None = None

    # ---- content --------------------------------------------------------------------------

    @property
    def result(self) -> GateResult | None:
        """The gated transcript shown, or None."""
        return self._result

    def set_result(self, result: GateResult | None, tallies: Tallies | None = None) -> None:
        """Show another gated transcript (drops the aligned order and diff); `tallies` are its
        counts, counted with its load (else counted here)."""
        if result is not None and tallies is None:
            from inspector.gui.tallies import tally  # imported with the first transcript

            tallies = tally(result)
        self.beginResetModel()
        self._result = result
        self._tallies = tallies if result is not None else None
        self._rows = None
        self._filter = None
        self._alignment = None
        self._reset_rows()
        self.endResetModel()

    def set_alignment(self, alignment: Alignment | None, side: str, aligned: bool) -> None:
        """Attach a diff (for change markers); aligned=True shows rows in pair order with gaps."""
        rows = alignment.rows(side) if alignment is not None and aligned else None
        if alignment is self._alignment and side == self._side and rows is self._rows:
            return  # nothing changes: a reset would make the view lay out every row again
        self.beginResetModel()
        self._alignment = alignment
        self._side = side
        self._rows = rows
        self._filter = None
        self._reset_rows()
        self.endResetModel()

    def set_filter(self, positions: frozenset[int] | None) -> None:
        """Show only these positions of the display order (None: every row).

        Filtering lives in the model rather than a QSortFilterProxyModel: a proxy asks Python
        about every source row and lays out every accepted one, while here the kept rows are
        one sorted list and are exposed in chunks like the unfiltered ones.
        """
        kept = sorted(positions) if positions is not None else None
        if kept == self._filter:
            return
        self.beginResetModel()
        self._filter = kept
        self._reset_rows()
        self.endResetModel()

    @property
    def alignment(self) -> Alignment | None:
        """The diff the change markers come from (None without one)."""
        return self._alignment

    @property
    def filtered(self) -> bool:
        """Whether a filter hides rows."""
        return self._filter is not None

    @property
    def rows(self) -> Sequence[int | None] | None:
        """The display order before filtering (None when rows follow the file)."""
        return self._rows

    @property
    def padded(self) -> bool:
        """Whether rows are aligned with the other side's, fields included (aligned mode)."""
        return self._rows is not None and self._alignment is not None

    def target_findings(self, item: int) -> list[TargetFinding]:
        """The target findings that name an item (most severe first)."""
        found = self._tallies.targets.get(item, ()) if self._tallies is not None else ()
        return sorted(found, key=lambda f: f.severity != Severity.ERROR)

    def target_names(self) -> tuple[str, ...]:
        """The targets whose findings the transcript carries, sorted."""
        return self._tallies.target_names if self._tallies is not None else ()

    def target_errors(self) -> int:
        """How many target findings of the transcript are errors."""
        return self._tallies.target_errors if self._tallies is not None else 0

    def _reset_rows(self) -> None:
        self._nodes = [(0, 0, ())]
        self._node_ids.clear()
        self._keys.clear()
        if self._filter is not None:
            self._total = len(self._filter)
        elif self._rows is not None:
            self._total = len(self._rows)
        else:
            self._total = len(self._result.transcript.items) if self._result is not None else 0
        self._shown = min(self._total, self.initial_rows)

    @property
    def allocated_nodes(self) -> int:
        """How many rows have had their children built (the rest cost nothing)."""
        return len(self._nodes) - 1

    @property
    def display_rows(self) -> int:
        """Top-level rows in all, fetched or not."""
        return self._total

    def item_count(self) -> int:
        """Number of items in the transcript."""
        return len(self._result.transcript.items) if self._result is not None else 0

    def item_at_row(self, row: int) -> int | None:
        """Return the item index shown on a top-level row (None for a gap row)."""
        if not 0 <= row < self._total:
            return None
        if self._filter is not None:
            row = self._filter[row]
        return row if self._rows is None else self._rows[row]

    def row_of_item(self, item: int) -> int | None:
        """Return the top-level row showing an item (None when it is filtered out)."""
        if self._rows is None or self._alignment is None:
            position = item if 0 <= item < self.item_count() else None
        else:
            position = self._alignment.position(self._side, item)
        if position is None or self._filter is None:
            return position
        at = bisect_left(self._filter, position)
        return at if at < len(self._filter) and self._filter[at] == position else None

    def index_of_item(self, item: int, column: int = 0) -> QModelIndex:
        """Return the top-level index showing an item, fetching rows up to it if needed."""
        row = self.row_of_item(item)
        if row is None:
            return QModelIndex()
        self.ensure_row(row)
        return self.index(row, column)

    def pair_of(self, item: int) -> Pair | None:
        """Return the diff pair of an item, when a diff is set."""
        if self._alignment is None:
            return None
        return self._alignment.pair_of(self._side, item)

    def changed(self, item: int) -> bool:
        """Whether the item's pair has a non-info change."""
        pair = self.pair_of(item)
        return bool(pair is not None and pair.changed)

    def cell_texts(
        self, column: int, limit: int, *, compact: bool = False
    ) -> set[tuple[str, bool]]:
        """The distinct texts of an item column over the first `limit` items, each with whether
        it is drawn bold, to size the column (`compact`: the narrow column's short texts, where a
        cell has one).

        The change column looks at the items whose pair has changes instead, wherever they are.
        """
        result = self._result
        if result is None:
            return set()
        known = self._tallies.fitted if self._tallies is not None else {}
        if self._alignment is None and limit == FIT_ITEMS and (column, compact) in known:
            return set(known[column, compact])  # gathered with the load (`fit_texts`)
        items, verdicts = result.transcript.items, result.verdicts
        indexes: Sequence[int] = range(min(len(items), limit))
        if column == Column.CHANGE:
            if self._alignment is None:
                return set()
            pairs = self._alignment.diff.pairs
            ours = (p.left if self._side == "left" else p.right for p in pairs if p.changes)
            indexes = [i for i in ours if i is not None][:limit]
        texts: dict[tuple[str, bool], None] = {}
        for i in indexes:
            verdict = verdicts[i].verdict
            text = self._compact_text(verdict, i, column) if compact else None
            if text is None:
                text = self._item_text(items[i], verdict, i, column)
            texts[text or "", self._bold(i, column)] = None
        if column == Column.NAME and self._rows is not None and None in self._rows[:limit]:
            texts[GAP_TEXT, False] = None  # a gap row's phrase, whole like the names
        return set(texts)

    def _bold(self, i: int, column: int) -> bool:
        assert self._result is not None
        item = self._result.transcript.items[i]
        return item.namespaced or column in self._changed_cells(i, major_only=True)

    # ---- incremental rows -----------------------------------------------------------------
    # QTreeView lays out every top-level row it is told about, asking the model about each in
    # Python; rows are therefore exposed in doubling chunks as the view scrolls or a jump
    # needs them, which keeps the first paint of a 200,000-item transcript immediate.

    def canFetchMore(self, parent: ModelIndex) -> bool:
        """Whether top-level rows remain to be exposed."""
        return not parent.isValid() and self._shown < self._total

    def fetchMore(self, parent: ModelIndex) -> None:
        """Expose the next chunk of top-level rows (as many again as are shown), when the view
        wants them (`wants_rows`)."""
        if parent.isValid():
            return
        if self.wants_rows is not None and not self.wants_rows(self._shown):
            return
        self._grow(max(self._shown * 2, self.initial_rows))

    def ensure_row(self, row: int) -> None:
        """Expose top-level rows up to and including `row`."""
        if row >= self._shown:
            self._grow(max(row + 1 + self.initial_rows, self._shown * 2))

    def expose_rows(self, count: int) -> None:
        """Expose exactly the first `count` top-level rows (no chunk beyond), as many as a
        twin pane shows: each growing by a chunk more would make the other grow in turn."""
        self._grow(count)

    @property
    def fetched_rows(self) -> int:
        """Top-level rows exposed to views so far."""
        return self._shown

    def _grow(self, wanted: int) -> None:
        wanted = min(wanted, self._total)
        if wanted <= self._shown:
            return
        self.beginInsertRows(QModelIndex(), self._shown, wanted - 1)
        self._shown = wanted
        self.endInsertRows()

    # ---- tree structure -------------------------------------------------------------------

    def _path(self, index: ModelIndex) -> tuple[Any, ...]:
        """Return (top-level row, key, ...) for an index."""
        parent_id = index.internalId()
        if parent_id == 0:
            return (index.row(),)
        parent_path = self._nodes[parent_id][2]
        return (*parent_path, self._child_keys(parent_id)[index.row()])

    def _node_of(self, index: ModelIndex) -> int:
        key = (index.internalId(), index.row())
        node = self._node_ids.get(key)
        if node is None:
            path = self._path(index)
            node = len(self._nodes)
            self._nodes.append((key[0], key[1], path))
            self._node_ids[key] = node
        return node

    def _item_on(self, side: str, row: int) -> Item | None:
        """The item one side shows on a top-level row (None on its gap row)."""
        if side == self._side or self._alignment is None:
            item = self.item_at_row(row)
            result = self._result
        else:
            if self._filter is not None:
                row = self._filter[row]
            item = self._alignment.rows(side)[row]
            diff = self._alignment.diff
            result = diff.left if side == "left" else diff.right
        if item is None or result is None:
            return None
        return result.transcript.items[item]

    def _raw_at(self, side: str, row: int) -> Any:
        """The raw item one side shows on a top-level row (_MISSING on its gap row)."""
        item = self._item_on(side, row)
        return _MISSING if item is None else item.raw

    def _values(self, path: tuple[Any, ...]) -> tuple[Any, Any]:
        """The left's and right's values at a path (_MISSING where a side has none); without
        aligned rows both are this side's."""
        ours = _walk(self._raw_at(self._side, path[0]), path[1:])
        if not self.padded:
            return ours, ours
        other = "right" if self._side == "left" else "left"
        theirs = _walk(self._raw_at(other, path[0]), path[1:])
        return (ours, theirs) if self._side == "left" else (theirs, ours)

    def _value(self, path: tuple[Any, ...]) -> Any:
        """This side's value at a path (_MISSING on a gap row)."""
        return _walk(self._raw_at(self._side, path[0]), path[1:])

    def _child_keys(self, node: int) -> list[Any]:
        keys = self._keys.get(node)
        if keys is None:
            path = self._nodes[node][2]
            from inspector.gui.alignment import padded_keys  # aligned rows come with a diff

            keys = padded_keys(*self._values(path)) if path else []
            self._keys[node] = keys
        return keys

    def index(self, row: int, column: int, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Return the index of a row under a parent."""
        # Bounds are checked here rather than with hasIndex(), which would call back into
        # rowCount() and columnCount(): the view asks for every top-level row at layout.
        if not parent.isValid():
            if 0 <= row < self._shown and 0 <= column < _COLUMNS:
                return self.createIndex(row, column, 0)
            return QModelIndex()
        if row < 0 or not 0 <= column < _COLUMNS or row >= self.rowCount(parent):
            return QModelIndex()
        return self.createIndex(row, column, self._node_of(parent))

    def parent(self, index: ModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Return the parent of an index (invalid for items)."""
        if not index.isValid():
            return QModelIndex()
        node_id = index.internalId()
        if node_id == 0:
            return QModelIndex()
        grand, row, _path = self._nodes[node_id]
        return self.createIndex(row, 0, grand)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Exposed items at the top; fields (computed when first asked) below."""
        if not parent.isValid():
            return self._shown
        if parent.column() != 0 or self._result is None:
            return 0
        if parent.internalId() == 0 and not self.padded and self.item_at_row(parent.row()) is None:
            return 0
        return len(self._child_keys(self._node_of(parent)))

    def hasChildren(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        """Whether a row has fields, answered without allocating a node for it."""
        # Asked once per top-level row whenever the view lays out, so the item-row case
        # comes first and avoids every call it can.
        if parent.internalId() == 0:
            if not parent.isValid():
                return self._shown > 0
            if parent.column() or self._result is None:
                return False
            if self.padded:
                # Either side's item may give the row its fields; lean items answer unparsed.
                row = parent.row()
                return any(
                    item is not None and item.has_fields()
                    for item in (self._item_on("left", row), self._item_on("right", row))
                )
            row = parent.row()
            if self._filter is not None:
                row = self._filter[row]
            item = row if self._rows is None else self._rows[row]
            if item is None:
                return False
            # A view lays out every row it shows: a lean item answers without being parsed.
            return self._result.transcript.items[item].has_fields()
        elif parent.column():
            return False
        else:
            return _has_fields(*self._values(self._path(parent)))

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """The fixed columns."""
        return _COLUMNS

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = ItemDataRole.DisplayRole
    ) -> Any:
        """Column titles and their tooltips."""
        # Named here: a header asks after the first paint, which needs no `Qt` (enum_values).
        from PySide6.QtCore import Qt

        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Column):
            return None
        narrow = section in self._icon_headers
        if role == ItemDataRole.DisplayRole:
            return "" if narrow else HEADERS[Column(section)]
        if role == ItemDataRole.DecorationRole and narrow:
            if section == Column.VERDICT:
                return qt_palette.verdict_swatch("ok").icon
            return qt_palette.change_swatch(qt_palette.ChangeLevel.MINOR).icon
        if role == ItemDataRole.ToolTipRole:
            tip = HEADER_TIPS.get(Column(section))
            return f"{HEADERS[Column(section)]}: {tip}" if narrow and tip else tip
        return None

    def set_icon_headers(self, columns: Sequence[int]) -> None:
        """Title these columns (verdict, change) with an icon: they are too narrow for a word."""
        wanted = frozenset(c for c in columns if c in (Column.VERDICT, Column.CHANGE))
        if wanted != self._icon_headers:
            self._icon_headers = wanted
            from PySide6.QtCore import Qt

            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, _COLUMNS - 1)

    def data(self, index: ModelIndex, role: int = ItemDataRole.DisplayRole) -> Any:
        """Every role, computed from the core values on demand."""
        if not index.isValid() or self._result is None:
            return None
        if index.internalId() == 0:
            item = self.item_at_row(index.row())
            if item is None:
                return self._gap_data(index.column(), role)
            return self._item_data(item, index.column(), role)
        return self._field_data(self._path(index), index.column(), role)

    def _gap_data(self, column: int, role: int) -> Any:
        swatch = qt_palette.gap_swatch()
        # In the name column: the type column is sized for type words and cut the phrase.
        if role == ItemDataRole.DisplayRole and column == Column.NAME:
            return GAP_TEXT
        if role == ItemDataRole.ToolTipRole:
            return tooltip("Aligned mode: the other file has an item here; this one has none.")
        if role == ItemDataRole.ForegroundRole:
            return swatch.foreground
        if role == ItemDataRole.BackgroundRole:
            return swatch.background
        if role == ItemDataRole.DecorationRole and column == Column.INDEX:
            return swatch.icon
        return None

    def _item_data(self, i: int, column: int, role: int) -> Any:
        assert self._result is not None
        item = self._result.transcript.items[i]
        verdict = self._result.verdicts[i]
        if role == ItemDataRole.DisplayRole:
            return self._item_text(item, verdict.verdict, i, column)
        if role == ItemDataRole.DecorationRole:
            if column == Column.INDEX:
                return qt_palette.verdict_swatch(verdict.verdict).icon
            if column == Column.VERDICT:
                # The target marker: the gate may pass an item the target provider rejects.
                targets = self._tallies.targets.get(i) if self._tallies is not None else None
                return qt_palette.target_swatch(targets[0].severity).icon if targets else None
            swatch = self._change_swatch(i, column) if column == Column.CHANGE else None
            return swatch.icon if swatch is not None else None
        if role == CompactRole:
            return self._compact_text(verdict.verdict, i, column)
        if role == TargetRole:
            return tuple(self.target_findings(i))
        if role in (ItemDataRole.ForegroundRole, ItemDataRole.BackgroundRole):
            if column == Column.VERDICT:
                swatch = qt_palette.verdict_swatch(verdict.verdict)
            else:
                swatch = self._change_swatch(i, column)
            if swatch is None:
                return None
            if role == ItemDataRole.ForegroundRole:
                return swatch.foreground
            return swatch.background
        if role == ItemDataRole.FontRole:
            if self._bold(i, column):
                font = QFont()
                font.setBold(True)
                return font
            return None
        if role == ItemDataRole.ToolTipRole:
            return tooltip(self._item_tip(item, i, column))
        if role == VerdictRole:
            return verdict.verdict
        if role == ItemRole:
            return item
        if role == IndexRole:
            return i
        if role == PointerRole:
            return ""
        if role == ValueRole:
            return item.raw
        if role == ChangesRole:
            return self._changes(i)
        return None

    def _item_text(self, item: Item, verdict: Verdict, i: int, column: int) -> str | None:
        if column == Column.CHANGE:
            return self._change_text(i)
        return _cell_text(item, verdict, i, column)

    def _change_text(self, i: int, *, short: bool = False) -> str:
        changes = self._changes(i)
        if not changes:
            return ""
        shown = [c for c in changes if c.severity != "info"] or list(changes)
        # The most prominent change names the cell; the tooltip lists them all.
        order = list(qt_palette.ChangeLevel)
        shown.sort(key=lambda c: order.index(qt_palette.change_level(c.code, c.severity)))
        text = change_label(shown[0], short=short)
        # A verdict change is marked on the verdict cell itself, so it is not counted here.
        more = [c for c in shown[1:] if c.code != "verdict_changed"]
        return f"{text} +{len(more)}" if more else text

    def _compact_text(self, verdict: Verdict, i: int, column: int) -> str | None:
        if column == Column.CHANGE:
            return self._change_text(i, short=True) or None
        if column not in (Column.VERDICT, Column.TYPE):
            return None
        assert self._result is not None
        return _short_cell(self._result.transcript.items[i], verdict, column)

    def _item_tip(self, item: Item, i: int, column: int) -> str:
        assert self._result is not None
        verdict = self._result.verdicts[i]
        if column == Column.CHANGE and self._changes(i):
            return "\n".join(change_description(c) for c in self._changes(i))
        head = f"#{i} {_type_text(item)} — {verdict.verdict}"
        meaning = qt_palette.verdict_swatch(verdict.verdict).meaning
        tip = f"{head}\n{verdict.detail}\n\n{meaning}\n{item.origin.describe()}"
        targets = self.target_findings(i)
        if targets:
            lines = "\n".join(f"{f.severity} {f.code}: {f.message}" for f in targets)
            tip = f"Target {targets[0].target}:\n{lines}\n\n{tip}"
        return tip

    def _changes(self, i: int) -> tuple[Change, ...]:
        pair = self.pair_of(i)
        return pair.changes if pair is not None else ()

    def _change_swatch(self, i: int, column: int) -> qt_palette.Swatch | None:
        """The marker look of a cell: the change column, or a cell whose field changed."""
        if column != Column.CHANGE and column not in self._changed_cells(i):
            return None
        changes = self._changes(i)
        return qt_palette.change_swatch(self._level(changes)) if changes else None

    @staticmethod
    def _level(changes: Sequence[Change]) -> qt_palette.ChangeLevel:
        levels = {qt_palette.change_level(c.code, c.severity) for c in changes}
        for level in qt_palette.ChangeLevel:
            if level in levels:
                return level
        return qt_palette.ChangeLevel.INFO

    def _changed_cells(self, i: int, major_only: bool = False) -> set[int]:
        cells = set()
        for change in self._changes(i):
            cell = _CELL_OF_CHANGE.get(change.code)
            if cell is None or change.severity == "info":
                continue
            level = qt_palette.change_level(change.code, change.severity)
            if not major_only or level == qt_palette.ChangeLevel.MAJOR:
                cells.add(int(cell))
        return cells

    def _field_data(self, path: tuple[Any, ...], column: int, role: int) -> Any:
        value = self._value(path)
        item = self.item_at_row(path[0])
        if value is _MISSING:
            return self._gap_field_data(path, item, column, role)
        if role == ItemDataRole.DisplayRole:
            # A field row spans the columns in the views (field_label); the value's preview is
            # also the type cell's, for a view that does not span.
            if column == Column.INDEX:
                return f"{_key_text(path[-1])}: {preview(value)}"
            if column == Column.TYPE:
                return preview(value)
            return None
        if role == ItemDataRole.ToolTipRole and column in (Column.INDEX, Column.TYPE):
            return tooltip(preview(value, 2000))
        if role == ItemRole:
            assert self._result is not None and item is not None
            return self._result.transcript.items[item]
        if role == IndexRole:
            return item
        if role == PointerRole:
            from inspector.core.model import join_pointer  # imported with the first load

            return join_pointer("", *path[1:])
        if role == ValueRole:
            return value
        return None

    def _gap_field_data(
        self, path: tuple[Any, ...], item: int | None, column: int, role: int
    ) -> Any:
        """A field only the counterpart has: a gap row that keeps the two panes level."""
        if role == ItemDataRole.DisplayRole and column == Column.INDEX:
            return f"no {_key_text(path[-1])} here"
        if role == ItemDataRole.ToolTipRole:
            from inspector.core.model import join_pointer  # imported with the first load

            pointer = join_pointer("", *path[1:])
            return tooltip(f"Aligned mode: the other file's item has {pointer}; this one has not.")
        if role in (ItemDataRole.ForegroundRole, ItemDataRole.BackgroundRole):
            return self._gap_data(column, role)
        if role == IndexRole:
            return item
        if role == ItemRole and item is not None:
            assert self._result is not None
            return self._result.transcript.items[item]
        if role == PointerRole:
            return ""  # the item itself: this field is not in it
        return None


def _walk(value: Any, keys: Sequence[Any]) -> Any:
    """The value at `keys` inside `value` (_MISSING where a key is not there)."""
    for key in keys:
        found = (
            key in value
            if isinstance(value, dict)
            else isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value)
        )
        if not found:
            return _MISSING
        value = value[key]
    return value


def _has_fields(*values: Any) -> bool:
    """Whether any of the values is a non-empty JSON container (a row with fields to show)."""
    return any(isinstance(v, dict | list) and len(v) > 0 for v in values)
