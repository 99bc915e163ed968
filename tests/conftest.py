"""Shared test configuration: offscreen Qt, paths to the repository samples and ../shared."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

# Records the code of every result the tests build (checked by tests/test_codes.py).
pytest_plugins = ["tests.codes_seen"]

# Set before any Qt import so every GUI test renders offscreen, on CI and on a desktop alike.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
SCHEMA_SUITE = SHARED / "reference" / "json-schema-test-suite"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-goldens``: rewrite the stored expected outputs from this run."""
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite the golden outputs under samples/ from this run (review them as a diff)",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites the golden outputs (``pytest --update-goldens``)."""
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def golden(update_goldens: bool) -> Callable[[Path, str], None]:
    """Check a rendered text against its golden file (rewritten first with --update-goldens)."""

    def check(path: Path, text: str) -> None:
        if update_goldens:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert path.is_file(), f"no golden output; run pytest --update-goldens to create {path}"
        assert text == path.read_text(encoding="utf-8"), f"differs from the golden {path}"

    return check


class StepClock:
    """A clock that moves one step each time it is read, so a time budget runs out by count."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 0.0, step, 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


@pytest.fixture
def samples() -> Path:
    """The repository's samples/ folder."""
    return SAMPLES


@pytest.fixture
def shared() -> Path:
    """The ../shared folder beside the repository (skips when absent)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the repository")
    return SHARED
