"""Long work off the GUI thread: QThreadPool + QRunnable, a QObject signal carrier per task,
and a generation counter per channel so a superseded load's result is dropped; a task given a
cancel event has it set when it is superseded or cancelled, so its core work stops early.

A task whose window has gone (its carrier deleted at shutdown) stops at its next progress
report and reports nothing: quitting while work runs is quiet."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from inspector.core.errors import Cancelled, InspectorError

#: Work shows that it is running only once it has taken this long (quick work does not flicker).
BUSY_DELAY_MS = 100
#: How long closing the window waits for running work to notice its cancel flag.
SHUTDOWN_WAIT_MS = 5000
#: What a progress report sends for "how far is unknown".
UNKNOWN = -1.0


class Progress(Protocol):
    """What work reports through: a stage text and how far it has got (0..1, None: unknown)."""

    def __call__(self, stage: str, fraction: float | None = None) -> None: ...


Work = Callable[[Progress], Any]


class _Carrier(QObject):
    """Carries a worker's outcome back to the GUI thread (queued signals)."""

    progress = Signal(str, float)
    finished = Signal(object)
    failed = Signal(object)
    crashed = Signal(object)


class _Task(QRunnable):
    """Runs one piece of work and reports through its carrier; never touches widgets."""

    def __init__(self, work: Work, carrier: _Carrier) -> None:
        super().__init__()
        self._work = work
        self._carrier = carrier
        # Python owns the task (and its carrier) until the carrier's last signal has reached the
        # GUI thread: a pool-deleted task could not be taken back on cancel, and a carrier
        # collected on the worker thread would crash when its queued signal is delivered.
        self.setAutoDelete(False)

    def run(self) -> None:
        """Do the work; expected errors go to `failed`, bugs to `crashed`."""
        carrier = self._carrier

        def report(stage: str, fraction: float | None = None) -> None:
            try:
                carrier.progress.emit(stage, UNKNOWN if fraction is None else fraction)
            except RuntimeError:  # the window has gone: nobody wants the result
                raise Cancelled("the window was closed") from None

        try:
            value = self._work(report)
        except InspectorError as exc:  # Cancelled too: the runner drops it, and the task
            _emit(carrier.failed, exc)
        except Exception as exc:  # a bug: shown by the traceback dialog in the GUI thread
            _emit(carrier.crashed, exc)
        else:
            _emit(carrier.finished, value)


def _emit(signal: Any, value: Any) -> None:
    # A carrier deleted at shutdown raises RuntimeError: there is no window left to tell.
    with contextlib.suppress(RuntimeError):
        signal.emit(value)


class _Running:
    # A plain class: a dataclass costs a start-up about 4.5 M instructions to make.
    __slots__ = ("cancel", "carrier", "generation", "task")

    def __init__(
        self,
        generation: int,
        task: _Task | None,
        carrier: _Carrier | None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.generation, self.task, self.carrier, self.cancel = generation, task, carrier, cancel


class TaskRunner(QObject):
    """Runs work per named channel; starting a channel again supersedes what it was doing."""

    #: channel name, stage text, how far (0..1, or UNKNOWN) — for a status line or progress bar.
    progress = Signal(str, str, float)
    #: channel name — the channel has nothing running any more.
    idle = Signal(str)

    def __init__(self, parent: QObject | None = None, *, synchronous: bool = False) -> None:
        super().__init__(parent)
        self.synchronous = synchronous
        self._pool = QThreadPool.globalInstance()
        self._channels: dict[str, _Running] = {}
        self._alive: set[_Task] = set()
        self._closed = False

    def generation(self, channel: str) -> int:
        """The current generation of a channel."""
        running = self._channels.get(channel)
        return running.generation if running is not None else 0

    def busy(self, channel: str) -> bool:
        """Whether a channel has work whose result is still wanted."""
        running = self._channels.get(channel)
        return running is not None and running.carrier is not None

    def start(
        self,
        channel: str,
        work: Work,
        on_done: Callable[[Any], None],
        on_error: Callable[[InspectorError], None],
        *,
        cancel: threading.Event | None = None,
    ) -> int:
        """Run `work` for a channel; only the newest generation's outcome reaches the callbacks.

        `cancel` (an event the work watches) is set when the work is superseded or cancelled.
        Once `stop_all` has run (the window is closing) nothing starts: a timer that fires
        between the close and the window's deletion would otherwise finish into deleted widgets.
        """
        self.cancel(channel, notify=False)
        if self._closed:
            return self.generation(channel)
        generation = self.generation(channel) + 1
        if self.synchronous:
            self._channels[channel] = _Running(generation, None, None)
            try:

                def report(stage: str, fraction: float | None = None) -> None:
                    self.progress.emit(channel, stage, UNKNOWN if fraction is None else fraction)

                value = work(report)
            except InspectorError as exc:
                on_error(exc)
            else:
                on_done(value)
            self.idle.emit(channel)
            return generation
        carrier = _Carrier()
        task = _Task(work, carrier)
        self._alive.add(task)
        self._channels[channel] = _Running(generation, task, carrier, cancel)

        def current() -> bool:
            running = self._channels.get(channel)
            return running is not None and running.generation == generation

        def finish(handler: Callable[[Any], None], value: Any) -> None:
            self._alive.discard(task)  # run() has returned: the pool no longer touches it
            if not current():
                return  # superseded or cancelled: drop the result
            self._channels[channel] = _Running(generation, None, None)
            handler(value)
            self.idle.emit(channel)

        def progress(stage: str, fraction: float) -> None:
            if current():
                self.progress.emit(channel, stage, fraction)

        carrier.progress.connect(progress)
        carrier.finished.connect(lambda value: finish(on_done, value))
        carrier.failed.connect(lambda exc: finish(on_error, exc))
        carrier.crashed.connect(lambda exc: finish(_report_bug, exc))
        self._pool.start(task)
        return generation

    def cancel(self, channel: str, *, notify: bool = True) -> None:
        """Drop a channel's running work (its result will be ignored when it arrives)."""
        running = self._channels.get(channel)
        if running is None or running.carrier is None:
            return
        if running.cancel is not None:
            running.cancel.set()
        if running.task is not None and self._pool.tryTake(running.task):
            self._alive.discard(running.task)  # taken before it started: it never runs
        self._channels[channel] = _Running(running.generation + 1, None, None)
        if notify:
            self.idle.emit(channel)

    def stop_all(self, msecs: int = SHUTDOWN_WAIT_MS) -> bool:
        """Cancel every channel's work and wait (bounded) until the workers have let go of it.

        Work checks its cancel flag between records, so this is quick; it keeps work from
        outliving the window at shutdown. The runner starts nothing afterwards.
        """
        self._closed = True
        for channel in list(self._channels):
            self.cancel(channel, notify=False)
        return self.wait(msecs)

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until the pool is idle (tests and shutdown)."""
        return self._pool.waitForDone(msecs)


def debounce(parent: QObject, msecs: int, slot: Callable[[], Any]) -> QTimer:
    """Return a single-shot timer that runs `slot` once `msecs` after its last start()."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(msecs)
    timer.timeout.connect(slot)
    return timer


def _report_bug(exc: BaseException) -> None:
    sys.excepthook(type(exc), exc, exc.__traceback__)
