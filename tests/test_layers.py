"""The package's layers as a contract: each module imports only from the layers below its own.

Read from the top: the entry point, then the GUI and the commands (siblings), then the core from
the reports down to the vocabulary. Names on one line are siblings: neither imports the other.
Every module of the package must sit in a layer, so a new module is placed on purpose.
"""

from __future__ import annotations

from tests.import_graph import cycles, package_graph

#: Top to bottom; a module may import from its own group and from any lower layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("inspector.__main__",),
    ("inspector.gui", "inspector.cli"),
    ("inspector.commands",),
    ("inspector.core.report",),
    ("inspector.core.scan",),
    ("inspector.core.decision",),
    ("inspector.core.session_gate",),
    ("inspector.core.parallel", "inspector.core.fleet_pool"),
    ("inspector.core.diff", "inspector.core.targets"),
    ("inspector.core.gate", "inspector.core.formats"),
    ("inspector.core.stream",),
    ("inspector.core.schema", "inspector.core.jsonio"),
    ("inspector.core.model",),
    ("inspector.core.errors",),
    ("inspector.core.codes", "inspector.core.verdicts", "inspector.core.modes"),
    ("inspector.core.display", "inspector.core.lazy"),
    ("inspector.core", "inspector.resources", "inspector"),
)


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


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_there_is_no_import_cycle() -> None:
    # A package and its own submodules import each other by design (re-exports).
    graph = {
        name: {t for t in targets if not t.startswith(name + ".") and not name.startswith(t + ".")}
        for name, targets in package_graph().items()
    }
    assert graph.get("inspector.core.formats")
    assert cycles(graph) == []
