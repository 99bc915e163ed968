"""The error tree: drawn in errors.py's docstring, one Location for every "where"."""

from __future__ import annotations

import pickle
import pkgutil
import re
from importlib import import_module

import inspector
from inspector.core import errors
from inspector.core.errors import (
    ArgumentsError,
    InspectorError,
    JSONError,
    LoadError,
    Location,
    UsageError,
)


def _public_errors() -> set[str]:
    found = set()
    for info in pkgutil.walk_packages(inspector.__path__, "inspector."):
        if ".gui." in info.name or info.name.endswith(("__main__", ".gui")):
            continue  # the GUI raises none of its own, and importing it needs Qt
        module = import_module(info.name)
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and issubclass(value, InspectorError)
                and not name.startswith("_")
                and value.__module__ == info.name
            ):
                found.add(name)
    return found


def test_the_docstring_draws_every_error_class() -> None:
    drawn = set(re.findall(r"[├└]── (\w+)", errors.__doc__ or ""))
    assert drawn == _public_errors() - {"InspectorError"}
    assert "InspectorError" in (errors.__doc__ or "")


def test_usage_error_is_an_inspector_error() -> None:
    assert issubclass(UsageError, InspectorError)


def test_location_prefix_names_the_parts_that_are_known() -> None:
    assert Location().prefix() == "<input>"
    assert Location("a.jsonl", 3).prefix() == "a.jsonl:3"
    assert Location("a.sse", 7, 2, event=4).prefix() == "a.sse:7:2 (event 4)"
    assert Location("t.json", pointer="/tools/0").prefix() == "t.json at /tools/0"
    assert Location(pointer="").prefix("<paste>") == "<paste> at /"
    assert Location(line=2, column=5).position() == "line 2 column 5"


def test_every_error_says_where_through_one_location() -> None:
    load = LoadError("bad", path="f.json", line=2, column=9, event_index=1)
    assert str(load) == "f.json:2:9 (event 1): bad"
    assert (load.path, load.line, load.column, load.event_index) == ("f.json", 2, 9, 1)
    assert load.to_json() == {"message": "bad", "line": 2, "column": 9, "event_index": 1}
    assert ArgumentsError("No value", 1, 4).describe() == "No value at line 1 column 4"
    assert ArgumentsError("empty").describe() == "empty"
    parsed = JSONError("Expecting ','", 1, 7, 6)
    assert parsed.describe() == "Expecting ',': line 1 column 7 (char 6)"
    for error in (load, ArgumentsError("x", 1, 1), parsed):
        assert isinstance(error.where, Location)


def test_a_load_error_keeps_its_location_across_processes() -> None:
    # The fleet scan sends errors back from worker processes.
    again = pickle.loads(pickle.dumps(LoadError("bad", path="f.json", line=2, column=9)))
    assert str(again) == "f.json:2:9: bad"
