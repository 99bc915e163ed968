"""The PySide6 reference-count work-around: a long session's worth of void calls and signal
emissions must not bring None or True to zero (CPython 3.11 would abort)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QByteArray, QObject, Signal

from inspector.gui import qt_compat


class _Emitter(QObject):
    fired = Signal()


def test_many_void_calls_and_emits_leave_the_singletons_alive():
    data, emitter = QByteArray(b"x"), _Emitter()
    for _ in range(200_000):  # far more than None's or True's count on an unpinned 3.11
        data.clear()
        emitter.fired.emit()
    assert sys.getrefcount(None) > 1000 and sys.getrefcount(True) > 1000


def test_the_work_around_applies_only_where_needed():
    if sys.version_info >= (3, 12):
        assert not qt_compat.pin_singletons()  # immortal singletons: nothing to do
    elif qt_compat.singletons_leak():
        assert sys.getrefcount(None) >= qt_compat._PINNED // 2  # pinned by the GUI tests' conftest
