"""The core never imports Qt, and works with PySide6 unavailable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import inspector.core

CORE = Path(inspector.core.__file__).parent
MODULES = sorted(f"inspector.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__")


def test_core_imports_without_qt():
    code = (
        "import sys\n"
        "sys.modules['PySide6'] = None  # any import of PySide6 now fails\n"
        "sys.modules['shiboken6'] = None\n"
        f"for name in {MODULES!r}:\n"
        "    __import__(name)\n"
        "import inspector.cli, inspector.commands.gate\n"
        "from inspector.core.formats import load_path\n"
        "from inspector.core.gate import gate_transcript\n"
        f"gate_transcript(load_path({str(CORE.parents[1] / 'samples/article/items.json')!r}))\n"
        "assert not any(m.startswith(('PySide6', 'shiboken6')) and sys.modules[m] is not None\n"
        "               for m in sys.modules)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_no_qt_import_statement_in_core():
    for path in CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "PySide6" not in text and "shiboken6" not in text, path.name


def test_a_command_imports_only_its_own_module():
    # Start-up time: `gate` pays for neither the report renderers nor the diff.
    code = (
        "import sys, io\n"
        "from inspector.cli import run\n"
        f"run(['gate', {str(CORE.parents[1] / 'samples/article/items.json')!r}],"
        " io.StringIO(), io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m.startswith('inspector.commands.')))\n"
        "print('inspector.core.diff' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    modules, diff_loaded = done.stdout.splitlines()
    assert "inspector.commands.report" not in modules and "inspector.commands.diff" not in modules
    assert "inspector.commands.gate" in modules
    assert diff_loaded == "False"
