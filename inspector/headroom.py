"""Headroom under an address-space cap: a command runs out of memory while it can still unwind.

CPython 3.11 and 3.12 spin for ever when they cannot allocate the integer they push while
unwinding an exception into a `with`, `except` or `finally` handler past a function's 256th
instruction (gh-132508: a failed allocation retries the unwind, which fails again), deaf to
signals. A MemoryError raised with the address space quite full, under `ulimit -v` or
RLIMIT_AS, could do that instead of ending with its one line. So under a finite RLIMIT_AS a
CPU-time timer reads the process's size every few milliseconds and raises MemoryError when less
than HEADROOM bytes are left: that exception unwinds with room to spare.
"""

from __future__ import annotations

import atexit
import os
import resource
import signal
from types import FrameType

#: Address space kept free: far more than a command allocates between two ticks (about 3 MB in
#: 4 ms building dicts), far less than any input needs.
HEADROOM = 16 << 20
#: CPU seconds between two looks at the process's size (the kernel rounds up to its tick).
INTERVAL = 0.002


class OutOfHeadroom(MemoryError):
    """Raised where the command is when the address space left is under HEADROOM."""


class _Guard:
    """The timer's state: the size file, the size to stay under, whether it may fire."""

    def __init__(self, statm: int, below: int) -> None:
        self.statm = statm
        self.below = below
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.armed = True

    def size(self) -> int:
        """The process's address space in bytes (the first field of /proc/self/statm)."""
        return int(os.pread(self.statm, 32, 0).split(None, 1)[0]) * self.page

    def tick(self, _signum: int, _frame: FrameType | None) -> None:
        """Raise OutOfHeadroom once when the size crosses the line (again after it fell back)."""
        size = self.size()
        if size <= self.below - HEADROOM // 4:
            self.armed = True
        elif size > self.below and self.armed:
            self.armed = False  # the unwinding and the one line must not be interrupted
            raise OutOfHeadroom(f"{size:,} bytes in use, {self.below + HEADROOM:,} allowed")


_guard: _Guard | None = None


def guard() -> bool:
    """Start watching when the address space is capped; True when it was (it stays on)."""
    global _guard
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if _guard is not None or limit == resource.RLIM_INFINITY:
        return _guard is not None
    try:
        statm = os.open("/proc/self/statm", os.O_RDONLY)
    except OSError:
        return False  # no /proc: nothing to read the size from
    _guard = _Guard(statm, limit - HEADROOM)
    signal.signal(signal.SIGPROF, _guard.tick)
    signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
    # Past atexit the interpreter puts SIGPROF's default action back, which ends the process.
    atexit.register(stop)
    return True


def stop() -> None:
    """Stop raising (the command is ending: its last line must not be interrupted)."""
    if _guard is not None:
        _guard.below = 1 << 62
        signal.setitimer(signal.ITIMER_PROF, 0)
