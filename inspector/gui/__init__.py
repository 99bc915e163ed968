"""The desktop inspector (PySide6); imported only when the GUI starts."""

from inspector.gui.qt_compat import pin_singletons

# Before any other Qt call: some PySide6 releases would otherwise abort a long session.
pin_singletons()
