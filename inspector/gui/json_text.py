"""JSON as display text: pretty printing, one-line previews, and where a JSON Pointer's value sits.

Qt-free on purpose so the text logic is testable without a display.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from inspector.core.display import show_int
from inspector.core.lazy import LazyPattern

#: Longest text a single cell preview shows.
PREVIEW_LIMIT = 160
#: Longest bare string a cell shows (names, ids, types); the view elides further to its width.
CELL_LIMIT = 1000
#: Strings longer than this are shortened in the JSON panels (the whole value stays copyable):
#: a text view lays out a line in full, and a multi-megabyte line takes seconds to lay out.
STRING_LIMIT = 10_000
#: A JSON panel shows at most this many characters of an item; the rest is cut with a note.
TEXT_LIMIT = 2_000_000
#: Texts longer than this are not scanned for a pointer (the span would not help anyway).
LOCATE_LIMIT = 4 * 1024 * 1024

# Compiled when first used: the window's first frame locates no pointer and escapes no text.
_STRING = LazyPattern(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = LazyPattern(r"-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|Infinity)|true|false|null|NaN")
_SPACE = LazyPattern(r"\s*")


_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: The invisible characters of ASCII text (all of text, or all but line breaks and tabs): the
#: common case, matched far faster than the Unicode classes.
_ASCII_CONTROLS = LazyPattern(r"[\x00-\x1f\x7f]")
_ASCII_CONTROLS_BUT_LINES = LazyPattern(r"[\x00-\x08\x0b-\x1f\x7f]")


def _escape(match: re.Match[str]) -> str:
    ch = match[0]
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if code > 0xFFFF:  # as JSON writes it: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _escape_but_lines(match: re.Match[str]) -> str:
    return match[0] if match[0] in "\n\t" else _escape(match)


def visible(text: str, *, lines: bool = False) -> str:
    """Return text with every invisible or direction-changing character as a visible escape.

    Control and format characters (bidi overrides and isolates, U+200E/F, zero-width ones …)
    and line and paragraph separators become JSON escapes (`\\u202e`, `\\n`): a name cannot
    pass for another, and JSON text stays the same JSON. `lines=True` keeps line breaks and
    tabs, for multi-line panels and tooltips. Every string from a file goes through here before
    it is shown; the raw value is what Copy gives.
    """
    if text.isprintable():
        return text
    if text.isascii():
        if lines:
            return _ASCII_CONTROLS_BUT_LINES.sub(_escape, text)
        return _ASCII_CONTROLS.sub(_escape, text)
    # The gate's pattern (a class of every invisible code point): text like this comes with a
    # loaded file.
    from inspector.core.gate import INVISIBLE

    return INVISIBLE.sub(_escape_but_lines if lines else _escape, text)


def pretty(value: Any) -> str:
    """Return indented JSON; strings stay literals, so `arguments` shows as the string it is."""
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        return repr(value)


def elide(text: str, limit: int, length: int | None = None) -> str:
    """Return `text` cut to at most `limit` characters, ending in '…(N chars)' when cut.

    Nothing is shortened silently: the mark gives the full length (`length`, when the text
    stands for a longer value, else the text's own).
    """
    if len(text) <= limit and length is None:
        return text
    mark = f"…({len(text) if length is None else length:,} chars)"
    return text[: max(limit - len(mark), 0)] + mark


def copy_text(value: Any) -> str:
    """Return a value as the clipboard should get it: strings exactly, other values as JSON."""
    return value if isinstance(value, str) else pretty(value)


def preview(value: Any, limit: int = PREVIEW_LIMIT) -> str:
    """Return a one-line preview of a JSON value for a cell."""
    if isinstance(value, dict):
        text = f"{{…}} {len(value)} key{'s' if len(value) != 1 else ''}"
    elif isinstance(value, list):
        text = f"[…] {len(value)} item{'s' if len(value) != 1 else ''}"
    elif isinstance(value, str) and len(value) > limit:
        # Only the start is encoded: a 200 MB string must not be dumped to show 160 characters.
        return visible(elide(json.dumps(value[:limit], ensure_ascii=False), limit, len(value)))
    elif isinstance(value, int) and not isinstance(value, bool):
        text = show_int(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except ValueError:
            text = repr(value)
    return visible(elide(text, limit))


def label(value: Any, limit: int = CELL_LIMIT) -> str:
    """Return a value as cell text: strings bare, other values as JSON, None as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return visible(elide(value, limit) if len(value) > limit else value)
    return preview(value)


class Shortened(NamedTuple):
    """A string shortened for display: where it is (keys from the item) and its full text."""

    path: tuple[str | int, ...]
    value: str
    key: bool = False

    @property
    def pointer(self) -> str:
        """The JSON Pointer of the value (of the member, for a key)."""
        from inspector.core.model import join_pointer  # imported with the first load

        return join_pointer("", *self.path)


class Display(NamedTuple):
    """JSON text for a panel and what was shortened to keep it displayable."""

    text: str
    shortened: tuple[Shortened, ...] = ()
    cut: int = 0

    @property
    def complete(self) -> bool:
        """Whether the text is the whole value (nothing shortened or cut)."""
        return not self.shortened and not self.cut


def _short(value: str, limit: int) -> str:
    return elide(value, limit, len(value))


def _shorten(value: Any, limit: int, path: tuple[str | int, ...], found: list[Shortened]) -> Any:
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        found.append(Shortened(path, value))
        return _short(value, limit)
    if isinstance(value, dict):
        copy = {}
        for key, child in value.items():
            shown_key = key
            if isinstance(key, str) and len(key) > limit:
                found.append(Shortened((*path, key), key, key=True))
                shown_key = _short(key, limit)
            copy[shown_key] = _shorten(child, limit, (*path, key), found)
        return copy
    if isinstance(value, list):
        return [_shorten(child, limit, (*path, i), found) for i, child in enumerate(value)]
    return value


def display(value: Any, string_limit: int = STRING_LIMIT, text_limit: int = TEXT_LIMIT) -> Display:
    """Return indented JSON for a panel, with long strings shortened and the text bounded.

    A shortened string keeps its quotes and ends in '…(N chars)', so the text stays JSON and
    pointers can still be located in it; `shortened` says which values those are.
    """
    found: list[Shortened] = []
    try:
        text = pretty(_shorten(value, string_limit, (), found))
    except RecursionError:  # the loaders refuse such depth; a pasted value may not have been
        text = "(nested too deeply to show)"
    cut = 0
    if len(text) > text_limit:
        end = text.rfind("\n", 0, text_limit)
        end = end if end > 0 else text_limit
        cut = len(text) - end
        text = text[:end] + f"\n…({cut:,} more chars not shown)"
    return Display(visible(text, lines=True), tuple(found), cut)


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
