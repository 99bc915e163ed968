"""What every format's loader shares: the transcript builder, a record with its origin, tools."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from inspector.core.formats._lean import LeanArray, add_lean_array
from inspector.core.model import (
    Conversion,
    Envelope,
    Group,
    Item,
    LoadError,
    Note,
    Origin,
    Tool,
    Transcript,
    join_pointer,
    unclaimed_object,
    unrecognised_item,
)

#: A detection: how sure a format is (0–100) and which kind of record it takes the value for.
Detection = tuple[int, str]
#: Scores at or above this end the search: no other format could claim the record better.
CERTAIN = 95


def describe(obj: Any) -> str:
    """Say what a JSON value is, for error messages."""
    if isinstance(obj, dict):
        keys = ", ".join(sorted(map(str, obj))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    return f"a JSON {type(obj).__name__}".replace("NoneType", "null")


def has_text(value: Any) -> bool:
    """Whether a message's content holds anything (a non-empty string or list)."""
    return (isinstance(value, str) and value != "") or (isinstance(value, list) and bool(value))


@dataclass
class Record:
    """One parsed record of a file: the value, its line, its JSON Pointer, and a line locator."""

    obj: Any
    line: int | None
    base: str = ""
    lines: Callable[[tuple[str | int, ...]], list[int]] | None = None


@dataclass
class Builder:
    """Collects items, groups and tools while a file's records are read."""

    path: str | None
    #: Loads a nested record (a Batch line's body) through the format dispatch.
    add_record: Callable[[Builder, Record], str]
    items: list[Item] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    tools: dict[str, Tool] = field(default_factory=dict)
    tool_choice: Any = None
    open_item_group: int | None = None
    #: Converted calls by name, in file order, each with the turn it was made in (results
    #: without ids pair from here; answered ids are skipped lazily).
    unanswered: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    #: How many call ids were synthesised so far (they are numbered in file order).
    synthesised: int = 0
    #: The whole file's index of the first item (a run of a file's lines: see
    #: formats.load_jsonl_run): items are numbered from it.
    first: int = 0

    def group(self, kind: str, origin: Origin, **fields: Any) -> int:
        """Start a group (the record items come from) and return its index."""
        index = len(self.groups)
        self.groups.append(Group(index=index, kind=kind, origin=origin, **fields))
        self.open_item_group = None
        return index

    def add_item(
        self,
        raw: Any,
        origin: Origin,
        group: int,
        envelope: Envelope = Envelope.OPEN_RESPONSES,
        conversion: Conversion | None = None,
    ) -> None:
        """Append one item (an object no format claims is refused, naming where it is)."""
        if type(raw) is dict and raw.get("type") is None and unclaimed_object(None, raw):
            raise unrecognised_item(raw, origin)
        index = self.first + len(self.items)
        self.items.append(Item(index, raw, origin, group, envelope, conversion))

    def note(self, group: int, note: Note) -> None:
        """Attach a note (something assumed or left out) to a group."""
        old = self.groups[group]
        self.groups[group] = dataclasses.replace(old, notes=(*old.notes, note))

    def add_tool(self, name: str, parameters: Any, pointer: str, line: int | None) -> None:
        """Take one function tool defined in the transcript (a later definition wins)."""
        self.tools[name] = Tool(
            name, parameters, "function", "transcript", Origin(self.path, line, pointer)
        )

    def add_tools(self, tools: Any, pointer: str, line: int | None) -> None:
        """Take the function tools of a `tools` array (a later definition wins)."""
        for tool in tools_from_list(tools, source="transcript", file=self.path, pointer=pointer):
            if line is not None and tool.origin is not None:
                tool = Tool(
                    tool.name,
                    tool.parameters,
                    tool.kind,
                    tool.source,
                    Origin(self.path, line, tool.origin.pointer),
                    tool.strict,
                )
            self.tools[tool.name] = tool

    def add_settings(self, record: Record) -> None:
        """Take a request's or response's tools and tool_choice (the latest record wins)."""
        obj = record.obj
        self.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
        if "tool_choice" in obj:
            self.tool_choice = obj["tool_choice"]

    def fail(self, message: str, record: Record) -> LoadError:
        """Return a LoadError at the record's line."""
        return LoadError(message, path=self.path, line=record.line)

    def transcript(self, fmt: str, conversation: str | None = None) -> Transcript:
        """Freeze what was collected into a Transcript (of one conversation of a file)."""
        return Transcript(
            path=self.path,
            format=fmt,
            items=tuple(self.items),
            groups=tuple(self.groups),
            tools=MappingProxyType(dict(self.tools)),
            tool_choice=self.tool_choice,
            conversation=conversation,
        )


def tools_from_list(
    tools: Any, *, source: str, file: str | None = None, pointer: str = ""
) -> Iterator[Tool]:
    """Yield Tools from an Open Responses, Chat Completions or Anthropic `tools` array."""
    if not isinstance(tools, list):
        return
    for i, entry in enumerate(tools):
        if not isinstance(entry, dict):
            continue
        here = Origin(file, None, join_pointer(pointer, i))
        kind = entry.get("type")
        function = entry.get("function")
        # Chat Completions keeps `strict` beside the nested definition's parameters.
        flag = (function if isinstance(function, dict) else entry).get("strict")
        strict = flag if isinstance(flag, bool) else None
        if (
            kind == "function"
            and isinstance(function, dict)
            and isinstance(function.get("name"), str)
        ):
            # Chat Completions nests the definition under "function".
            yield Tool(
                function["name"], function.get("parameters"), "function", source, here, strict
            )
        elif kind == "function" and isinstance(entry.get("name"), str):
            yield Tool(entry["name"], entry.get("parameters"), "function", source, here, strict)
        elif "input_schema" in entry and isinstance(entry.get("name"), str):
            yield Tool(entry["name"], entry.get("input_schema"), "function", source, here, strict)
        elif kind == "custom" and isinstance(entry.get("name"), str):
            yield Tool(entry["name"], None, "custom", source, here)


def item_lines(record: Record, target: tuple[str | int, ...], count: int) -> list[int | None]:
    """Return the line of each element of the array at `target`, or the record's line."""
    if record.lines is not None:
        try:
            found: list[int | None] = list(record.lines(target))
        except Exception:
            found = []
        if len(found) == count:
            return found
    return [record.line] * count


def add_items(
    b: Builder,
    record: Record,
    items: list[Any],
    target: tuple[str | int, ...],
    group: int,
    envelope: Envelope = Envelope.OPEN_RESPONSES,
) -> None:
    """Add each element of an item array with its own line and pointer."""
    pointer = join_pointer(record.base, *target)
    if isinstance(items, LeanArray):
        add_lean_array(b.items, items, pointer, group, envelope, b.add_item)
        return
    lines = item_lines(record, target, len(items))
    for i, raw in enumerate(items):
        b.add_item(raw, Origin(b.path, lines[i], join_pointer(pointer, i)), group, envelope)
