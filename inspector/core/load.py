"""Format detection and loaders: any supported file → a Transcript with the origin of every item."""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import orjson

from inspector.core.model import (
    Envelope,
    Group,
    Item,
    LoadError,
    Origin,
    Tool,
    Transcript,
    join_pointer,
    paused_gc,
)

#: Files larger than this are refused rather than read into memory.
MAX_FILE_BYTES = 2 * 1024**3
#: Deepest JSON nesting accepted; deeper documents are refused with a clear error.
MAX_DEPTH = 512
#: Below this size a JSON document's item lines are located exactly; above it, lazily skipped.
LOCATE_LIMIT = 64 * 1024**2


# --------------------------------------------------------------------------------------------
# Bytes → text → JSON


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a file for loading; every failure becomes a LoadError naming the file."""
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            raise LoadError(
                f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes", path=name
            )
        with open(name, "rb") as handle:
            return handle.read()
    except LoadError:
        raise
    except FileNotFoundError:
        raise LoadError("no such file", path=name) from None
    except IsADirectoryError:
        raise LoadError("is a directory, not a file", path=name) from None
    except PermissionError:
        raise LoadError("permission denied", path=name) from None
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or exc}", path=name) from None


def decode_text(data: bytes, path: str | None = None) -> str:
    """Decode UTF-8 (with or without BOM) or BOM-marked UTF-16/32; say where bad bytes are."""
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                return body.decode(encoding)
            except UnicodeDecodeError as exc:
                raise LoadError(
                    f"invalid {encoding.upper()} data: {exc.reason}", path=path
                ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise LoadError(
            f"invalid UTF-8 (byte 0x{data[exc.start]:02x}: {exc.reason})",
            path=path,
            line=line,
            column=column,
        ) from None


# orjson reads an integer beyond 64 bits as a float, silently losing digits; any run of 19 or
# more digits sends the text to the standard library, which keeps such integers exact.
# Digits → "0", so one substring search (memmem) finds any run of 19 digits: a regex would try
# a match at every character and hold the interpreter for most of a second on a large file.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19


_WINDOW = 1 << 20


def _has_long_digits(text: str | bytes) -> bool:
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    # In 1 MB windows (overlapping by 18 bytes), so a loader thread never holds the
    # interpreter long enough for the window to stutter.
    for start in range(0, max(len(data), 1), _WINDOW):
        window = data[max(start - 18, 0) : start + _WINDOW]
        if _NINETEEN_ZEROS in window.translate(_DIGITS_TO_ZERO):
            return True
    return False


def parse_json(
    text: str, path: str | None = None, line_offset: int = 0, *, long_digits: bool | None = None
) -> Any:
    """Parse JSON fast with orjson; use the standard library where orjson would be wrong.

    `long_digits=False` says the caller already knows the text has no run of 19 digits.
    """
    if long_digits is None:
        long_digits = _has_long_digits(text)
    if not long_digits:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    # orjson refuses NaN/Infinity and very deep nesting; the standard library accepts NaN
    # (a file may carry it outside `arguments`) and gives precise positions for syntax errors.
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"invalid JSON: {exc.msg}", path=path, line=exc.lineno + line_offset, column=exc.colno
        ) from None
    except RecursionError:
        raise LoadError(
            f"JSON is nested too deeply (limit {MAX_DEPTH} levels)",
            path=path,
            line=1 + line_offset,
        ) from None
    except ValueError as exc:  # e.g. an integer with too many digits for int()
        raise LoadError(f"invalid JSON: {exc}", path=path, line=1 + line_offset) from None
    check_depth(value, path, line_offset)
    return value


def check_depth(value: Any, path: str | None = None, line_offset: int = 0) -> None:
    """Refuse a parsed value nested deeper than MAX_DEPTH, with a LoadError."""
    # Iterative, so a document near the interpreter's recursion limit cannot crash the check.
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise LoadError(
                f"JSON is nested more than {MAX_DEPTH} levels deep", path=path, line=1 + line_offset
            )
        if isinstance(current, dict):
            stack.extend((v, depth + 1) for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            stack.extend((v, depth + 1) for v in current if isinstance(v, dict | list))


# --------------------------------------------------------------------------------------------
# Locating array elements in a JSON text (for line numbers of items in one JSON document)

_NOT_SPACE = re.compile(r"\S")


def element_lines(text: str, target: tuple[str | int, ...]) -> list[int]:
    """Return the 1-based line of each element of the array at `target` (keys/indexes)."""
    position = _value_at(text, target)
    if position is None or text[position] != "[":
        return []
    return _lines_at(text, _array_element_offsets(text, position + 1))


def _value_at(text: str, target: tuple[str | int, ...]) -> int | None:
    """Return where the value at `target` starts in a JSON text, or None."""
    # Values off the path are skipped whole by the standard library's C scanner, so the
    # text is walked at C speed, strings and nesting included.
    found = _NOT_SPACE.search(text)
    if found is None:
        return None
    position = found.start()
    try:
        for token in target:
            if isinstance(token, str):
                position = _member_at(text, position, token)
            else:
                position = _array_element_offsets(text, position + 1, token + 1)[token]
            if position is None:
                return None
    except (ValueError, IndexError, RecursionError, TypeError):
        return None
    return position


def _member_at(text: str, position: int, key: str) -> int | None:
    """Return where the value of `key` starts in the object at `position` (the last one wins,
    as it does when the text is parsed)."""
    if text[position] != "{":
        return None
    found: int | None = None
    cursor = _NOT_SPACE.search(text, position + 1)
    while cursor is not None and cursor.group(0) == '"':
        name, after = _SCANNER.raw_decode(text, cursor.start())
        colon = _NOT_SPACE.search(text, after)
        if colon is None or colon.group(0) != ":":
            return found
        value = _NOT_SPACE.search(text, colon.end())
        if value is None:
            return found
        if name == key:
            found = value.start()
        _, after = _SCANNER.raw_decode(text, value.start())
        comma = _NOT_SPACE.search(text, after)
        if comma is None or comma.group(0) != ",":
            return found
        cursor = _NOT_SPACE.search(text, comma.end())
    return found


_SCANNER = json.JSONDecoder()


def _array_element_offsets(text: str, position: int, limit: int | None = None) -> list[int]:
    """Return where each element of the array whose body starts at `position` begins."""
    # The standard library's C scanner finds each element's end in one call, strings and
    # nesting included: far faster than tokenising every element in Python.
    offsets: list[int] = []
    while limit is None or len(offsets) < limit:
        start = _NOT_SPACE.search(text, position)
        if start is None or start.group(0) == "]":
            return offsets
        offsets.append(start.start())
        try:
            _, position = _SCANNER.raw_decode(text, start.start())
        except (ValueError, RecursionError):
            return offsets
        after = _NOT_SPACE.search(text, position)
        if after is None or after.group(0) != ",":
            return offsets
        position = after.end()
    return offsets


def _lines_at(text: str, offsets: list[int]) -> list[int]:
    lines: list[int] = []
    line, last = 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        lines.append(line)
    return lines


# --------------------------------------------------------------------------------------------
# Building a transcript from records


@dataclass
class _Builder:
    path: str | None
    items: list[Item] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    tools: dict[str, Tool] = field(default_factory=dict)
    tool_choice: Any = None
    kinds: list[str] = field(default_factory=list)
    open_item_group: int | None = None

    def group(self, kind: str, origin: Origin, **fields: Any) -> int:
        index = len(self.groups)
        self.groups.append(Group(index=index, kind=kind, origin=origin, **fields))
        self.kinds.append(kind)
        self.open_item_group = None
        return index

    def add_item(
        self,
        raw: Any,
        origin: Origin,
        group: int,
        envelope: Envelope = Envelope.OPEN_RESPONSES,
    ) -> None:
        self.items.append(Item(len(self.items), raw, origin, group, envelope))

    def add_tools(self, tools: Any, pointer: str, line: int | None) -> None:
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

    def add_settings(self, record: _Record) -> None:
        """Take a request's or response's tools and tool_choice (the latest record wins)."""
        obj = record.obj
        self.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
        if "tool_choice" in obj:
            self.tool_choice = obj["tool_choice"]

    def transcript(self, fmt: str, stream: Any = None) -> Transcript:
        return Transcript(
            path=self.path,
            format=fmt,
            items=tuple(self.items),
            groups=tuple(self.groups),
            tools=MappingProxyType(dict(self.tools)),
            tool_choice=self.tool_choice,
            stream=stream,
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


def _text_of(value: Any) -> bool:
    return (isinstance(value, str) and value != "") or (isinstance(value, list) and bool(value))


def classify(obj: Any) -> str:
    """Name the kind of one JSON record, or 'unknown'."""
    if isinstance(obj, list):
        return "items"
    if not isinstance(obj, dict):
        return "unknown"
    # Most lines of a big log are items: answer those before the rarer record shapes.
    kind = obj.get("type")
    if (
        type(kind) is str
        and kind in _PLAIN_ITEM_TYPES
        and "stop_reason" not in obj
        and "object" not in obj
    ):
        return "item"
    marker = obj.get("object")
    if marker == "response":
        return "response"
    if marker == "response.compaction":
        return "compaction"
    if marker == "list" and isinstance(obj.get("data"), list):
        return "item_list"
    if marker == "chat.completion" or (
        isinstance(obj.get("choices"), list) and "messages" not in obj
    ):
        return "chat_response"
    if "custom_id" in obj and ("body" in obj or "response" in obj):
        return "batch"
    if isinstance(obj.get("error"), dict) and not ({"output", "input", "type"} & obj.keys()):
        return "error"
    if isinstance(obj.get("messages"), list):
        return "anthropic_request" if _looks_anthropic_request(obj) else "chat_request"
    if (
        obj.get("type") == "message"
        and "stop_reason" in obj
        and isinstance(obj.get("content"), list)
    ):
        return "anthropic_response"
    if "input" in obj or (
        "model" in obj
        and ({"tools", "instructions", "previous_response_id", "tool_choice"} & obj.keys())
        and "type" not in obj
    ):
        return "request"
    kind = obj.get("type")
    if (
        isinstance(kind, str)
        and (kind.startswith("response.") or kind == "error")
        and ("sequence_number" in obj or "response" in obj or "item_id" in obj or "delta" in obj)
    ):
        return "stream_event"
    if "type" in obj or "role" in obj or "id" in obj:
        return "item"
    return "unknown"


_PLAIN_ITEM_TYPES = frozenset(
    {"function_call", "function_call_output", "reasoning", "item_reference", "compaction"}
)
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})


def _looks_anthropic_request(obj: dict[str, Any]) -> bool:
    if "system" in obj and not any(
        isinstance(m, dict) and m.get("role") == "system" for m in obj["messages"]
    ):
        return True
    tools = obj.get("tools")
    if isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools):
        return True
    for message in obj["messages"]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in _ANTHROPIC_BLOCKS for b in content
        ):
            return True
    return False


_EXPECTED = (
    "an Open Responses request (with input), a response (object: response), an input-items "
    "list (object: list), an item, an array of items, JSONL of those, OpenAI Batch lines, a "
    "recorded SSE stream, a Chat Completions or Anthropic Messages record, or an error body"
)


def _describe(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(sorted(map(str, obj))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    return f"a JSON {type(obj).__name__}".replace("NoneType", "null")


@dataclass
class _Record:
    obj: Any
    line: int | None
    base: str = ""
    lines: Callable[[tuple[str | int, ...]], list[int]] | None = None


def _item_lines(record: _Record, target: tuple[str | int, ...], count: int) -> list[int | None]:
    if record.lines is not None:
        try:
            found: list[int | None] = list(record.lines(target))
        except Exception:
            found = []
        if len(found) == count:
            return found
    return [record.line] * count


def _add_items(
    b: _Builder,
    record: _Record,
    items: list[Any],
    target: tuple[str | int, ...],
    group: int,
    envelope: Envelope = Envelope.OPEN_RESPONSES,
) -> None:
    lines = _item_lines(record, target, len(items))
    pointer = join_pointer(record.base, *target)
    for i, raw in enumerate(items):
        b.add_item(raw, Origin(b.path, lines[i], join_pointer(pointer, i)), group, envelope)


def _add_item_array(b: _Builder, record: _Record, key: str, group: int, rule: str) -> None:
    """Add the items of the record's `key` array; anything else there (not null) is an error."""
    value = record.obj.get(key)
    if isinstance(value, list):
        _add_items(b, record, value, (key,), group)
    elif value is not None:
        raise LoadError(f"{rule}, not {_describe(value)}", path=b.path, line=record.line)


def _add_request(b: _Builder, record: _Record) -> None:
    obj = record.obj
    origin = Origin(b.path, record.line, record.base)
    previous = obj.get("previous_response_id")
    group = b.group(
        "request",
        origin,
        previous_response_id=previous if isinstance(previous, str) else None,
    )
    b.add_settings(record)
    data = obj.get("input")
    if isinstance(data, str):
        # A string input is shorthand for one user message.
        b.add_item(
            {"type": "message", "role": "user", "content": data},
            Origin(b.path, record.line, join_pointer(record.base, "input")),
            group,
        )
    else:
        _add_item_array(
            b, record, "input", group, "request input must be a string or an array of items"
        )


def _add_response(b: _Builder, record: _Record, kind: str = "response") -> None:
    obj = record.obj
    status = obj.get("status")
    rid = obj.get("id")
    previous = obj.get("previous_response_id")
    group = b.group(
        kind,
        Origin(b.path, record.line, record.base),
        status=status if isinstance(status, str) else None,
        incomplete_details=obj.get("incomplete_details"),
        error=obj.get("error"),
        response_id=rid if isinstance(rid, str) else None,
        previous_response_id=previous if isinstance(previous, str) else None,
    )
    b.add_settings(record)
    _add_item_array(b, record, "output", group, "response output must be an array")


def _add_item_list(b: _Builder, record: _Record) -> None:
    group = b.group("item_list", Origin(b.path, record.line, record.base))
    _add_items(b, record, record.obj["data"], ("data",), group)


def _add_array(b: _Builder, record: _Record) -> None:
    group = b.group("items", Origin(b.path, record.line, record.base))
    _add_items(b, record, record.obj, (), group)


def _add_single_item(b: _Builder, record: _Record) -> None:
    # Consecutive bare items (one per JSONL line) form one group, as they form one list.
    if b.open_item_group is None:
        b.open_item_group = b.group("items", Origin(b.path, record.line, record.base))
        group = b.open_item_group
    else:
        group = b.open_item_group
    b.add_item(record.obj, Origin(b.path, record.line, record.base), group)
    b.open_item_group = group


def _add_error(b: _Builder, record: _Record) -> None:
    b.group("error", Origin(b.path, record.line, record.base), error=record.obj.get("error"))


def _chat_message_items(
    message: dict[str, Any], pointer: str
) -> Iterator[tuple[dict[str, Any], str]]:
    role = message.get("role")
    if role in ("tool", "function"):
        call_id = message.get("tool_call_id", message.get("name"))
        yield (
            {"type": "function_call_output", "call_id": call_id, "output": message.get("content")},
            pointer,
        )
        return
    content = message.get("content")
    refusal = message.get("refusal")
    calls = message.get("tool_calls")
    if _text_of(content) or not calls:
        converted = {"type": "message", "role": role, "content": content}
        if isinstance(refusal, str):
            converted["refusal"] = refusal
        yield converted, pointer
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            yield (
                {
                    "type": "function_call",
                    "call_id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments"),
                },
                join_pointer(pointer, "tool_calls", j),
            )


def _add_chat(b: _Builder, record: _Record, response: bool) -> None:
    obj = record.obj
    kind = "chat_response" if response else "chat_request"
    group = b.group(
        kind, Origin(b.path, record.line, record.base), envelope=Envelope.CHAT_COMPLETIONS
    )
    b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
    if response:
        sources = [
            (c.get("message"), ("choices", i, "message"))
            for i, c in enumerate(obj.get("choices") or [])
            if isinstance(c, dict)
        ]
    else:
        sources = [(m, ("messages", i)) for i, m in enumerate(obj.get("messages") or [])]
    for message, target in sources:
        if not isinstance(message, dict):
            continue
        pointer = join_pointer(record.base, *target)
        for raw, where in _chat_message_items(message, pointer):
            b.add_item(raw, Origin(b.path, record.line, where), group, Envelope.CHAT_COMPLETIONS)


def _anthropic_items(role: Any, content: Any, pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    if not isinstance(content, list):
        yield {"type": "message", "role": role, "content": content}, pointer
        return
    text_blocks: list[Any] = []
    for j, block in enumerate(content):
        here = join_pointer(pointer, "content", j)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in _ANTHROPIC_BLOCKS and text_blocks:
            # Keep the record's order: text written before a tool call comes before it.
            yield {"type": "message", "role": role, "content": text_blocks}, pointer
            text_blocks = []
        if kind == "tool_use":
            yield (
                {
                    "type": "function_call",
                    "call_id": block.get("id"),
                    "name": block.get("name"),
                    # Anthropic stores an object; the Open Responses form is its JSON text.
                    "arguments": json.dumps(block.get("input"), ensure_ascii=False),
                },
                here,
            )
        elif kind == "tool_result":
            yield (
                {
                    "type": "function_call_output",
                    "call_id": block.get("tool_use_id"),
                    "output": block.get("content"),
                },
                here,
            )
        elif kind in ("thinking", "redacted_thinking"):
            yield {"type": "reasoning", "summary": [], "anthropic": block}, here
        else:
            text_blocks.append(block)
    if text_blocks:
        yield {"type": "message", "role": role, "content": text_blocks}, pointer


def _add_anthropic(b: _Builder, record: _Record, response: bool) -> None:
    obj = record.obj
    kind = "anthropic_response" if response else "anthropic_request"
    group = b.group(kind, Origin(b.path, record.line, record.base), envelope=Envelope.ANTHROPIC)
    b.add_tools(obj.get("tools"), join_pointer(record.base, "tools"), record.line)
    pairs: list[tuple[dict[str, Any], str]] = []
    if response:
        pairs.extend(
            _anthropic_items(obj.get("role", "assistant"), obj.get("content"), record.base)
        )
    else:
        system = obj.get("system")
        if system is not None:
            pairs.append(
                (
                    {"type": "message", "role": "system", "content": system},
                    join_pointer(record.base, "system"),
                )
            )
        for i, message in enumerate(obj.get("messages") or []):
            if isinstance(message, dict):
                pairs.extend(
                    _anthropic_items(
                        message.get("role"),
                        message.get("content"),
                        join_pointer(record.base, "messages", i),
                    )
                )
    for raw, where in pairs:
        b.add_item(raw, Origin(b.path, record.line, where), group, Envelope.ANTHROPIC)


def _add_batch(b: _Builder, record: _Record) -> None:
    obj = record.obj
    if isinstance(obj.get("body"), dict):
        inner = _Record(obj["body"], record.line, join_pointer(record.base, "body"))
        _add_record(b, inner)
        return
    response = obj.get("response")
    if isinstance(response, dict) and isinstance(response.get("body"), dict):
        inner = _Record(
            response["body"], record.line, join_pointer(record.base, "response", "body")
        )
        _add_record(b, inner)
        return
    if obj.get("error") is not None:
        b.group("error", Origin(b.path, record.line, record.base), error=obj["error"])
        return
    raise LoadError(
        "batch line has neither a request body nor a response body", path=b.path, line=record.line
    )


_HANDLERS: dict[str, Callable[[_Builder, _Record], None]] = {
    "request": _add_request,
    "response": _add_response,
    "compaction": lambda b, r: _add_response(b, r, "compaction"),
    "item_list": _add_item_list,
    "items": _add_array,
    "item": _add_single_item,
    "error": _add_error,
    "chat_request": lambda b, r: _add_chat(b, r, response=False),
    "chat_response": lambda b, r: _add_chat(b, r, response=True),
    "anthropic_request": lambda b, r: _add_anthropic(b, r, response=False),
    "anthropic_response": lambda b, r: _add_anthropic(b, r, response=True),
    "batch": _add_batch,
}


def _add_record(b: _Builder, record: _Record, kind: str | None = None) -> str:
    kind = kind or classify(record.obj)
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise LoadError(
            f"unrecognised record: found {_describe(record.obj)}; expected {_EXPECTED}",
            path=b.path,
            line=record.line,
        )
    handler(b, record)
    return kind


_FORMAT_OF_KIND = {
    "request": "request",
    "response": "response",
    "compaction": "compaction",
    "item_list": "item_list",
    "items": "items",
    "item": "item",
    "error": "error",
    "chat_request": "chat_completions",
    "chat_response": "chat_completions",
    "anthropic_request": "anthropic",
    "anthropic_response": "anthropic",
    "batch": "batch",
}


# --------------------------------------------------------------------------------------------
# Whole files


_SSE_FIELD = re.compile(r"(event|data|id|retry)\s*:|:")


def _looks_like_sse(first_line: str) -> bool:
    return _SSE_FIELD.match(first_line) is not None and not first_line.startswith(("{", "["))


def load_text(text: str, path: str | None = None, *, data: bytes | None = None) -> Transcript:
    """Load a transcript from text (one JSON document, JSONL, or an SSE stream)."""
    with paused_gc():
        return _load_text(text, path, data)


def _load_text(text: str, path: str | None, data: bytes | None) -> Transcript:
    if text.startswith("\ufeff"):
        text = text[1:]
    start = _NOT_SPACE.search(text)
    if start is None:
        raise LoadError(f"file is empty; expected {_EXPECTED}", path=path)
    end = text.find("\n", start.start())
    first_line = text[start.start() : end if end >= 0 else len(text)]
    if _looks_like_sse(first_line):
        from inspector.core.stream_load import load_sse

        raw = data if data is not None else text.encode("utf-8")
        return load_sse(raw, path)
    utf8 = data is not None and not data.startswith(
        (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)
    )
    long_digits = _has_long_digits(data if utf8 and data is not None else text)
    document_error: LoadError | None = None
    try:
        document = parse_json(text, path, long_digits=long_digits)
    except LoadError as exc:
        document_error = exc
    else:
        b = _Builder(path)
        lines_of: Callable[[tuple[str | int, ...]], list[int]] | None = None
        if len(text) <= LOCATE_LIMIT:

            def lines_of(target: tuple[str | int, ...]) -> list[int]:
                return element_lines(text, target)

        first_number = text.count("\n", 0, start.start()) + 1
        kind = classify(document)
        if kind == "stream_event":
            return _load_event_lines([(first_number, document)], path)
        kind = _add_record(b, _Record(document, first_number, "", lines_of))
        return b.transcript(_FORMAT_OF_KIND[kind])
    # Not one document: JSON Lines if the first line is a whole value by itself.
    if end >= 0:
        try:
            parse_json(first_line, path, text.count("\n", 0, start.start()))
        except LoadError:
            pass
        else:
            return load_jsonl_lines(text.splitlines(), path, long_digits=long_digits)
    assert document_error is not None
    raise document_error


def load_jsonl_lines(
    lines: Iterable[str], path: str | None = None, *, long_digits: bool | None = None
) -> Transcript:
    """Load JSON Lines: each line an item, request, response, batch line or stream event."""
    if not isinstance(lines, list):
        lines = list(lines)
    if long_digits is None:
        # One scan of the whole text is far cheaper than one per line.
        long_digits = _has_long_digits("\n".join(lines))
    check = None if long_digits else False

    def records() -> Iterator[tuple[int, Any]]:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                yield number, parse_json(line, path, number - 1, long_digits=check)

    return _load_records(records(), path)


def _load_records(records: Iterable[tuple[int, Any]], path: str | None) -> Transcript:
    """Build a transcript from parsed JSONL records, given with their line numbers."""
    b = _Builder(path)
    kinds: set[str] = set()
    events: list[tuple[int, Any]] = []
    for number, obj in records:
        kind = classify(obj)
        if kind == "stream_event" or (events and isinstance(obj, dict)):
            events.append((number, obj))
            continue
        kinds.add(_add_record(b, _Record(obj, number, ""), kind))
    if events:
        if b.items or b.groups:
            raise LoadError(
                "file mixes streaming events with other records; a stream must be on its own",
                path=path,
                line=events[0][0],
            )
        return _load_event_lines(events, path)
    if not b.groups:
        raise LoadError(f"file has no records; expected {_EXPECTED}", path=path)
    fmt = "batch" if kinds == {"batch"} else "jsonl"
    return b.transcript(fmt)


def _jsonl_bytes(data: bytes, path: str | None) -> Transcript | None:
    """Load UTF-8 JSON Lines straight from bytes, or None when the data is not JSON Lines.

    Big logs are JSONL: parsing each line's bytes avoids holding the file, its decoded text
    and its split lines at once.
    """
    start = len(data) - len(data.lstrip())
    if start >= len(data) or data[start] not in b"{[":
        return None
    end = data.find(b"\n", start)
    if end < 0 or not data[end:].strip():
        return None  # one line: a single JSON document, read the ordinary way
    first = data[start:end]
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return None  # the first line is not a whole value: a multi-line document (or broken)
    long_digits = _has_long_digits(data)

    def lines() -> Iterator[bytes]:
        # One line at a time, rather than a list of every line beside the data itself.
        position = 0
        while position < len(data):
            stop = data.find(b"\n", position)
            if stop < 0:
                stop = len(data)
            yield data[position:stop]
            position = stop + 1

    def records() -> Iterator[tuple[int, Any]]:
        for number, line in enumerate(lines(), start=1):
            if not line.strip():
                continue
            if not long_digits:
                try:
                    yield number, orjson.loads(line)
                    continue
                except orjson.JSONDecodeError:
                    pass
            # The exact answer, or the exact error with its position, from the slow path.
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise LoadError(
                    f"invalid UTF-8 (byte 0x{line[exc.start]:02x}: {exc.reason})",
                    path=path,
                    line=number,
                    column=exc.start + 1,
                ) from None
            yield number, parse_json(text, path, number - 1, long_digits=long_digits)

    return _load_records(records(), path)


def _load_event_lines(events: list[tuple[int, Any]], path: str | None) -> Transcript:
    from inspector.core.stream_load import load_event_objects

    return load_event_objects(events, path)


def transcript_from_record(
    obj: Any, path: str | None = None, line: int | None = 1, fmt: str | None = None
) -> Transcript:
    """Build a transcript from one parsed record (request, response, chat or Anthropic message)."""
    b = _Builder(path)
    kind = _add_record(b, _Record(obj, line, ""))
    return b.transcript(fmt or _FORMAT_OF_KIND[kind])


def load_bytes(data: bytes, path: str | None = None) -> Transcript:
    """Load a transcript from the bytes of a file."""
    body = data[len(codecs.BOM_UTF8) :] if data.startswith(codecs.BOM_UTF8) else data
    if not body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        with paused_gc():
            loaded = _jsonl_bytes(body, path)
        if loaded is not None:
            return loaded
    return load_text(decode_text(data, path), path, data=data)


def load_path(path: str | os.PathLike[str]) -> Transcript:
    """Load a transcript file; never modifies it."""
    name = os.fspath(path)
    return load_bytes(read_bytes(name), name)


# --------------------------------------------------------------------------------------------
# Tool files


def load_tools(path: str | os.PathLike[str]) -> dict[str, Tool]:
    """Load tool schemas from a tools array, a request body, or a {name: schema} object."""
    name = os.fspath(path)
    text = decode_text(read_bytes(name), name)
    if text.startswith("\ufeff"):
        text = text[1:]
    document = parse_json(text, name)
    return tools_from_document(document, name)


def tools_from_document(document: Any, source: str) -> dict[str, Tool]:
    """Read tool schemas from a parsed tools document (see load_tools)."""
    if isinstance(document, dict) and isinstance(document.get("tools"), list):
        listed = document["tools"]
        base = "/tools"
    elif isinstance(document, list):
        listed, base = document, ""
    elif isinstance(document, dict) and (
        document.get("type") == "function" or "input_schema" in document
    ):
        listed, base = [document], ""
    elif isinstance(document, dict):
        tools: dict[str, Tool] = {}
        for key, schema in document.items():
            if not isinstance(schema, dict | bool):
                raise LoadError(
                    f"tool {key!r}: a schema must be an object or a boolean, "
                    f"not {_describe(schema)}",
                    path=source,
                )
            tools[key] = Tool(
                key, schema, "function", source, Origin(source, None, join_pointer("", key))
            )
        return tools
    else:
        raise LoadError(
            "expected a tools array, a request body with tools, or an object mapping tool "
            f"names to JSON Schemas; found {_describe(document)}",
            path=source,
        )
    found = {t.name: t for t in tools_from_list(listed, source=source, file=source, pointer=base)}
    if not found and listed:
        raise LoadError("no function tools found in the tools list", path=source)
    return found
