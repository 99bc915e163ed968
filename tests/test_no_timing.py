"""No test in the default run asserts wall-clock time: a loaded machine must not fail the suite.

Every test module (outside tests/benchmarks/) is read with `ast`; a comparison in a function not
marked `slow` fails this test when it involves a clock reading (time.monotonic, perf_counter,
time.time …), a value computed from one (also through a list it was appended to, or a helper
that returns one), or a name that says it holds a duration (`elapsed`, `gaps.longest` …).
Assert the cause instead: the thread the work ran on, an injected clock, the limit that was hit.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

TESTS = REPO / "tests"
#: Functions of the time module (and their bare imported names) that read a clock.
CLOCKS = frozenset(
    {"monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time", "time_ns"}
)
#: Names that say a value is a duration, whatever it was computed from.
DURATION_NAMES = frozenset({"elapsed", "duration", "seconds", "stall", "stalled"})
#: Attributes that say so (a stall meter's `longest` gap, a result's `elapsed`).
DURATION_ATTRIBUTES = frozenset({"elapsed", "duration", "seconds", "longest", "stall"})


def _is_clock_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr in CLOCKS and isinstance(func.value, ast.Name) and func.value.id == "time"
    return isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}


def _is_slow(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("slow" in ast.unparse(decorator) for decorator in function.decorator_list)


def _target_names(target: ast.AST) -> Iterator[str]:
    """The names an assignment target binds: `a`, `self.a`, each of `a, b`, `a` of `a[0]`."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Attribute):
        yield ast.unparse(target)
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred | ast.Subscript):
        yield from _target_names(target.value)


class _Timed:
    """The names (and helpers) of one module that hold or return clock readings."""

    def __init__(self, functions: dict[str, ast.AST]) -> None:
        self.functions: set[str] = set()
        self.names: dict[int, set[str]] = {}
        changed = True
        while changed:  # a fixpoint: helpers returning readings make their callers' values timed
            changed = False
            for function in functions.values():
                names = self.names.setdefault(id(function), set())
                before = (len(names), len(self.functions))
                self._scan(function, names)
                changed |= before != (len(names), len(self.functions))

    def holds_time(self, node: ast.AST, names: set[str]) -> bool:
        """Whether an expression reads a clock or uses a value computed from a reading."""
        for part in ast.walk(node):
            if _is_clock_call(part):
                return True
            if isinstance(part, ast.Name) and part.id in names:
                return True
            if isinstance(part, ast.Attribute) and ast.unparse(part) in names:
                return True
            if (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Name)
                and part.func.id in self.functions
            ):
                return True
        return False

    def _scan(self, function: ast.AST, names: set[str]) -> None:
        # Nested helpers share the enclosing test's names (an over-approximation, on purpose).
        for node in ast.walk(function):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
                value = node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if value is not None and self.holds_time(value, names):
                    for target in targets:
                        names.update(_target_names(target))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                # `times.append(time.perf_counter() - start)`: the list holds readings.
                if node.func.attr in {"append", "extend", "add", "insert"} and any(
                    self.holds_time(arg, names) for arg in node.args
                ):
                    names.update(_target_names(node.func.value))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                returns = (
                    part.value
                    for part in ast.walk(node)
                    if isinstance(part, ast.Return) and part.value is not None
                )
                if any(self.holds_time(value, names) for value in returns):
                    self.functions.add(node.name)


def _says_duration(node: ast.AST) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and part.id in DURATION_NAMES:
            return True
        if isinstance(part, ast.Attribute) and part.attr in DURATION_ATTRIBUTES:
            return True
    return False


def _outer_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and methods of module-level classes, slow ones left out."""
    for node in tree.body:
        children = node.body if isinstance(node, ast.ClassDef) else [node]
        for child in children:
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_slow(child):
                yield child


def _module_is_slow(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        and "slow" in ast.unparse(node.value)
        for node in tree.body
    )


def timing_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comparison on wall-clock time in functions not marked slow."""
    tree = ast.parse(source)
    if _module_is_slow(tree):
        return []
    functions = {function.name: function for function in _outer_functions(tree)}
    timed = _Timed(functions)
    found = []
    for function in functions.values():
        names = timed.names[id(function)]
        for node in ast.walk(function):
            if isinstance(node, ast.Compare) and (
                timed.holds_time(node, names) or _says_duration(node)
            ):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def _test_modules() -> list[Path]:
    return sorted(
        path for path in TESTS.rglob("*.py") if "benchmarks" not in path.relative_to(TESTS).parts
    )


@pytest.mark.parametrize("path", _test_modules(), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_test_compares_wall_clock_time(path: Path) -> None:
    found = timing_comparisons(path.read_text(encoding="utf-8"))
    where = path.relative_to(REPO)
    assert not found, "wall-clock comparisons (assert the cause instead):\n" + "\n".join(
        f"{where}:{line}: {text}" for line, text in found
    )


# The patterns this suite used to hold, each of which the scan must catch. NOW and WALL stand for
# the clock calls in the snippets (filled in by `_snippet`), so that a text search of the tests for
# wall-clock assertions does not mistake these examples for real ones.
CAUGHT = {
    "direct": """
        def test_x():
            started = time.monotonic()
            run()
            assert NOW() - started < 1
    """,
    "elapsed": """
        def test_x():
            started = time.perf_counter()
            run()
            elapsed = time.perf_counter() - started
            if elapsed <= LIMIT:
                pytest.skip("too quick")
    """,
    "stall meter": """
        def test_x():
            with TickGaps() as gaps:
                run()
            assert gaps.longest < 0.5, f"stalled for {gaps.longest:.2f} s"
    """,
    "helper returning seconds": """
        def inspector(*args):
            start = time.monotonic()
            done = run(args)
            return done.returncode, time.monotonic() - start

        def test_x():
            status, took = inspector("gate")
            assert took < 20
    """,
    "readings in a list": """
        def test_x():
            lexed = []
            started = time.monotonic()
            lex()
            lexed.append((5, time.monotonic() - started))
            assert sum(t for _n, t in lexed) < 0.5
    """,
    "ratio of best times": """
        def test_x():
            def best(events):
                times = []
                for _ in range(3):
                    start = perf_counter()
                    reduce(events)
                    times.append(perf_counter() - start)
                return min(times)

            assert best(large) / 10 < 3 * best(small)
    """,
    "method": """
        class TestX:
            def test_x(self):
                self.started = time.time()
                run()
                assert WALL() - self.started < 2
    """,
}

LEFT_ALONE = {
    "slow": """
        @pytest.mark.slow
        def test_x():
            started = time.monotonic()
            assert NOW() - started < 1
    """,
    "slow module": """
        pytestmark = pytest.mark.slow

        def test_x():
            assert NOW() < 1
    """,
    "a sleep and a timeout": """
        def test_x():
            time.sleep(0.3)
            thread.join(timeout=5)
            assert not thread.is_alive()
    """,
    "a string named longest": """
        def test_x():
            longest = max(names, key=len)
            assert longest.startswith("response")
    """,
}


def _snippet(text: str) -> str:
    return (
        textwrap.dedent(text).replace("NOW()", "time.monotonic()").replace("WALL()", "time.time()")
    )


@pytest.mark.parametrize("name", CAUGHT)
def test_the_scan_catches_a_wall_clock_comparison(name: str) -> None:
    assert timing_comparisons(_snippet(CAUGHT[name]))


@pytest.mark.parametrize("name", LEFT_ALONE)
def test_the_scan_leaves_slow_tests_and_causes_alone(name: str) -> None:
    assert timing_comparisons(_snippet(LEFT_ALONE[name])) == []
