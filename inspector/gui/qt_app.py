"""Start the desktop inspector: arguments, the application object, screenshots, the bug hook."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, qFormatLogMessage, qInstallMessageHandler
from PySide6.QtGui import QGuiApplication, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from inspector import __version__
from inspector.core.modes import DiffMode
from inspector.core.verdicts import PASSING, Verdict
from inspector.gui import qt_palette
from inspector.gui.qt_compat import pin_singletons
from inspector.gui.qt_main_window import MainWindow, Tab
from inspector.gui.qt_settings import APPLICATION, ORGANIZATION, Settings

if TYPE_CHECKING:  # named for the type checker: PySide6 makes a class's enums when named
    from PySide6.QtCore import QMessageLogContext, QtMsgType

#: The size screenshots are rendered at unless --size says otherwise.
SCREENSHOT_SIZE = (1400, 900)
_ARGUMENT_VERDICTS = {Verdict.ARGUMENTS_PARSE, Verdict.ARGUMENTS_SCHEMA, Verdict.UNKNOWN_TOOL}


#: --target's help; the names of the targets are filled in when the help is shown.
_TARGET_HELP = "judge both transcripts for a target provider too ({names})"


class _Parser(argparse.ArgumentParser):
    """The GUI's argument parser: it names the targets only in --help, since listing them loads
    (and validates) every profile, which a window's start does not need."""

    def format_help(self) -> str:
        """The help text, with the target names in --target's."""
        from inspector.core.targets import profile_names

        for action in self._actions:
            if action.dest == "target":
                action.help = _TARGET_HELP.format(names=", ".join(profile_names()))
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The GUI's command line."""
    parser = _Parser(
        prog="replay-inspector",
        description="Open Open Responses transcripts side by side and check what may be replayed.",
    )
    parser.add_argument("left", nargs="?", help="transcript for the left pane")
    parser.add_argument("right", nargs="?", help="transcript for the right pane")
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="FILE",
        help="tool schemas to gate with (repeatable; later files win)",
    )
    parser.add_argument(
        "--target",
        metavar="P",
        type=_target,
        help=_TARGET_HELP.format(names="see --help"),
    )
    parser.add_argument(
        "--mode",
        choices=[str(m) for m in DiffMode],
        default=str(DiffMode.REPLAY),
        help="how the right transcript is read against the left (default %(default)s)",
    )
    parser.add_argument(
        "--screenshot", metavar="PNG", help="render the window offscreen to a PNG and exit"
    )
    parser.add_argument(
        "--size",
        default=f"{SCREENSHOT_SIZE[0]}x{SCREENSHOT_SIZE[1]}",
        metavar="WxH",
        help="window size for --screenshot (default %(default)s)",
    )
    parser.add_argument(
        "--select",
        metavar="ID",
        help="with --screenshot: the item id or call_id to select on the left",
    )
    theme = parser.add_mutually_exclusive_group()
    theme.add_argument("--dark", action="store_true", help="force a dark palette (Fusion style)")
    theme.add_argument("--light", action="store_true", help="force a light palette (Fusion style)")
    parser.add_argument(
        "--settings", metavar="INI", help="keep settings in this INI file instead of the user's"
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _target(text: str) -> str:
    from inspector.core.targets import UnknownTarget, get_profile

    try:
        return get_profile(text.strip()).name
    except UnknownTarget as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _size(text: str) -> tuple[int, int]:
    width, _sep, height = text.lower().partition("x")
    return max(int(width), 640), max(int(height), 480)


#: Messages Qt's platform plugins print about features the window does not need: the offscreen
#: plugin (screenshots, tests, headless CI) cannot pass size hints to a window system it lacks.
HARMLESS_QT_MESSAGES = ("This plugin does not support propagateSizeHints()",)


def qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's messages go to stderr as Qt would print them, except the known-harmless ones."""
    if message.startswith(HARMLESS_QT_MESSAGES):
        return
    if sys.__stderr__ is not None:
        sys.__stderr__.write(qFormatLogMessage(kind, context, message) + "\n")


def _application() -> QApplication:
    # Before the session's first thousands of Qt calls: some PySide6 releases would otherwise
    # abort a long session (see qt_compat).
    pin_singletons()
    qInstallMessageHandler(qt_message)
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication([sys.argv[0] if sys.argv else "replay-inspector"])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Replay Inspector")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("replay-inspector")
    app.setWindowIcon(qt_palette.app_icon())
    return app


def _apply_theme(app: QApplication, args: argparse.Namespace) -> None:
    if args.dark:
        qt_palette.apply_forced_theme(app, qt_palette.Theme.DARK)
    elif args.light:
        qt_palette.apply_forced_theme(app, qt_palette.Theme.LIGHT)
    else:
        qt_palette.set_theme(qt_palette.detect_theme())


_showing_bug = False


def excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """Print an unexpected exception and show it in the bug dialog (once at a time)."""
    global _showing_bug
    text = "".join(traceback.format_exception(kind, value, tb))
    if sys.__stderr__ is not None:
        sys.__stderr__.write(text)
    if _showing_bug or QApplication.instance() is None:
        return
    _showing_bug = True
    try:
        from inspector.gui.qt_bug_dialog import BugDialog  # made only for a bug

        BugDialog(text, QApplication.activeWindow()).exec()
    finally:
        _showing_bug = False


def _interesting_item(window: MainWindow, select: str | None) -> int | None:
    result = window.results["left"]
    if result is None:
        return None
    items, verdicts = result.transcript.items, result.verdicts
    if select is not None:
        return next(
            (i for i, it in enumerate(items) if select in (it.id, it.raw.get("call_id"))), None
        )
    for wanted in (Verdict.ARGUMENTS_SCHEMA, Verdict.ARGUMENTS_PARSE):
        found = next((i for i, v in enumerate(verdicts) if v.verdict == wanted), None)
        if found is not None:
            return found
    blocked = next((i for i, v in enumerate(verdicts) if v.verdict not in PASSING), None)
    return blocked if blocked is not None else (0 if items else None)


def save_png(pixmap: QPixmap, path: str) -> bool:
    """Write a PNG atomically: a failed write leaves any earlier file at `path` as it was."""
    # Imported here: naming a Qt class makes PySide6 build its enums; a start-up needs none.
    from PySide6.QtCore import QIODevice, QSaveFile

    target = QSaveFile(path)
    if not target.open(QIODevice.OpenModeFlag.WriteOnly):
        return False
    if not pixmap.save(target, "PNG"):
        target.cancelWriting()
        return False
    return target.commit()


def screenshot(window: MainWindow, path: str, size: tuple[int, int], select: str | None) -> int:
    """Render the window at `size`, with an interesting item selected, into a PNG."""
    if QGuiApplication.platformName() != "offscreen":
        from PySide6.QtCore import Qt  # a start-up names no `Qt` enum (enum_values)

        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    window.resize(*size)
    window.show()
    window.settle()
    item = _interesting_item(window, select)
    if select is not None and item is None:
        window.close()
        sys.stderr.write(f"replay-inspector: --select {select}: no item on the left has this id\n")
        return 2
    if item is not None:
        window.select("left", item)
        result = window.results["left"]
        assert result is not None
        verdict = result.verdicts[item].verdict
        window.tabs.setCurrentIndex(Tab.ARGUMENTS if verdict in _ARGUMENT_VERDICTS else Tab.ITEM)
        errors = window.arguments_panel.errors_view
        if errors.model().rowCount() > 0:
            errors.selectRow(0)
        window.left.tree.setFocus()
    window.settle()
    if item is not None:
        # The tabs' contents settle the layout last; the tree may have shrunk under its row.
        window.left.tree.scrollTo(window.left.tree.currentIndex())
        window.settle()
    ok = save_png(window.grab(), path)
    window.close()
    if not ok:
        sys.stderr.write(f"replay-inspector: cannot write {path}\n")
        return 2
    return 0


class _FirstPaint(QObject):
    """Runs a callback once, just after a widget's first paint (an event-loop turn later)."""

    def __init__(self, widget: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(widget)
        self._callback = callback
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """On the first paint event, ask for the callback once the paint is done."""
        if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget):
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._callback)
        return False


def after_first_paint(widget: QWidget, callback: Callable[[], object]) -> None:
    """Run `callback` once `widget` has been painted for the first time."""
    _FirstPaint(widget, callback)


def open_window(
    args: argparse.Namespace, settings: Settings, *, synchronous: bool | None = None
) -> MainWindow:
    """Make the window for parsed arguments; it opens the target, tools and files they name.

    The window is shown first with its panes and tabs, and its actions, menus' contents and
    toolbar are built after its first paint (they appear in the next frame), then those are
    opened: a start-up paints the window before it imports the formats, the diff, the target
    profiles or the chrome. A screenshot (`args.screenshot`) builds the whole window and opens
    them at once, synchronously, and is shown by `screenshot`. `synchronous` runs the window's
    jobs in place (as a screenshot does) when True.
    """
    if synchronous is None:
        synchronous = bool(args.screenshot)
    window = MainWindow(settings, synchronous=synchronous, furnished=bool(args.screenshot))

    def open_given() -> None:
        window.furnish()
        window.set_mode(args.mode)
        window.target_selector.fill_later(window.runner)
        if args.target:
            window.set_target(args.target)  # before the loads, so each file is judged once
        for tools in args.tools:
            window.load_tool_file(tools, regate=False)
        if args.left or args.right:
            window.open_pair(args.left, args.right)
        elif args.screenshot:
            window.open_sample_pair()

    if args.screenshot:
        open_given()
    else:
        window.show()
        after_first_paint(window, open_given)
    return window


def main(argv: Sequence[str] | None = None) -> int:
    """Run the desktop inspector (or render a screenshot) and return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        size = _size(args.size)
    except SystemExit as exc:  # --help, --version and usage errors
        return int(exc.code or 0)
    except ValueError:
        sys.stderr.write(f"replay-inspector: --size must look like 1400x900, not {args.size}\n")
        return 2
    if args.screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        # A screenshot needs no display: without one, Qt's default platform would abort.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = _application()
    _apply_theme(app, args)
    with contextlib.ExitStack() as stack:
        if args.settings:
            settings = Settings.open(args.settings)
        elif args.screenshot:
            import tempfile

            # A screenshot must neither read nor change the user's window layout.
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="replay-inspector-"))
            settings = Settings.open(os.path.join(scratch, "settings.ini"))
        else:
            settings = Settings.open()
        window = open_window(args, settings)
        if args.screenshot:
            return screenshot(window, args.screenshot, size, args.select)
        previous_hook = sys.excepthook
        sys.excepthook = excepthook
        try:
            return int(app.exec())
        finally:
            sys.excepthook = previous_hook
