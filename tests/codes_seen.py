"""A pytest plugin: record the code of every result built during the run, for tests/test_codes.py.

Findings, violations, changes, document changes and target problems are wrapped at start-up, so
the run knows which registered codes its tests produced, and which codes were produced that no
registry entry names. Its two checks are moved to the end of the run.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

#: (class name, code, severity) → how many were built during this run.
SEEN: Counter[tuple[str, str, str]] = Counter()
_LOCK = threading.Lock()
#: The checks of what was produced, run after every other test.
LAST = frozenset(
    {"test_no_unregistered_code_is_produced", "test_every_registered_code_is_produced"}
)


def _record(cls: type) -> None:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        with _LOCK:
            SEEN[(cls.__name__, str(self.code), str(self.severity))] += 1

    cls.__init__ = init  # type: ignore[method-assign]


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the check on what was produced after every other test."""
    last = [item for item in items if item.name in LAST]
    items[:] = [item for item in items if item.name not in LAST] + last
