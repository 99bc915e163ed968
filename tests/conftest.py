"""Shared test configuration: offscreen Qt, paths to the repository samples and ../shared."""

from __future__ import annotations

import os
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
