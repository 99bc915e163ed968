"""Bytes → text → JSON: reading files, decoding text, and the one JSON parser (lenient or strict).

`read_bytes` reads files, standard input (`-`), pipes and devices, gunzips gzip data, and is
bounded while it reads: by `MAX_FILE_BYTES`, by refusing binary data, and by a cancel flag.

Every JSON value the project reads goes through `loads`:

* **lenient** (files): NaN and Infinity are accepted (a log may carry them outside `arguments`),
  a repeated key keeps its last value, as JSON parsers do;
* **strict** (stream event payloads, and `arguments` with ``unique_keys``): RFC 8259 only, so
  NaN and Infinity are refused, and with ``unique_keys`` a repeated key is refused too, since a
  tool would see either value.

Both keep integers of any size exact and refuse nesting deeper than `MAX_DEPTH`. orjson parses
the common case; the standard library takes over where orjson would be wrong (integers beyond
64 bits, which orjson reads as floats) and gives precise positions for syntax errors.
"""

from __future__ import annotations

import codecs
import gzip
import io
import itertools
import json
import math
import os
import re
import selectors
import stat
import sys
import threading
import time
import zlib
from collections.abc import Generator, Iterator
from decimal import Decimal
from typing import Any

import msgspec
import orjson

from inspector.core.display import TEXT_DIGITS, lift_digit_limit
from inspector.core.errors import ArgumentsError, Cancelled, JSONError, LoadError

#: Reads stop with a clear error as soon as more than this many bytes (after decompression)
#: have come in, whatever size the file reports: a pipe or a device reports none. Read at call
#: time, so a test may lower it.
MAX_FILE_BYTES = 2 * 1024**3
#: Deepest JSON nesting accepted; deeper documents are refused with a clear error.
MAX_DEPTH = 512
#: The path that means standard input, and the name it is shown under.
STDIN = "-"
STDIN_NAME = "<stdin>"
#: Bytes asked for per read; the first chunk is also what binary data is recognised by.
CHUNK_BYTES = 1 << 20
#: How long a read of a pipe waits for data before it looks at its cancel flag again.
POLL_SECONDS = 0.1

GZIP_MAGIC = b"\x1f\x8b"


def inflate_gzip(data: bytes, limit: int) -> tuple[bytes, bool]:
    """A gzip body decompressed to at most `limit` + 1 bytes (one past, so a caller can tell it
    is too large), and whether its stream ended; zlib.error when it is not gzip."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return inflater.decompress(data, limit + 1), inflater.eof


#: Bytes gathered before the data is judged: gzip's magic, and the longest BOM (UTF-32).
_SNIFF_BYTES = 4


# --------------------------------------------------------------------------------------------
# Bytes


def display_name(path: str | os.PathLike[str]) -> str:
    """The name a file is shown under: `<stdin>` for `-`, otherwise the path as given."""
    name = os.fspath(path)
    return STDIN_NAME if name == STDIN else name


def read_bytes(
    path: str | os.PathLike[str],
    *,
    cancel: threading.Event | None = None,
    limit: int | None = None,
) -> bytes:
    """Read a file, pipe, device or standard input (`-`) for loading, gunzipping gzip data.

    The read is bounded as it happens (`limit`, by default `MAX_FILE_BYTES`, counts the bytes
    after decompression), binary data is refused on its first chunk, and `cancel` is looked at
    between chunks and while a pipe waits for a writer. Every failure is a LoadError naming
    the file.
    """
    name = display_name(path)
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd, info, owned = _open(os.fspath(path))
        try:
            return _read_fd(fd, info, name, limit, cancel)
        finally:
            if owned:
                os.close(fd)
    except LoadError:
        raise
    except MemoryError:
        # The buffer is released by now; a memory-capped process gets a message, not a trace.
        raise LoadError("not enough memory to read the file", path=name) from None
    except FileNotFoundError:
        raise LoadError("no such file", path=name) from None
    except IsADirectoryError:
        raise LoadError("is a directory, not a file", path=name) from None
    except PermissionError:
        raise LoadError("permission denied", path=name) from None
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror or exc}", path=name) from None


def _open(path: str) -> tuple[int, os.stat_result, bool]:
    """Open for reading: the descriptor, its status, and whether it is ours to close."""
    if path == STDIN:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, ValueError, OSError):
            raise LoadError("there is no standard input to read", path=STDIN_NAME) from None
        owned = False
    else:
        flags = os.O_RDONLY | getattr(os, "O_BINARY", 0)
        if stat.S_ISFIFO(os.stat(path).st_mode):
            # Opening a named pipe that has no writer blocks until one comes, past any cancel;
            # opened non-blocking, the wait happens in `_chunks`, which can be cancelled.
            flags |= os.O_NONBLOCK
        fd, owned = os.open(path, flags), True
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(path)
    except BaseException:
        if owned:
            os.close(fd)
        raise
    return fd, info, owned


def _read_fd(
    fd: int, info: os.stat_result, name: str, limit: int, cancel: threading.Event | None
) -> bytes:
    raw = _chunks(fd, info, name, cancel)
    head = b""
    for chunk in raw:  # a pipe may hand over a single byte first
        head += chunk
        if len(head) >= _SNIFF_BYTES:
            break
    gzipped = head.startswith(GZIP_MAGIC)
    if gzipped:
        chunks = _gunzip(head, raw, name)
    else:
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise LoadError(
                f"file is {info.st_size:,} bytes; the limit is {_size(limit)}", path=name
            )
        if stat.S_ISREG(info.st_mode) and head:
            raw.close()
            return _read_regular(fd, info, name, head, limit, cancel)
        chunks = itertools.chain((head,), raw)
    # BytesIO hands its buffer over without a copy, so the file is held once.
    buffer = io.BytesIO()
    total = 0
    for chunk in chunks:
        # Checked here too: one compressed chunk can decompress to a gigabyte.
        _check_cancel(cancel, name)
        if not chunk:
            continue
        if not total:
            _refuse_binary(chunk, name, gzipped)
        total += len(chunk)
        if total > limit:
            what = "decompressed data" if gzipped else "input" if name == STDIN_NAME else "file"
            raise LoadError(f"{what} is larger than the limit of {_size(limit)}", path=name)
        buffer.write(chunk)
    if stat.S_ISREG(info.st_mode) and not gzipped and total < info.st_size:
        raise _cut_short(info, total, name)
    return buffer.getvalue()


def _read_regular(
    fd: int,
    info: os.stat_result,
    name: str,
    head: bytes,
    limit: int,
    cancel: threading.Event | None,
) -> bytes:
    """The rest of a regular file read straight into one buffer of its size, after `head`.

    Chunks copied into a growing buffer cost a second copy of the file and its regrowth (a
    fifth of a large session's page faults); the kernel writes into this one directly.
    """
    _refuse_binary(head, name, False)
    size = len(head) + max(info.st_size - os.lseek(fd, 0, os.SEEK_CUR), 0)
    buffer = io.BytesIO()
    buffer.seek(size - 1)
    buffer.write(b"\0")  # sized once; BytesIO still hands its buffer over without a copy
    filled = len(head)
    with buffer.getbuffer() as view:
        view[:filled] = head
        while filled < size:
            _check_cancel(cancel, name)
            read = os.readv(fd, [view[filled : filled + CHUNK_BYTES]])
            if not read:
                break
            filled += read
    if filled < size:
        raise _cut_short(info, filled, name)
    buffer.seek(filled)
    for chunk in _chunks(fd, info, name, cancel):  # what was written after it was opened
        filled += len(chunk)
        if filled > limit:
            raise LoadError(f"file is larger than the limit of {_size(limit)}", path=name)
        buffer.write(chunk)
    return buffer.getvalue()


def _cut_short(info: os.stat_result, read: int, name: str) -> LoadError:
    """The error of a regular file that ended before its size when opened."""
    # A log being rotated, a copy being rewritten: the parser would only say "Unterminated
    # string".
    return LoadError(
        f"the file changed while it was read: {info.st_size:,} bytes when opened, {read:,} read",
        path=name,
    )


def _chunks(
    fd: int, info: os.stat_result, name: str, cancel: threading.Event | None
) -> Generator[bytes]:
    """Yield the descriptor's bytes chunk by chunk; a pipe is waited on in short polls."""
    # Only a pipe or a socket is waited on: a regular file, whose read never waits, gets no
    # selector (an epoll descriptor made and closed for every file a scan reads).
    selector = None
    if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
    try:
        while True:
            _check_cancel(cancel, name)
            if selector is not None and not selector.select(POLL_SECONDS):
                continue
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except BlockingIOError:
                if selector is None:  # a non-blocking terminal, nothing typed yet: no busy loop
                    time.sleep(POLL_SECONDS)
                continue
            if not chunk:
                return
            yield chunk
    finally:
        if selector is not None:
            selector.close()


def _check_cancel(cancel: threading.Event | None, name: str) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"{name}: reading was cancelled")


class _ChunkReader(io.RawIOBase):
    """A readable file over chunks already read, so the gzip module can read a pipe."""

    def __init__(self, head: bytes, rest: Iterator[bytes]) -> None:
        super().__init__()
        self._pending = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        """Always: this file is only ever read."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill `buffer` from the pending chunk, reading the next when it runs out."""
        while not self._pending:
            chunk = next(self._rest, None)
            if chunk is None:
                return 0
            self._pending = memoryview(chunk)
        count = min(len(buffer), len(self._pending))
        buffer[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count


def _gunzip(head: bytes, rest: Iterator[bytes], name: str) -> Iterator[bytes]:
    """Yield the decompressed data chunk by chunk, so a bomb is stopped by the caller's limit."""
    try:
        with gzip.GzipFile(fileobj=_ChunkReader(head, rest), mode="rb") as archive:
            while chunk := archive.read(CHUNK_BYTES):
                yield chunk
    except EOFError:
        raise LoadError("gzip data is cut short (no end-of-stream marker)", path=name) from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise LoadError(f"corrupt gzip data: {exc}", path=name) from None


def refuse_binary(chunk: bytes, name: str) -> None:
    """Raise the LoadError `read_bytes` gives for a file whose first chunk (its first
    CHUNK_BYTES) is binary: a NUL byte or invalid UTF-8, and no UTF-16/32 BOM."""
    _refuse_binary(chunk, name, False)


def read_at(handle: int, length: int, offset: int) -> bytes:
    """`length` bytes at `offset` of a file (OSError when it ends before them)."""
    pieces = []
    while length:
        piece = os.pread(handle, length, offset)
        if not piece:
            raise OSError("the file ended early")
        pieces.append(piece)
        length -= len(piece)
        offset += len(piece)
    return b"".join(pieces)  # one piece (nearly always) is itself, not a copy


def _refuse_binary(chunk: bytes, name: str, gzipped: bool) -> None:
    """Refuse a first chunk that holds a NUL byte or invalid UTF-8 (and no UTF-16/32 BOM)."""
    if is_wide(chunk):
        return  # UTF-16 and UTF-32 text is full of NUL bytes; decoding it checks it
    if chunk.startswith(b"PK\x03\x04") and not gzipped:
        return  # a zip archive (an Inspect .eval log): its format's reader checks it
    where = " of the decompressed data" if gzipped else ""
    nul = chunk.find(b"\0")
    if nul >= 0:
        raise LoadError(
            f"binary data, not a transcript (a NUL byte at byte offset {nul}{where})", path=name
        )
    try:
        # Not final: a character cut by the end of the chunk is not an error.
        codecs.utf_8_decode(chunk, "strict", False)
    except UnicodeDecodeError as exc:
        located = utf8_error(chunk, exc, name)
        raise LoadError(
            f"binary data, not a transcript ({located.message} at byte offset {exc.start}{where})",
            path=name,
            line=located.line,
            column=located.column,
        ) from None


def _size(count: int) -> str:
    """A byte count with its binary unit when it is a whole one: '2,147,483,648 bytes (2 GiB)'."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= scale and count % scale == 0:
            return f"{count:,} bytes ({count // scale} {unit})"
    return f"{count:,} bytes"


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def is_wide(data: bytes) -> bool:
    """Whether the data starts with a UTF-16 or UTF-32 byte-order mark."""
    return data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE))


def strip_utf8_bom(data: bytes) -> bytes:
    """Return the data without a leading UTF-8 byte-order mark."""
    return data[len(codecs.BOM_UTF8) :] if data.startswith(codecs.BOM_UTF8) else data


def decode_text(data: bytes, path: str | None = None) -> str:
    """Decode UTF-8 (with or without BOM) or BOM-marked UTF-16/32; say where bad bytes are."""
    for bom, encoding in _BOMS:
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
        raise utf8_error(data, exc, path) from None


def utf8_error(
    data: bytes, exc: UnicodeDecodeError, path: str | None, line: int | None = None
) -> LoadError:
    """Return the LoadError for invalid UTF-8 in `data` (a whole file, or one line of it)."""
    if line is None:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    else:
        column = exc.start + 1
    return LoadError(
        f"invalid UTF-8 (byte 0x{data[exc.start]:02x}: {exc.reason})",
        path=path,
        line=line,
        column=column,
    )


# --------------------------------------------------------------------------------------------
# JSON

# orjson reads an integer beyond 64 bits as a float, silently losing digits; any run of 19 or
# more digits sends the text to the standard library, which keeps such integers exact.
# Digits → "0", so one substring search (memmem) finds any run of 19 digits: a regex would try
# a match at every character and hold the interpreter for most of a second on a large file.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19
_WINDOW = 1 << 20


def _as_bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


def has_long_digits(text: str | bytes) -> bool:
    """Whether the text holds a run of 19 or more digits (a number orjson may not keep exact)."""
    data = _as_bytes(text)
    # In 1 MB windows (overlapping by 18 bytes), so a loader thread never holds the
    # interpreter long enough for the window to stutter.
    for start in range(0, max(len(data), 1), _WINDOW):
        window = data[max(start - 18, 0) : start + _WINDOW]
        if _NINETEEN_ZEROS in window.translate(_DIGITS_TO_ZERO):
            return True
    return False


class _DuplicateKey(ValueError):
    pass


class _Constant(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _Constant(f"{name} is not valid JSON (RFC 8259 has no NaN or Infinity)")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


# The integers parsed here may be longer than Python will turn into text by default: lift its
# limit once, for every module that shows or writes them.
lift_digit_limit()


#: Texts below this size are parsed by orjson whatever the memory limit (the check costs a read).
_HEADROOM_FROM = 32 * 1024**2
#: Address space orjson may need per byte of text: its buffer, tape and the Python objects.
_HEADROOM_FACTOR = 8


def orjson_has_headroom(size: int) -> bool:
    """Whether orjson can parse `size` bytes within the address-space limit (RLIMIT_AS).

    orjson can crash the process when an allocation fails on its error path (a huge invalid
    document near the limit); the standard library raises MemoryError instead, which the
    command reports in one line. No limit, or a small text: True.
    """
    if size < _HEADROOM_FROM:
        return True
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return True
        with open("/proc/self/statm", encoding="ascii") as statm:
            used = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return True
    return limit - used > _HEADROOM_FACTOR * size


_MALFORMED = re.compile(r"JSON is malformed: (.+) \(byte (\d+)\)$")
#: Words the lenient parser reads as numbers where msgspec stops.
_CONSTANTS = (b"NaN", b"Infinity", b"-Infinity")
#: Continuation bytes of UTF-8: deleted, what is left counts the characters.
_CONTINUATION = bytes(range(0x80, 0xC0))


def syntax_error(text: str | bytes, start: int = 0, stop: int | None = None) -> JSONError | None:
    """The first syntax error of text[start:stop], found without building its value, or None.

    For a document too big to give orjson (no headroom) and that the standard library would
    build whole before reaching its error: msgspec walks it (`msgspec.Raw` keeps nothing) and
    names the byte where it stops. None when it is valid, or when only the full parser can
    tell (a NaN the lenient parser reads, an error msgspec gives no byte for, non-ASCII text).
    """
    stop = len(text) if stop is None else stop
    if isinstance(text, str):
        if not text.isascii():
            return None
        view: Any = text if (start, stop) == (0, len(text)) else text[start:stop]
        data: str | bytes = text
        newline: Any = "\n"
    else:
        view, data, newline = memoryview(text)[start:stop], text, b"\n"
    try:
        msgspec.json.decode(view, type=msgspec.Raw)
    except msgspec.DecodeError as exc:
        found = _MALFORMED.match(str(exc))
        if found is None:
            return None
        at = start + int(found.group(2))
        # msgspec stops inside a word (`nope` at its `o`); the standard library names where the
        # value starts.
        while at > start and data[at - 1 : at].isalpha():
            at -= 1
        head = data[at : at + 9]
        if (head.encode("ascii") if isinstance(head, str) else head).startswith(_CONSTANTS):
            return None
        begins = data.rfind(newline, start, at) + 1 or start
        column = at - begins + 1
        if isinstance(data, bytes):
            # Characters, not bytes, as the standard library counts columns.
            column = 1 + sum(
                len(data[n : min(n + _WINDOW, at)].translate(None, _CONTINUATION))
                for n in range(begins, at, _WINDOW)
            )
        line = data.count(newline, start, at) + 1
        return JSONError(found.group(1), line, column, at - start)
    return None


#: Bytes looked at a time when a column is counted.
_WINDOW = 1 << 20


def _parse_int(text: str) -> int:
    # int() refuses over 4300 digits (CVE-2020-10735 guard); Decimal has no such limit, but
    # conversion is quadratic: a million digits would take a minute.
    if len(text) > TEXT_DIGITS + 1:
        raise ValueError(f"an integer of {len(text):,} digits is longer than {TEXT_DIGITS:,}")
    try:
        return int(text)
    except ValueError:
        return int(Decimal(text))


def _finite_float(text: str) -> float:
    # `1e999` is valid JSON text, but as a number it is infinity, which strict JSON cannot hold
    # (and a validator would see as null).
    value = float(text)
    if not math.isfinite(value):
        raise _Constant(f"{text[:40]} is too large for a JSON number (it overflows to infinity)")
    return value


_LENIENT = json.JSONDecoder(parse_int=_parse_int)
_STRICT = json.JSONDecoder(
    parse_constant=_reject_constant, parse_int=_parse_int, parse_float=_finite_float
)
_STRICT_UNIQUE = json.JSONDecoder(
    object_pairs_hook=_unique,
    parse_constant=_reject_constant,
    parse_int=_parse_int,
    parse_float=_finite_float,
)


def parse(
    text: str | bytes,
    *,
    strict: bool = False,
    unique_keys: bool = False,
    long_digits: bool | None = None,
) -> Any:
    """Parse one JSON value; raise JSONError with the position of the first problem.

    `long_digits=False` says the caller already knows the text has no run of 19 digits;
    `long_digits=True` that orjson is not to be asked (it may round such a run, or it has
    refused the text already).
    """
    if long_digits is None:
        long_digits = has_long_digits(text)
    roomy = orjson_has_headroom(len(text))
    if not roomy:
        # The standard library would build the value up to its error, past the memory left.
        found = syntax_error(text)
        if found is not None:
            raise found
    if not long_digits and roomy:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # e.g. NaN or a lone surrogate escape: the standard library decides
        else:
            # orjson keeps a repeated key's last value; when every colon of the text is a
            # member the value holds, no key was repeated. Otherwise (a colon in a string,
            # or a repeated key) the standard library decides.
            colons = text.count(":") if isinstance(text, str) else text.count(b":")
            if not unique_keys or colons == (_members(value)):
                _check_depth(value, text)
                return value
    decoder = _STRICT_UNIQUE if unique_keys else _STRICT if strict else _LENIENT
    source = text if isinstance(text, str) else _decode_for_json(text)
    try:
        value = decoder.decode(source)
    except _DuplicateKey as exc:
        raise JSONError(f"duplicate key {exc.args[0]!r} makes the value ambiguous") from None
    except _Constant as exc:
        raise JSONError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise JSONError(exc.msg, exc.lineno, exc.colno, exc.pos) from None
    except RecursionError:
        raise JSONError(f"JSON is nested too deeply (limit {MAX_DEPTH} levels)", 1) from None
    except ValueError as exc:
        raise JSONError(str(exc) or exc.__class__.__name__) from None
    _check_depth(value, source)
    return value


def _members(value: Any) -> int:
    """How many members the objects of a parsed value hold in all."""
    count = 0
    stack = [value]
    while stack:
        current = stack.pop()
        if type(current) is dict:
            count += len(current)
            stack.extend(v for v in current.values() if type(v) is dict or type(v) is list)
        elif type(current) is list:
            stack.extend(v for v in current if type(v) is dict or type(v) is list)
    return count


def _decode_for_json(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONError(f"invalid UTF-8 (byte 0x{data[exc.start]:02x}: {exc.reason})") from None


def _check_depth(value: Any, text: str | bytes) -> None:
    # The bracket count bounds the depth, so the exact walk runs only when it could matter.
    brackets = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else text.count(b"[") + text.count(b"{")
    )
    if brackets <= MAX_DEPTH:
        return
    if depth_exceeds(value):
        raise JSONError(f"JSON is nested more than {MAX_DEPTH} levels deep", 1)


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed value nests deeper than `limit` (iterative: no recursion limit)."""
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(current, dict):
            stack.extend((v, depth + 1) for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            stack.extend((v, depth + 1) for v in current if isinstance(v, dict | list))
    return False


def load_json(
    text: str | bytes,
    path: str | None = None,
    line_offset: int = 0,
    *,
    long_digits: bool | None = None,
) -> Any:
    """Parse a file's JSON leniently; a failure is a LoadError naming the file, line and column."""
    try:
        return parse(text, long_digits=long_digits)
    except JSONError as exc:
        nested = exc.message.startswith("JSON is nested")
        line = (exc.line or 1) + line_offset
        message = exc.message
        if message.endswith(" at") and exc.column is not None:
            # The standard library words some errors to be followed by their position.
            message += f" line {line} column {exc.column}"
        raise LoadError(
            message if nested else f"invalid JSON: {message}",
            path=path,
            line=line,
            column=exc.column,
        ) from None


#: What strict_fast gives back when the text needs the full strict parser.
UNDECIDED: Any = object()


#: Brackets a text may hold for every value orjson reads from it to be one it can write back
#: (orjson writes 254 levels of nesting and refuses a 255th; it reads more). Below MAX_DEPTH.
_WRITABLE_BRACKETS = 254
#: The longest text whose value orjson surely writes back: each level of nesting takes an
#: opening and a closing bracket, so 509 bytes nest at most 254 levels, which orjson writes.
_SHALLOW = 509


def strict_fast(text: str) -> tuple[Any, bool]:
    """A strict parse by orjson alone, or UNDECIDED when only the full parser may answer
    (`parse_arguments_checked`, which words any error; a JSONError here is one too deep).

    Each check of the strict parser runs only when cheap byte counts say it can matter: a long
    integer needs a run of 19 digits in the text (one `bytes.translate` and one search), a
    repeated key two colons. Each member of the text has its colon, so a text with no more
    colons than the value has members repeats no key: an object holding no other object (no
    `{` after the first byte) has `len` members. Otherwise orjson drops a repeated
    key's first value, so the canonical text it writes back holds fewer colons than the input;
    a `\\u` escape could spell a colon and hide that, so it sends the text to the full parser.
    The flag says the value is known to be one orjson writes back (see `parse_arguments_checked`);
    beside UNDECIDED, that orjson refused the text (see `parse_undecided`).
    """
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate, which orjson refuses: the full parser
        return UNDECIDED, False
    size = len(data)
    # `find`, not `in`: a bytes `in` first tries its operand as an int, and the TypeError it
    # formats and drops costs more than the search (about 1,800 instructions a test).
    if size >= 19 and (
        data.translate(_DIGITS_TO_ZERO).find(_NINETEEN_ZEROS) >= 0
        if size <= _WINDOW
        else has_long_digits(data)
    ):
        return UNDECIDED, False
    if size >= _HEADROOM_FROM and not orjson_has_headroom(size):
        return UNDECIDED, False
    try:
        value = orjson.loads(data)  # no NaN, no lone surrogate, no invalid UTF-8
    except orjson.JSONDecodeError:
        return UNDECIDED, True  # refused: the full parser need not ask orjson again
    colons = data.count(b":")
    if colons > 1 and not (type(value) is dict and colons == len(value) and data.find(b"{", 1) < 0):
        if data.find(b"\\u") >= 0:
            return UNDECIDED, False
        try:
            if orjson.dumps(value).count(b":") != colons:
                return UNDECIDED, False
        except orjson.JSONEncodeError:  # nested past orjson's writing depth
            return UNDECIDED, False
        # Written back: nested no deeper than orjson writes, far from MAX_DEPTH.
        return value, True
    if size <= _SHALLOW:
        # Too short to nest past either limit (most arguments): the brackets are not counted.
        return value, True
    brackets = data.count(b"[") + data.count(b"{")
    if brackets > MAX_DEPTH:
        _check_depth(value, data)
    # orjson read it (64-bit integers, no lone surrogate): it writes it back unless too deep.
    return value, brackets <= _WRITABLE_BRACKETS


def parse_arguments(text: str) -> Any:
    """Parse an `arguments` string as strict JSON: no NaN/Infinity, no duplicate keys."""
    return parse_arguments_checked(text)[0]


def parse_arguments_checked(text: str) -> tuple[Any, bool]:
    """parse_arguments, and whether the value is known to be one orjson can write back.

    The schema validator asks that of every instance (`schema.validate`'s `writable`); the fast
    path has often just found out, and saying so spares a second serialisation.
    """
    try:
        value, flag = strict_fast(text) if isinstance(text, str) else (UNDECIDED, False)
    except JSONError as exc:
        raise _arguments_error(exc) from None
    if value is not UNDECIDED:
        return value, flag
    return parse_undecided(text, flag), False


def parse_undecided(text: str, refused: bool = False) -> Any:
    """parse_arguments of a text `strict_fast` left UNDECIDED, by the full strict parser
    (`refused`: the flag it gave, that orjson refused the text, which is then not asked again).
    """
    try:
        return parse(text, strict=True, unique_keys=True, long_digits=True if refused else None)
    except JSONError as exc:
        raise _arguments_error(exc) from None


def _arguments_error(exc: JSONError) -> ArgumentsError:
    """The ArgumentsError of a JSONError met parsing `arguments`, worded for them."""
    message = exc.message.replace("makes the value ambiguous", "makes the arguments ambiguous")
    if exc.column is not None:
        # The standard library words some errors to be followed by their position.
        message = message.removesuffix(" at")
    if message.startswith("JSON is nested"):
        message = "arguments are nested too deeply to parse"
    return ArgumentsError(message, exc.line if exc.column else None, exc.column)


def parse_event(raw: str | bytes) -> tuple[Any, str | None]:
    """Parse a stream event's data strictly; return (value, None) or (None, the reason)."""
    try:
        return parse(raw, strict=True), None
    except JSONError as exc:
        return None, exc.describe()


# --------------------------------------------------------------------------------------------
# Locating array elements in a JSON text (for line numbers of items in one JSON document)

_NOT_SPACE = re.compile(r"\S")
_SCANNER = json.JSONDecoder()


def first_non_space(text: str, start: int = 0) -> int | None:
    """Return the offset of the first non-whitespace character at or after `start`."""
    found = _NOT_SPACE.search(text, start)
    return None if found is None else found.start()


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
    position = first_non_space(text)
    if position is None:
        return None
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
