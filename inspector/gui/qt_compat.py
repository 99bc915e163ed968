"""Work-arounds for faults of particular PySide6 releases, applied once when the GUI loads."""

from __future__ import annotations

import sys

#: The reference count the singletons are raised to: far beyond what any session can drop.
_PINNED = 1 << 48


def _drops(call: object, singleton: object, times: int = 8) -> bool:
    before = sys.getrefcount(singleton)
    for _ in range(times):
        call()  # type: ignore[operator]
    return sys.getrefcount(singleton) < before


def singletons_leak() -> bool:
    """Whether this PySide6 returns None (void methods) or True (Signal.emit) unowned.

    Seen with PySide6 6.12.0 on CPython 3.11: each such call takes away a reference to None or
    True that it never added, and after some thousands of calls the interpreter aborts with
    "Fatal Python error: none_dealloc" (or bool_dealloc). From 3.12 the singletons are immortal
    and the same release is harmless.
    """
    try:
        from PySide6.QtCore import QByteArray, QObject, Signal
    except ImportError:  # the Qt-free helpers of the GUI package import without PySide6
        return False

    class _Probe(QObject):
        fired = Signal()

    probe = _Probe()
    data = QByteArray(b"x")
    return _drops(data.clear, None) or _drops(probe.fired.emit, True)


def pin_singletons() -> bool:
    """Make None, True and False immortal (as CPython 3.12 does) when PySide6 leaks them.

    Returns whether the work-around was needed and applied.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if hasattr(sys, "getobjects"):  # a Py_TRACE_REFS build: the count is not the first field
        return False
    if not singletons_leak():
        return False
    import ctypes  # only where the work-around applies: a start-up needs it nowhere else

    for singleton in (None, True, False):
        # ob_refcnt is the first field of every object in a release build of CPython 3.11.
        count = ctypes.c_ssize_t.from_address(id(singleton))
        count.value = max(count.value, _PINNED)
    return True
