"""The few values of Qt's enums that the window's first frame sets, as plain ints named as Qt
names them (`AlignmentFlag.AlignCenter` is Qt.AlignmentFlag.AlignCenter's value).

PySide6 makes a Python enum class for each of the `Qt` namespace's 93 enums the first time any
of them is used, and any call that takes or returns one of them uses it (`QLabel.setAlignment`,
`QLabel.alignment()`, `QSplitter(Qt.Orientation.Vertical)`, a layout's `expandingDirections`
override), which costs about a sixth of the window's start. So the first frame sets these
values through paths that take ints (Qt properties: `setProperty("alignment", …)`), and code
that runs later names `Qt` where it runs. Each class here is one enum of the `Qt` namespace;
tests/gui/test_enum_values.py checks every value against PySide6's own, so none can drift.
"""

from __future__ import annotations


class AlignmentFlag:
    """Qt.AlignmentFlag."""

    AlignLeft = 0x0001
    AlignVCenter = 0x0080
    AlignCenter = 0x0084


class Orientation:
    """Qt.Orientation."""

    Horizontal = 0x1
    Vertical = 0x2


class TextFormat:
    """Qt.TextFormat."""

    PlainText = 0


class ItemDataRole:
    """Qt.ItemDataRole."""

    DisplayRole = 0
    DecorationRole = 1
    ToolTipRole = 3
    FontRole = 6
    BackgroundRole = 8
    ForegroundRole = 9
    UserRole = 0x0100
