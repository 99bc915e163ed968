"""The toolbar's diff mode switch (replay / compare) and target provider selector."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QProgressBar, QToolBar, QWidget

from inspector.core.diff.values import DiffMode
from inspector.gui.qt_session import DIFF, Session
from inspector.gui.qt_text import tooltip
from inspector.gui.qt_workers import TaskRunner

if TYPE_CHECKING:
    from inspector.core.targets import Profile

_MODE_WORDS = {DiffMode.REPLAY: "&Replay", DiffMode.COMPARE: "&Compare"}
_MODE_KEYS = {DiffMode.REPLAY: "Ctrl+Shift+1", DiffMode.COMPARE: "Ctrl+Shift+2"}


class ModeSwitch(QObject):
    """Two exclusive checkable actions, replay and compare, for the toolbar and the View menu."""

    #: the chosen mode's value ('replay' or 'compare').
    changed = Signal(str)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.actions: dict[DiffMode, QAction] = {}
        for mode in DiffMode:
            action = QAction(_MODE_WORDS[mode], self)
            action.setCheckable(True)
            action.setShortcut(QKeySequence(_MODE_KEYS[mode]))
            tip = f"{mode} mode: {mode.description}"
            action.setStatusTip(tip)
            action.setToolTip(tooltip(tip))
            action.setData(str(mode))
            self.group.addAction(action)
            self.actions[mode] = action
        self.actions[DiffMode.REPLAY].setChecked(True)
        self.group.triggered.connect(lambda action: self.changed.emit(action.data()))

    @property
    def mode(self) -> DiffMode:
        """The checked mode."""
        return next(m for m, a in self.actions.items() if a.isChecked())

    def set_mode(self, mode: DiffMode | str) -> None:
        """Check a mode (and announce it when it changes)."""
        mode = DiffMode(mode)
        if mode != self.mode:
            self.actions[mode].setChecked(True)
            self.changed.emit(str(mode))


def _load_profiles(_progress: object) -> object:
    # On a worker: importing the targets and validating their data are most of the work.
    from inspector.core.targets import load_profiles

    return load_profiles()


class TargetSelector(QComboBox):
    """'No target' or one of the target profiles (named, with their titles as tooltips).

    The profiles are loaded (and validated) when first needed: opening the list, choosing a
    target, or the window's first idle moment after its first paint (`fill`).
    """

    #: the chosen profile, or None for no target.
    target_changed = Signal(object)

    NONE = "No target"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("target-selector")
        tip = (
            "Target provider: also judge both transcripts by what this provider rejects or "
            "silently changes (tool schemas, names, call ids, turn order, reasoning)"
        )
        self.setToolTip(tooltip(tip))
        self.setStatusTip(tip)
        self.addItem(self.NONE, None)
        self._profiles: dict[str, Profile] | None = None
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.currentIndexChanged.connect(lambda _i: self.target_changed.emit(self.target))

    @property
    def profiles(self) -> dict[str, Profile]:
        """Every target profile by name, in the registry's order (loaded on first use)."""
        return self.fill()

    def fill(self) -> dict[str, Profile]:
        """Load the profiles and list them after 'No target' (once); return them."""
        if self._profiles is None:
            from inspector.core.targets import load_profiles

            self._profiles = dict(load_profiles())
            for name, profile in self._profiles.items():
                self.addItem(name, name)
                tip = tooltip(profile.title)
                self.setItemData(self.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        return self._profiles

    def fill_later(self, runner: TaskRunner) -> None:
        """Load the profiles on a worker, then list them here (a profile that fails to load
        fails again in `fill`, on the GUI thread, as a bug)."""
        runner.start("targets", _load_profiles, self._filled, self._filled)

    def _filled(self, _outcome: object) -> None:
        self.fill()

    def showPopup(self) -> None:
        """Open the list, with every profile in it."""
        self.fill()
        super().showPopup()

    @property
    def target(self) -> Profile | None:
        """The chosen profile (None: no target)."""
        name = self.currentData()
        return self.profiles.get(name) if isinstance(name, str) else None

    def set_target(self, name: str | None) -> None:
        """Choose a profile by name (None or unknown: no target)."""
        at = self.findData(name) if name is not None and self.fill() else 0
        self.setCurrentIndex(max(at, 0))


class ToolbarFit(QObject):
    """Shows a toolbar's buttons as icons alone when their words do not fit its width, so every
    action stays on the bar rather than behind the overflow arrow (the tooltips keep the words);
    buttons without an icon keep their text."""

    def __init__(self, bar: QToolBar) -> None:
        super().__init__(bar)
        self.bar = bar
        #: The width the bar takes with words beside the icons (measured in that style).
        self._full: int | None = None
        bar.installEventFilter(self)

    @property
    def compact(self) -> bool:
        """Whether the buttons show their icons alone."""
        return self.bar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Pick the style again when the bar is resized or its actions change."""
        kind = event.type()
        if watched is self.bar and kind in (QEvent.Type.ActionAdded, QEvent.Type.ActionRemoved):
            self._full = None
        elif watched is self.bar and kind in (QEvent.Type.Resize, QEvent.Type.Show):
            self.fit()
        return False

    def fit(self) -> None:
        """Words beside the icons when they fit the bar's width, icons alone otherwise."""
        bar = self.bar
        if self._full is None:
            bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self._full = bar.sizeHint().width()
        style = (
            Qt.ToolButtonStyle.ToolButtonTextBesideIcon
            if self._full <= bar.width()
            else Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        if bar.toolButtonStyle() != style:
            bar.setToolButtonStyle(style)


class DiffProgressBar(QProgressBar):
    """How far the diff of the two sides has got, in the status bar while it runs (a large
    pair takes seconds); hidden otherwise."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diff-progress")
        self.setRange(0, 1000)
        self.setFormat("Comparing %p%")
        self.setMaximumWidth(200)
        self.hide()
        session.diff_progress.connect(self.set_stage)
        session.busy.connect(self._busy)

    def set_stage(self, stage: str, fraction: float) -> None:
        """Show the diff's stage (as the tooltip) and how far it has got."""
        self.setToolTip(tooltip(stage))
        if fraction < 0:
            self.setRange(0, 0)  # how far is unknown: a busy bar
            return
        self.setRange(0, 1000)
        self.setValue(round(min(max(fraction, 0.0), 1.0) * 1000))

    def _busy(self, channel: str, running: bool) -> None:
        if channel == DIFF:
            self.setValue(0)
            self.setVisible(running)
