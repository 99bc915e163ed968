"""The desktop inspector (PySide6); imported only when the GUI starts.

Importing this package has no side effects: its Qt-free modules (those without the ``qt_``
prefix) import without loading PySide6. The PySide6 work-arounds run where the application
object is made (``qt_app._application``) and in the GUI tests' conftest.
"""
