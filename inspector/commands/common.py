"""Pieces shared by the CLI subcommands: exit codes, safe text, JSON output."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TextIO

import orjson

from inspector.core.report import Streamed

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_UNREADABLE = 2

# C0/C1 controls (except tab) and the Unicode bidi overrides: they could drive a terminal or
# reorder what the reader sees, so text from input files never reaches a terminal raw.
# Lone surrogates are escaped too: they cannot be encoded for any terminal.
_UNSAFE = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe_text(value: Any) -> str:
    """Return text for a terminal: control characters from the input escaped."""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape_char, text)


def _encode(value: Any, level: int) -> bytes:
    """One value as indented JSON bytes, its inner lines indented to sit at `level`."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str)
    except (orjson.JSONEncodeError, TypeError):
        # Integers beyond 64 bits and lone surrogates from the input: orjson refuses them, the
        # standard library writes them exactly (surrogates as \u escapes).
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = json.dumps(value, ensure_ascii=True, indent=2, default=str).encode("ascii")
    return data.replace(b"\n", b"\n" + b"  " * level) if level else data


def _write(value: Any, level: int, write: Callable[[bytes], Any]) -> None:
    inner = b"  " * (level + 1)
    if isinstance(value, Streamed):
        opened = False
        for element in value.elements:
            write((b",\n" if opened else b"[\n") + inner)
            opened = True
            if value.nested:
                _write(element, level + 1, write)
            else:
                write(_encode(element, level + 1))
        write(b"\n" + b"  " * level + b"]" if opened else b"[]")
    elif type(value) is dict and any(isinstance(v, Streamed) for v in value.values()):
        for number, (key, item) in enumerate(value.items()):
            write((b",\n" if number else b"{\n") + inner + _encode(str(key), 0) + b": ")
            _write(item, level + 1, write)
        write(b"\n" + b"  " * level + b"}" if value else b"{}")
    else:
        write(_encode(value, level))


def write_json(document: Any, out: TextIO) -> None:
    """Write one JSON document indented by two spaces; `Streamed` arrays are written lazily."""
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        _write(document, 0, buffer.write)
        buffer.write(b"\n")
        buffer.flush()
    else:
        _write(document, 0, lambda data: out.write(data.decode("utf-8")))
        out.write("\n")


class Style:
    """ANSI styling, active only when writing to a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        """Wrap text in an SGR code when enabled."""
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    @classmethod
    def for_stream(cls, out: TextIO) -> Style:
        """Enable colour only on a TTY."""
        isatty = getattr(out, "isatty", None)
        try:
            return cls(bool(isatty and isatty()))
        except (ValueError, OSError):
            return cls(False)
