"""Fixtures of the core tests' gate by runs."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
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


def said_in_file(
    monkeypatch,
    owner: Any,
    name: str,
    said: Path,
    detail: Callable[..., tuple[Any, ...]] = lambda *args: (),
) -> Path:
    """`owner.name(number, *args)` replaced by one that says, in the file `said`, each call
    it answered (a forked worker's memory is its own): a line of the number, its `detail`,
    the process and whether it was made."""
    original = getattr(owner, name)

    def told(number: int, *args: Any) -> Any:
        done = original(number, *args)
        with open(said, "a", encoding="utf-8") as out:
            words = (number, *detail(*args), os.getpid(), done is not None)
            out.write(" ".join(map(str, words)) + "\n")
        return done

    monkeypatch.setattr(owner, name, told)
    return said
