"""Module names in inspector/gui say what they are: the `qt_` prefix means "imports PySide6",
and a module without it imports no Qt, at any depth (inside functions too)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

GUI = REPO / "inspector" / "gui"
QT = ("PySide6", "shiboken6")
MODULES = sorted(GUI.glob("*.py"))


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _imported(path: Path) -> set[str]:
    """Every module name a file imports, anywhere in it (also through importlib)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against inspector.gui
                parent = ["inspector", "gui"][: 3 - node.level]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _called(node) in ("import_module", "__import__"):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
    return names


def _imports_qt(path: Path) -> bool:
    return any(name.split(".")[0] in QT for name in _imported(path))


def test_the_scan_sees_imports_at_any_depth(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def later():\n"
        "    if True:\n"
        "        from PySide6.QtCore import QObject\n"
        "    return importlib.import_module('shiboken6')\n"
    )
    assert _imported(sample) >= {"PySide6.QtCore", "shiboken6"}
    sample.write_text("from . import qt_palette\nfrom .alignment import Alignment\n")
    assert _imported(sample) >= {"inspector.gui.qt_palette", "inspector.gui.alignment"}


def test_unprefixed_gui_modules_do_not_import_qt():
    unprefixed = [p for p in MODULES if not p.name.startswith("qt_")]
    assert {
        "alignment.py",
        "filtering.py",
        "paste.py",
        "navigation.py",
        "status.py",
        "actions.py",
    } <= {p.name for p in unprefixed}
    offenders = [p.name for p in unprefixed if _imports_qt(p)]
    assert not offenders, f"import PySide6, so their names need the qt_ prefix: {offenders}"


def test_qt_prefixed_gui_modules_import_qt():
    prefixed = [p for p in MODULES if p.name.startswith("qt_")]
    assert {"qt_app.py", "qt_main_window.py", "qt_session.py"} <= {p.name for p in prefixed}
    offenders = [p.name for p in prefixed if not _imports_qt(p)]
    assert not offenders, f"import no Qt, so their names must lose the qt_ prefix: {offenders}"


def test_unprefixed_gui_modules_import_without_pyside6():
    # What the AST cannot see (an unprefixed module reaching Qt through a qt_ module) shows
    # when they are imported with PySide6 made unimportable.
    names = [f"inspector.gui.{p.stem}" for p in MODULES if not p.name.startswith("qt_")]
    names = [n.removesuffix(".__init__") for n in names]
    code = (
        "import importlib, sys\n"
        "sys.modules['PySide6'] = None\n"
        "sys.modules['shiboken6'] = None\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))\n"
        "          and sys.modules[m] is not None]\n"
        "assert not loaded, loaded\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
