"""The core's shape: one Severity, one JSON reader, every error under InspectorError."""

from __future__ import annotations

import ast
import inspect
import pkgutil
from importlib import import_module
from pathlib import Path

import inspector.core
from inspector.core.model import InspectorError

CORE = Path(inspector.core.__file__).parent


def _core_modules() -> list[str]:
    names = ["inspector.core"]
    for info in pkgutil.walk_packages([str(CORE)], prefix="inspector.core."):
        names.append(info.name)
    return names


def test_every_public_core_error_is_an_inspector_error() -> None:
    offenders = []
    for name in _core_modules():
        module = import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not attr.startswith("_")
                and not issubclass(value, InspectorError)
            ):
                offenders.append(f"{name}.{attr}")
    assert offenders == []


def test_one_severity_and_one_json_reader() -> None:
    severity, decoders = [], []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "Severity":
                severity.append(path.name)
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "Severity" for t in node.targets
            ):
                severity.append(path.name)
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "loads"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "json"
            ):
                decoders.append(path.name)
    assert severity == ["codes.py"]
    # The standard library's parser is used in one place; everything else calls jsonio.
    assert decoders == []


def test_each_format_module_detects_and_loads() -> None:
    from inspector.core import formats

    for spec in formats.FORMATS:
        assert callable(spec.detect) and callable(spec.load) and spec.kinds
