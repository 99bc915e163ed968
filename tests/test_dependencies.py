"""Every third-party module the package imports is a declared dependency (a fresh install works)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _imported_top_level() -> set[str]:
    names: set[str] = set()
    for path in (REPO / "inspector").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"inspector", "__future__"}


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_distribution_is_declared():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # An optional extra's modules (the fleet scan's dask, fsspec, pyarrow) are imported only
    # where the extra is used, which says how to install it when it is missing.
    extras = [
        d for name, deps in project.get("optional-dependencies", {}).items() if name != "test"
        for d in deps
    ]  # fmt: skip
    declared = {
        _normalise(re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0])
        for d in [*project["dependencies"], *extras]
    }
    declared |= {"distributed"} if "dask" in declared else set()  # dask[distributed]
    owners = packages_distributions()
    missing = {}
    for module in sorted(_imported_top_level()):
        dists = {_normalise(d) for d in owners.get(module, [module])}
        # PySide6 and shiboken6 come with PySide6-Essentials.
        if module in ("PySide6", "shiboken6"):
            dists = {"pyside6-essentials"}
        if not dists & declared:
            missing[module] = sorted(dists)
    assert missing == {}
