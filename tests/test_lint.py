"""The code base stays ruff clean (lint and format), checked with the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


def _ruff() -> list[str]:
    try:
        import ruff  # noqa: F401
    except ImportError:
        found = shutil.which("ruff")
        if found is None:
            pytest.skip("ruff is not installed (it comes with the [test] extra)")
        return [found]
    return [sys.executable, "-m", "ruff"]


def test_ruff_check():
    done = subprocess.run([*_ruff(), "check", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format():
    done = subprocess.run(
        [*_ruff(), "format", "--check", "."], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
