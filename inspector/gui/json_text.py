"""JSON as display text: pretty printing, one-line previews, and where a JSON Pointer's value sits.

Qt-free on purpose so the text logic is testable without a display.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Longest text a single cell preview shows.
PREVIEW_LIMIT = 160
#: Texts longer than this are not scanned for a pointer (the span would not help anyway).
LOCATE_LIMIT = 4 * 1024 * 1024

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|Infinity)|true|false|null|NaN")
_SPACE = re.compile(r"\s*")


def pretty(value: Any) -> str:
    """Return indented JSON; strings stay literals, so `arguments` shows as the string it is."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        return repr(value)


def preview(value: Any, limit: int = PREVIEW_LIMIT) -> str:
    """Return a one-line preview of a JSON value for a cell."""
    if isinstance(value, dict):
        text = f"{{…}} {len(value)} key{'s' if len(value) != 1 else ''}"
    elif isinstance(value, list):
        text = f"[…] {len(value)} item{'s' if len(value) != 1 else ''}"
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except ValueError:
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def label(value: Any) -> str:
    """Return a value as cell text: strings bare, other values as JSON, None as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return preview(value)


def pointer_tokens(pointer: str) -> list[str]:
    """Split a JSON Pointer (RFC 6901) into unescaped reference tokens."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


class _Malformed(Exception):
    pass


def _skip_space(text: str, i: int) -> int:
    match = _SPACE.match(text, i)
    return match.end() if match else i


def _skip_value(text: str, i: int) -> int:
    i = _skip_space(text, i)
    if i >= len(text):
        raise _Malformed
    ch = text[i]
    if ch == '"':
        match = _STRING.match(text, i)
        if match is None:
            raise _Malformed
        return match.end()
    if ch in "{[":
        close = "}" if ch == "{" else "]"
        i = _skip_space(text, i + 1)
        if i < len(text) and text[i] == close:
            return i + 1
        while True:
            if ch == "{":
                i = _skip_value(text, i)  # the key
                i = _skip_space(text, i)
                if i >= len(text) or text[i] != ":":
                    raise _Malformed
                i += 1
            i = _skip_space(text, _skip_value(text, i))
            if i < len(text) and text[i] == ",":
                i += 1
                continue
            if i < len(text) and text[i] == close:
                return i + 1
            raise _Malformed
    match = _SCALAR.match(text, i)
    if match is None:
        raise _Malformed
    return match.end()


def _find(text: str, i: int, tokens: list[str]) -> tuple[int, int]:
    i = _skip_space(text, i)
    if not tokens:
        return i, _skip_value(text, i)
    if i >= len(text) or text[i] not in "{[":
        raise _Malformed
    ch, wanted = text[i], tokens[0]
    close = "}" if ch == "{" else "]"
    i = _skip_space(text, i + 1)
    position = 0
    while i < len(text) and text[i] != close:
        if ch == "{":
            end = _skip_value(text, i)
            key = json.loads(text[i:end])
            i = _skip_space(text, end)
            if i >= len(text) or text[i] != ":":
                raise _Malformed
            i += 1
            hit = key == wanted
        else:
            hit = wanted.isdigit() and int(wanted) == position
        if hit:
            return _find(text, i, tokens[1:])
        i = _skip_space(text, _skip_value(text, i))
        position += 1
        if i < len(text) and text[i] == ",":
            i = _skip_space(text, i + 1)
    raise _Malformed


def locate(text: str, pointer: str) -> tuple[int, int] | None:
    """Return the (start, end) character span of the value at `pointer` in JSON text, or None."""
    if len(text) > LOCATE_LIMIT:
        return None
    try:
        return _find(text, 0, pointer_tokens(pointer))
    except (_Malformed, ValueError, RecursionError):
        return None
