"""The Item tab: the selected item as highlighted JSON, with its verdict and origin."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.gui import qt_palette
from inspector.gui.json_text import Display, Shortened, display, elide, locate, pretty, visible
from inspector.gui.qt_banner import VerdictBanner
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_text import ElidedLabel, dim, menu_text, plain_label, tooltip

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu, QToolButton

    from inspector.core.gate import ItemVerdict
    from inspector.core.model import Item

#: How many shortened values the Copy menu lists by name, and the notice names in its text.
_MENU_ENTRIES = 20
_NAMED = 3
#: Longest pointer shown in the notice and its menu (keys can be as long as values).
_POINTER_LIMIT = 120


class ShortenedNotice(QWidget):
    """Says which long strings a JSON panel shortened, and copies any of them in full.

    Hidden until a value is shortened: its label, button and menu are made then (a start-up
    shows none, and PySide6 makes QToolButton's enums when it is first named).
    """

    label: ElidedLabel
    copy_button: QToolButton
    menu: QMenu

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.made = False
        self.shown = Display("")
        self.hide()

    def _make(self) -> None:
        from PySide6.QtWidgets import QMenu, QToolButton

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.label = ElidedLabel("", self)
        dim(self.label)
        self.copy_button = QToolButton(self)
        self.copy_button.setText("Copy Full Value")
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.copy_button)
        self.copy_button.setMenu(self.menu)
        row.addWidget(self.label, 1)
        row.addWidget(self.copy_button)
        self.made = True

    def set_display(self, shown: Display, whole: Callable[[], str] | None = None) -> None:
        """Describe what `shown` left out; `whole` makes the full text for a 'whole' entry."""
        self.shown = shown
        if shown.complete:
            if self.made:
                self.menu.clear()
            self.hide()
            return
        if not self.made:
            self._make()
        self.menu.clear()
        parts = [_describe(s) for s in shown.shortened[:_NAMED]]
        if len(shown.shortened) > _NAMED:
            parts.append(f"{len(shown.shortened) - _NAMED:,} more")
        if shown.cut:
            parts.append(f"the last {shown.cut:,} chars")
        text = "Shortened for display: " + "; ".join(parts)
        self.label.setText(text)
        self.label.setToolTip(tooltip(text))
        for entry in shown.shortened[:_MENU_ENTRIES]:
            action = self.menu.addAction(menu_text(f"Copy {_describe(entry)}"))
            action.triggered.connect(lambda _c=False, v=entry.value: _copy(v))
        if whole is not None:
            self.menu.addSeparator()
            # Made when asked for: encoding a 200 MB item takes a while and doubles it in memory.
            action = self.menu.addAction("Copy the whole item as JSON")
            action.triggered.connect(lambda _c=False: _copy(whole()))
        self.show()


def _describe(entry: Shortened) -> str:
    what = "key" if entry.key else "value"
    where = elide(entry.pointer or "/", _POINTER_LIMIT)
    return f"{what} at {where} ({len(entry.value):,} chars)"


def _copy(text: str) -> None:
    QGuiApplication.clipboard().setText(text)


class ItemPanel(QWidget):
    """Pretty JSON of one item; `arguments` stays the literal string it is in the file.

    Strings too long to lay out are shortened in the view (with their length); the notice
    above it copies any of them, or the whole item, in full.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.banner = VerdictBanner(self)
        self.origin = plain_label("", self)
        dim(self.origin)
        # For an item converted from another API: how it was made, and the native block.
        self.conversion = plain_label("", self)
        self.conversion.setObjectName("conversion-note")
        self.conversion.setWordWrap(True)
        self.notice = ShortenedNotice(self)
        self.view = JsonView(self)
        self.view.setObjectName("item-json")
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # long strings wrap
        self.native_box = QWidget(self)
        native_column = QVBoxLayout(self.native_box)
        native_column.setContentsMargins(0, 0, 0, 0)
        self.native_caption = plain_label("", self.native_box)
        dim(self.native_caption)
        self.native_view = JsonView(self.native_box)
        self.native_view.setObjectName("native-json")
        native_column.addWidget(self.native_caption)
        native_column.addWidget(self.native_view, 1)
        self.split = QSplitter(parent=self)  # horizontal (the `Qt` namespace not named)
        self.split.addWidget(self.view)
        self.split.addWidget(self.native_box)
        column.addWidget(self.banner)
        column.addWidget(self.origin)
        column.addWidget(self.conversion)
        column.addWidget(self.notice)
        column.addWidget(self.split, 1)
        self.raw: Any = None
        #: Text highlighted wherever it occurs (the Search tab's query; '' for none).
        self.find_query = ""
        self.clear()

    def clear(self) -> None:
        """Show the hint for an empty selection."""
        self.raw = None
        self.banner.show_verdict(None, "Select an item in either transcript.")
        self.origin.setText("")
        self.notice.set_display(Display(""))
        self.view.set_text("")
        self._show_conversion(None)

    def full_json(self) -> str:
        """The shown item as indented JSON, in full ('' when none is shown)."""
        return pretty(self.raw) if self.raw is not None else ""

    def show_item(self, item: Item, verdict: ItemVerdict, pointer: str = "") -> None:
        """Show an item; a field pointer marks that field's value."""
        self.raw = item.raw
        self.banner.show_verdict(verdict.verdict, verdict.detail)
        origin = item.origin
        where = replace(origin, file=os.path.basename(origin.file) if origin.file else None)
        self.origin.setText(f"#{item.index}  {where.describe()}")
        self.origin.setToolTip(tooltip(origin.describe()))
        shown = display(item.raw)
        self.view.set_text(shown.text)
        self.notice.set_display(shown, self.full_json)
        self._show_conversion(item)
        if pointer:
            brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MINOR).background
            if brush is not None:
                self.view.show_pointer(pointer, "field", brush)
        self.show_find(pointer)

    def _show_conversion(self, item: Item | None) -> None:
        """Say how a converted item was made and show its native block beside it."""
        conversion = item.conversion if item is not None else None
        self.conversion.setVisible(conversion is not None)
        self.native_box.setVisible(conversion is not None)
        if conversion is None:
            self.conversion.setText("")
            self.native_view.set_text("")
            return
        self.conversion.setText(visible(conversion.describe()))
        self.native_caption.setText(f"native {conversion.label or conversion.source} JSON")
        self.native_view.set_text(display(conversion.native).text)

    def set_find(self, query: str) -> None:
        """Highlight every occurrence of `query` (any case) in the shown item ('' for none)."""
        self.find_query = query
        self.show_find()

    def show_find(self, pointer: str = "") -> list[tuple[int, int]]:
        """Mark the find query's occurrences; the first inside `pointer`'s value is selected."""
        from inspector.gui.contents import spans_of  # the first frame shows no item

        text = self.view.toPlainText()
        spans = spans_of(text, self.find_query) if self.find_query and self.raw is not None else []
        brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MAJOR).background
        if brush is not None:
            self.view.mark_spans("find", spans, brush)
        if spans:
            field = locate(text, pointer) if pointer else None
            inside = [s for s in spans if field is None or field[0] <= s[0] < field[1]]
            self.view.select_span(*(inside or spans)[0])
        return spans
