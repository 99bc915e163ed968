"""Fixtures of the core tests' gate by runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from inspector.commands import gate as gate_command
from inspector.core import parallel


@pytest.fixture
def by_runs(monkeypatch):
    """Every file gated by runs, in runs of about 1.5 kB (so a small file has many), and what
    each gate by runs gave (None: the file went the usual way)."""
    monkeypatch.setattr(parallel, "POOL_MIN_BYTES", 1)
    monkeypatch.setattr(parallel, "RUN_BYTES", 1500)
    return recorded(monkeypatch, gate_command, "gate_jsonl_on_cores", parallel.gate_jsonl_on_cores)


def recorded(monkeypatch, owner: Any, name: str, original: Callable[..., Any]) -> list[Any]:
    """`owner.name` replaced by `original`, each of whose answers is kept in the list given."""
    made: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(owner, name, spy)
    return made
