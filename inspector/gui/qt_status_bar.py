"""The status bar's decision line (icon, words, colour), the tools files and the step buttons."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from inspector.gui import qt_palette
from inspector.gui.qt_text import ElidedLabel, PointingHand, plain_label, tooltip
from inspector.gui.status import StatusLine

if TYPE_CHECKING:
    from PySide6.QtGui import QAction


class DecisionBar:
    """Fills a window's status bar; `show_line` puts a status.StatusLine in it."""

    def __init__(self, bar: QStatusBar, clicked: Callable[[], None]) -> None:
        self.bar = bar
        self.icon = QLabel(bar)
        self.label = ElidedLabel("", bar)
        font = self.label.font()
        font.setBold(True)
        self.label.setFont(font)
        bar.addWidget(self.icon)
        bar.addWidget(self.label, 1)
        self.tools_label = plain_label("", bar)
        bar.addPermanentWidget(self.tools_label)
        # The reasons line opens the Changes tab, where every reason is listed with its pair.
        ClickOpens(self.label, clicked)

    def add_permanent(self, extras: Sequence[QWidget], buttons: Sequence[QAction]) -> None:
        """Put widgets (the diff's progress) after the tools' names, then a button per action."""
        # Made after the first paint, which names neither (PySide6 makes a class's enums then).
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QToolButton

        for extra in extras:
            self.bar.addPermanentWidget(extra)
        for action in buttons:
            button = QToolButton(self.bar)
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self.bar.addPermanentWidget(button)

    def show_line(self, line: StatusLine) -> None:
        """Show the decision's words, with its icon and, for errors and warnings, colour."""
        icon: QIcon | None = None
        if line.icon == "ok":
            icon = qt_palette.verdict_swatch("ok").icon
        elif line.icon:
            icon = qt_palette.severity_swatch(line.icon).icon
        self.icon.setPixmap(qt_palette.pixmap(icon, 16) if icon is not None else QPixmap())
        self.label.setText(line.text)
        self.label.setToolTip(tooltip(line.tip) if line.tip else "")
        palette = self.bar.palette()
        if line.severity in ("error", "warning"):
            colour = qt_palette.severity_swatch(line.severity).foreground.color()
            palette.setColor(QPalette.ColorRole.WindowText, colour)
        self.label.setPalette(palette)

    def show_tools(self, tool_files: Sequence[str]) -> None:
        """Name the loaded tools files (their paths in the tooltip)."""
        names = ", ".join(os.path.basename(p) for p in tool_files)
        self.tools_label.setText(f"tools: {names}" if tool_files else "")
        self.tools_label.setToolTip(tooltip("\n".join(tool_files)) if tool_files else "")


class ClickOpens(QObject):
    """Makes a label (the status bar's decision line) run a callback when it is clicked."""

    def __init__(self, widget: QWidget, callback: Callable[[], Any]) -> None:
        super().__init__(widget)
        self._callback = callback
        PointingHand(widget)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Run the callback on a left-button release over the widget."""
        if event.type() == QEvent.Type.MouseButtonRelease:
            from PySide6.QtCore import Qt  # a click comes after the first paint

            if getattr(event, "button", lambda: None)() == Qt.MouseButton.LeftButton:
                self._callback()
                return True
        return super().eventFilter(watched, event)
