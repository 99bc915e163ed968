"""QActions, menus, toolbar and the help dialogs, built from the action table (actions.py).

A start-up paints the window's panes first and furnishes it with these (`furnish`) right after
that first paint, so the toolbar and the menus' contents appear in the next frame: their Qt
classes, icons and this module are what a first paint would otherwise wait for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMainWindow,
    QMenu,
    QMessageBox,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from inspector import __version__
from inspector.gui import qt_palette
from inspector.gui.actions import ACTIONS, KEY_NOTES, MENUS, SUBMENUS, TOOLBAR
from inspector.gui.json_text import visible
from inspector.gui.navigation import pane_side
from inspector.gui.qt_diff_controls import DiffProgressBar, ModeSwitch, TargetSelector, ToolbarFit
from inspector.gui.qt_records import Record, RecordsModel, fit_columns, records_view
from inspector.gui.qt_text import plain_label, tooltip


def key_text(action: QAction) -> str:
    """An action's shortcut as portable text ("Ctrl+Shift+O"; "" when it has none)."""
    return action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)


def _slot(window: Any, path: str) -> Callable[..., Any]:
    """The window's method, or the method at a dotted path from it, looked up when called: a
    detail tab's panel ("details.arguments_panel.revert") is made when first used."""
    first, *rest = path.split(".")
    owner = getattr(window, first)  # a wrong name fails when the actions are made
    if not rest:
        return cast(Callable[..., Any], owner)

    def call(*args: Any) -> Any:
        target = owner
        for part in rest:
            target = getattr(target, part)
        return target(*args)

    return call


def build_actions(window: Any) -> dict[str, QAction]:
    """One QAction per table entry, calling the window's method; also set as `<name>_action`."""
    actions = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        if spec.shortcut:
            action.setShortcut(QKeySequence(spec.shortcut))
        if spec.tip:
            action.setStatusTip(spec.tip)
            action.setToolTip(tooltip(spec.tip))
        if spec.icon is not None:
            action.setIcon(qt_palette.action_icon(spec.icon))
        if spec.short:
            action.setIconText(spec.short)
        slot = _slot(window, spec.slot)
        if spec.checkable:
            action.setCheckable(True)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _c=False, s=slot, a=spec.args: s(*a))
        actions[spec.name] = action
        setattr(window, f"{spec.name}_action", action)
    return actions


def build_menus(
    window: QMainWindow,
    actions: Mapping[str, QAction],
    recent: QMenu,
    modes: list[QAction],
    columns: QMenu,
) -> dict[str, QMenu]:
    """The menu bar from the table, with Open Recent, Diff Mode and Columns where SUBMENUS
    puts them."""
    menus = {title: window.menuBar().addMenu(title) for title in MENUS}
    mode_menu = QMenu("Diff &Mode", window)
    mode_menu.addActions(modes)
    submenus = {"Open &Recent": recent, "Diff &Mode": mode_menu, "&Columns": columns}
    after = {name: (menu, title) for menu, name, title in SUBMENUS}
    for title, menu in menus.items():
        group = None
        for spec in ACTIONS:
            if spec.menu != title:
                continue
            if group is not None and spec.group != group:
                menu.addSeparator()
            group = spec.group
            menu.addAction(actions[spec.name])
            if spec.name in after:
                sub = submenus[after[spec.name][1]]
                menu.addMenu(sub)
    return menus


def build_toolbar(
    window: QMainWindow, actions: Mapping[str, QAction], extras: Mapping[str, Iterable[Any]]
) -> QToolBar:
    """The toolbar from TOOLBAR; "@name" entries take the actions or widgets in `extras`."""
    bar = QToolBar("Main", window)
    bar.setObjectName("main-toolbar")
    bar.setMovable(False)
    bar.setIconSize(QSize(16, 16))
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    for name in TOOLBAR:
        if name == "-":
            bar.addSeparator()
        elif name.startswith("@"):
            for extra in extras.get(name, ()):
                if isinstance(extra, QAction):
                    bar.addAction(extra)
                else:
                    bar.addWidget(extra)
        else:
            bar.addAction(actions[name])
    window.addToolBar(bar)
    return bar


def shortcut_rows(actions: Iterable[QAction]) -> list[tuple[str, str]]:
    """(keys, what) for every action with a shortcut, then the keys of no action."""
    rows = [
        (action.shortcut().toString(QKeySequence.SequenceFormat.NativeText), _words(action))
        for action in actions
        if not action.shortcut().isEmpty()
    ]
    return rows + list(KEY_NOTES)


def _words(action: QAction) -> str:
    return action.text().replace("&", "").rstrip("…")


class ShortcutsDialog(QDialog):
    """Every keyboard shortcut in a two-column table (no padding of a proportional font)."""

    def __init__(self, rows: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        column = QVBoxLayout(self)
        self.model = RecordsModel(("Keys", "Action"), self)
        self.model.set_records([Record(row) for row in rows])
        self.view = records_view(self.model, self)
        self.view.setObjectName("shortcuts")
        column.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)
        self.resize(520, 560)
        fit_columns(self.view)


class WindowHelp:
    """The Help menu's boxes: About, Verdicts and Markers, Keyboard Shortcuts."""

    def __init__(self, parent: QWidget, actions: Callable[[], list[QAction]]) -> None:
        self.parent = parent
        self._actions = actions

    def about(self) -> None:
        """Show the About box."""
        message(self.parent, "About Replay Inspector", about_text())

    def verdicts(self) -> None:
        """Explain every verdict and marker."""
        message(self.parent, "Verdicts and Markers", verdict_help())

    def shortcuts(self) -> None:
        """List every keyboard shortcut."""
        dialog = ShortcutsDialog(shortcut_rows(self._actions()), self.parent)
        dialog.exec()
        dialog.deleteLater()


def recent_menu(
    parent: QWidget, settings: Any, side: Callable[[], str], open_file: Callable[..., Any]
) -> QMenu:
    """File → Open Recent, filled each time it opens (the recent files change meanwhile)."""
    menu = QMenu("Open &Recent", parent)
    menu.aboutToShow.connect(lambda: settings.fill_recent_menu(menu, side(), open_file))
    return menu


def message(parent: QWidget, title: str, text: str, *, warning: bool = False) -> None:
    """A modal message box with plain text (text may come from a file)."""
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(visible(text, lines=True))
    if warning:
        box.setIcon(QMessageBox.Icon.Warning)
    else:
        box.setIconPixmap(qt_palette.pixmap(qt_palette.app_icon(), 48))
    box.exec()


def about_text() -> str:
    """What the About box says."""
    return (
        f"Replay Inspector {__version__}\n\n"
        "Checks logged Open Responses items before they are replayed to another model "
        "provider: the replay gate per item, two providers' transcripts side by side, "
        "tool-argument validation with JSON Schema, and recorded stream checks."
    )


def verdict_help() -> str:
    """Every verdict and change marker, with its meaning."""
    lines = [f"{v}: {qt_palette.verdict_swatch(v).meaning}" for v in qt_palette.all_verdicts()]
    lines.append("")
    for level in qt_palette.ChangeLevel:
        lines.append(f"{level} change: {qt_palette.change_swatch(level).meaning}")
    return "\n".join(lines)


def furnish(window: Any) -> None:
    """Give a MainWindow its actions, menus, toolbar and status-bar buttons, wired to it."""
    window.mode_switch = ModeSwitch(window)
    window.target_selector = TargetSelector(window)
    window.help = WindowHelp(window, lambda: window.shortcut_actions())
    window.act = actions = build_actions(window)
    actions["aligned"].setChecked(window.aligned)
    actions["legend"].setChecked(True)
    actions["sample"].setVisible(window.samples is not None)
    actions["export"].setEnabled(False)  # until a file is open
    window.recent_menu = recent_menu(
        window, window.settings, lambda: pane_side(window.current_side), window.open_file
    )
    modes = list(window.mode_switch.actions.values())
    columns = window.link.columns_menu(window)
    window.menus = build_menus(window, actions, window.recent_menu, modes, columns)
    window.file_menu, window.view_menu = window.menus["&File"], window.menus["&View"]
    target = [plain_label(" Target: ", window), window.target_selector]
    window.toolbar = build_toolbar(window, actions, {"@modes": modes, "@target": target})
    window.toolbar_fit = ToolbarFit(window.toolbar)
    window.diff_progress = DiffProgressBar(window.session, window.statusBar())
    window.status.add_permanent(
        [window.diff_progress], [actions["prev_diff"], actions["next_diff"]]
    )
    window.session.follow_stopped.connect(lambda _side: actions["follow"].setChecked(False))
    window.mode_switch.changed.connect(window.set_mode)
    window.target_selector.target_changed.connect(window.set_target)
    # The toolbar's saved state, now that it exists (the window's geometry was put back first).
    state = window.settings.window_state()
    if state is not None:
        window.restoreState(state)
