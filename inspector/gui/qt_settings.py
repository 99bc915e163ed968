"""Every persisted setting in one place: geometry, window and splitter state, recent files.

Qt writes the INI store itself, atomically: QSettings saves through a QSaveFile (a temporary
file renamed over the old one) under a QLockFile (`<name>.lock`), so a crash or a second
instance never leaves a half-written store. The application's only other file output, the
--screenshot PNG, goes through a QSaveFile as well (qt_app.save_png); input files are only read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings

if TYPE_CHECKING:  # named only to be typed: naming QHeaderView builds its enums, at start-up
    from PySide6.QtWidgets import QHeaderView, QMainWindow, QMenu, QSplitter, QWidget

from inspector.gui.json_text import visible
from inspector.gui.qt_text import menu_text, tooltip

ORGANIZATION = "ReplayInspector"
APPLICATION = "replay-inspector"
#: How many files Open Recent remembers.
MAX_RECENT = 10


class Settings:
    """Typed access to the application's QSettings store."""

    def __init__(self, store: QSettings) -> None:
        self._store = store

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> Settings:
        """Open the user's store, or an INI file at `path` (tests and --settings use one)."""
        if path is not None:
            return cls(QSettings(os.fspath(path), QSettings.Format.IniFormat))
        return cls(
            QSettings(
                QSettings.Format.IniFormat,
                QSettings.Scope.UserScope,
                ORGANIZATION,
                APPLICATION,
            )
        )

    @property
    def path(self) -> str:
        """Where the store lives."""
        return self._store.fileName()

    def sync(self) -> None:
        """Write pending changes to disk."""
        self._store.sync()

    def _bytes(self, key: str) -> QByteArray | None:
        value: Any = self._store.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def geometry(self) -> QByteArray | None:
        """The saved main-window geometry."""
        return self._bytes("window/geometry")

    def set_geometry(self, value: QByteArray) -> None:
        """Remember the main-window geometry."""
        self._store.setValue("window/geometry", value)

    def window_state(self) -> QByteArray | None:
        """The saved main-window state (toolbars, docks)."""
        return self._bytes("window/state")

    def set_window_state(self, value: QByteArray) -> None:
        """Remember the main-window state."""
        self._store.setValue("window/state", value)

    def splitter(self, name: str) -> QByteArray | None:
        """The saved state of a named splitter."""
        return self._bytes(f"splitters/{name}")

    def set_splitter(self, name: str, value: QByteArray) -> None:
        """Remember the state of a named splitter."""
        self._store.setValue(f"splitters/{name}", value)

    def header(self, name: str) -> QByteArray | None:
        """The saved state (widths, hidden columns) of a named tree header."""
        return self._bytes(f"headers/{name}")

    def set_header(self, name: str, value: QByteArray) -> None:
        """Remember the state of a named tree header."""
        self._store.setValue(f"headers/{name}", value)

    def recent_files(self) -> list[str]:
        """Recently opened files, newest first."""
        value: Any = self._store.value("files/recent", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def add_recent_file(self, path: str) -> list[str]:
        """Put a file first in the recent list and return the list."""
        full = os.path.abspath(path)
        files = [full] + [f for f in self.recent_files() if f != full]
        files = files[:MAX_RECENT]
        self._store.setValue("files/recent", files)
        return files

    def clear_recent_files(self) -> None:
        """Forget the recent files."""
        self._store.remove("files/recent")

    def aligned(self) -> bool:
        """Whether aligned mode was on."""
        return _as_bool(self._store.value("view/aligned", True))

    def set_aligned(self, value: bool) -> None:
        """Remember aligned mode."""
        self._store.setValue("view/aligned", value)

    def last_directory(self) -> str:
        """The folder the last file dialog was in."""
        value: Any = self._store.value("files/last_directory", "")
        return value if isinstance(value, str) else ""

    def set_last_directory(self, value: str) -> None:
        """Remember the folder of the last file dialog."""
        self._store.setValue("files/last_directory", value)

    def ask_open(
        self, parent: QWidget, title: str, filters: str, near: str | None = None
    ) -> str | None:
        """Ask for a file to open, starting in the folder of `near` (a file already open) or
        else the last folder a dialog was in, which is then remembered; None if cancelled."""
        # Named here: PySide6 builds a class's enums when it is first named (not at start-up).
        from PySide6.QtWidgets import QFileDialog

        folder = os.path.dirname(near) if near else self.last_directory()

        path, _filter = QFileDialog.getOpenFileName(parent, title, folder, filters)
        if not path:
            return None
        self.set_last_directory(os.path.dirname(path))
        return path

    def export_directory(self) -> str:
        """The folder the last report was written to (else the user's documents folder: a
        report is not put among the input files unless the user chooses so)."""
        value: Any = self._store.value("files/export_directory", "")
        if isinstance(value, str) and value:
            return value
        from PySide6.QtCore import QStandardPaths

        location = QStandardPaths.StandardLocation.DocumentsLocation
        return QStandardPaths.writableLocation(location) or os.path.expanduser("~")

    def set_export_directory(self, value: str) -> None:
        """Remember the folder a report was written to."""
        self._store.setValue("files/export_directory", value)

    def restore_window(
        self,
        window: QMainWindow,
        splitters: Mapping[str, QSplitter],
        headers: Mapping[str, QHeaderView],
    ) -> None:
        """Put back geometry, window state, splitters and headers (defaults where none)."""
        geometry = self.geometry()
        if geometry is not None:
            window.restoreGeometry(geometry)
        else:
            window.resize(1400, 900)
        state = self.window_state()
        if state is not None:
            window.restoreState(state)
        for name, splitter in splitters.items():
            saved = self.splitter(name)
            if saved is not None:
                splitter.restoreState(saved)
            elif name == "main":
                splitter.setSizes([500, 400])
        self.restore_headers(headers)

    def restore_headers(self, headers: Mapping[str, QHeaderView]) -> None:
        """Put back the headers' saved states (columns shown, their widths and order)."""
        for name, header in headers.items():
            saved = self.header(name)
            if saved is not None:
                header.restoreState(saved)

    def save_window(
        self,
        window: QMainWindow,
        splitters: Mapping[str, QSplitter],
        headers: Mapping[str, QHeaderView],
    ) -> None:
        """Remember geometry, window state, splitters and headers, and write the store."""
        self.set_geometry(window.saveGeometry())
        self.set_window_state(window.saveState())
        for name, splitter in splitters.items():
            self.set_splitter(name, splitter.saveState())
        for name, header in headers.items():
            self.set_header(name, header.saveState())
        self.sync()

    def fill_recent_menu(
        self, menu: QMenu, side: str, open_file: Callable[[str, str], None]
    ) -> None:
        """List the recent files in `menu`; choosing one opens it on `side`."""
        menu.clear()
        files = self.recent_files()
        if not files:
            menu.addAction("No recent files").setEnabled(False)
            return
        menu.addAction(f"Opens in the {side} pane").setEnabled(False)
        for path in files:
            action = menu.addAction(menu_text(os.path.basename(path)))
            action.setToolTip(tooltip(path))
            action.setStatusTip(visible(path))
            action.triggered.connect(lambda _c=False, p=path: open_file(side, p))
        menu.addSeparator()
        menu.addAction("Clear Recent Files").triggered.connect(self.clear_recent_files)


def _as_bool(value: Any) -> bool:
    # INI stores booleans as the strings "true"/"false".
    if isinstance(value, str):
        return value.lower() in ("true", "1", "yes")
    return bool(value)
