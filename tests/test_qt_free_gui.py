"""The GUI package's Qt-free modules (no ``qt_`` prefix) import without loading PySide6."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

QT_FREE = sorted(
    path.stem
    for path in (REPO / "inspector" / "gui").glob("*.py")
    if not path.stem.startswith(("qt_", "_"))
)


def _pyside6_loaded_by(module: str) -> str:
    """The PySide6 modules a fresh interpreter holds after importing ``module``."""
    probe = (
        f"import sys, {module}\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'PySide6')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_gui_package_has_qt_free_modules():
    assert "filtering" in QT_FREE and "qt_app" not in QT_FREE


@pytest.mark.parametrize("module", ["inspector.gui", *(f"inspector.gui.{m}" for m in QT_FREE)])
def test_a_qt_free_gui_module_does_not_load_pyside6(module):
    assert _pyside6_loaded_by(module) == ""


def test_the_probe_sees_pyside6_when_a_qt_module_loads_it():
    pytest.importorskip("PySide6")
    assert "PySide6.QtGui" in _pyside6_loaded_by("inspector.gui.qt_palette").split(",")
