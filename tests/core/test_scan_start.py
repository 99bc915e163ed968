"""The scan's serial start: what the main process builds before its pool forks, which every
worker waits for (and `--jobs 1` pays too). Each test looks at a fresh process.

A frozen dataclass costs about 4 M instructions to make when its module is imported (its
methods are written out as source and compiled); a msgspec Struct is made in C for a
thirtieth of that. The scan's own modules make Structs; the dataclasses kept are named below
with the reason. A target's profile module is imported alone (with the profiles it extends),
not every profile.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from inspector.core.targets import ProfileError, get_profile, load_profiles
from inspector.core.targets import profile as profile_module
from inspector.core.targets import profiles as profiles_package

ROOT = Path(__file__).resolve().parents[2]

#: The command line parsed and the pool's preload done, as the parent does before it forks;
#: prints every dataclass the process made and every module it imported.
_BEFORE_THE_FORK = """
import dataclasses, json, sys
from inspector.cli import build_parser
build_parser("scan").parse_args(["scan", "x", "--target", "openai"])
from inspector.core import scan
scan.preload(("openai",))
made = sorted(
    f"{name}.{value.__qualname__}"
    for name, module in list(sys.modules.items())
    if module is not None
    for value in list(vars(module).values())
    if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name
)
print(json.dumps({"dataclasses": made, "modules": sorted(sys.modules)}))
"""

#: Modules whose import-time shape the scan keeps: every class they make before the fork is a
#: msgspec Struct or a plain class (a result whose __init__ tests/codes_seen.py wraps, which a
#: Struct's constructor never calls, is a `codes.FrozenValue`), but these dataclasses.
OWN_MODULES = (
    "inspector.commands.scan",
    "inspector.core.scan",
    "inspector.core.model",
    "inspector.core.schema",
    "inspector.core.decision",
    "inspector.core.jsonio",
    "inspector.core.fleet_pool",
    "inspector.core.codes",
    "inspector.core.errors",
    "inspector.core.stream.",
    "inspector.core.targets.",
    "inspector.core.formats",  # the registry itself
    "inspector.core.formats._blocks",
    "inspector.core.formats._convert",
    "inspector.core.formats._sessions",
    "inspector.core.formats.claude_code",
    "inspector.core.formats.codex",
    "inspector.core.formats.spec",
)
KEPT = {
    # A subclass of the gate's Finding, a dataclass.
    "inspector.core.targets.transcript_rules.TargetFinding",
    # Made anew through `dataclasses.replace` (or built from `dataclasses.fields`) by the format
    # modules that load them and by the window: a Struct would need each of those changed.
    "inspector.core.model.Group",
    "inspector.core.model.Origin",
    "inspector.core.model.Tool",
    "inspector.core.model.Transcript",
}


def _own(name: str) -> bool:
    module = name.rsplit(".", 1)[0]
    return any(
        module.startswith(own) if own.endswith(".") else module == own for own in OWN_MODULES
    )


@pytest.fixture(scope="module")
def before_the_fork() -> dict[str, Any]:
    """What a `scan --target openai --jobs 2` has made by the time it forks its workers."""
    done = subprocess.run(
        [sys.executable, "-c", _BEFORE_THE_FORK],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_scans_own_modules_make_no_dataclass_before_the_fork_but_those_kept(
    before_the_fork: dict[str, Any],
) -> None:
    made = {name for name in before_the_fork["dataclasses"] if _own(name)}
    assert made == KEPT
    # The preload did import them all (the check above looked at every format module).
    assert "inspector.core.formats.claude_code" in before_the_fork["modules"]
    assert "inspector.core.stream.reducer" in before_the_fork["modules"]


def test_a_scan_against_one_target_imports_its_profile_module_alone(
    before_the_fork: dict[str, Any],
) -> None:
    imported = {
        name.rsplit(".", 1)[1]
        for name in before_the_fork["modules"]
        if name.startswith("inspector.core.targets.profiles.")
    }
    assert imported == {"openai", "_shared"}


_PROFILES_OF = """
import json, sys
from inspector.cli import run
from io import StringIO
status = run(sys.argv[1:], StringIO(), StringIO())
prefix = "inspector.core.targets.profiles."
print(json.dumps(sorted(m for m in sys.modules if m.startswith(prefix))))
"""


def test_a_profile_that_extends_another_imports_both_and_no_other(tmp_path: Path) -> None:
    sample = tmp_path / "one.jsonl"
    sample.write_text('{"type": "message", "role": "user", "content": "hi"}\n')
    command = [sys.executable, "-c", _PROFILES_OF, "scan", str(sample), "--target", "gemini-3"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
    imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert imported == [
        "inspector.core.targets.profiles.gemini",
        "inspector.core.targets.profiles.gemini_3",
    ]


def test_a_profile_found_by_its_name_is_the_one_every_profile_holds() -> None:
    every = load_profiles()
    for name, profile in every.items():
        assert get_profile(name) is profile
    # Inheritance is resolved the same way: gemini-3 holds every gemini rule and its own.
    ids = {r.id for r in get_profile("gemini-3").rules()}
    assert {r.id for r in get_profile("gemini").rules()} < ids


def test_a_profile_module_named_unlike_its_profile_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # get_profile finds a module by the profile's name: every profile must live where its
    # name says, or a target would be unreachable one way and not the other.
    module = types.ModuleType("inspector.core.targets.profiles.zz_misnamed")
    module.PROFILE = {"name": "zz-other", "title": "Misnamed"}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(profiles_package, "MODULES", (*profiles_package.MODULES, "zz_misnamed"))
    load_profiles.cache_clear()
    try:
        with pytest.raises(ProfileError, match="name 'zz-other' does not match its module"):
            load_profiles()
        with pytest.raises(KeyError):
            profile_module._profile("zz-other")
    finally:
        load_profiles.cache_clear()
        profile_module._profile.cache_clear()
    monkeypatch.undo()
    assert "zz-other" not in load_profiles()


def test_a_result_made_without_a_dataclass_is_still_a_frozen_value() -> None:
    # What the dataclasses gave Violation and ToolProblem: equality and hashing by fields,
    # no assignment, pickling, and the fields named in its repr.
    from inspector.core.codes import Severity
    from inspector.core.stream.results import Violation
    from inspector.core.targets.schema_rules import SCHEMA_REJECTED, ToolProblem

    made = Violation("sequence_gap", Severity.ERROR, 3, 4, 5, "gap")
    same = Violation("sequence_gap", Severity.ERROR, event_index=3, sequence_number=4, line=5,
                     message="gap")  # fmt: skip
    assert made == same and hash(made) == hash(same) and len({made, same}) == 1
    assert made != Violation("sequence_gap", Severity.ERROR, 3, 4, 6, "gap")
    with pytest.raises(AttributeError):
        made.line = 6  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == made
    assert repr(made) == (
        "Violation(code='sequence_gap', severity=<Severity.ERROR: 'error'>, event_index=3, "
        "sequence_number=4, line=5, message='gap')"
    )
    rule = get_profile("openai").schema[0]
    problem = ToolProblem(SCHEMA_REJECTED, Severity.ERROR, "/", rule, "no")
    again = ToolProblem(SCHEMA_REJECTED, Severity.ERROR, "/", rule, "no")
    assert problem == again and problem != made
