"""A pytest plugin: record the code of every result built during the run, for tests/test_codes.py.

Findings, violations, changes, document changes and target problems are wrapped at start-up, so
the run knows which registered codes its tests produced, and which codes were produced that no
registry entry names. In one process its two checks are moved to the end of the run. When the
run is spread over pytest-xdist workers, no test sees what the other workers built: each worker
sends what it saw to the controller when it finishes, and the controller makes the same two
checks once every worker is done, reporting a failure as a failed test of tests/test_codes.py.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

#: (class name, code, severity) → how many were built during this run (in a distributed run,
#: on the controller: by every worker that has finished).
SEEN: Counter[tuple[str, str, str]] = Counter()
_LOCK = threading.Lock()
#: The checks of what was produced, run after every other test.
LAST = frozenset(
    {"test_no_unregistered_code_is_produced", "test_every_registered_code_is_produced"}
)
#: The key of a worker's SEEN in the output it sends to the controller.
_OUTPUT_KEY = "codes_seen"
_TESTS = Path(__file__).resolve().parent


def unregistered(seen: Counter[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The (class, code, severity) built that no registry entry allows, sorted."""
    from inspector.core.codes import CODES, Severity

    return sorted(
        (cls, name, severity)
        for cls, name, severity in seen
        if name not in CODES or Severity(severity) not in CODES[name].severities
    )


def unproduced(seen: Counter[tuple[str, str, str]]) -> list[str]:
    """The registered codes that nothing built, sorted."""
    from inspector.core.codes import CODES

    return sorted(set(CODES) - {name for _, name, _ in seen})


def whole_run(config: pytest.Config, failed: int) -> bool:
    """Whether this run is the whole suite with no failure: only then is every code produced."""
    return (
        not config.option.keyword
        and failed == 0
        and all(Path(a).resolve() == _TESTS for a in config.args)
    )


def _record(cls: type) -> None:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        with _LOCK:
            SEEN[(cls.__name__, str(self.code), str(self.severity))] += 1

    cls.__init__ = init  # type: ignore[method-assign]


def _record_made(module: Any, name: str) -> None:
    """Record what a module's fast constructor (one that bypasses `__init__`) returns."""
    original = getattr(module, name)

    def made(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        with _LOCK:
            SEEN[(type(result).__name__, str(result.code), str(result.severity))] += 1
        return result

    setattr(module, name, made)


def _worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _controller(config: pytest.Config) -> bool:
    # xdist registers its distributed session under this name only when workers are started.
    return config.pluginmanager.get_plugin("dsession") is not None


def pytest_configure(config: pytest.Config) -> None:
    """Wrap the result classes once, before any test runs."""
    from inspector.core import diff, gate
    from inspector.core.stream import results
    from inspector.core.targets import schema_rules, transcript_rules

    for cls in (
        gate.Finding,
        results.Violation,
        diff.Change,
        diff.DocumentChange,
        schema_rules.ToolProblem,
        transcript_rules.TargetFinding,  # its own __init__: a dataclass does not call the base's
    ):
        _record(cls)
    # The gate's hot findings are made by setting their slots (its callers look it up by name).
    _record_made(gate, "_finding")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the checks on what was produced after every other test (on the controller, if any)."""
    last = [item for item in items if item.name in LAST]
    items[:] = [item for item in items if item.name not in LAST]
    if _worker(config):
        # A worker saw only its own share of the run; the controller checks the whole of it.
        config.hook.pytest_deselected(items=last)
    else:
        items.extend(last)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Send a worker's SEEN to the controller; on the controller, check the whole run's."""
    config = session.config
    if _worker(config):
        config.workeroutput[_OUTPUT_KEY] = [[*key, n] for key, n in SEEN.items()]  # type: ignore[attr-defined]
    elif _controller(config):
        failures = {"test_no_unregistered_code_is_produced": unregistered(SEEN)}
        if whole_run(config, session.testsfailed):
            failures["test_every_registered_code_is_produced"] = unproduced(SEEN)
        for name, wrong in failures.items():
            if not wrong:
                continue
            report = pytest.TestReport(
                nodeid=f"tests/test_codes.py::{name}",
                location=("tests/test_codes.py", 0, name),
                keywords={},
                outcome="failed",
                longrepr=f"{name}: {wrong}",
                when="call",
            )
            config.hook.pytest_runtest_logreport(report=report)
            session.testsfailed += 1
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Add what a finished xdist worker saw to the controller's SEEN."""
    for cls, name, severity, n in getattr(node, "workeroutput", {}).get(_OUTPUT_KEY, ()):
        SEEN[(cls, name, severity)] += n
