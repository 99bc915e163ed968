"""The core's shape: no import cycles, one Severity and JSON reader, errors under InspectorError."""

from __future__ import annotations

import ast
import inspect
import pkgutil
from importlib import import_module
from pathlib import Path

import inspector.core
from inspector.core.model import InspectorError

CORE = Path(inspector.core.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every inspector.core module a file imports, at any depth (inside functions too)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            # `from pkg import mod` imports the submodule when there is one.
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n.startswith("inspector.core"))
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = {t for t in _imports(path) if t in files and t != name}
        # Importing a.b.c runs a/__init__ and a/b/__init__ first.
        for target in list(targets):
            parts = target.split(".")
            targets.update(
                ".".join(parts[:i]) for i in range(3, len(parts)) if ".".join(parts[:i]) in files
            )
        graph[name] = {t for t in targets if t != name and not name.startswith(t + ".")}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return cycles


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_core() -> None:
    graph = _graph()
    assert graph.get("inspector.core.formats")
    assert _cycles(graph) == []


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

    for module in formats.FORMATS:
        assert callable(module.detect) and callable(module.load) and module.KINDS
