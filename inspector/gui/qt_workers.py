"""Long work off the GUI thread: QThreadPool + QRunnable, a QObject signal carrier per task,
and a generation counter per channel so a superseded load's result is dropped; a task given a
cancel event has it set when it is superseded or cancelled, so its core work stops early."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from inspector.core.model import InspectorError

#: Work shows that it is running only once it has taken this long (quick work does not flicker).
BUSY_DELAY_MS = 100

Progress = Callable[[str], None]
Work = Callable[[Progress], Any]


class _Carrier(QObject):
    """Carries a worker's outcome back to the GUI thread (queued signals)."""

    progress = Signal(str)
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
        try:
            value = self._work(carrier.progress.emit)
        except InspectorError as exc:
            carrier.failed.emit(exc)
        except Exception as exc:  # a bug: shown by the traceback dialog in the GUI thread
            carrier.crashed.emit(exc)
        else:
            carrier.finished.emit(value)


@dataclass
class _Running:
    generation: int
    task: _Task | None
    carrier: _Carrier | None
    cancel: threading.Event | None = None


class TaskRunner(QObject):
    """Runs work per named channel; starting a channel again supersedes what it was doing."""

    #: channel name, stage text — for a status line or progress label.
    progress = Signal(str, str)
    #: channel name — the channel has nothing running any more.
    idle = Signal(str)

    def __init__(self, parent: QObject | None = None, *, synchronous: bool = False) -> None:
        super().__init__(parent)
        self.synchronous = synchronous
        self._pool = QThreadPool.globalInstance()
        self._channels: dict[str, _Running] = {}
        self._alive: set[_Task] = set()

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
        """
        self.cancel(channel, notify=False)
        generation = self.generation(channel) + 1
        if self.synchronous:
            self._channels[channel] = _Running(generation, None, None)
            try:
                value = work(lambda stage: self.progress.emit(channel, stage))
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

        carrier.progress.connect(lambda stage: current() and self.progress.emit(channel, stage))
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
