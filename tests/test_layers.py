"""The package's layers as a contract: each module imports only from the layers below its own.

Read from the top: the entry point, then the GUI and the commands (siblings), then the core from
the reports down to the vocabulary. Names on one line are siblings: neither imports the other.
Every module of the package must sit in a layer, so a new module is placed on purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path

import inspector

PACKAGE = Path(inspector.__file__).parent

#: Top to bottom; a module may import from its own group and from any lower layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("inspector.__main__",),
    ("inspector.gui", "inspector.cli"),
    ("inspector.commands",),
    ("inspector.core.report",),
    ("inspector.core.scan",),
    ("inspector.core.decision",),
    ("inspector.core.diff", "inspector.core.targets"),
    ("inspector.core.gate", "inspector.core.formats"),
    ("inspector.core.stream",),
    ("inspector.core.schema", "inspector.core.jsonio"),
    ("inspector.core.model",),
    ("inspector.core.errors",),
    ("inspector.core.codes",),
    ("inspector.core.display",),
    ("inspector.core", "inspector.resources", "inspector"),
)


def module_name(path: Path) -> str:
    """The dotted name of a file of the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every inspector module a file imports, at any depth (imports inside functions count)."""
    module = module_name(path)
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
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n == "inspector" or n.startswith("inspector."))
    return found


def group_of(name: str) -> tuple[int, str]:
    """(layer index, group prefix) of a module: the longest prefix that names it."""
    best: tuple[int, str] | None = None
    for index, layer in enumerate(LAYERS):
        for prefix in layer:
            if (name == prefix or name.startswith(prefix + ".")) and (
                best is None or len(prefix) > len(best[1])
            ):
                best = (index, prefix)
    if best is None:
        raise LookupError(name)
    return best


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports that go against the layer order: upward, or across siblings."""
    found = []
    for source, targets in sorted(graph.items()):
        layer, group = group_of(source)
        for target in sorted(targets):
            t_layer, t_group = group_of(target)
            if t_group == group or t_layer > layer:
                continue
            # A package's __init__ may be run by importing its submodule: not an import of it.
            if source.startswith(t_group + ".") and t_group in ("inspector", "inspector.core"):
                continue
            found.append(f"{source} imports {target}")
    return found


def package_graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports (a `from a import b` names a.b if it exists)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        targets = set()
        for target in imports_of(path):
            while target not in files and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in files and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def test_every_module_sits_in_a_layer() -> None:
    unplaced = []
    for name in package_graph():
        try:
            group_of(name)
        except LookupError:
            unplaced.append(name)
    assert unplaced == [], "place these modules in LAYERS (tests/test_layers.py)"


def test_no_import_goes_against_the_layers() -> None:
    assert violations(package_graph()) == []


def test_the_contract_catches_an_upward_and_a_sibling_import() -> None:
    # The checker itself: a model importing the gate, and the gate importing a format.
    graph = {
        "inspector.core.model": {"inspector.core.gate"},
        "inspector.core.gate": {"inspector.core.formats.anthropic", "inspector.core.schema"},
        "inspector.core.formats.anthropic": {"inspector.core.formats._convert"},
    }
    assert violations(graph) == [
        "inspector.core.gate imports inspector.core.formats.anthropic",
        "inspector.core.model imports inspector.core.gate",
    ]


def test_there_is_no_import_cycle() -> None:
    graph = package_graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            # A package and its own submodules import each other by design (re-exports).
            if target.startswith(node + ".") or node.startswith(target + "."):
                continue
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []
