"""The Item tab: the selected item as highlighted JSON, with its verdict and origin."""

from __future__ import annotations

import os
from dataclasses import replace

from PySide6.QtWidgets import QVBoxLayout, QWidget

from inspector.core.gate import ItemVerdict
from inspector.core.model import Item
from inspector.gui import qt_palette
from inspector.gui.json_text import pretty
from inspector.gui.qt_banner import VerdictBanner
from inspector.gui.qt_json_view import JsonView
from inspector.gui.qt_text import dim, plain_label, tooltip


class ItemPanel(QWidget):
    """Pretty JSON of one item; `arguments` stays the literal string it is in the file."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 6)
        column.setSpacing(4)
        self.banner = VerdictBanner(self)
        self.origin = plain_label("", self)
        dim(self.origin)
        self.view = JsonView(self)
        self.view.setObjectName("item-json")
        column.addWidget(self.banner)
        column.addWidget(self.origin)
        column.addWidget(self.view, 1)
        self.clear()

    def clear(self) -> None:
        """Show the hint for an empty selection."""
        self.banner.show_verdict(None, "Select an item in either transcript.")
        self.origin.setText("")
        self.view.set_text("")

    def show_item(self, item: Item, verdict: ItemVerdict, pointer: str = "") -> None:
        """Show an item; a field pointer marks that field's value."""
        self.banner.show_verdict(verdict.verdict, verdict.detail)
        origin = item.origin
        where = replace(origin, file=os.path.basename(origin.file) if origin.file else None)
        self.origin.setText(f"#{item.index}  {where.describe()}")
        self.origin.setToolTip(tooltip(origin.describe()))
        self.view.set_text(pretty(item.raw))
        if pointer:
            brush = qt_palette.change_swatch(qt_palette.ChangeLevel.MINOR).background
            if brush is not None:
                self.view.show_pointer(pointer, "field", brush)
