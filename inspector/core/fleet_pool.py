"""Worker processes fed through pipes: one message out per task, one message back per result.

The fleet scan's pool. A task and its result are each one length-prefixed message on a pipe of
the worker's own, and the coordinating process waits on the pipes with `select`: it runs no
thread, pickles no work item and wakes no waiter. (concurrent.futures' pool costs about a
millisecond of the coordinator's CPU a task in its feeder and manager threads, on one of the
cores the workers need.) Workers are forked when the process has no other thread, and come
from a fork server otherwise (forking a threaded process is unsafe); the same loop serves both.

A worker that fails (an exception in `work`, killed, out of memory) fails the pool with
`PoolError`, which says which worker and why; the tasks it held are not run elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from msgspec import Struct, field

from inspector.core.errors import InspectorError

#: A message's header: its length, and whether it is a result (0) or a worker's failure (1).
_HEADER = struct.Struct("<QB")
#: Signals the coordinator turns into exceptions: a worker must never run those handlers.
_HELD = {signal.SIGINT, signal.SIGTERM}


class PoolError(InspectorError):
    """A pool worker failed, or ended, before handing back its task."""


class _Worker(Struct, eq=False):
    """One worker as its coordinator sees it: its process, its two pipes, its tasks in flight."""

    pid: int
    tasks: int  # write end: tasks go out here, non-blocking (see Pool.submit)
    results: int  # read end
    process: Any = None  # the multiprocessing.Process, when it came from a fork server
    pending: bytearray = field(default_factory=bytearray)  # task bytes the pipe has not taken
    flight: deque[Any] = field(default_factory=deque)  # the tags of its tasks, oldest first


class Pool:
    """`jobs` processes, each running `initializer(argument)` once, then `work(task)` per task.

    `work` takes and returns bytes. `submit(tag, task)` hands a task to the least busy worker;
    `finished()` waits for results and gives each as (tag, result), a worker's results in the
    order it was given its tasks. `fork`: fork the workers (only when no other thread runs),
    else start them from a fork server (`preload`: the modules it imports first).
    """

    def __init__(
        self,
        jobs: int,
        work: Callable[[bytes], bytes],
        initializer: Callable[[Any], None],
        argument: Any,
        *,
        fork: bool,
        preload: tuple[str, ...] = (),
    ) -> None:
        self.workers: list[_Worker] = []
        self.closed = False
        context = None
        if not fork:
            import multiprocessing

            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(preload))
        try:
            for _ in range(jobs):
                self.workers.append(self._start(work, initializer, argument, context))
        except BaseException:
            self.close(stop=True)
            raise
        self.by_results = {worker.results: worker for worker in self.workers}
        self.by_tasks = {worker.tasks: worker for worker in self.workers}

    def _start(
        self,
        work: Callable[[bytes], bytes],
        initializer: Callable[[Any], None],
        argument: Any,
        context: Any,
    ) -> _Worker:
        task_reader, task_writer = os.pipe()
        result_reader, result_writer = os.pipe()
        ours = [task_writer, result_reader]
        try:
            if context is None:
                pid = self._fork(task_reader, result_writer, ours, work, initializer, argument)
                process = None
            else:
                from multiprocessing.connection import Connection

                ends = (Connection(task_reader), Connection(result_writer))
                process = context.Process(
                    target=_serve_process, args=(*ends, work, initializer, argument), daemon=True
                )
                process.start()
                for end in ends:
                    end.close()
                pid = process.pid
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            if context is None:
                os.close(task_reader)
                os.close(result_writer)
        os.set_blocking(task_writer, False)
        return _Worker(pid, task_writer, result_reader, process)

    def _fork(
        self,
        task_reader: int,
        result_writer: int,
        ours: list[int],
        work: Callable[[bytes], bytes],
        initializer: Callable[[Any], None],
        argument: Any,
    ) -> int:
        # Until the child has set its own handlers, the signals this process turns into
        # exceptions are held back, so a worker never runs them.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            pid = os.fork()
            if pid == 0:  # the worker: it never returns into the coordinator's code
                status = 1
                try:
                    # The other ends of every pipe: an inherited write end of another worker's
                    # task pipe would keep that worker from ever reading its end.
                    for fd in ours + [fd for w in self.workers for fd in (w.tasks, w.results)]:
                        os.close(fd)
                    _worker_signals()
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                    if _serve(task_reader, result_writer, work, initializer, argument):
                        status = 0
                finally:
                    os._exit(status)
            return pid
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held Ctrl-C comes here

    def busy(self) -> int:
        """Tasks handed out whose results have not been given back."""
        return sum(len(worker.flight) for worker in self.workers)

    def submit(self, tag: Any, task: bytes) -> None:
        """Hand `task` to the worker with the fewest tasks in flight; `tag` comes back with it.

        Written without blocking: what the pipe does not take now is written while waiting
        for results, so a worker blocked writing a result never holds up the coordinator.
        """
        worker = min(self.workers, key=lambda w: len(w.flight))
        worker.flight.append(tag)
        worker.pending += _HEADER.pack(len(task), 0)
        worker.pending += task
        self._write(worker)

    def _write(self, worker: _Worker) -> None:
        try:
            written = os.write(worker.tasks, worker.pending)
        except BlockingIOError:
            return
        except BrokenPipeError:
            raise self._lost(worker) from None
        del worker.pending[:written]

    def finished(self) -> Iterator[tuple[Any, bytes]]:
        """Wait until at least one result is in; give every result that is in."""
        poll = select.poll()
        for worker in self.workers:
            if worker.flight:
                poll.register(worker.results, select.POLLIN)
            if worker.pending:
                poll.register(worker.tasks, select.POLLOUT)
        ready = poll.poll() if self.busy() else []
        for fd, _ in ready:
            if fd in self.by_tasks:
                self._write(self.by_tasks[fd])
        for fd, _ in ready:
            sender = self.by_results.get(fd)
            if sender is None:
                continue
            header = _read_exactly(fd, _HEADER.size)
            if len(header) < _HEADER.size:
                raise self._lost(sender)
            size, failed = _HEADER.unpack(header)
            body = _read_exactly(fd, size)
            if len(body) < size:
                raise self._lost(sender)
            if failed:
                raise PoolError(f"worker {sender.pid} failed: {body.decode('utf-8', 'replace')}")
            yield sender.flight.popleft(), body

    def _lost(self, worker: _Worker) -> PoolError:
        """The error for a worker that ended with tasks in flight, saying how it ended."""
        pid, code = worker.pid, None
        if worker.process is not None:
            worker.process.join()
            code = worker.process.exitcode
        else:
            try:
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                pass
            worker.pid = 0  # reaped
        how = "ended"
        if code is not None and code < 0:
            how = f"was killed by signal {-code} ({signal.Signals(-code).name})"
        elif code is not None:
            how = f"exited with status {code}"
        return PoolError(f"worker {pid} {how} before handing back its task")

    def close(self, *, stop: bool = False) -> None:
        """End the workers: once they have finished their tasks, or at once (`stop`)."""
        if self.closed:
            return
        self.closed = True
        for worker in self.workers:
            os.close(worker.tasks)  # no more tasks: an idle worker ends
            if stop and worker.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGTERM)
        for worker in self.workers:
            os.close(worker.results)  # a worker still writing a result gets EPIPE and ends
            if worker.process is not None:
                worker.process.join()
            elif worker.pid:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(worker.pid, 0)


def _worker_signals() -> None:
    # Ctrl-C reaches the whole process group: the coordinator stops the scan, a worker does
    # not answer it. SIGTERM ends a worker at once (the coordinator sends it to stop early).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _serve_process(
    tasks: Any, results: Any, work: Callable[[bytes], bytes], initializer: Any, argument: Any
) -> None:
    """A fork server's worker: the loop over the pipes its Connection ends hold."""
    import sys

    _worker_signals()
    if not _serve(tasks.fileno(), results.fileno(), work, initializer, argument):
        sys.exit(1)


def _serve(
    tasks: int,
    results: int,
    work: Callable[[bytes], bytes],
    initializer: Callable[[Any], None],
    argument: Any,
) -> bool:
    """A worker's life: set up, then one result per task until the task pipe is closed.

    False when it stopped on a failure (which it has told the coordinator).
    """
    try:
        initializer(argument)
    except Exception as exc:
        _fail(results, exc)
        return False
    while True:
        header = _read_exactly(tasks, _HEADER.size)
        if len(header) < _HEADER.size:
            return True  # the coordinator closed the pipe: no more tasks
        size, _ = _HEADER.unpack(header)
        task = _read_exactly(tasks, size)
        try:
            result = work(task)
        except Exception as exc:  # the coordinator says it and stops: no traceback here
            _fail(results, exc)
            return False
        try:
            _write_all(results, _HEADER.pack(len(result), 0) + result)
        except BrokenPipeError:
            return True  # the coordinator stopped listening


def _fail(results: int, exc: Exception) -> None:
    """Tell the coordinator why this worker stops (if it still listens)."""
    text = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")
    with contextlib.suppress(OSError):
        _write_all(results, _HEADER.pack(len(text), 1) + text)


def _read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes from a blocking pipe, or fewer if it ends first."""
    data = os.read(fd, size)
    if len(data) == size or not data:
        return data
    buffer = bytearray(data)
    while len(buffer) < size:
        more = os.read(fd, size - len(buffer))
        if not more:
            break
        buffer += more
    return bytes(buffer)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


__all__ = ["Pool", "PoolError"]
