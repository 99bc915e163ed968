"""The two panes as one view: the counterpart follows the selection, the keys step between
differences and problems (navigation.py decides where), the width is shared by need, and in
aligned mode both have one scroll position, the same rows fetched and the same items expanded."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtWidgets import QMenu, QSplitter, QWidget

from inspector.gui import navigation
from inspector.gui.navigation import Step, other
from inspector.gui.qt_pane import TranscriptPane, fill_column_menu, left_share, twin_index
from inspector.gui.qt_workers import debounce

if TYPE_CHECKING:  # a diff's alignment comes after the window's first paint
    from inspector.gui.alignment import Alignment

#: The Session's `match`: filter jobs by side, item counts by side, and what takes the rows.
Matcher = Callable[
    [
        dict[str, Callable[[], frozenset[int]] | None],
        dict[str, int],
        Callable[[dict[str, frozenset[int] | None]], None],
    ],
    None,
]
#: The smallest share of the width a pane is given when the panes are balanced.
PANE_SHARE_FLOOR = 0.4


class PaneLink(QObject):
    """Shares the splitter's width by need; keeps the panes level while `active()` says
    aligned mode shows a diff."""

    def __init__(
        self,
        panes: Mapping[str, TranscriptPane],
        split: QSplitter,
        alignment: Callable[[], Alignment | None],
        aligned: Callable[[], bool],
    ) -> None:
        super().__init__(split)
        self.panes = panes
        self.split = split
        self.alignment = alignment
        self.active = lambda: aligned() and alignment() is not None
        self._following = False
        #: Whether the user has moved the splitter between the panes (then it stays put).
        self.user_sized = False
        self._busy = False
        self._balance_timer = debounce(self, 0, self.balance)
        split.splitterMoved.connect(self._moved)
        split.installEventFilter(self)
        for side, pane in panes.items():
            pane.columns_fitted.connect(self.balance)
            pane.model.rowsInserted.connect(lambda parent, _f, _l, s=side: self._fetched(s, parent))

    def complete_panes(self) -> None:
        """Make the panes' trees (an empty pane is painted without) and keep them level."""
        for side, pane in self.panes.items():
            if pane.completed:
                continue
            pane.complete()
            pane.tree.verticalScrollBar().valueChanged.connect(
                lambda value, s=side: self._scrolled(s, value)
            )
            pane.tree.expanded.connect(lambda index, s=side: self._expanded(s, index, True))
            pane.tree.collapsed.connect(lambda index, s=side: self._expanded(s, index, False))

    def _scrolled(self, side: str, value: int) -> None:
        if self._busy or not self.active():
            return
        self._busy = True
        try:
            self.panes[other(side)].tree.verticalScrollBar().setValue(value)
        finally:
            self._busy = False

    def _fetched(self, side: str, parent: Any) -> None:
        # In aligned mode both panes must expose the same rows for their lines to match.
        if parent.isValid() or not self.active():
            return
        self.panes[other(side)].model.expose_rows(self.panes[side].model.fetched_rows)

    def _expanded(self, side: str, index: Any, expanded: bool) -> None:
        if self._busy or not self.active():
            return
        # Aligned rows are padded at every level, so the twin is at the same rows in the other.
        pane = self.panes[other(side)]
        self._busy = True
        try:
            pane.tree.setExpanded(twin_index(pane.model, index), expanded)
        finally:
            self._busy = False

    # ---- selection --------------------------------------------------------------------------

    def follow(self, side: str, item: int | None) -> None:
        """Select the counterpart of `side`'s item in the other pane (quietly)."""
        alignment = self.alignment()
        if alignment is None or item is None or self._following:
            return
        found = navigation.counterpart(alignment, side, item)
        self._following = True
        try:
            self.panes[other(side)].select_item(found.item if found else None, notify=False)
        finally:
            self._following = False

    @property
    def following(self) -> bool:
        """Whether a selection is being made by `follow` (not by the user)."""
        return self._following

    def show_pair(self, number: int, refilter: Callable[[], None]) -> bool:
        """Select a pair of the diff, clearing filters that would hide it (then `refilter`
        applies that); False if there is no such pair."""
        alignment = self.alignment()
        if alignment is None or not 0 <= number < len(alignment.diff.pairs):
            return False
        pair = alignment.diff.pairs[number]
        for pane in self.panes.values():
            # Filters could hide either row; a difference must be reachable, so they go.
            if pane.matching_rows() is not None:
                pane.clear_filter()
        refilter()
        side = "left" if pair.left is not None else "right"
        self.panes[side].select_item(pair.left if pair.left is not None else pair.right)
        return True

    def reveal(self, side: str, item: int, refilter: Callable[[], None]) -> bool:
        """Select an item, clearing its pane's filter if it hides it; True if it did."""
        pane = self.panes[side]
        hidden = pane.model.row_of_item(item) is None and pane.model.filtered
        if hidden:
            pane.clear_filter()  # the user asked for this item: show it
            refilter()
        pane.select_item(item)
        return hidden

    def step_difference(self, side: str, forward: bool) -> Step | None:
        """Select the next (or previous) changed pair the filters show; None if there is none."""
        alignment = self.alignment()
        if alignment is None or not alignment.changed:
            return None
        item = self.panes[side].current_item()
        current = alignment.position(side, item) if item is not None else None
        step = navigation.step_difference(
            alignment,
            current,
            forward,
            lambda s, i: self.panes[s].model.row_of_item(i) is not None,
        )
        if step is not None:
            self.panes[step.side].select_item(step.item)
        return step

    def step_problem(self, side: str, problems: list[int], forward: bool) -> Step | None:
        """Select the next (or previous) of a side's blocking items; None if it has none."""
        step = navigation.step_problem(problems, self.panes[side].current_item(), forward)
        if step is not None:
            self.panes[side].select_item(step.item)
        return step

    def go_to_counterpart(self, side: str) -> None:
        """Focus the other pane at the aligned item."""
        found = navigation.counterpart(self.alignment(), side, self.panes[side].current_item())
        if found is not None:
            self.panes[found.side].select_item(found.item)
            self.panes[found.side].tree.setFocus()

    def level_conversation_rows(self) -> None:
        """Show the conversation row in both panes when either file has several, so the
        trees' rows stay level side by side."""
        on = any(pane.several_conversations() for pane in self.panes.values())
        for pane in self.panes.values():
            pane.show_conversation_row(on)

    # ---- filters ----------------------------------------------------------------------------

    def refilter(self, match: Matcher, done: Callable[[], None]) -> None:
        """Apply each pane's filter through `match` (the Session's, which runs a large match on
        a worker); in aligned mode a pair shows when either side matches. `done` follows."""
        jobs = {side: pane.filter_job() for side, pane in self.panes.items()}
        shown = {side: (p.model.result, p.model.rows) for side, p in self.panes.items()}

        def apply(rows: dict[str, frozenset[int] | None]) -> None:
            if shown != {side: (p.model.result, p.model.rows) for side, p in self.panes.items()}:
                self.refilter(match, done)  # the transcripts changed while matching: again
                return
            done()
            if self.active():
                active = [r for r in rows.values() if r is not None]
                union = frozenset().union(*active) if active else None
                rows = dict.fromkeys(self.panes, union)
            for side, pane in self.panes.items():
                pane.set_visible_rows(rows[side])

        counts = {side: pane.model.item_count() for side, pane in self.panes.items()}
        match(jobs, counts, apply)

    # ---- columns and width ------------------------------------------------------------------

    def _fill_columns(self, menu: QMenu) -> None:
        # One menu drives both panes so their columns stay in step.
        headers = [pane.tree.header() for pane in self.panes.values()]
        fill_column_menu(menu, headers, self._fit_columns)

    def _fit_columns(self) -> None:
        for pane in self.panes.values():
            pane.fit_columns()

    def columns_menu(self, parent: QWidget) -> QMenu:
        """The View menu's Columns submenu (filled as it opens)."""
        menu = QMenu("&Columns", parent)
        menu.aboutToShow.connect(lambda: self._fill_columns(menu))
        return menu

    def show_columns_menu(self, pos: QPoint) -> None:
        """The columns menu of a header's context menu, at `pos`."""
        menu = QMenu(self.split)
        self._fill_columns(menu)
        menu.exec(pos)
        menu.deleteLater()

    def _moved(self, _position: int, _index: int) -> None:
        self.user_sized = True

    def balance(self) -> None:
        """Share the width between the panes by what their columns need (until the user moves
        the splitter): a pane whose names are longer gets the room to show them whole."""
        if not all(pane.completed for pane in self.panes.values()):
            return  # nothing to fit before the trees are made
        needs = [pane.fitter.needed() for pane in self.panes.values()]
        total = sum(self.split.sizes())
        if self.user_sized or not all(needs) or total <= 0:
            return
        first = left_share(total, self.panes["left"].fitter, self.panes["right"].fitter)
        # Neither side drops below a share that keeps a comparison in view.
        low = int(total * PANE_SHARE_FLOOR)
        first = min(max(first, low), total - low)
        if self.split.sizes() != [first, total - first]:
            self.split.setSizes([first, total - first])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Share the splitter's new width between the panes by what they need."""
        # The event type first: filters also see the events of the splitter's destruction.
        if event.type() == QEvent.Type.Resize and watched is self.split:
            self._balance_timer.start()  # once the splitter has laid its panes out
        return super().eventFilter(watched, event)
