"""The desktop inspector (PySide6); imported only when the GUI starts."""
